import { NumberField } from "./NumberField";
import { withoutPhase, withPhase } from "./schedule";
import { filled, plateauWords, specDefaults } from "./specDefaults";
import { useDesigner } from "./store";
import type { Catalogue } from "./types";

/** Evolution schedule (phases, thresholds, plateau rule) and the adaptive curriculum. */
export function ScheduleEditor({ catalogue }: { catalogue: Catalogue }) {
  const defaults = specDefaults(catalogue);
  const evolution = useDesigner((s) => s.spec.evolution) ?? {};
  const curriculum = useDesigner((s) => s.spec.curriculum) ?? {};
  const levels = filled(curriculum, defaults.curriculum);
  const { setSection, edit } = useDesigner.getState();
  const phases = evolution.phases ?? defaults.evolution.phases;
  const plateau = evolution.plateau ?? defaults.evolution.plateau;
  const unused = catalogue.phases.filter((p) => !phases.some((x) => x.name === p));
  const saveEvolution = (patch: Partial<typeof evolution>) => setSection("evolution", { ...evolution, phases, plateau, ...patch });
  const addPhase = (name: string) => edit((draft) => void (draft.spec = withPhase(draft.spec, name, catalogue.phases, defaults.evolution.phases)));
  const removePhase = (name: string) => edit((draft) => void (draft.spec = withoutPhase(draft.spec, name, defaults.evolution.phases)));
  const saveCurriculum = (patch: Partial<typeof curriculum>) => setSection("curriculum", { ...curriculum, ...patch });

  return (
    <div className="schedule-editor">
      <h2>Evolution schedule</h2>
      <p className="hint">
        Phases run in order; the team moves on when the mean agent score passes the phase's threshold (0–1).
      </p>
      <table className="terms">
        <thead>
          <tr>
            <th>Phase</th>
            <th>Advance at score</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {phases.map((p, i) => (
            <tr key={p.name} data-testid={`phase-${p.name}`}>
              <td>{p.name}</td>
              <td>
                <NumberField
                  label=""
                  min={0}
                  max={1}
                  step={0.05}
                  value={p.threshold}
                  hint={`Threshold that ends the ${p.name} phase`}
                  path={`$.evolution.phases[${i}].threshold`}
                  onChange={(threshold) => saveEvolution({ phases: phases.map((x, j) => (j === i ? { ...x, threshold } : x)) })}
                />
              </td>
              <td>
                <button
                  className="icon"
                  title={phases.length > 1 ? `Remove the ${p.name} phase (and its reward weights)` : "The schedule needs at least one phase"}
                  disabled={phases.length <= 1}
                  onClick={() => removePhase(p.name)}
                >
                  ×
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="add-phase">
        {unused.length ? (
          unused.map((name) => (
            <button key={name} className="secondary" onClick={() => addPhase(name)} title={`Put the ${name} phase back in its place in the schedule; it starts with its neighbour's reward weights`}>
              + Add {name} phase
            </button>
          ))
        ) : (
          <span className="hint">All phases ({catalogue.phases.join(", ")}) are in the schedule; remove one to leave it out.</span>
        )}
      </div>
      <fieldset>
        <legend title={`Flag the reward for restructuring when the score stops improving (default: ${plateauWords(defaults.evolution.plateau)}).`}>Plateau rule</legend>
        <NumberField label="Cycles without improvement" integer min={1} value={plateau.cycles} onChange={(cycles) => saveEvolution({ plateau: { ...plateau, cycles } })} />
        <NumberField label="Minimum improvement" min={0} max={1} step={0.01} value={plateau.min_improvement} hint="0.02 = 2%" onChange={(min_improvement) => saveEvolution({ plateau: { ...plateau, min_improvement } })} />
        <NumberField label="Episodes per cycle" integer min={1} value={evolution.cycle_episodes ?? defaults.evolution.cycle_episodes} onChange={(cycle_episodes) => saveEvolution({ cycle_episodes })} />
      </fieldset>

      <h2>Curriculum</h2>
      <label className="field check" title="Difficulty follows the success rate: harder above the upper bound, easier below the lower one.">
        <input type="checkbox" checked={levels.enabled} onChange={(e) => saveCurriculum({ enabled: e.target.checked })} />
        <span>Adaptive curriculum</span>
      </label>
      {curriculum.enabled && (
        <fieldset>
          <NumberField label="Harder above success rate" min={0} max={1} step={0.05} value={levels.upper} onChange={(upper) => saveCurriculum({ upper })} />
          <NumberField label="Easier below success rate" min={0} max={1} step={0.05} value={levels.lower} onChange={(lower) => saveCurriculum({ lower })} />
          <NumberField label="Lowest level" integer min={0} value={levels.min_level} onChange={(min_level) => saveCurriculum({ min_level })} />
          <NumberField label="Highest level" integer min={0} value={levels.max_level} onChange={(max_level) => saveCurriculum({ max_level })} />
        </fieldset>
      )}
    </div>
  );
}
