import { useQuery } from "@tanstack/react-query";
import { hasOwnCatalogue, intentsPatch } from "./agentPrompt";
import { useFieldProblem } from "./fieldProblem";
import { workflowQueries } from "./queries";
import { useDesigner } from "./store";
import type { AgentSpec, IntentInfo, RoleInfo, TeamSpec } from "./types";

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

/** How the environment's policy uses prompts (the catalogue's ``prompt_routing``): ``param`` is the switch
 * under which prompts route work (null: the policy never reads a prompt), ``on`` whether the spec sets it. */
export interface PromptRouting {
  param: string | null;
  on: boolean;
}

/** What an edit since the published version changes, in words, for this environment's policy: intents and
 * clue kinds are read by the policy (retrain); a prompt routes work only where the policy was trained to
 * read jobs from prompts, else it is only the reply writer's system prompt. Null when nothing changed. */
export function editEffect(
  published: TeamSpec | null,
  agent: AgentSpec,
  routing: PromptRouting,
  version?: number | null,
): { retrain: boolean; text: string } | null {
  const change = behaviourChange(published, agent);
  if (!change) return null;
  const verb = change === "prompt" || change === "clue kind" ? "differs" : "differ";
  const since = `the ${change} ${verb} from published version ${version ?? "?"}`;
  const promptOnly = change === "prompt";
  if (!promptOnly || (routing.param && routing.on)) {
    const why = change.includes("intents")
      ? "its intents set the answers it may give"
      : change.includes("clue")
        ? "its clue kind sets what it observes"
        : `the policy reads each agent's job from its prompt (${routing.param})`;
    return { retrain: true, text: `${change.includes("clue") ? "changes behaviour" : "routes work"}: retrain — ${since}; ${why}` };
  }
  if (routing.param)
    return {
      retrain: true,
      text: `changes the policy's input: retrain — ${since}; its work still follows its Responsibilities (${routing.param} is off)`,
    };
  return {
    retrain: false,
    text: `changes the reply's wording only — ${since}; it is the system prompt of this agent's writer when a language model writes (the template ignores it), and the team's decisions never read it: no retraining needed`,
  };
}

const STOP = new Set(
  "the and for with you your are that this what when which their them they from into about has have not own its will can any who how all also then than such".split(" "),
);
/** A sentence that hands work to someone else ("Hand delivery questions to logistics") names what the agent
 * does not do: its words propose nothing. */
const HANDS_OFF = /^(hand|pass|leave|forward|refer|send)\b/i;

function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => w.length >= 3 && !STOP.has(w));
}

/** One word, loosely: equal, or the same first five letters ("delays" / "delay", "recommend" / "recommendation"). */
function sameWord(a: string, b: string): boolean {
  return a === b || (a.length >= 5 && b.length >= 5 && a.slice(0, 5) === b.slice(0, 5));
}

/** The intents a prompt speaks of, in catalogue order, for the product manager to confirm as the agent's
 * Responsibilities: a prompt word that is a word of the intent's name counts 2, one of its description 1;
 * an intent scoring 2 or more is proposed. Sentences that hand work to others are skipped. */
export function proposedIntents(prompt: string, catalogue: IntentInfo[]): string[] {
  const said = prompt
    .split(/(?<=[.!?;])\s+/)
    .filter((sentence) => !HANDS_OFF.test(sentence.trim()))
    .flatMap(words);
  const hit = (w: string) => said.some((s) => sameWord(s, w));
  return catalogue
    .filter((intent) => {
      const named = intent.name.split("_").some(hit) ? 2 : 0;
      const described = new Set(words(intent.description).filter(hit)).size;
      return named + described >= 2;
    })
    .map((intent) => intent.name);
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
  /** The agent's role: a prompt still its default follows the intents ticked under a catalogue of one's own. */
  role?: RoleInfo;
}

/** The intents an agent owns, as checkboxes with the catalogue's descriptions, what its prompt proposes
 * instead (when the two tell different stories), and what the team lacks. */
export function IntentChecklist({ agent, index, catalogue, readOnly, role }: Props) {
  const { updateAgent } = useDesigner.getState();
  const ownCatalogue = useDesigner((s) => hasOwnCatalogue(s.spec));
  const own = (intents: string[]) => updateAgent(agent.id, intentsPatch(agent, intents, role, ownCatalogue));
  const report = useDesigner((s) => s.report);
  const path = `$.agents[${index}].intents`;
  const problem = useFieldProblem(path);
  const owned = agent.intents ?? [];
  const team = teamProblems(report?.errors);
  const proposed = proposedIntents(agent.prompt ?? "", catalogue);
  const differs = proposed.length > 0 && proposed.join(",") !== owned.join(",");
  return (
    <fieldset data-path={path} data-testid="agent-intents" className={problem ? "has-problem" : undefined}>
      <legend title="What this agent answers; every intent needs an owner.">Responsibilities</legend>
      {differs && (
        <p className="hint" data-testid="intent-proposal">
          The prompt speaks of {proposed.map((n) => n.replaceAll("_", " ")).join(", ")}.{" "}
          {!readOnly && (
            <button type="button" className="link" onClick={() => own(proposed)}>
              Use these as its Responsibilities
            </button>
          )}
        </p>
      )}
      {!agent.intents?.length && !problem && <p className="hint">None ticked: the role's usual intents.</p>}
      {catalogue.map((intent) => (
        <label key={intent.name} className="field check" title={intent.description}>
          <input
            type="checkbox"
            checked={owned.includes(intent.name)}
            disabled={readOnly}
            onChange={() => own(toggledIntents(catalogue, owned, intent.name))}
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

/** What an edit since the published, trained version changes (`editEffect`): a warning when it needs a
 * retrain, a plain note when only the reply's wording changes. */
export function RetrainFlag({
  agent,
  workflowId,
  version,
  routing,
}: {
  agent: AgentSpec;
  workflowId?: number;
  version?: number | null;
  routing: PromptRouting;
}) {
  const effect = editEffect(usePublishedSpec(workflowId, version), agent, routing, version);
  if (!effect) return null;
  return (
    <p className={effect.retrain ? "warning-box" : "hint"} data-testid="retrain-flag">
      {effect.text}
    </p>
  );
}
