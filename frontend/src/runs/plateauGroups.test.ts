import { describe, expect, it } from "vitest";
import { groupPlateaus } from "./plateauGroups";

describe("groupPlateaus", () => {
  it("groups by recommendation, most frequent first, with the episode span", () => {
    const warnings = [
      { seq: 1, episode: 100, cycles: 2, recommendation: "raise lr" },
      { seq: 2, episode: 300, cycles: 3, recommendation: "add exploration" },
      { seq: 3, episode: 500, cycles: 5, recommendation: "raise lr" },
      { seq: 4, episode: null, cycles: null, recommendation: "" },
    ];
    const groups = groupPlateaus(warnings);
    expect(groups.map((g) => [g.recommendation, g.count])).toEqual([
      ["raise lr", 2],
      ["add exploration", 1],
      ["no recommendation", 1],
    ]);
    expect(groups[0]).toMatchObject({ firstEpisode: 100, lastEpisode: 500, maxCycles: 5 });
    expect(groups[2]).toMatchObject({ firstEpisode: null, maxCycles: null });
  });
});
