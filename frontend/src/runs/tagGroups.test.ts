import { describe, expect, it } from "vitest";
import { groupByTag } from "./tagGroups";
import type { RunSummary } from "./types";

const run = (id: number, tags: string[]) => ({ id, tags }) as unknown as RunSummary;

describe("groupByTag", () => {
  it("puts a run under each of its tags, untagged runs last", () => {
    const groups = groupByTag([run(1, ["lr sweep"]), run(2, []), run(3, ["baseline", "lr sweep"])]);
    expect(groups.map((g) => [g.tag, g.runs.map((r) => r.id)])).toEqual([
      ["baseline", [3]],
      ["lr sweep", [1, 3]],
      ["", [2]],
    ]);
  });
});
