import type { Refine, Schema } from "../api";
import type { RequestMatch } from "./consoleLabels";
import type { TurnEvent } from "./conversation";
import type { BatchWriting, ReplyPart } from "./reply";
import type { AllocationEvent, RosterEvent } from "./team/teamTypes";

/** Types of the deployments API (mase_web/deployments) and of the runtime's decision-log records (serving/runtime.py).
 * What the API's schema declares is aliased from it (../api.ts `Schema`); the runtime's records, the
 * WebSocket frames and what the schema leaves free-form (JSON columns) are typed here by hand. */

export type BreakerState = Schema<"Deployment">["breaker_state"];
export type DecisionSource = Schema<"DecisionStep">["source"];

export interface BreakerSnapshot {
  name: string;
  state: BreakerState;
  forced: boolean;
  consecutive_low: number;
  cooldown_left_s: number | null;
  counts: Record<string, number>;
  config: { confidence_threshold: number; consecutive_low: number; cooldown_s: number; step_limit: number };
  last_transition: Record<string, unknown> | null;
}

export type DeploymentStatus = Schema<"Deployment">["status"];

export type DeploymentSummary = Schema<"Deployment">;

export type DeploymentDetail = Refine<Schema<"DeploymentDetail">, { breaker: BreakerSnapshot }>;

export interface Alternative {
  action: string;
  p: number;
}

export interface Messages {
  received: { from: string; weight: number }[];
  sent: { to: string; weight: number }[];
}

/** What every decision shows, whether it came live from the runtime or from the stored log. */
export interface Decision {
  step: number;
  agent: string;
  observation: unknown;
  action: string;
  source: DecisionSource;
  confidence: number | null;
  /** `text`: the causal LM backbone's generated explanation; `text_error`: why generating it failed. */
  reason: {
    alternatives?: Alternative[];
    rule?: string | null;
    text?: string;
    text_error?: string;
    /** what the model proposed when the rules answered instead (below the breaker's threshold, or it opened) */
    proposed?: { action: string; confidence: number | null };
  };
  messages: Messages;
  latency_ms: number;
  reward: number | null;
  breaker_state: BreakerState;
  fault: string | null;
}

/** An operator's verdict on a stored decision (POST /api/decisions/<id>/review/). */
export type ReviewStatus = Schema<"DecisionStep">["review_status"];

/** A stored decision (GET /api/decisions/, an episode's steps). */
export type DecisionRow = Refine<Schema<"DecisionStep">, Pick<Decision, "reason" | "messages">>;

/** An episode's JSON columns: how many decisions each source made. */
type EpisodeJson = { sources: Partial<Record<DecisionSource, number>> };

/** An episode as a ticket's answer or the live stream carries it (the detail without its steps). */
export type EpisodeSummary = Refine<Omit<Schema<"EpisodeDetail">, "result" | "agents" | "steps">, EpisodeJson>;

/** The written reply as an episode row carries it (the parts come with the detail's `result`). */
export interface EpisodeReply {
  text: string;
  backend: string;
  fallback?: boolean;
}

/** A ticket as the review list shows it (GET /api/episodes/): its text, the reply, who decided and how sure;
 * a conversation turn's `event` (null for a ticket). */
export type EpisodeRow = Refine<
  Schema<"EpisodeReviewRow">,
  EpisodeJson & { reply: EpisodeReply | null; event: TurnEvent | null }
>;

export type EpisodeDetail = Refine<
  Schema<"EpisodeDetail">,
  EpisodeJson & {
    result: Record<string, unknown>;
    steps: DecisionRow[];
    reply: EpisodeReply | null;
    event: TurnEvent | null;
  }
>;

/** The runtime's result of one ticket (POST /api/deployments/<id>/tickets/). */
export interface TicketResult {
  request_id: string;
  status: string;
  steps: number;
  decisions: Decision[];
  sources: Record<DecisionSource, number>;
  faults: { step: number; kind: string; detail: string }[];
  latency_ms: number;
  breaker: BreakerState;
  info: { predicted_intents?: string[] } & Record<string, unknown>;
  /** A writing team's request: the topic, brief or task it was matched to; for a routing team with its scope
   * gate on, the gate's check of a ticket it handed to a person (``nearest`` intent instead of an item). */
  request?: RequestMatch;
}

export type Transition = Schema<"Transition">;

export type AlertRow = Schema<"Alert">;

export type Batch = Refine<
  Schema<"BatchJob">,
  {
    /** Exact match and per-intent figures when the batch's tickets carry intents. */
    score: BatchScore | null;
    /** What writing the batch's replies cost (null before any reply is stored). */
    writing?: BatchWriting | null;
  }
>;

export interface IntentScore {
  intent: string;
  support: number;
  predicted: number;
  correct: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

export interface BatchScore {
  labelled: number;
  scored: number;
  exact: number;
  exact_match: number | null;
  intents: IntentScore[];
}

/** A finished training run offered by the deploy form, and what keeps it from being deployed. */
export type DeployCandidate = Schema<"DeployCandidate">;

/** Frames of ws/deployments/<id>/ (mase_web/deployments/live.py). */
export type StreamEvent =
  | { kind: "hello"; breaker: BreakerSnapshot }
  | { kind: "heartbeat" }
  | { kind: "episode"; episode: EpisodeSummary }
  | { kind: "step"; episode: number; request_id: string; record: Decision }
  | { kind: "breaker"; transition: Transition; breaker: BreakerSnapshot }
  | { kind: "alert"; alert: AlertRow }
  | { kind: "batch"; batch: Batch }
  | { kind: "reply_part"; episode: number; request_id: string; index: number; part: ReplyPart }
  | AllocationEvent
  | RosterEvent;

/** GET deployments/preview/ (mase_web/deployments/preview.py): the breaker replayed on the checkpoint's
 * dev-split confidences at one threshold. */
export interface FallbackPreviewResult {
  run: number;
  checkpoint: string;
  split: string;
  confidence_threshold: number;
  spec_threshold: number;
  consecutive_low: number;
  tickets: number;
  decisions: number;
  fallback_tickets: number;
  fallback_ticket_share: number;
  model_decision_share: number;
  low_decision_share: number;
  calibration_error: number | null;
  calibration_error_before: number | null;
}

/** What a correction may name: the deployment's intents (with what each means) and its team's agents. */
export type Catalogue = Schema<"Catalogue">;

/** What a correction sends (POST /api/decisions/<id>/correct/, /api/episodes/<id>/correct/). */
export type CorrectionBody = Schema<"CorrectionRequest">;

/** Where a corrected ticket landed in the deployment's dataset (empty before it landed). */
export interface DatasetRowRef {
  dataset?: number;
  dataset_name?: string;
  version?: number;
  version_number?: number;
  row?: number;
}

/** A stored correction. */
export type Correction = Refine<Schema<"Correction">, { dataset_row: DatasetRowRef }>;
