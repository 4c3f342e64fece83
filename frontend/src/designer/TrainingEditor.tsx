import { useState } from "react";

import { declaredOption, readsOption } from "./declaredOptions";
import { NumberField } from "./NumberField";
import { useDesigner } from "./store";
import { TRAINING_LABELS as LABEL, trainingOptionWords } from "./trainingWords";
import type { Algorithm, AlgorithmInfo, OptionValue, PolicySharing, Reading, TeacherKind, TrainingOption, TrainingSection } from "./types";

// How each choice reads; the choices themselves, their order and the default come from the library's schema.
const SHARING_WORDS: Record<PolicySharing, string> = {
  lora: "shared trunk + a LoRA adapter per agent",
  independent: "a separate network per agent",
  shared: "one network, told the role",
};
const TEACHER_WORDS: Record<TeacherKind, string> = {
  none: "none",
  rules: "rule-scripted team",
  expert: "expert: rules reading the labels",
  checkpoint: "a trained run",
};

interface ChoiceProps<T extends string> {
  label: string;
  hint: string;
  value: T;
  options: [T, string][];
  /** A longer account of a choice than its option's words, shown under the select while it is chosen. */
  details?: Partial<Record<T, string>>;
  onChange: (value: T) => void;
}

/** A labelled select over fixed choices, each with a readable description. The select takes the panel's
 * whole width under its label, so that the choices read whole; longer accounts go beneath it. */
function Choice<T extends string>({ label, hint, value, options, details, onChange }: ChoiceProps<T>) {
  return (
    <label className="field choice" title={hint}>
      <span>{label}</span>
      <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value as T)}>
        {options.map(([id, text]) => (
          <option key={id} value={id}>
            {text}
          </option>
        ))}
      </select>
      {details?.[value] && <small className="hint">{details[value]}</small>}
    </label>
  );
}

/** An algorithm's description cut to its name ("multi-agent PPO: per-agent actors, …" → "multi-agent PPO",
 * "REINFORCE with learned attention communication" → "REINFORCE"); the whole description shows beneath. */
export function algorithmWords(description: string): string {
  return description.split(/[:(]| with /)[0].trim() || description;
}

/** The section with the settings the new algorithm does not read removed, in either direction: which
 * algorithm reads an option is whether its branch of the schema's union declares it (the library's options
 * models), and the counterfactual baseline needs a centralised critic (the catalogue's capability). No
 * hidden field then turns into an error or a warning. */
export function withAlgorithm(training: TrainingSection, info: AlgorithmInfo): TrainingSection {
  const next: Record<string, unknown> = { ...training, algorithm: info.name };
  for (const key of Object.keys(next)) if (!readsOption(info.name, key)) delete next[key];
  if (!info.centralised_critic) delete next.counterfactual;
  return next as TrainingSection;
}

/** The options `before` set that `after` no longer holds, for the editor to say what a switch dropped. */
export function droppedOptions(before: TrainingSection, after: TrainingSection): string[] {
  return Object.keys(before).filter((key) => !(key in after));
}

/** Whether the section's algorithm reads `key`, narrowing it to the sections that declare it. */
export function declares<K extends TrainingOption>(training: TrainingSection, key: K): training is Reading<K> {
  return readsOption(training.algorithm ?? fallback("algorithm"), key);
}

/** The section with another teacher; only a checkpoint teacher keeps a checkpoint path, and no teacher no fade. */
export function withTeacher<T extends Reading<"teacher">>(training: T, teacher: TeacherKind): T {
  const next: T = { ...training, teacher };
  if (teacher !== "checkpoint") delete next.teacher_checkpoint;
  if (teacher === "none") delete next.teacher_fade_episodes;
  return next;
}

/** A training option's default as the library declares it (spec.schema.json). */
function fallback<K extends TrainingOption>(name: K): NonNullable<OptionValue<K>> {
  return declaredOption("training", name).default as NonNullable<OptionValue<K>>;
}

/** A choice option's values in the library's order, each with its words. */
export function choicesOf<T extends string>(name: TrainingOption, words: Record<T, string>): [T, string][] {
  return (declaredOption("training", name).choices ?? []).map((c) => [c as T, words[c as T] ?? c]);
}

type NumberKey = { [K in TrainingOption]-?: NonNullable<OptionValue<K>> extends number ? K : never }[TrainingOption];
type Patch = Partial<Record<TrainingOption, unknown>>;

interface OptionProps {
  name: NumberKey;
  label: string;
  training: TrainingSection;
  save: (patch: Patch) => void;
  step?: number;
  /** Words beyond the declared description (what the option did in a study); the description otherwise. */
  hint?: string;
}

/** A number option of the training section with the range, default and description the library declares. */
function TrainingNumber({ name, label, training, save, step, hint }: OptionProps) {
  const option = declaredOption("training", name);
  const value = (training as Partial<Record<TrainingOption, unknown>>)[name];
  return (
    <NumberField
      path={`$.training.${name}`}
      label={label}
      integer={option.kind === "integer"}
      min={option.min}
      max={option.max}
      step={step}
      hint={hint ?? option.description}
      value={typeof value === "number" ? value : (option.default as number | undefined)}
      onChange={(v) => save({ [name]: v })}
    />
  );
}

/** Trainer settings: algorithm and budget, and for PPO teams the actor networks, credit and teachers. What
 * the section offers is what its algorithm's branch declares; switching algorithm drops, and names, the
 * settings the new one does not read. */
export function TrainingEditor({ algorithms }: { algorithms: AlgorithmInfo[] }) {
  const training: TrainingSection = useDesigner((s) => s.spec.training) ?? {};
  const setSection = useDesigner.getState().setSection;
  const [dropped, setDropped] = useState<{ algorithm: string; options: string[] } | null>(null);
  const save = (patch: Patch) => setSection("training", { ...training, ...patch } as TrainingSection);
  const algorithm = training.algorithm ?? fallback("algorithm");
  const info = algorithms.find((a) => a.name === algorithm);
  const options: [Algorithm, string][] = algorithms.map((a) => [a.name, algorithmWords(a.description)]);
  const details = Object.fromEntries(algorithms.map((a) => [a.name, a.description])) as Partial<Record<Algorithm, string>>;
  const field = { training, save };
  const switchTo = (name: Algorithm) => {
    const next = withAlgorithm(training, algorithms.find((x) => x.name === name)!);
    const gone = droppedOptions(training, next);
    setDropped(gone.length ? { algorithm: name, options: gone } : null);
    setSection("training", next);
  };

  return (
    <div className="training-editor">
      <h2>Training</h2>
      <Choice label={LABEL.algorithm} hint="How the team learns to act together." value={algorithm} options={options} details={details} onChange={switchTo} />
      {dropped && (
        <p className="hint" role="status">
          {dropped.algorithm} does not read {dropped.options.length === 1 ? "this setting" : "these settings"}, so {dropped.options.length === 1 ? "it was" : "they were"} removed: {dropped.options.map(trainingOptionWords).join(", ")}.
        </p>
      )}
      <fieldset>
        <TrainingNumber name="episodes" label={LABEL.episodes} {...field} />
        <TrainingNumber name="batch_size" label={LABEL.batch_size} {...field} />
        <TrainingNumber name="lr" label={LABEL.lr} step={0.0001} {...field} />
        <TrainingNumber name="seed" label={LABEL.seed} {...field} />
      </fieldset>
      {declares(training, "policy_sharing") && <PpoSettings training={training} centralisedCritic={!!info?.centralised_critic} save={save} setSection={(t) => setSection("training", t)} />}
    </div>
  );
}

interface PpoProps {
  training: Reading<"policy_sharing">;
  centralisedCritic: boolean;
  save: (patch: Patch) => void;
  setSection: (training: TrainingSection) => void;
}

/** The settings of a section whose algorithm is a PPO trainer's: its type says which options it has. */
function PpoSettings({ training, centralisedCritic, save, setSection }: PpoProps) {
  const teacher = training.teacher ?? fallback("teacher");
  const field = { training, save };
  return (
    <>
      <h2>Actors and credit</h2>
      <Choice label={LABEL.policy_sharing} hint="Which weights the agents' actors share: one trunk with a LoRA adapter per agent, independent networks, or one shared network." value={training.policy_sharing ?? fallback("policy_sharing")} options={choicesOf<PolicySharing>("policy_sharing", SHARING_WORDS)} onChange={(policy_sharing) => save({ policy_sharing })} />
      {centralisedCritic && declares(training, "counterfactual") && (
        <label className="field check" title="Each agent's advantage: the critic's value of the joint action minus its expectation over that agent's other actions (COMA).">
          <input type="checkbox" checked={training.counterfactual ?? fallback("counterfactual")} onChange={(e) => save({ counterfactual: e.target.checked })} />
          <span>{LABEL.counterfactual}</span>
        </label>
      )}
      <h2>Learning aids</h2>
      <Choice label={LABEL.teacher} hint="Steps where the teacher would act differently become extra training samples." value={teacher} options={choicesOf<TeacherKind>("teacher", TEACHER_WORDS)} onChange={(t) => setSection(withTeacher(training, t))} />
      {teacher === "checkpoint" && (
        <label className="field" title="A run's directory (its best checkpoint is used) or a checkpoint path as the run page lists it; runs launched here may only learn from runs of their own project.">
          <span>{LABEL.teacher_checkpoint}</span>
          <input value={training.teacher_checkpoint ?? fallback("teacher_checkpoint")} placeholder="a run id, e.g. 12" onChange={(e) => save({ teacher_checkpoint: e.target.value })} />
        </label>
      )}
      {teacher !== "none" && (
        <>
          <TrainingNumber name="teacher_coef" label={LABEL.teacher_coef} step={0.1} {...field} />
          <TrainingNumber
            name="teacher_fade_episodes"
            label={LABEL.teacher_fade_episodes}
            hint="0 = never. The teacher's weight falls to 0 over this many episodes: a teacher speeds the start, and kept on it holds the student at the teacher's level (docs/decisions/0008-teacher-fade-out.md)."
            {...field}
          />
        </>
      )}
      <TrainingNumber
        name="self_imitation"
        label={LABEL.self_imitation}
        step={0.1}
        hint="0 = off. Replays the team's best episodes where they beat the critic; from scratch 1.0 lifted customer-service success by about 5 points (docs/decisions/0003-self-imitation.md)."
        {...field}
      />
      <TrainingNumber
        name="critic_warmup_episodes"
        label={LABEL.critic_warmup_episodes}
        hint="0 = off. PPO's first episodes fit the critic alone while the actors keep their start: advantages from an unfitted critic pulled a warm-started team off its start (docs/experiments/2026-12-04-checkpoint-selection.md)."
        {...field}
      />
    </>
  );
}
