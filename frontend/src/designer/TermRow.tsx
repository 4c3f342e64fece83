import { NumberField } from "./NumberField";
import type { RewardTerm } from "./types";

interface Props {
  term: RewardTerm;
  phases: string[];
  description: string;
  /** The explicit term's spec path (undefined for a term only the preset supplies). */
  path: string | undefined;
  /** The preset this term comes from, when the table holds no explicit term of that name. */
  fromPreset: string | null;
  onWeight: (phase: string, value: number) => void;
  onRemove: (() => void) | null;
}

/** One reward term of the Reward tab's table: its weight in each phase, and where it comes from. */
export function TermRow({ term, phases, description, path, fromPreset, onWeight, onRemove }: Props) {
  return (
    <tr data-testid={`term-${term.term}`} className={fromPreset ? "preset-term" : undefined}>
      <td title={description}>
        {term.term.replaceAll("_", " ")}
        {fromPreset && (
          <span className="badge" title={`Supplied by the ${fromPreset} preset; edit a weight to override it`}>
            preset
          </span>
        )}
      </td>
      {phases.map((p) => (
        <td key={p}>
          <NumberField
            label=""
            step={0.05}
            min={-10}
            max={10}
            value={term.weights[p] ?? 0}
            testId={`weight-${term.term}-${p}`}
            hint={`Weight of ${term.term} in the ${p} phase`}
            path={path && `${path}.weights.${p}`}
            onChange={(v) => onWeight(p, v)}
          />
        </td>
      ))}
      <td>
        {onRemove && (
          <button className="icon" title={`Remove ${term.term}`} onClick={onRemove}>
            ×
          </button>
        )}
      </td>
    </tr>
  );
}
