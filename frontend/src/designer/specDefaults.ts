/** The spec's defaults as the workflows catalogue serves them (its `defaults`): the library's dataclasses
 * own every default, so the editors show them from here rather than typing the numbers again. */
import type {
  BackboneSection,
  Catalogue,
  CircuitBreakerSection,
  CommunicationSection,
  CurriculumSection,
  FallbackSection,
  LoraConfig,
  PhaseSpec,
  PolicyHeadSpec,
  ResourcesSection,
  TrainingSection,
} from "./types";

/** `T` with every field present (a default is never left out). */
type Filled<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

export interface SpecDefaults {
  circuit_breaker: Filled<CircuitBreakerSection>;
  evolution: { phases: PhaseSpec[]; plateau: { cycles: number; min_improvement: number }; cycle_episodes: number };
  curriculum: Filled<CurriculumSection>;
  backbone: Filled<BackboneSection>;
  fallback: Filled<FallbackSection>;
  communication: Filled<CommunicationSection>;
  /** entropy_coef null: the algorithm's own default. */
  training: Filled<TrainingSection>;
  resources: Filled<ResourcesSection>;
  /** One agent's settings. */
  agent: { lora: Filled<LoraConfig>; policy_head: Filled<PolicyHeadSpec>; update_period: number };
}

/** The catalogue's defaults (mase_web/workflows/api.py `_spec_defaults`); the catalogue always serves them. */
export function specDefaults(catalogue: Catalogue): SpecDefaults {
  if (!catalogue.defaults) throw new Error("the workflows catalogue served no spec defaults");
  return catalogue.defaults;
}

/** Each of `defaults`' fields as `section` sets it, else its default (an unset or null field shows the default). */
export function filled<T extends object>(section: { [K in keyof T]?: T[K] | null } | undefined, defaults: T): T {
  const out = { ...defaults };
  for (const key of Object.keys(defaults) as (keyof T)[]) {
    const value = section?.[key];
    if (value !== undefined && value !== null) out[key] = value as T[keyof T];
  }
  return out;
}

/** The plateau rule's defaults as its legend words them: "3 cycles, 2%". */
export function plateauWords(plateau: SpecDefaults["evolution"]["plateau"]): string {
  return `${plateau.cycles} cycles, ${Math.round(plateau.min_improvement * 1000) / 10}%`;
}
