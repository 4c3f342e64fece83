import { describe, expect, it } from "vitest";
import { behaviourChange, teamProblems, toggledIntents } from "./AgentIntents";
import type { TeamSpec } from "./types";

const catalogue = ["order_tracking", "delivery_delay", "address_change"].map((name) => ({ name, description: name }));

describe("intent checkboxes", () => {
  it("ticks and unticks in catalogue order", () => {
    expect(toggledIntents(catalogue, ["address_change"], "order_tracking")).toEqual(["order_tracking", "address_change"]);
    expect(toggledIntents(catalogue, ["order_tracking", "address_change"], "address_change")).toEqual(["order_tracking"]);
  });

  it("shows only what the team as a whole lacks", () => {
    const errors = [
      { path: "$.agents", message: "nobody owns the intents return_refund, damaged_item: give them to an agent" },
      { path: "$.agents[2].intents", message: "agent helper owns no intents: tick the intents it handles" },
    ];
    expect(teamProblems(errors)).toEqual([errors[0].message]);
    expect(teamProblems(undefined)).toEqual([]);
  });
});

describe("changes behaviour: retrain", () => {
  const published: TeamSpec = {
    agents: [{ id: "logistics", role: "logistics", prompt: "You track parcels.", intents: ["order_tracking"] }],
  };
  it("flags a prompt or intents edited after publishing", () => {
    const agent = published.agents[0];
    expect(behaviourChange(published, agent)).toBeNull();
    expect(behaviourChange(published, { ...agent, prompt: "You change addresses." })).toBe("prompt");
    expect(behaviourChange(published, { ...agent, intents: ["address_change"] })).toBe("intents");
    expect(behaviourChange(published, { ...agent, clue: "range" })).toBe("clue kind");
    expect(behaviourChange(published, { ...agent, id: "new_agent" })).toBeNull();
    expect(behaviourChange(null, agent)).toBeNull();
  });
});
