import { describe, expect, it } from "vitest";
import { describeMessages, plainText } from "./messages";

describe("describeMessages", () => {
  it("reads the runtime's attention log as who listened to whom, received first, weights kept for a bar", () => {
    const lines = describeMessages(
      { received: [{ from: "router", weight: 0.7 }], sent: [{ to: "billing", weight: 0.25 }, { to: "qa", weight: 1.2 }] },
      "resolver",
    );
    expect(lines).toEqual([
      { from: "router", to: "resolver", text: "", weight: 0.7 },
      { from: "resolver", to: "billing", text: "", weight: 0.25 },
      { from: "resolver", to: "qa", text: "", weight: 1 },
    ]);
    for (const line of lines) expect(line.text).not.toMatch(/attention|\d/);
  });

  it("puts what an agent received first even when the log's keys come sent first (as PostgreSQL stores them)", () => {
    const lines = describeMessages({ sent: [{ to: "billing", weight: 0.25 }], received: [{ from: "router", weight: 0.7 }] }, "resolver");
    expect(lines.map((l) => l.from)).toEqual(["router", "resolver"]);
  });

  it("reads a list of chat messages with sender, recipient and text, keeping extra fields as words", () => {
    const lines = describeMessages(
      [
        { sender: "triage", recipient: "refunds", content: "order 77 is damaged", priority: "high" },
        { from: "refunds", to: "triage", text: "refund issued" },
      ],
      "triage",
    );
    expect(lines).toEqual([
      { from: "triage", to: "refunds", text: "order 77 is damaged · priority high" },
      { from: "refunds", to: "triage", text: "refund issued" },
    ]);
  });

  it("treats a single message object as one line and a string as itself", () => {
    expect(describeMessages({ from: "a", to: "b", message: "hi" }, "a")).toEqual([{ from: "a", to: "b", text: "hi" }]);
    expect(describeMessages("escalated to a human", "a")).toEqual([{ text: "escalated to a human" }]);
  });

  it("has nothing to say about empty logs", () => {
    for (const empty of [{}, [], { in: [] }, { received: [], sent: [] }, null, undefined, ""]) {
      expect(describeMessages(empty, "a")).toEqual([]);
    }
  });

  it("labels unknown fields by name without braces or quotes", () => {
    const lines = describeMessages({ summary: { intent: "refund", score: 0.912 }, notes: ["late", "damaged"] }, "a");
    expect(lines).toEqual([{ text: "summary: intent refund, score 0.91" }, { text: "notes: late" }, { text: "notes: damaged" }]);
    for (const line of lines) expect(line.text).not.toMatch(/[{}"[\]]/);
  });
});

describe("plainText", () => {
  it("writes integers whole, fractions with two decimals, lists with commas", () => {
    expect(plainText([1, 0.5, "x", null, true])).toBe("1, 0.50, x, true");
  });
});
