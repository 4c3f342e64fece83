import { describe, expect, it } from "vitest";

import { readsOption } from "./declaredOptions";
import schemaText from "./spec.schema.json?raw";
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

const TRAINING_SCHEMA = JSON.parse(schemaText).$defs.TrainingSpec as {
  properties: Record<string, { default?: unknown; read_by?: string[] }>;
};

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

  it("drops reinforce_comm's own settings when switching to PPO, and keeps the common ones", () => {
    const reinforce = { algorithm: "reinforce_comm" as const, episodes: 10, lr: 0.01, baseline: "value" as const, reading: "per_agent" as const, token_attention: true };
    expect(withAlgorithm(reinforce, info("mappo", true, true))).toEqual({ algorithm: "mappo", episodes: 10, lr: 0.01 });
    expect(withAlgorithm(reinforce, info("reinforce_comm", false, false))).toEqual(reinforce);
  });

  it("drops every PPO setting the schema declares, not a hand-kept list of them", () => {
    const everyPpoOption = Object.fromEntries(
      Object.entries(TRAINING_SCHEMA.properties).filter(([, p]) => p.read_by?.includes("mappo")).map(([k, p]) => [k, p.default]),
    );
    expect(Object.keys(everyPpoOption)).toEqual(expect.arrayContaining(["teacher", "critic_warmup_episodes", "self_imitation"]));
    const next = withAlgorithm({ algorithm: "mappo", episodes: 10, ...everyPpoOption }, info("reinforce_comm", false, false));
    expect(next).toEqual({ algorithm: "reinforce_comm", episodes: 10 });
  });
});

describe("readsOption", () => {
  it("answers from the schema's read_by: common options for all, an options model's for its algorithms", () => {
    expect(readsOption("reinforce_comm", "lr") && readsOption("ippo", "lr")).toBe(true);
    expect(readsOption("ippo", "teacher") && !readsOption("reinforce_comm", "teacher")).toBe(true);
    expect(readsOption("reinforce_comm", "baseline") && !readsOption("mappo", "baseline")).toBe(true);
  });
});

describe("algorithmWords", () => {
  it("cuts a description to the algorithm's name", () => {
    expect(algorithmWords("multi-agent PPO: per-agent actors, one centralised critic, learned communication")).toBe("multi-agent PPO");
    expect(algorithmWords("REINFORCE with learned attention communication (the default)")).toBe("REINFORCE");
    expect(algorithmWords("plain words")).toBe("plain words");
  });
});
