import { describe, expect, it } from "vitest";

import { declaredOption, readsOption } from "./declaredOptions";
import schemaText from "./spec.schema.json?raw";
import { algorithmWords, declares, droppedOptions, withAlgorithm, withTeacher } from "./TrainingEditor";
import type { AlgorithmInfo, TrainingSection } from "./types";

const info = (name: AlgorithmInfo["name"], ppo: boolean, centralised_critic: boolean): AlgorithmInfo => ({
  name,
  description: name,
  ppo,
  deployable: ppo,
  data_parallel: true,
  centralised_critic,
  messages: name !== "ippo",
});

type Branch = { properties: Record<string, { default?: unknown; const?: string }> };
const DEFS = JSON.parse(schemaText).$defs as Record<string, Branch & { oneOf?: { $ref: string }[] }>;
/** The union's branches by algorithm, as the schema's `oneOf` lists them. */
const BRANCHES: Record<string, Branch> = Object.fromEntries(
  (DEFS.TrainingSpec.oneOf ?? []).map(({ $ref }) => {
    const branch = DEFS[$ref.replace("#/$defs/", "")];
    return [branch.properties.algorithm.const, branch];
  }),
);

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

  it("drops every option of MAPPO's branch that reinforce_comm's lacks, not a hand-kept list of them", () => {
    const every = Object.fromEntries(Object.entries(BRANCHES.mappo.properties).map(([k, p]) => [k, p.default]));
    const own = Object.keys(BRANCHES.mappo.properties).filter((k) => !(k in BRANCHES.reinforce_comm.properties));
    expect(own).toEqual(expect.arrayContaining(["teacher", "critic_warmup_episodes", "self_imitation"]));
    const before = { ...every, algorithm: "mappo", episodes: 10 } as TrainingSection;
    const next = withAlgorithm(before, info("reinforce_comm", false, false));
    expect(Object.keys(next).sort()).toEqual(Object.keys(BRANCHES.reinforce_comm.properties).filter((k) => k in every).sort());
    expect(droppedOptions(before, next).sort()).toEqual(own.sort());
  });

  it("says which settings a switch dropped, and none when it kept them all", () => {
    const reinforce = { algorithm: "reinforce_comm" as const, lr: 0.01, baseline: "value" as const };
    expect(droppedOptions(reinforce, withAlgorithm(reinforce, info("mappo", true, true)))).toEqual(["baseline"]);
    expect(droppedOptions(ppoTraining, withAlgorithm(ppoTraining, info("mappo", true, true)))).toEqual([]);
  });
});

describe("declares", () => {
  it("narrows the section to the algorithms whose branch has the option", () => {
    const sections: TrainingSection[] = [{}, { algorithm: "reinforce_comm" }, { algorithm: "mappo" }, { algorithm: "ippo" }];
    expect(sections.map((t) => declares(t, "teacher"))).toEqual([false, false, true, true]);
    expect(sections.map((t) => declares(t, "baseline"))).toEqual([true, true, false, false]);
    const ppo = sections[2];
    if (declares(ppo, "teacher")) {
      // the narrowed type has the PPO options: this compiles only because `declares` narrowed it
      expect(withTeacher({ ...ppo, teacher_checkpoint: "12" }, "rules")).toEqual({ algorithm: "mappo", teacher: "rules" });
    }
  });

  it("reads the algorithm's choices and default from the union", () => {
    expect(declaredOption("training", "algorithm")).toMatchObject({ choices: ["reinforce_comm", "mappo", "ippo"], default: "reinforce_comm" });
    expect(declaredOption("training", "teacher").readBy).toEqual(["mappo", "ippo"]);
    expect(declaredOption("training", "lr").readBy).toBeUndefined();
  });
});

describe("readsOption", () => {
  it("answers from the schema's union: common options for all, an options model's for its algorithms", () => {
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
