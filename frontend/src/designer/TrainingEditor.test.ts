import { describe, expect, it } from "vitest";

import { algorithmWords, withAlgorithm } from "./TrainingEditor";
import type { AlgorithmInfo } from "./types";

const info = (name: AlgorithmInfo["name"], ppo: boolean, centralised_critic: boolean): AlgorithmInfo => ({
  name,
  description: name,
  ppo,
  deployable: ppo,
  data_parallel: true,
  centralised_critic,
  messages: name !== "ippo",
});

const ppoTraining = { algorithm: "mappo" as const, episodes: 10, counterfactual: true, policy_sharing: "lora" as const, teacher: "rules" as const };

describe("withAlgorithm", () => {
  it("drops the PPO settings for an algorithm the catalogue says is not PPO", () => {
    const next = withAlgorithm(ppoTraining, info("reinforce_comm", false, false));
    expect(next).toEqual({ algorithm: "reinforce_comm", episodes: 10 });
  });

  it("drops only the counterfactual baseline for a PPO trainer without a centralised critic", () => {
    const next = withAlgorithm(ppoTraining, info("ippo", true, false));
    expect(next).toEqual({ algorithm: "ippo", episodes: 10, policy_sharing: "lora", teacher: "rules" });
  });

  it("keeps everything for a PPO trainer with a centralised critic", () => {
    expect(withAlgorithm(ppoTraining, info("mappo", true, true))).toEqual(ppoTraining);
  });
});

describe("algorithmWords", () => {
  it("cuts a description to the algorithm's name", () => {
    expect(algorithmWords("multi-agent PPO: per-agent actors, one centralised critic, learned communication")).toBe("multi-agent PPO");
    expect(algorithmWords("REINFORCE with learned attention communication (the default)")).toBe("REINFORCE");
    expect(algorithmWords("plain words")).toBe("plain words");
  });
});
