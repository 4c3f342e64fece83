/** Shapes of the feedback API (mase_web/feedback/serializers.py and api.py).
 * What the API's schema declares is aliased from it (../api.ts `Schema`); what it leaves free-form (JSON
 * columns, agreement and progress figures) is typed here by hand. */
import type { Refine, Schema } from "../api";

export type QueueKind = NonNullable<Schema<"Queue">["kind"]>;
export type Choice = Schema<"Judgement">["choice"];

export type StepSnapshot = Schema<"StepSnapshot">;

/** What an annotator rates, frozen when the item was queued (a JSON column: the stored snapshot also
 * keeps the reply the enqueue body's `Snapshot` does not declare). */
export interface Snapshot {
  task: string;
  answer: string;
  /** The reply the customer read, when the team wrote one (who wrote which part). */
  reply?: { text: string; backend: string; parts: { agent: string; text: string; source: string }[] };
  /** What the answer's intents mean (the environment's catalogue), when the answer names some. */
  intents?: { name: string; description: string }[];
  steps: StepSnapshot[];
  meta?: Record<string, unknown>;
  /** A dataset row to label (intents queues): the intents to choose from, each with what it means. */
  catalogue?: { name: string; description: string }[];
}

export interface QueueProgress {
  items: number;
  assignments: number;
  done: number;
}

/** A queue as listed: the fields its serializer defaults on input are always in the response. */
export type Queue = Refine<
  Schema<"QueueProgress">,
  {
    kind: QueueKind;
    guidelines: string;
    tags: string[];
    my_progress: { assigned: number; done: number };
    progress?: QueueProgress;
  }
>;

export type RatingAnswer = Refine<Schema<"Rating">, { tags: string[] }>;

export type JudgementAnswer = Schema<"Judgement">;

/** An item; only the annotator's own list (an `AssignedItem`) carries their answers. */
export type Item = Refine<
  Schema<"AssignedItem">,
  {
    snapshot: Snapshot;
    snapshot_b: Snapshot | null;
    my_rating?: RatingAnswer | null;
    my_judgement?: JudgementAnswer | null;
    my_intents?: IntentAnswerStored | null;
  }
>;

/** Where a row's agreed label landed in its dataset (null until the row's annotators agree; `pending` until
 * its labelling session ends and the session's labels land as one version, decision 0032). */
export interface LandedRow {
  pending?: boolean;
  dataset?: number;
  dataset_name?: string;
  version?: number;
  version_number?: number;
  row?: number | null;
  refused?: string;
}

/** An annotator's stored intents for a row ([]: none of these). */
export type IntentAnswerStored = Refine<Schema<"IntentLabel">, { landed: LandedRow | null }>;

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
  /** Intents queues only: alpha per intent (chosen or not) and how many rows have landed as labels. */
  per_intent?: Record<string, number | null>;
  labelled_rows?: number;
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

export type RewardModel = Refine<Schema<"RewardModel">, { metrics: Partial<RewardModelMetrics> }>;

/** What creating a queue sends: the editable fields of a `Queue`. */
export type NewQueue = Pick<Queue, "project" | "name" | "kind" | "guidelines" | "overlap" | "tags">;

/** What enqueuing a deployment's answers sends; `compare_with`, for pairwise queues, is the deployment
 * whose answers are episode B (null: any other of the project). */
export type DeploymentFilter = Refine<Schema<"EnqueueDeployment">, { max_confidence: number | null }>;

