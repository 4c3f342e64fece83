import { MixtureChart } from "./MixtureChart";
import { NumberField } from "./NumberField";
import { useDesigner } from "./store";
import type { Catalogue, RewardTerm } from "./types";

export const DEFAULT_PHASES = [
  { name: "exploration", threshold: 0.3 },
  { name: "exploitation", threshold: 0.9 },
  { name: "transfer", threshold: 1.0 },
];

const PRESET_LABELS: Record<string, string> = {
  phase_rewards: "Phase rewards: exploration 0.7·entropy + 0.3·task, …",
  hierarchical: "Hierarchical (against runaway agents): task − 0.3·coherence + 0.2·collaboration",
};

/** The reward as weighted terms per evolution phase: no code, only terms from the catalogue and numbers. */
export function RewardComposer({ catalogue }: { catalogue: Catalogue }) {
  const reward = useDesigner((s) => s.spec.reward) ?? {};
  const phaseSpecs = useDesigner((s) => s.spec.evolution?.phases) ?? DEFAULT_PHASES;
  const setSection = useDesigner.getState().setSection;
  const phases = phaseSpecs.map((p) => p.name);
  const terms = reward.terms ?? [{ term: "task", weights: Object.fromEntries(phases.map((p) => [p, 1])) }];
  const preset = reward.preset ?? null;
  const presetTerms: RewardTerm[] = preset
    ? Object.entries(catalogue.presets[preset] ?? {}).map(([term, weights]) => ({ term, weights }))
    : [];
  // What training will use: the preset's terms, overridden or extended by the explicit ones.
  const effective = [...presetTerms.filter((p) => !terms.some((t) => t.term === p.term)), ...terms];
  const termInfo = new Map(catalogue.reward_terms.map((t) => [t.name, t]));
  const unused = catalogue.reward_terms.filter((t) => !terms.some((x) => x.term === t.name));

  const save = (next: { preset?: string | null; terms?: RewardTerm[] }) =>
    setSection("reward", { preset, terms, ...next });
  const setWeight = (index: number, phase: string, value: number) =>
    save({ terms: terms.map((t, i) => (i === index ? { ...t, weights: { ...t.weights, [phase]: value } } : t)) });

  return (
    <div className="reward-composer" data-testid="reward-composer">
      <h2>Reward</h2>
      <p className="hint">reward = Σ weight × term, with its own weights in each evolution phase. Weights lie in [−10, 10].</p>
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
          {terms.map((t, i) => (
            <tr key={t.term} data-testid={`term-${t.term}`}>
              <td title={termInfo.get(t.term)?.description ?? "unknown term"}>{t.term.replaceAll("_", " ")}</td>
              {phases.map((p) => (
                <td key={p}>
                  <NumberField
                    label=""
                    step={0.05}
                    min={-10}
                    max={10}
                    value={t.weights[p] ?? 0}
                    testId={`weight-${t.term}-${p}`}
                    hint={`Weight of ${t.term} in the ${p} phase`}
                    onChange={(v) => setWeight(i, p, v)}
                  />
                </td>
              ))}
              <td>
                <button className="icon" title={`Remove ${t.term}`} onClick={() => save({ terms: terms.filter((_, j) => j !== i) })}>
                  ×
                </button>
              </td>
            </tr>
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
