import { describe, expect, it } from "vitest";
import { awaitingText, customerWords, decisionText, endedText } from "./conversation";

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
  it("says the customer's word on an answer when they gave it without words", () => {
    expect(customerWords({ customer: "it blinks orange", event: { kind: "answer" } })).toEqual({ text: "it blinks orange", spoken: true });
    expect(customerWords({ customer: "", event: { kind: "accepted" } }).text).toBe("(no words: the answer solved it)");
    // "It did not": the team answers again (or hands over); the turn must not read as if they just "replied"
    expect(customerWords({ customer: "", event: { kind: "answer" } }).text).toBe("(no words: the answer did not solve it)");
    expect(customerWords({ customer: "", event: { kind: "escalated" } }).text).toBe("(no words: the answer did not solve it)");
  });
});
