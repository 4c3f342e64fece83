import { describe, expect, it } from "vitest";
import { withoutPhase, withPhase } from "./schedule";
import type { TeamSpec } from "./types";

const ORDER = ["exploration", "exploitation", "transfer"];
const spec: TeamSpec = {
  agents: [],
  evolution: { phases: [{ name: "exploration", threshold: 0.2 }, { name: "transfer", threshold: 1 }] },
  reward: { terms: [{ term: "task", weights: { exploration: 0.5, transfer: 1 } }] },
};

describe("phases", () => {
  it("adds a phase in the scheduler's order, between its neighbours' thresholds, with a neighbour's weights", () => {
    const next = withPhase(spec, "exploitation", ORDER);
    expect(next.evolution?.phases).toEqual([
      { name: "exploration", threshold: 0.2 },
      { name: "exploitation", threshold: 0.6 },
      { name: "transfer", threshold: 1 },
    ]);
    expect(next.reward?.terms?.[0].weights).toEqual({ exploration: 0.5, exploitation: 0.5, transfer: 1 });
    expect(spec.evolution?.phases).toHaveLength(2); // the input is not changed
  });

  it("adds a first phase before the others", () => {
    const next = withPhase(withoutPhase(spec, "exploration"), "exploration", ORDER);
    expect(next.evolution?.phases?.map((p) => p.name)).toEqual(["exploration", "transfer"]);
    expect(next.evolution?.phases?.[0].threshold).toBe(0.5);
  });

  it("removes a phase together with its reward weights", () => {
    const next = withoutPhase(spec, "exploration");
    expect(next.evolution?.phases).toEqual([{ name: "transfer", threshold: 1 }]);
    expect(next.reward?.terms?.[0].weights).toEqual({ transfer: 1 });
  });
});
