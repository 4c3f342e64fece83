import { describe, expect, it } from "vitest";

import { rewardRows, withWeight } from "./RewardComposer";
import type { RewardTerm } from "./types";

const weights = (exploration: number, exploitation: number, transfer: number) => ({ exploration, exploitation, transfer });
// The phase_rewards preset, in the catalogue's order, and the explicit task term a new design starts with.
const PHASE_REWARDS: RewardTerm[] = [
  { term: "task", weights: weights(0.3, 0.9, 0) },
  { term: "entropy_bonus", weights: weights(0.7, 0, 0) },
  { term: "coherence_penalty", weights: weights(0, -0.1, 0) },
  { term: "transfer_score", weights: weights(0, 0, 0.5) },
];
const names = (terms: RewardTerm[]) => rewardRows(PHASE_REWARDS, terms).map((r) => r.term.term);

describe("the reward table's rows", () => {
  it("stay in place while a preset row is edited, so a second edit lands in the same row", () => {
    let terms: RewardTerm[] = [{ term: "task", weights: weights(1, 1, 1) }];
    const before = names(terms);
    const second = rewardRows(PHASE_REWARDS, terms)[1];
    expect(second.term.term).toBe("entropy_bonus");
    expect(second.index).toBe(-1); // still the preset's

    terms = withWeight(terms, second.term, "exploration", 0.5);
    expect(names(terms)).toEqual(before);
    const again = rewardRows(PHASE_REWARDS, terms)[1];
    expect(again.term).toEqual({ term: "entropy_bonus", weights: weights(0.5, 0, 0) });
    expect(terms[again.index].term).toBe("entropy_bonus"); // now explicit, overriding the preset

    terms = withWeight(terms, again.term, "exploitation", 0.2);
    expect(names(terms)).toEqual(before);
    expect(rewardRows(PHASE_REWARDS, terms)[1].term.weights).toEqual(weights(0.5, 0.2, 0));
  });

  it("show explicit terms over the preset's, and terms the preset lacks after its own", () => {
    const terms: RewardTerm[] = [
      { term: "collaboration_bonus", weights: weights(0.1, 0.1, 0.1) },
      { term: "task", weights: weights(1, 1, 1) },
    ];
    const rows = rewardRows(PHASE_REWARDS, terms);
    expect(rows.map((r) => [r.term.term, r.index])).toEqual([
      ["task", 1],
      ["entropy_bonus", -1],
      ["coherence_penalty", -1],
      ["transfer_score", -1],
      ["collaboration_bonus", 0],
    ]);
    expect(rows[0].term.weights).toEqual(weights(1, 1, 1));
  });
});
