import { describe, expect, it } from "vitest";
import { countsText } from "./FinalMetrics";

describe("the counts under a run's final metrics", () => {
  it("say one update in the singular, and counts exactly", () => {
    expect(countsText([["step", 1], ["episode", 64]], { episodes: 64, batch_size: 64 })).toBe("1 update · 64 training episodes · training budget 64 episodes");
  });

  it("say why a PPO run trained past a budget that is not a whole number of updates", () => {
    expect(countsText([["step", 1], ["episode", 64]], { episodes: 32, batch_size: 64 })).toBe(
      "1 update · 64 training episodes · training budget 32 episodes (rounded up to whole updates of 64)",
    );
  });

  it("name the budget alone when nothing was counted", () => {
    expect(countsText([], { episodes: 45000 })).toBe("training budget 45,000 episodes");
    expect(countsText([["step", 1407], ["episode", 45024]], undefined)).toBe("1,407 updates · 45,024 training episodes");
  });
});
