import { describe, expect, it } from "vitest";
import { defaultMetrics } from "./MetricCurves";

describe("the learning curves shown before the user picks", () => {
  it("are success, reward and messages under the REINFORCE trainer's names", () => {
    expect(defaultMetrics(["attention_entropy", "loss", "messages", "reward", "success"])).toEqual(["success", "reward", "messages"]);
  });

  it("are success, return and messages per episode under the PPO trainers' names", () => {
    const mappo = ["clip_frac", "entropy", "messages_per_episode", "policy_loss", "return", "steps_per_episode", "success"];
    expect(defaultMetrics(mappo)).toEqual(["success", "return", "messages_per_episode"]);
  });

  it("fall back to the first three metrics of a run that reports none of them", () => {
    expect(defaultMetrics(["a", "b", "c", "d"])).toEqual(["a", "b", "c"]);
  });
});
