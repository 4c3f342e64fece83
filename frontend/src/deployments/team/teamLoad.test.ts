import { describe, expect, it } from "vitest";
import {
  addAllocation,
  lastAllocationText,
  loadCells,
  members,
  winsShown,
} from "./teamLoad";
import type { AllocationEvent } from "./teamTypes";

const agents = ["guides_0", "guides_1", "couriers_0"];

function event(
  step: number,
  winner: string | null,
  backlog: number[],
  online = [true, true, true],
): AllocationEvent {
  const bids: Record<string, number> = winner
    ? { [winner]: 2, generalists_0: 1 }
    : {};
  return {
    kind: "allocation",
    episode: 1,
    request_id: "r1",
    step,
    allocation: { task: step - 1, kind: "presales", bids, winner },
    load: { backlog, online, handed_over: 0 },
  };
}

describe("the deployment's allocation heat map", () => {
  it("keeps the newest tasks only", () => {
    let columns = addAllocation([], event(1, "guides_0", [1, 0, 0]), 2);
    columns = addAllocation(columns, event(2, "guides_1", [1, 2, 0]), 2);
    columns = addAllocation(columns, event(3, null, [0.5, 2, 0]), 2);
    expect(columns.map((c) => c.task)).toEqual([1, 2]);
    expect(columns[0].bidders).toBe(2);
    expect(lastAllocationText(columns)).toBe(
      "Task 2 (presales): 0 bids, nobody took it.",
    );
  });

  it("shades each agent's backlog against the largest shown, marks the winners and the offline", () => {
    const columns = [
      event(1, "guides_0", [4, 0, 1]),
      event(2, "couriers_0", [0, 2, 2], [false, true, true]),
    ].reduce(
      (cols, e) => addAllocation(cols, e),
      [] as ReturnType<typeof addAllocation>,
    );
    const { cells, max } = loadCells(columns, agents);
    expect(max).toBe(4);
    expect(cells).toHaveLength(6);
    const first = cells.find((c) => c.agent === "guides_0" && c.col === 0)!;
    expect(first).toMatchObject({
      backlog: 4,
      shade: 1,
      won: true,
      online: true,
    });
    expect(first.bid).toBe(2);
    expect(
      cells.find((c) => c.agent === "guides_1" && c.col === 0)!.bid,
    ).toBeNull();
    const away = cells.find((c) => c.agent === "guides_0" && c.col === 1)!;
    expect(away).toMatchObject({
      backlog: 0,
      shade: 0,
      won: false,
      online: false,
    });
    expect(winsShown(columns)).toEqual([
      { agent: "couriers_0", wins: 1 },
      { agent: "guides_0", wins: 1 },
    ]);
    expect(lastAllocationText(columns)).toBe(
      "Task 1 (presales): 2 bids, won by couriers_0.",
    );
  });

  it("lists the members group by group", () => {
    const roster = {
      groups: [
        { id: "guides", members: ["guides_0", "guides_1"] },
        { id: "couriers", members: ["couriers_0"] },
      ],
      offline: [],
      switches: [],
    };
    expect(members(roster)).toEqual(agents);
    expect(members(undefined)).toEqual([]);
  });
});
