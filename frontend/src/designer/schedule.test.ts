import { describe, expect, it } from "vitest";
import { withoutPhase, withPhase } from "./schedule";
import type { TeamSpec } from "./types";

const ORDER = ["exploration", "exploitation", "transfer"];
// the library's default phases, as the catalogue serves them (mase_web/workflows/api.py `_spec_defaults`)
const DEFAULTS = [
  { name: "exploration", threshold: 0.3 },
  { name: "exploitation", threshold: 0.9 },
  { name: "transfer", threshold: 1.0 },
];
const spec: TeamSpec = {
  agents: [],
  evolution: { phases: [{ name: "exploration", threshold: 0.2 }, { name: "transfer", threshold: 1 }] },
  reward: { terms: [{ term: "task", weights: { exploration: 0.5, transfer: 1 } }] },
};

describe("phases", () => {
  it("adds a phase in the scheduler's order, between its neighbours' thresholds, with a neighbour's weights", () => {
    const next = withPhase(spec, "exploitation", ORDER, DEFAULTS);
    expect(next.evolution?.phases).toEqual([
      { name: "exploration", threshold: 0.2 },
      { name: "exploitation", threshold: 0.6 },
      { name: "transfer", threshold: 1 },
    ]);
    expect(next.reward?.terms?.[0].weights).toEqual({ exploration: 0.5, exploitation: 0.5, transfer: 1 });
    expect(spec.evolution?.phases).toHaveLength(2); // the input is not changed
  });

  it("adds a first phase before the others", () => {
    const next = withPhase(withoutPhase(spec, "exploration", DEFAULTS), "exploration", ORDER, DEFAULTS);
    expect(next.evolution?.phases?.map((p) => p.name)).toEqual(["exploration", "transfer"]);
    expect(next.evolution?.phases?.[0].threshold).toBe(0.5);
  });

  it("removes a phase together with its reward weights", () => {
    const next = withoutPhase(spec, "exploration", DEFAULTS);
    expect(next.evolution?.phases).toEqual([{ name: "transfer", threshold: 1 }]);
    expect(next.reward?.terms?.[0].weights).toEqual({ transfer: 1 });
  });

  it("starts from the library's default phases when the spec lists none", () => {
    const bare: TeamSpec = { agents: [] };
    expect(withoutPhase(bare, "transfer", DEFAULTS).evolution?.phases).toEqual(DEFAULTS.slice(0, 2));
    expect(withPhase(bare, "exploration", ORDER, DEFAULTS)).toBe(bare); // a default phase is there already
    const two = withoutPhase(bare, "exploitation", DEFAULTS);
    expect(withPhase(two, "exploitation", ORDER, DEFAULTS).evolution?.phases?.[1]).toEqual({ name: "exploitation", threshold: 0.65 });
  });
});
