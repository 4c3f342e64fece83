import { declaredIn } from "./declaredOptions";
import { useFieldProblem } from "./fieldProblem";
import { useDesigner } from "./store";
import type { AgentSpec } from "./types";

/** The clue kinds an informant may hold, as the library declares them (agents/spec/nodes.py AgentSpec.clue). */
const CLUE = declaredIn("AgentSpec", "clue");
type ClueKind = NonNullable<AgentSpec["clue"]>;

const KIND_WORDS: Record<ClueKind, string> = {
  bit: "one bit: parity, or below / at least a threshold",
  range: "one base-r digit: a range of the number, or a remainder for the lowest",
};

/** Whether `agent` may name its clue kind: number guessing's informants. */
export function holdsClue(environment: string | null | undefined, agent: AgentSpec): boolean {
  return environment === "number_guess" && agent.role === "informant";
}

/** An informant's clue kind; empty follows the environment's clue kinds. The number range must split into the
 * informants' digits, so the size problem (`$.environment.params.n`) is shown here too. */
export function ClueKindField({ agent, index, readOnly }: { agent: AgentSpec; index: number; readOnly: boolean }) {
  const { updateAgent } = useDesigner.getState();
  const path = `$.agents[${index}].clue`;
  const problem = useFieldProblem(path);
  const sizeProblem = useFieldProblem("$.environment.params.n");
  return (
    <fieldset data-path={path} className={problem ? "has-problem" : undefined}>
      <legend title={CLUE.description}>Clue</legend>
      <label className="field" title="Informants state the secret's digits in the order they are drawn, the first the lowest.">
        <span>Kind</span>
        <select
          value={agent.clue ?? ""}
          disabled={readOnly}
          onChange={(e) => updateAgent(agent.id, { clue: (e.target.value || undefined) as ClueKind | undefined })}
          data-testid="agent-clue"
        >
          <option value="">the environment's clue kinds</option>
          {(CLUE.choices ?? []).map((kind) => (
            <option key={kind} value={kind}>
              {kind} — {KIND_WORDS[kind as ClueKind] ?? kind}
            </option>
          ))}
        </select>
      </label>
      {problem && <p className="error">{problem}</p>}
      {sizeProblem && <p className="error" data-testid="clue-size-problem">{sizeProblem}</p>}
    </fieldset>
  );
}
