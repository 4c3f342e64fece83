import { describe, expect, it } from "vitest";
import { describePath, messageInWords, pathTokens } from "./problemWords";
import type { TeamSpec } from "./types";

const spec: TeamSpec = {
  agents: [
    { id: "triage", role: "triage", prompt: "p" },
    { id: "logistics", role: "logistics", prompt: "p" },
    { id: "quality_supervisor", role: "quality_supervisor", prompt: "p" },
  ],
  edges: [
    { source: "triage", target: "logistics", kind: "dependency" },
    { source: "logistics", target: "quality_supervisor", kind: "communication" },
  ],
  reward: { terms: [{ term: "task", weights: {} }, { term: "exploration_bonus", weights: {} }] },
  evolution: { phases: [{ name: "exploration", threshold: 0.3 }] },
};

describe("describePath", () => {
  it("splits a path into keys and indices", () => {
    expect(pathTokens("$.reward.terms[1].weights.exploration")).toEqual(["reward", "terms", 1, "weights", "exploration"]);
    expect(pathTokens("$")).toEqual([]);
  });

  it("names a link by its ends and selects it", () => {
    expect(describePath(spec, "$.edges[1]")).toEqual({
      words: "the communication link from logistics to quality_supervisor",
      target: { kind: "edge", index: 1, path: "$.edges[1]" },
    });
    expect(describePath(spec, "$.edges[0].target").words).toBe("the end of the dependency from triage to logistics");
  });

  it("names an agent's field and selects the agent", () => {
    const d = describePath(spec, "$.agents[1].lora.r");
    expect(d.words).toBe("the agent logistics's LoRA rank");
    expect(d.target).toEqual({ kind: "agent", id: "logistics", path: "$.agents[1].lora.r" });
    expect(describePath(spec, "$.agents[0].prompt").words).toBe("the agent triage's prompt");
  });

  it("names a reward weight by term and phase and opens the Reward tab", () => {
    expect(describePath(spec, "$.reward.terms[1].weights.exploration")).toEqual({
      words: 'the weight of the reward term "exploration bonus" in the exploration phase',
      target: { kind: "tab", tab: "reward", path: "$.reward.terms[1].weights.exploration" },
    });
  });

  it("names schedule, training, environment and safety fields", () => {
    expect(describePath(spec, "$.evolution.phases[0].threshold").words).toBe("the exploration phase's advance score");
    expect(describePath(spec, "$.evolution.phases[0].threshold").target).toMatchObject({ tab: "schedule" });
    expect(describePath(spec, "$.training.batch_size").words).toBe('the training setting "episodes per update"');
    expect(describePath(spec, "$.training.lr").words).toBe('the training setting "learning rate"');
    // An option the Training tab does not show: the opening of its declared description.
    expect(describePath(spec, "$.training.entropy_coef").words).toBe('the training setting "weight of the policy-entropy bonus"');
    // A description that starts with its choices says nothing as a name: the key with spaces.
    expect(describePath(spec, "$.training.reading").words).toBe('the training setting "reading"');
    expect(describePath(spec, "$.agents[1].policy_head.hidden").words).toBe(
      "the agent logistics's policy head size (hidden units)",
    );
    expect(describePath(spec, "$.environment.params.max_turns").words).toBe('the environment setting "max turns"');
    expect(describePath(spec, "$.circuit_breaker.cooldown_s").words).toBe("the circuit breaker's cooldown (seconds)");
    expect(describePath(spec, "$.fallback.rules[2].action").target).toMatchObject({ tab: "safety" });
  });

  it("falls back to positions for what the spec no longer holds", () => {
    expect(describePath(spec, "$.edges[9]")).toEqual({ words: "link #10", target: null });
    expect(describePath(spec, "$")).toEqual({ words: "the workflow", target: null });
  });

  it("puts the paths inside a message into words", () => {
    expect(messageInWords(spec, "duplicate agent id (also $.agents[2])")).toBe("duplicate agent id (also the agent quality_supervisor)");
  });
});
