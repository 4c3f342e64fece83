import { describe, expect, it } from "vitest";
import { consoleLabels, describeMatch, scopeVerdictWords, takesTickets, ticketPlaceholder } from "./consoleLabels";

describe("consoleLabels", () => {
  it("calls a writing workflow's request a request and names what it is matched to", () => {
    expect(consoleLabels("research_report")).toMatchObject({ title: "Report request", item: "Topic" });
    expect(consoleLabels("code_generation").item).toBe("Task");
  });
  it("falls back to a customer ticket for every other environment", () => {
    expect(consoleLabels("customer_service").title).toBe("Customer ticket");
    expect(consoleLabels("number_guess").item).toBeNull();
    expect(consoleLabels(undefined).field).toBe("Customer message");
  });
});

describe("ticketPlaceholder", () => {
  const ticket = consoleLabels("customer_service");
  it("shows a ticket of the team's own data, so a library desk is not offered a parcel", () => {
    expect(ticketPlaceholder(ticket, "can I keep the atlas two more weeks?")).toBe("can I keep the atlas two more weeks?");
    expect(ticketPlaceholder(ticket, "What's the battery life on the running shoes?")).toMatch(/running shoes/);
  });
  it("is a neutral invitation without an example (none in the data, or not loaded yet)", () => {
    for (const example of [null, undefined, ""]) expect(ticketPlaceholder(ticket, example)).toBe("Type a ticket for this team…");
    expect(consoleLabels(undefined).placeholder).not.toMatch(/parcel/);
  });
  it("keeps a writing team's own example", () => {
    const report = consoleLabels("research_report");
    expect(ticketPlaceholder(report, null)).toBe(report.placeholder);
    expect(ticketPlaceholder(report, "some ticket")).toBe(report.placeholder);
  });
});

describe("takesTickets", () => {
  it("is false for a conversation or a task stream only", () => {
    expect(["customer_service", "research_report", "interactive_support", "large_team"].map(takesTickets)).toEqual([
      true, true, false, false,
    ]);
  });
});

describe("describeMatch", () => {
  it("says how the item was found", () => {
    expect(describeMatch({ item: "heat_pumps", score: 1, runner_up: null, by: "name" })).toBe(
      "heat pumps (named in the request)",
    );
    expect(describeMatch({ item: "coral_reefs", score: 0.6234, runner_up: "ocean_heat", by: "meaning" })).toBe(
      "coral reefs (matched by meaning, similarity 0.62; next: ocean heat)",
    );
  });
  it("says that nothing matched a request under the similarity floor", () => {
    const under = { item: "cw08", score: 0.41, runner_up: "cw05", by: "meaning" as const, floor: 0.43, in_scope: false };
    expect(describeMatch(under)).toBe("none: the nearest, cw08, scores 0.41, not above the floor 0.43");
  });
  it("reads a routing team's scope-gate check, which names the nearest intent (no item)", () => {
    const gate = { in_scope: false, score: -0.1138, floor: 0.0591, nearest: "damaged_item", by: "example" as const };
    expect(describeMatch(gate)).toBe("none: the nearest, damaged item, scores -0.11, not above the floor 0.06");
    expect(describeMatch({ ...gate, in_scope: true, score: 0.4 })).toBe("damaged item (matched by example, similarity 0.40)");
  });
});

describe("scopeVerdictWords", () => {
  const gate = { handoff: true, nearest: "order_refund", score: 0.4112, floor: 0.5203, in_scope_probability: 0.1234, threshold: 0.95 };
  it("says why the gate turned a ticket away: the nearest intent against the floor, the probability against its threshold", () => {
    expect(scopeVerdictWords(gate)).toBe(
      "turned away: nearest intent 'order refund' at 0.41 (floor 0.52); in-scope probability 0.12 (needs 0.95)",
    );
  });
  it("leaves out the probability for a gate without a none-of-these class, and names a writing team's item", () => {
    const plain = { ...gate, in_scope_probability: null, threshold: null };
    expect(scopeVerdictWords(plain)).toBe("turned away: nearest intent 'order refund' at 0.41 (floor 0.52)");
    expect(scopeVerdictWords({ ...plain, handoff: false, nearest: "heat_pumps" })).toBe(
      "turned away: nearest item 'heat pumps' at 0.41 (floor 0.52)",
    );
  });
  it("prints a third decimal where two would read the same as the bound it missed", () => {
    expect(scopeVerdictWords({ ...gate, score: 0.5199, in_scope_probability: 0.9491 })).toBe(
      "turned away: nearest intent 'order refund' at 0.520 (floor 0.52); in-scope probability 0.949 (needs 0.95)",
    );
  });
  it("says nothing for a played ticket or one stored without the numbers", () => {
    expect(scopeVerdictWords(null)).toBeNull();
    expect(scopeVerdictWords(undefined)).toBeNull();
    expect(scopeVerdictWords({ ...gate, score: null, floor: null })).toBeNull();
  });
});
