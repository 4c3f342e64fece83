import { describe, expect, it } from "vitest";
import { REWARD_MODEL_POLL_MS, isTraining, rewardModelPollInterval } from "./queries";

describe("rewardModelPollInterval", () => {
  it("polls a reward model while it trains and stops once it succeeded or failed", () => {
    expect(rewardModelPollInterval({ state: "queued" })).toBe(REWARD_MODEL_POLL_MS);
    expect(rewardModelPollInterval({ state: "running" })).toBe(REWARD_MODEL_POLL_MS);
    expect(rewardModelPollInterval({ state: "succeeded" })).toBe(false);
    expect(rewardModelPollInterval({ state: "failed" })).toBe(false);
    expect(rewardModelPollInterval(undefined)).toBe(false);
  });

  it("calls nothing a training model", () => {
    expect(isTraining(null)).toBe(false);
  });
});
