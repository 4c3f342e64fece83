import { describe, expect, it } from "vitest";
import customerService from "../../../examples/customer_service.json";
import { hasOwnCatalogue, intentsPatch, promptSource, promptUnchanged, promptWarnings, shownPrompt } from "./agentPrompt";
import type { AgentSpec, RoleInfo, TeamSpec, ValidationReport } from "./types";

const template = customerService as unknown as TeamSpec;
const guide = template.agents[0];
// the template writes each role's default prompt; the roles' catalogue serves the same text
const role: RoleInfo = {
  name: "shopping_guide",
  description: "Recommends and compares products for the customer.",
  default_prompt: guide.prompt!,
  decision_weight: 0.8,
  external_uncertainty: 0.8,
};
const bikeShop: TeamSpec = {
  ...template,
  environment: { name: "customer_service", params: { intents: [{ name: "rental", description: "Wants to rent a bike." }] } },
};
const derived = "You answer the customer's requests about rental (wants to rent a bike). Leave other requests to your teammates.";
const report = (prompts: Record<string, string>, warnings: ValidationReport["warnings"] = []): ValidationReport => ({
  valid: false,
  errors: [],
  warnings,
  advice: null,
  prompts,
});

describe("a specialist's prompt follows the intents it is given", () => {
  it("knows a catalogue of the spec's own from the shipped one", () => {
    expect(hasOwnCatalogue(template)).toBe(false);
    expect(hasOwnCatalogue(bikeShop)).toBe(true);
    expect(hasOwnCatalogue({ agents: [], environment: { name: "customer_service", params: { intents: [] } } })).toBe(false);
  });

  it("leaves out a prompt still its role's default when intents of the spec's own are ticked", () => {
    expect(promptUnchanged(guide, role)).toBe(true);
    const patch = intentsPatch(guide, ["rental"], role, true);
    expect(patch).toEqual({ intents: ["rental"], prompt: undefined });
    expect("prompt" in patch).toBe(true); // the edit removes it (the draft is saved as JSON: no prompt key)
    expect(JSON.parse(JSON.stringify({ ...guide, ...patch }))).not.toHaveProperty("prompt");
  });

  it("never touches a prompt the user edited, nor the shipped catalogue's prompts", () => {
    const edited: AgentSpec = { ...guide, prompt: `${guide.prompt} Be brief.` };
    expect(intentsPatch(edited, ["rental"], role, true)).toEqual({ intents: ["rental"] });
    expect(intentsPatch(guide, ["product_question"], role, false)).toEqual({ intents: ["product_question"] });
    // a role without a default prompt (custom) has none to keep
    const custom: AgentSpec = { id: "desk", role: "custom", prompt: "" };
    expect(intentsPatch(custom, ["rental"], { ...role, name: "custom", default_prompt: "" }, true)).toEqual({ intents: ["rental"] });
  });

  it("shows the prompt the server gives a specialist without one, and says where it comes from", () => {
    const following: AgentSpec = { ...guide, prompt: undefined, intents: ["rental"] };
    expect(shownPrompt(following, report({ shopping_guide: derived }))).toBe(derived);
    expect(promptSource(following, role, report({ shopping_guide: derived }))).toMatch(/^Written from the intents it owns/);
    expect(promptSource(following, role, report({ shopping_guide: role.default_prompt }))).toMatch(/role's default prompt/);
    expect(shownPrompt(guide, report({ shopping_guide: derived }))).toBe(guide.prompt);
    expect(promptSource(guide, role, report({}))).toBeNull();
    expect(shownPrompt(following, null)).toBe("");
  });

  it("lists the report's warnings at this agent's prompt only", () => {
    const warnings = [
      { path: "$.agents[0].prompt", message: "agent shopping_guide's prompt does not speak of rental, which it owns: it may be out of date" },
      { path: "$.agents[1].prompt", message: "another agent's" },
      { path: "$.fallback.kind", message: "no rule fallback" },
    ];
    expect(promptWarnings(report({}, warnings), 0)).toEqual([warnings[0].message]);
    expect(promptWarnings(null, 0)).toEqual([]);
  });
});
