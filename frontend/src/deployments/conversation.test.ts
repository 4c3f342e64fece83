import { describe, expect, it } from "vitest";
import { awaitingText, decisionText, endedText } from "./conversation";

describe("conversation words", () => {
  it("says who decided what, and whether the model or the rules did", () => {
    const d = { id: 1, step: 2, agent: "triage", action: "ask_problem", source: "fallback" as const, confidence: 1, fault: "" };
    expect(decisionText(d)).toBe("triage: ask problem (rules, 100%)");
    expect(decisionText({ ...d, source: "model", confidence: 0.734 })).toBe("triage: ask problem (model, 73%)");
  });
  it("says how a conversation ended, and nothing while it is open", () => {
    expect(endedText({ status: "open", ended: false })).toBeNull();
    expect(endedText({ status: "escalated", ended: true })).toBe("Conversation escalated: a person from the support team takes over.");
  });
  it("says what the team waits for", () => {
    expect(awaitingText("answer:goal")).toBe("The team waits for the customer's answer (goal).");
    expect(awaitingText("feedback")).toContain("word on its answer");
    expect(awaitingText(null)).toBe("");
  });
});
