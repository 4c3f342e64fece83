import { describe, expect, it } from "vitest";
import { splitDiagnostics } from "./diagnostics";

describe("splitDiagnostics", () => {
  it("keeps the evaluation's figures apart from the optimiser's", () => {
    const { evaluation, diagnostics } = splitDiagnostics([
      ["exact_match", 0.93],
      ["clip_frac", 0.2],
      ["return", 1.4],
      ["useful_share_student", 0.4],
    ]);
    expect(evaluation.map(([k]) => k)).toEqual(["exact_match", "return"]);
    expect(diagnostics.map(([k]) => k)).toEqual(["clip_frac", "useful_share_student"]);
  });
});
