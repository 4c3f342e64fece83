import { MixtureChart } from "./MixtureChart";
import { specDefaults } from "./specDefaults";
import { useDesigner } from "./store";
import { TermRow } from "./TermRow";
import type { Catalogue, RewardTerm } from "./types";

/** The table's rows: the preset's terms in the preset's order (an explicit term of the same name in its
 * place), then the other explicit terms in theirs. Editing a weight never changes this order, so a row
 * stays under the cursor while it is edited; `index` is the row's explicit term, -1 for a preset-only row. */
export function rewardRows(presetTerms: RewardTerm[], terms: RewardTerm[]): { term: RewardTerm; index: number }[] {
  const explicit = (name: string) => terms.findIndex((t) => t.term === name);
  const fromPreset = presetTerms.map((p) => {
    const index = explicit(p.term);
    return { term: index < 0 ? p : terms[index], index };
  });
  const extra = terms.map((term, index) => ({ term, index })).filter(({ term }) => !presetTerms.some((p) => p.term === term.term));
  return [...fromPreset, ...extra];
}

/** The explicit terms with one weight set; a preset term, once edited, becomes an explicit term overriding the preset's. */
export function withWeight(terms: RewardTerm[], term: RewardTerm, phase: string, value: number): RewardTerm[] {
  const index = terms.findIndex((t) => t.term === term.term);
  const changed = { ...term, weights: { ...term.weights, [phase]: value } };
  return index < 0 ? [...terms, changed] : terms.map((t, i) => (i === index ? changed : t));
}

const PRESET_LABELS: Record<string, string> = {
  phase_rewards: "Phase rewards: exploration 0.7·entropy + 0.3·task, …",
  hierarchical: "Hierarchical (against runaway agents): task − 0.3·coherence + 0.2·collaboration",
};

/** The reward as weighted terms per evolution phase: no code, only terms from the catalogue and numbers. */
export function RewardComposer({ catalogue }: { catalogue: Catalogue }) {
  const reward = useDesigner((s) => s.spec.reward) ?? {};
  const phaseSpecs = useDesigner((s) => s.spec.evolution?.phases) ?? specDefaults(catalogue).evolution.phases;
  const setSection = useDesigner.getState().setSection;
  const phases = phaseSpecs.map((p) => p.name);
  const preset = reward.preset ?? null;
  // As training reads it: no terms and no preset means the task term alone; a preset alone means its terms.
  const terms = reward.terms ?? (preset ? [] : [{ term: "task", weights: Object.fromEntries(phases.map((p) => [p, 1])) }]);
  const presetTerms: RewardTerm[] = preset
    ? Object.entries(catalogue.presets[preset] ?? {}).map(([term, weights]) => ({ term, weights }))
    : [];
  // What training will use: the preset's terms, overridden or extended by the explicit ones.
  const rows = rewardRows(presetTerms, terms);
  const effective = rows.map((r) => r.term);
  const termInfo = new Map(catalogue.reward_terms.map((t) => [t.name, t]));
  const unused = catalogue.reward_terms.filter((t) => !effective.some((x) => x.term === t.name));

  const save = (next: { preset?: string | null; terms?: RewardTerm[] }) =>
    setSection("reward", { preset, terms, ...next });
  const setWeight = (term: RewardTerm, phase: string, value: number) => save({ terms: withWeight(terms, term, phase, value) });

  return (
    <div className="reward-composer" data-testid="reward-composer">
      <h2>Reward</h2>
      <p className="hint">
        reward = Σ weight × term, with its own weights in each evolution phase. Weights lie in [−10, 10]. The table
        lists every term that counts{preset ? ", the preset's included: editing one of them overrides the preset's weight" : ""}.
      </p>
      <label className="field" title="A preset supplies terms; the terms below override or extend it.">
        <span>Preset</span>
        <select value={preset ?? ""} onChange={(e) => save({ preset: e.target.value || null })} data-testid="reward-preset">
          <option value="">none</option>
          {Object.keys(catalogue.presets).map((name) => (
            <option key={name} value={name}>
              {PRESET_LABELS[name] ?? name}
            </option>
          ))}
        </select>
      </label>
      {preset && (
        <button
          className="link"
          title="Copy the preset's terms into the table so you can tune them"
          onClick={() => save({ preset: null, terms: effective })}
        >
          Copy the preset's terms into the table
        </button>
      )}
      <table className="terms">
        <thead>
          <tr>
            <th>Term</th>
            {phases.map((p) => (
              <th key={p}>{p}</th>
            ))}
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map(({ term: t, index }) => (
            <TermRow
              key={t.term}
              term={t}
              phases={phases}
              description={termInfo.get(t.term)?.description ?? "unknown term"}
              path={index < 0 ? undefined : `$.reward.terms[${index}]`}
              fromPreset={index < 0 ? preset : null}
              onWeight={(phase, value) => setWeight(t, phase, value)}
              onRemove={index < 0 ? null : () => save({ terms: terms.filter((_, j) => j !== index) })}
            />
          ))}
        </tbody>
      </table>
      {unused.length > 0 && (
        <label className="field" title="Add another reward term">
          <span>Add term</span>
          <select
            value=""
            onChange={(e) =>
              e.target.value &&
              save({ terms: [...terms, { term: e.target.value, weights: Object.fromEntries(phases.map((p) => [p, 0])) }] })
            }
            data-testid="add-term"
          >
            <option value="">choose…</option>
            {unused.map((t) => (
              <option key={t.name} value={t.name} title={t.description}>
                {t.name.replaceAll("_", " ")}
              </option>
            ))}
          </select>
        </label>
      )}
      <h3>Mixture per phase{preset ? " (preset included)" : ""}</h3>
      <MixtureChart phases={phases} terms={effective} />
    </div>
  );
}
