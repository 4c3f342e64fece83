/** Types of the team spec and of the workflow API, as the designer uses them.
 *
 * The spec is the library's JSON document (agents/spec/); every section except agents is optional
 * there, so the editors read with defaults and write whole sections back.
 */

import type {
  AgentSpec as DeclaredAgent,
  BackboneSpec,
  CircuitBreakerSpec,
  CommunicationSpec,
  CurriculumSpec,
  EdgeSpec,
  EvolutionSpec,
  FallbackSpec,
  ResourcesSpec,
  TrainingSpec as TrainingSection,
} from "./spec.generated";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** An agent as the designer handles it: its options as the library declares them (spec.generated.ts),
 * its role any name of the catalogue's roles (plain strings); its prompt left out is the one the loader gives
 * it (its role's, or under intents of the spec's own those it owns in words: the report's `prompts`). */
export type AgentSpec = Omit<DeclaredAgent, "role" | "prompt"> & { role: string; prompt?: string };

/** One intent of an environment's catalogue: what an agent may own. */
export interface IntentInfo {
  name: string;
  description: string;
}

export type EdgeKind = NonNullable<EdgeSpec["kind"]>;

export interface RewardTerm {
  term: string;
  weights: Record<string, number>;
}

export interface RewardSection {
  preset?: string | null;
  terms?: RewardTerm[];
}

/* The sections, agents and edges whose options are declared once, on the library's dataclasses
 * (agents/spec/nodes.py): their types are generated from the spec's JSON Schema (spec.generated.ts,
 * `npm run gen:types`). */
export type {
  BackboneSpec as BackboneSection,
  CircuitBreakerSpec as CircuitBreakerSection,
  CommunicationSpec as CommunicationSection,
  CurriculumSpec as CurriculumSection,
  EdgeSpec,
  FallbackRuleSpec as FallbackRule,
  FallbackSpec as FallbackSection,
  LoraSpec as LoraConfig,
  PlateauSpec,
  PolicyHeadSpec,
  ResourcesSpec as ResourcesSection,
  TrainingSpec as TrainingSection,
} from "./spec.generated";

/** A phase as the editors handle it: named from the catalogue's phase list (plain strings), so wider
 * than the generated `PhaseSpec`, whose name is one of the library's phases. */
export interface PhaseSpec {
  name: string;
  threshold: number;
}

export type EvolutionSection = Omit<EvolutionSpec, "phases"> & { phases?: PhaseSpec[] };

/* The training section is a union on `algorithm` (the schema's `oneOf`): one generated interface per
 * algorithm, each the common options and that algorithm's own. */
export type Algorithm = NonNullable<TrainingSection["algorithm"]>;
/** Every option some algorithm's section has. */
export type TrainingOption = TrainingSection extends infer T ? (T extends unknown ? keyof T : never) : never;
/** The sections that declare option `K` (the algorithms that read it). */
export type Reading<K extends TrainingOption> = TrainingSection extends infer T ? (T extends unknown ? (K extends keyof T ? T : never) : never) : never;
/** Option `K`'s value, in the sections that declare it. */
export type OptionValue<K extends TrainingOption> = Reading<K>[K & keyof Reading<K>];
export type PolicySharing = NonNullable<OptionValue<"policy_sharing">>;
export type TeacherKind = NonNullable<OptionValue<"teacher">>;

export interface TeamSpec {
  spec_version?: number;
  name?: string;
  description?: string;
  backbone?: BackboneSpec;
  agents: AgentSpec[];
  edges?: EdgeSpec[];
  communication?: CommunicationSpec;
  reward?: RewardSection;
  evolution?: EvolutionSection;
  curriculum?: CurriculumSpec;
  circuit_breaker?: CircuitBreakerSpec;
  fallback?: FallbackSpec;
  environment?: { name: string | null; params?: Record<string, Json> };
  training?: TrainingSection;
  resources?: ResourcesSpec;
  [key: string]: unknown;
}

export interface Position {
  x: number;
  y: number;
}

export type Layout = Record<string, Position>;

export interface Problem {
  path: string;
  message: string;
}

export interface Advice {
  decision_density: number;
  uncertainty: number;
  reward_conflict: number;
  score: number;
  recommendation: "rules" | "supervised" | "marl";
  reasons: string[];
  warnings: Problem[];
}

export interface ValidationReport {
  valid: boolean;
  errors: Problem[];
  warnings: Problem[];
  advice: Advice | null;
  /** Per agent that leaves its prompt out, by id: the prompt it is given (shown in its prompt box). */
  prompts?: Record<string, string>;
}

export interface RoleInfo {
  name: string;
  description: string;
  default_prompt: string;
  decision_weight: number;
  external_uncertainty: number;
}

export interface RewardTermInfo {
  name: string;
  description: string;
  delayed: boolean;
  penalty: boolean;
}

/** One environment parameter as the Environment tab shows it (agents/envs/params.py `ParamInfo`). */
export interface EnvParam {
  name: string;
  default: Json;
  help: string;
  /** "list": names, comma-separated; "lines": phrases, one a line. */
  kind: "bool" | "integer" | "number" | "text" | "choice" | "list" | "lines";
  choices: Json[];
}

/** A training algorithm as the catalogue declares it (agents/spec/algorithms.py): what it can do. */
export interface AlgorithmInfo {
  name: Algorithm;
  description: string;
  ppo: boolean;
  deployable: boolean;
  data_parallel: boolean;
  centralised_critic: boolean;
  messages: boolean;
}

export interface Catalogue {
  environments: Record<string, EnvParam[]>;
  roles: RoleInfo[];
  reward_terms: RewardTermInfo[];
  presets: Record<string, Record<string, Record<string, number>>>;
  phases: string[];
  limits: Record<string, number>;
  /** Per environment whose agents own intents: the catalogue (names and descriptions). */
  intents?: Record<string, IntentInfo[]>;
  /** Per environment whose policy reads the agents' prompts: the parameter under which they route work. */
  prompt_routing?: Record<string, string>;
  /** Every training algorithm with its capabilities, in the order to offer them. */
  algorithms: AlgorithmInfo[];
  /** JSON Schema of the spec's declared sections (as spec.schema.json holds it). */
  schema?: { [key: string]: unknown };
  /** The spec's defaults, from the library's dataclasses (read them through `specDefaults`). */
  defaults?: import("./specDefaults").SpecDefaults;
}

export interface Workflow {
  id: number;
  project: number;
  project_name: string;
  name: string;
  description: string;
  spec: TeamSpec;
  layout: Layout;
  latest_version: number | null;
  updated_at: string;
  updated_by: string | null;
}

export interface WorkflowSummary {
  id: number;
  project: number;
  project_name: string;
  name: string;
  description: string;
  agents: number;
  latest_version: number | null;
  updated_at: string;
}

export interface VersionSummary {
  number: number;
  note: string;
  author: string | null;
  created_at: string;
}

export interface Version extends VersionSummary {
  spec: TeamSpec;
  layout: Layout;
}

export interface Change {
  path: string;
  kind: "added" | "removed" | "changed";
  before: Json;
  after: Json;
}

export interface SpecDiff {
  base: string;
  target: string;
  changes: Change[];
  agents: { added: string[]; removed: string[]; changed: string[] };
  edges: { added: string[]; removed: string[] };
}

export interface TemplateSummary {
  slug: string;
  name: string;
  description: string;
  agents: number;
  roles: string[];
  environment: string | null;
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}
