import { describe, expect, it } from "vitest";

import { declaredIn, declaredOption } from "./declaredOptions";
import { choicesOf } from "./TrainingEditor";

describe("declaredOption (from the committed spec.schema.json)", () => {
  it("gives the training defaults the editor used to type by hand", () => {
    const defaults = ["episodes", "batch_size", "lr", "seed", "teacher_coef", "teacher_fade_episodes", "self_imitation"].map(
      (key) => declaredOption("training", key).default,
    );
    expect(defaults).toEqual([3000, 32, 0.003, 0, 1, 0, 0]);
    expect(declaredOption("training", "algorithm").default).toBe("reinforce_comm");
    expect(declaredOption("training", "counterfactual")).toMatchObject({ kind: "boolean", default: false });
  });

  it("reads an integer's range and its description", () => {
    expect(declaredOption("training", "episodes")).toEqual({
      kind: "integer",
      default: 3000,
      min: 1,
      max: 1_000_000_000,
      choices: undefined,
      description: "training episodes in all",
    });
  });

  it("takes an open bound as the field's bound", () => {
    expect(declaredOption("training", "lr")).toMatchObject({ kind: "number", min: 0, max: 1 });
    expect(declaredOption("communication", "d_k")).toMatchObject({ kind: "integer", min: 1, max: 1024, default: 32 });
  });

  it("reads a nullable option as its own type, null its default", () => {
    const entropy = declaredOption("training", "entropy_coef");
    expect(entropy).toMatchObject({ kind: "number", min: 0, max: 10, default: null });
    expect(entropy.description).toMatch(/algorithm's own default/);
    expect(declaredOption("communication", "protocol")).toMatchObject({ kind: "string", choices: ["dense", "hcp"], default: null });
  });

  it("reads a choice's values in the library's order", () => {
    expect(declaredOption("training", "teacher").choices).toEqual(["none", "rules", "expert", "checkpoint"]);
    expect(declaredOption("backbone", "pooling")).toMatchObject({ kind: "string", choices: ["mean", "cls", "last"], default: "mean" });
  });

  it("refuses a section or an option the schema does not declare", () => {
    expect(() => declaredOption("nowhere", "x")).toThrow(/no section nowhere/);
    expect(() => declaredOption("training", "nothing")).toThrow(/no option training.nothing/);
  });

  it("reads another schema when given one", () => {
    const schema = {
      properties: { s: { $ref: "#/$defs/S" } },
      $defs: { S: { properties: { k: { anyOf: [{ type: "integer", minimum: 2, exclusiveMaximum: 5 }, { type: "null" }], default: 3, description: "d" } } } },
    };
    expect(declaredOption("s", "k", schema)).toEqual({ kind: "integer", default: 3, min: 2, max: 5, choices: undefined, description: "d" });
    expect(() => declaredOption("s", "k", { properties: { s: { $ref: "#/$defs/T" } } })).toThrow(/no #\/\$defs\/T/);
  });
});

describe("choicesOf", () => {
  it("words each declared choice, in the schema's order", () => {
    const words = { shared: "one network", lora: "a trunk and adapters", independent: "one each" };
    expect(choicesOf("policy_sharing", words)).toEqual([
      ["lora", "a trunk and adapters"],
      ["independent", "one each"],
      ["shared", "one network"],
    ]);
  });
});

describe("declaredIn", () => {
  it("reads an agent's nested options by their part's schema name", () => {
    expect(declaredIn("LoraSpec", "r")).toMatchObject({ kind: "integer", default: 4, min: 1, max: 256 });
    expect(declaredIn("LoraSpec", "dropout")).toMatchObject({ min: 0, max: 1 });
    expect(declaredIn("AgentSpec", "update_period").min).toBe(1);
  });
  it("names what it cannot find", () => {
    expect(() => declaredIn("NoSuchSpec", "r")).toThrow("no part NoSuchSpec");
    expect(() => declaredIn("LoraSpec", "rank")).toThrow("no option LoraSpec.rank");
  });
});
