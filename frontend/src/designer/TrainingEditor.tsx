import { NumberField } from "./NumberField";
import { useDesigner } from "./store";
import type { Algorithm, AlgorithmInfo, PolicySharing, TeacherKind, TrainingSection } from "./types";

const SHARINGS: [PolicySharing, string][] = [
  ["lora", "shared trunk + a LoRA adapter per agent"],
  ["independent", "a separate network per agent"],
  ["shared", "one network, told the role"],
];
const TEACHERS: [TeacherKind, string][] = [
  ["none", "none"],
  ["rules", "rule-scripted team"],
  ["expert", "expert: rules reading the labels"],
  ["checkpoint", "a trained run"],
];
// Settings only PPO trainers read; switching away drops them so no hidden field turns into an error.
const PPO_ONLY = ["policy_sharing", "counterfactual", "teacher", "teacher_checkpoint", "teacher_coef", "teacher_fade_episodes", "self_imitation"] as const;

interface ChoiceProps<T extends string> {
  label: string;
  hint: string;
  value: T;
  options: [T, string][];
  onChange: (value: T) => void;
}

/** A labelled select over fixed choices, each with a readable description. */
function Choice<T extends string>({ label, hint, value, options, onChange }: ChoiceProps<T>) {
  return (
    <label className="field" title={hint}>
      <span>{label}</span>
      <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value as T)}>
        {options.map(([id, text]) => (
          <option key={id} value={id}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The section with the settings the new algorithm (as the catalogue describes it) does not read removed. */
export function withAlgorithm(training: TrainingSection, info: AlgorithmInfo): TrainingSection {
  const next: TrainingSection = { ...training, algorithm: info.name };
  if (!info.ppo) for (const key of PPO_ONLY) delete next[key];
  if (!info.centralised_critic) delete next.counterfactual;
  return next;
}

/** The section with another teacher; only a checkpoint teacher keeps a checkpoint path, and no teacher no fade. */
export function withTeacher(training: TrainingSection, teacher: TeacherKind): TrainingSection {
  const next: TrainingSection = { ...training, teacher };
  if (teacher !== "checkpoint") delete next.teacher_checkpoint;
  if (teacher === "none") delete next.teacher_fade_episodes;
  return next;
}

/** Trainer settings: algorithm and budget, and for PPO teams the actor networks, credit and teachers. */
export function TrainingEditor({ algorithms }: { algorithms: AlgorithmInfo[] }) {
  const training = useDesigner((s) => s.spec.training) ?? {};
  const setSection = useDesigner.getState().setSection;
  const save = (patch: Partial<TrainingSection>) => setSection("training", { ...training, ...patch });
  const algorithm = training.algorithm ?? "reinforce_comm";
  const teacher = training.teacher ?? "none";
  const info = algorithms.find((a) => a.name === algorithm);
  const options: [Algorithm, string][] = algorithms.map((a) => [a.name, a.description]);
  const ppo = info?.ppo ?? false;

  return (
    <div className="training-editor">
      <h2>Training</h2>
      <Choice label="Algorithm" hint="How the team learns to act together." value={algorithm} options={options} onChange={(a) => setSection("training", withAlgorithm(training, algorithms.find((x) => x.name === a)!))} />
      <fieldset>
        <NumberField path="$.training.episodes" label="Episodes" integer min={1} value={training.episodes ?? 3000} onChange={(episodes) => save({ episodes })} />
        <NumberField path="$.training.batch_size" label="Episodes per update" integer min={1} value={training.batch_size ?? 32} onChange={(batch_size) => save({ batch_size })} />
        <NumberField path="$.training.lr" label="Learning rate" min={0} max={1} step={0.0001} value={training.lr ?? 0.003} onChange={(lr) => save({ lr })} />
        <NumberField path="$.training.seed" label="Seed" integer min={0} value={training.seed ?? 0} onChange={(seed) => save({ seed })} />
      </fieldset>
      {ppo && (
        <>
          <h2>Actors and credit</h2>
          <Choice label="Policy sharing" hint="Which weights the agents' actors share: one trunk with a LoRA adapter per agent, independent networks, or one shared network." value={training.policy_sharing ?? "lora"} options={SHARINGS} onChange={(policy_sharing) => save({ policy_sharing })} />
          {info?.centralised_critic && (
            <label className="field check" title="Each agent's advantage: the critic's value of the joint action minus its expectation over that agent's other actions (COMA).">
              <input type="checkbox" checked={training.counterfactual ?? false} onChange={(e) => save({ counterfactual: e.target.checked })} />
              <span>Counterfactual baseline</span>
            </label>
          )}
          <h2>Learning aids</h2>
          <Choice label="Teacher" hint="Steps where the teacher would act differently become extra training samples." value={teacher} options={TEACHERS} onChange={(t) => setSection("training", withTeacher(training, t))} />
          {teacher === "checkpoint" && (
            <label className="field" title="A run's directory (its best checkpoint is used) or a checkpoint path as the run page lists it; runs launched here may only learn from runs of their own project.">
              <span>Teacher checkpoint</span>
              <input value={training.teacher_checkpoint ?? ""} placeholder="a run id, e.g. 12" onChange={(e) => save({ teacher_checkpoint: e.target.value })} />
            </label>
          )}
          {teacher !== "none" && (
            <>
              <NumberField path="$.training.teacher_coef" label="Teacher weight" min={0} max={100} step={0.1} value={training.teacher_coef ?? 1} onChange={(teacher_coef) => save({ teacher_coef })} />
              <NumberField
                label="Teacher fade-out episodes"
                integer
                min={0}
                value={training.teacher_fade_episodes ?? 0}
                hint="0 = never. The teacher's weight falls to 0 over this many episodes: a teacher speeds the start, and kept on it holds the student at the teacher's level (docs/decisions/0008-teacher-fade-out.md)."
                onChange={(teacher_fade_episodes) => save({ teacher_fade_episodes })}
              />
            </>
          )}
          <NumberField
            label="Self-imitation weight"
            min={0}
            max={10}
            step={0.1}
            value={training.self_imitation ?? 0}
            hint="0 = off. Replays the team's best episodes where they beat the critic; from scratch 1.0 lifted customer-service success by about 5 points (docs/decisions/0003-self-imitation.md)."
            onChange={(self_imitation) => save({ self_imitation })}
          />
          <NumberField
            label="Warm-start episodes"
            integer
            min={0}
            value={training.warm_start_episodes ?? 0}
            hint="Labelled expert episodes cloned before PPO (customer service only); 0 = learn from scratch."
            onChange={(warm_start_episodes) => save({ warm_start_episodes })}
          />
        </>
      )}
    </div>
  );
}
