import { describe, expect, it } from "vitest";
import { attentionMatrix, bySteps, errorLines, percent, stepsText } from "./format";
import type { Decision } from "./types";

const decision = (step: number, agent: string, received: { from: string; weight: number }[] = []): Decision =>
  ({ step, agent, messages: { received } }) as unknown as Decision;

describe("deployment format helpers", () => {
  it("stepsText says one step in the singular", () => {
    expect([0, 1, 2].map(stepsText)).toEqual(["0 steps", "1 step", "2 steps"]);
  });

  it("bySteps groups decisions by step in step order, keeping arrival order within a step", () => {
    const groups = bySteps([decision(2, "b"), decision(1, "a"), decision(2, "a")]);
    expect(groups.map(([step, ds]) => [step, ds.map((d) => d.agent)])).toEqual([
      [1, ["a"]],
      [2, ["b", "a"]],
    ]);
  });

  it("attentionMatrix puts what each listener received in its row, 0 where nothing came", () => {
    const matrix = attentionMatrix(
      ["a", "b", "c"],
      [decision(1, "a", [{ from: "b", weight: 0.7 }, { from: "c", weight: 0.3 }]), decision(1, "b", [{ from: "a", weight: 1 }])],
    );
    expect(matrix).toEqual([
      [0, 0.7, 0.3],
      [1, 0, 0],
      [0, 0, 0],
    ]);
  });

  it("percent and errorLines", () => {
    expect(percent(0.1234)).toBe("12.3%");
    expect(percent(null)).toBe("–");
    expect(errorLines({ text: ["This field may not be blank."] }, "failed")).toEqual(["text: This field may not be blank."]);
    expect(errorLines({}, "failed")).toEqual(["failed"]);
  });
});
