import type { AgentSpec, RoleInfo, TeamSpec, ValidationReport } from "./types";

/** Whether the spec declares an intent catalogue of its own (`environment.params.intents`, e.g. a dataset's):
 * then a specialist's prompt left out is written from the intents it owns (agents/spec/prompts.py). */
export function hasOwnCatalogue(spec: TeamSpec): boolean {
  const intents = spec.environment?.params?.intents;
  return Array.isArray(intents) && intents.length > 0;
}

/** Whether `agent`'s prompt is still its role's default, as the template or a new node wrote it: the user
 * never changed it (a role without a default prompt, like custom, has none to keep). */
export function promptUnchanged(agent: AgentSpec, role: RoleInfo | undefined): boolean {
  return !!role?.default_prompt && agent.prompt === role.default_prompt;
}

/** The edit that gives `agent` the intents `intents`. Under a catalogue of the spec's own, a prompt still its
 * role's default is left out, so the server writes it from the intents it owns and it follows them from now
 * on; a prompt the user edited is never touched (the report warns when it no longer speaks of them). */
export function intentsPatch(
  agent: AgentSpec,
  intents: string[],
  role: RoleInfo | undefined,
  ownCatalogue: boolean,
): Partial<AgentSpec> {
  return ownCatalogue && promptUnchanged(agent, role) ? { intents, prompt: undefined } : { intents };
}

/** What the prompt box shows: the agent's own prompt, else the one the server says it is given (else ""). */
export function shownPrompt(agent: AgentSpec, report: ValidationReport | null): string {
  return agent.prompt ?? report?.prompts?.[agent.id] ?? "";
}

/** Beside a prompt left out, in words: where its text comes from and that it follows until edited. Null
 * for a prompt the user wrote (or kept). */
export function promptSource(agent: AgentSpec, role: RoleInfo | undefined, report: ValidationReport | null): string | null {
  if (agent.prompt !== undefined) return null;
  const given = report?.prompts?.[agent.id];
  if (given === undefined) return "Not written: the server fills it in.";
  return given === (role?.default_prompt ?? "")
    ? "Not written: its role's default prompt, until you edit it."
    : "Written from the intents it owns (their names and descriptions): it follows them until you edit it.";
}

/** The report's warnings at the agent's prompt ("… may be out of date"), in words. */
export function promptWarnings(report: ValidationReport | null, index: number): string[] {
  const path = `$.agents[${index}].prompt`;
  return (report?.warnings ?? []).filter((w) => w.path === path).map((w) => w.message);
}
