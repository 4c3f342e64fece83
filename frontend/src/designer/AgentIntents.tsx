import { useQuery } from "@tanstack/react-query";
import { useFieldProblem } from "./fieldProblem";
import { workflowQueries } from "./queries";
import { useDesigner } from "./store";
import type { AgentSpec, IntentInfo, TeamSpec } from "./types";

/** Roles that review the draft answer and own no intents (agents/envs/customer_service/roster.py). */
export const REVIEWER_ROLES = ["quality_supervisor", "reviewer"];

/** The validator's problems with the team as a whole ("nobody owns the intents …"): errors at `$.agents`. */
export function teamProblems(errors: { path: string; message: string }[] | undefined): string[] {
  return (errors ?? []).filter((e) => e.path === "$.agents").map((e) => e.message);
}

/** `owned` with `name` ticked or unticked, in catalogue order. */
export function toggledIntents(catalogue: IntentInfo[], owned: string[], name: string): string[] {
  const set = new Set(owned);
  if (set.has(name)) set.delete(name);
  else set.add(name);
  return catalogue.map((i) => i.name).filter((n) => set.has(n));
}

/** Whether `agent` is told or owns something else than in the published spec: its policy reads both, so
 * the trained version no longer matches (null when nothing is published or the agent is new). */
export function behaviourChange(published: TeamSpec | null, agent: AgentSpec): string | null {
  const before = published?.agents.find((a) => a.id === agent.id);
  if (!before) return null;
  const changed = [];
  if ((before.prompt ?? "") !== (agent.prompt ?? "")) changed.push("prompt");
  if ((before.intents ?? []).join(",") !== (agent.intents ?? []).join(",")) changed.push("intents");
  if ((before.clue ?? null) !== (agent.clue ?? null)) changed.push("clue kind");
  return changed.length ? changed.join(" and ") : null;
}

/** The spec of the workflow's latest published version (fetched once per version), or null (also when it
 * cannot be read). */
export function usePublishedSpec(workflowId?: number, version?: number | null): TeamSpec | null {
  const wanted = !!workflowId && !!version;
  const { data } = useQuery({ ...workflowQueries.version(workflowId ?? 0, version ?? 0), enabled: wanted });
  return wanted ? (data?.spec ?? null) : null;
}

interface Props {
  agent: AgentSpec;
  index: number;
  catalogue: IntentInfo[];
  readOnly: boolean;
}

/** The intents an agent owns, as checkboxes with the catalogue's descriptions, and what the team lacks. */
export function IntentChecklist({ agent, index, catalogue, readOnly }: Props) {
  const { updateAgent } = useDesigner.getState();
  const report = useDesigner((s) => s.report);
  const path = `$.agents[${index}].intents`;
  const problem = useFieldProblem(path);
  const owned = agent.intents ?? [];
  const team = teamProblems(report?.errors);
  return (
    <fieldset data-path={path} data-testid="agent-intents" className={problem ? "has-problem" : undefined}>
      <legend title="What this agent answers; every intent needs an owner.">Responsibilities</legend>
      {!agent.intents?.length && !problem && <p className="hint">None ticked: the role's usual intents.</p>}
      {catalogue.map((intent) => (
        <label key={intent.name} className="field check" title={intent.description}>
          <input
            type="checkbox"
            checked={owned.includes(intent.name)}
            disabled={readOnly}
            onChange={() => updateAgent(agent.id, { intents: toggledIntents(catalogue, owned, intent.name) })}
            data-testid={`intent-${intent.name}`}
          />
          <span>
            {intent.name.replaceAll("_", " ")} <small className="hint">{intent.description}</small>
          </span>
        </label>
      ))}
      {problem && <p className="error">{problem}</p>}
      {team.map((message) => (
        <p className="error" key={message} data-testid="team-coverage">
          {message}
        </p>
      ))}
    </fieldset>
  );
}

/** "changes behaviour: retrain" when the prompt or intents differ from the published, trained version. */
export function RetrainFlag({ agent, workflowId, version }: { agent: AgentSpec; workflowId?: number; version?: number | null }) {
  const change = behaviourChange(usePublishedSpec(workflowId, version), agent);
  if (!change) return null;
  return (
    <p className="warning-box" data-testid="retrain-flag" title="The agent's prompt and intents are inputs of its policy.">
      changes behaviour: retrain — the {change} differ from published version {version}
    </p>
  );
}
