import { describe, expect, it } from "vitest";
import { behaviourChange, editEffect, proposedIntents, teamProblems, toggledIntents } from "./AgentIntents";
import customerService from "../../../examples/customer_service.json";
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

describe("what an edit changes, as the inspector says it", () => {
  const published: TeamSpec = {
    agents: [{ id: "logistics", role: "logistics", prompt: "You track parcels.", intents: ["order_tracking"] }],
  };
  const agent = published.agents[0];
  const reworded = { ...agent, prompt: "You track parcels, kindly." };
  it("a prompt routes work only where the policy learned to read jobs from prompts", () => {
    const dealt = editEffect(published, reworded, { param: "deal_roles", on: true }, 3);
    expect(dealt).toEqual({ retrain: true, text: expect.stringMatching(/^routes work: retrain — the prompt differs from published version 3; the policy reads each agent's job from its prompt \(deal_roles\)/) });
    const fixed = editEffect(published, reworded, { param: "deal_roles", on: false }, 3);
    expect(fixed?.retrain).toBe(true);
    expect(fixed?.text).toMatch(/^changes the policy's input: retrain — .*follows its Responsibilities \(deal_roles is off\)/);
  });
  it("where no policy reads prompts, a prompt edit changes the reply's wording only", () => {
    const none = editEffect(published, reworded, { param: null, on: false }, 3);
    expect(none?.retrain).toBe(false);
    expect(none?.text).toMatch(/^changes the reply's wording only — the prompt differs .*no retraining needed$/);
    expect(none?.text).not.toMatch(/retrain —/);
  });
  it("intents always route work, whatever the prompts do", () => {
    const moved = editEffect(published, { ...agent, intents: ["address_change"] }, { param: null, on: false }, 3);
    expect(moved).toEqual({ retrain: true, text: "routes work: retrain — the intents differ from published version 3; its intents set the answers it may give" });
    expect(editEffect(published, agent, { param: "deal_roles", on: true }, 3)).toBeNull();
  });
});

describe("the prompt proposes Responsibilities", () => {
  const intents = [
    { name: "product_question", description: "Questions about a product: specifications, size, material, compatibility, stock." },
    { name: "recommendation", description: "Asks which product to buy: suggestions, comparisons, gift ideas." },
    { name: "order_tracking", description: "Where an order or parcel is now: tracking number, shipping status, courier." },
    { name: "delivery_delay", description: "A delivery that is late, overdue or has not arrived yet." },
    { name: "address_change", description: "Change or correct the delivery address of an order, redirect a parcel." },
    { name: "return_refund", description: "Return an item, cancel an order, get the money back." },
    { name: "damaged_item", description: "An item that arrived broken, cracked, dented, leaking or not working." },
    { name: "complaint", description: "Unhappy with the service or staff, asks to escalate to a manager." },
  ];
  const shipped = Object.fromEntries(customerService.agents.map((a) => [a.id, a]));
  it("reads the shipped shopping guide's and logistics agent's jobs from their prompts", () => {
    // the guide's "Hand delivery questions to logistics and complaints to …" names work it does not do
    expect(proposedIntents(shipped.shopping_guide.prompt, intents)).toEqual(shipped.shopping_guide.intents);
    expect(proposedIntents(shipped.logistics.prompt, intents)).toEqual(shipped.logistics.intents);
  });
  it("follows a rewritten prompt, so swapping two prompts proposes swapping their Responsibilities", () => {
    expect(proposedIntents(shipped.shopping_guide.prompt, intents)).not.toEqual(proposedIntents(shipped.logistics.prompt, intents));
    expect(proposedIntents("You handle complaints and escalate unhappy customers to a manager.", intents)).toEqual(["complaint"]);
    expect(proposedIntents("You are helpful.", intents)).toEqual([]);
  });
});
