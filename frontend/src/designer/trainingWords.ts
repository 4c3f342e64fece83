/** What the Training tab calls each training option, and so what a problem about one calls it: the spec's
 * keys ("lr", "batch_size") are the library's names, not the words people read. */
import { declaredOption } from "./declaredOptions";
import type { TrainingOption } from "./types";

export const TRAINING_LABELS = {
  algorithm: "Algorithm",
  episodes: "Episodes",
  batch_size: "Episodes per update",
  lr: "Learning rate",
  seed: "Seed",
  policy_sharing: "Policy sharing",
  counterfactual: "Counterfactual baseline",
  teacher: "Teacher",
  teacher_checkpoint: "Teacher checkpoint",
  teacher_coef: "Teacher weight",
  teacher_fade_episodes: "Teacher fade-out episodes",
  self_imitation: "Self-imitation weight",
  critic_warmup_episodes: "Critic warm-up episodes",
} satisfies Partial<Record<TrainingOption, string>>;

/** A training option in words: the Training tab's label, else the opening of its declared description
 * ("entropy_coef" → "weight of the policy-entropy bonus"), else its key with spaces. */
export function trainingOptionWords(key: string): string {
  const label = (TRAINING_LABELS as Partial<Record<string, string>>)[key];
  if (label) return label.toLowerCase();
  let description = "";
  try {
    description = declaredOption("training", key).description;
  } catch {
    // not an option of this schema (an old or misspelled key): its own name is all there is
  }
  const opening = description.split(/[;:(]/)[0].trim();
  if (opening && opening.length <= 40 && !/^["']/.test(opening)) return opening;
  return key.replaceAll("_", " ");
}
