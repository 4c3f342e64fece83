/** Shapes of the feedback API (mase_web/feedback/serializers.py and api.py). */

export type QueueKind = "rating" | "pairwise";
export type Choice = "A" | "B" | "tie";

export interface StepSnapshot {
  step?: number;
  agent: string;
  action: string;
  source?: string;
  confidence?: number | null;
  messages?: unknown;
}

/** What an annotator rates, frozen when the item was queued. */
export interface Snapshot {
  task: string;
  answer: string;
  /** The reply the customer read, when the team wrote one (who wrote which part). */
  reply?: { text: string; backend: string; parts: { agent: string; text: string; source: string }[] };
  steps: StepSnapshot[];
  meta?: Record<string, unknown>;
}

export interface QueueProgress {
  items: number;
  assignments: number;
  done: number;
}

export interface Queue {
  id: number;
  project: number;
  name: string;
  kind: QueueKind;
  guidelines: string;
  overlap: number;
  tags: string[];
  created_by: string | null;
  created_at: string;
  can_manage: boolean;
  my_progress: { assigned: number; done: number };
  progress?: QueueProgress;
}

export interface RatingAnswer {
  id: number;
  item: number;
  value: number;
  tags: string[];
  comment: string;
}

export interface JudgementAnswer {
  id: number;
  item: number;
  choice: Choice;
  comment: string;
}

export interface Item {
  id: number;
  queue: number;
  kind: "episode" | "step" | "pair";
  episode_key: string;
  snapshot: Snapshot;
  episode_key_b: string;
  snapshot_b: Snapshot | null;
  my_rating?: RatingAnswer | null;
  my_judgement?: JudgementAnswer | null;
}

export interface Disagreement {
  item: number;
  values: (number | string)[];
  spread: number;
  kind: string;
  episode_key: string;
  task: string;
}

export interface Agreement {
  metric: "ordinal" | "nominal";
  alpha: number | null;
  interval_alpha?: number | null;
  units: number;
  values: number;
  disagreements: Disagreement[];
}

export interface RewardModelMetrics {
  accuracy: number;
  /** Rating heads only (stars). */
  mae: number;
  baseline_accuracy: number;
  /** Items, or pairs for a pairwise (Bradley–Terry) head. */
  n_train: number;
  n_heldout: number;
  backbone: string;
  /** "pairwise": a Bradley–Terry head on judged pairs; absent: a star-rating head. */
  head: "pairwise";
  /** Pairwise heads: judged pairs skipped because their vote was a tie. */
  n_ties: number;
}

export interface RewardModel {
  id: number;
  queue: number;
  state: "queued" | "running" | "succeeded" | "failed";
  progress: number;
  message: string;
  metrics: Partial<RewardModelMetrics>;
  /** Set when too few items were held out for the accuracy to mean much. */
  warning: string | null;
  created_at: string;
  finished_at: string | null;
}

/** What creating a queue sends: the editable fields of a `Queue`. */
export type NewQueue = Pick<Queue, "project" | "name" | "kind" | "guidelines" | "overlap" | "tags">;

export interface DeploymentFilter {
  deployment: number;
  unit: "episode" | "step";
  max_confidence: number | null;
  fallback_only: boolean;
  limit: number;
  /** Pairwise queues: the deployment whose answers are episode B (null: any other of the project). */
  compare_with?: number | null;
}

export interface DeploymentSummary {
  id: number;
  project: number;
  name: string;
}
