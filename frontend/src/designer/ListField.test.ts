import { describe, expect, it } from "vitest";

import { groupSizes } from "./groupSizes";
import { listItems, listText, shownListText } from "./ListField";
import type { EnvParam } from "./types";

const GROUPS = ["guides*4: presales=1.0 shipping=0.4 cap=4", "couriers*16: shipping=1.0 cap=4"];

describe("a list parameter's field", () => {
  it("takes one phrase a line where the help says one line each (the large team's groups)", () => {
    expect(listText(GROUPS, "lines")).toBe(GROUPS.join("\n"));
    expect(listItems(`${GROUPS[0]}\n\n  ${GROUPS[1]}  \r\n`, "lines")).toEqual(GROUPS);
    // a line holds its whole group, spaces and all
    expect(listItems("solo: presales=1 cap=2", "lines")).toEqual(["solo: presales=1 cap=2"]);
  });

  it("takes names comma-separated where the list is of names", () => {
    expect(listText(["presales", "shipping"], "list")).toBe("presales, shipping");
    expect(listItems("presales, shipping,,", "list")).toEqual(["presales", "shipping"]);
  });

  it("keeps a new, still empty line or a trailing comma while the next item is typed", () => {
    expect(shownListText(`${GROUPS[0]}\n`, [GROUPS[0]], "lines")).toBe(`${GROUPS[0]}\n`);
    expect(shownListText("presales, ", ["presales"], "list")).toBe("presales, ");
    // a value changed elsewhere (reset, undo) replaces what was typed
    expect(shownListText("presales, ", ["quality"], "list")).toBe("quality");
    expect(shownListText(null, GROUPS, "lines")).toBe(GROUPS.join("\n"));
  });
});

describe("group sizes on the canvas", () => {
  const described: Record<string, EnvParam[]> = {
    large_team: [{ name: "groups", default: ["guides*4: presales=1 cap=4", "mediators: dispute=1 cap=4"], help: "", kind: "lines", choices: [] }],
    customer_service: [{ name: "tickets", default: "train", help: "", kind: "text", choices: [] }],
  };

  it("come from the spec's groups, else the environment's default", () => {
    expect(groupSizes({ name: "large_team", params: { groups: GROUPS } }, described)).toEqual({ guides: 4, couriers: 16 });
    expect(groupSizes({ name: "large_team" }, described)).toEqual({ guides: 4, mediators: 1 });
  });

  it("are none for an environment without groups, or a line that does not parse", () => {
    expect(groupSizes({ name: "customer_service" }, described)).toEqual({});
    expect(groupSizes(undefined, described)).toEqual({});
    expect(groupSizes({ name: "large_team", params: { groups: ["Not a group"] } }, described)).toEqual({});
  });
});
