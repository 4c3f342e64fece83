import type { BatchWriting, ReplyPart } from "./reply";

/** Types of the deployments API (mase_web/deployments) and of the runtime's decision-log records (serving/runtime.py). */

export type BreakerState = "closed" | "open" | "half_open";
export type DecisionSource = "model" | "trial" | "fallback";

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

export type DeploymentStatus = "active" | "stopped";

export interface DeploymentSummary {
  id: number;
  project: number;
  project_name: string;
  name: string;
  workflow: number | null;
  run: number;
  run_name: string;
  checkpoint: string;
  status: DeploymentStatus;
  created_by: string | null;
  created_at: string;
  breaker_state: BreakerState;
  environment: string | null;
  agents: string[];
}

export interface DeploymentDetail extends DeploymentSummary {
  breaker: BreakerSnapshot;
  fallback: string;
}

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
  reason: { alternatives?: Alternative[]; rule?: string | null; text?: string; text_error?: string };
  messages: Messages;
  latency_ms: number;
  reward: number | null;
  breaker_state: BreakerState;
  fault: string | null;
}

/** An operator's verdict on a stored decision (POST /api/decisions/<id>/review/). */
export type ReviewStatus = "unreviewed" | "ok" | "wrong" | "escalated";

/** A stored decision (GET /api/decisions/, an episode's steps). */
export interface DecisionRow extends Decision {
  id: number;
  episode: number;
  action_index: number | null;
  created_at: string;
  review_status: ReviewStatus;
  review_reason: string;
  reviewed_by: string | null;
  reviewed_at: string | null;
}

export interface EpisodeSummary {
  id: number;
  deployment: number;
  deployment_name: string;
  run: number;
  request_id: string;
  task_id: string;
  task_text: string;
  source: "api" | "browser" | "batch";
  batch: number | null;
  status: string;
  reward: number | null;
  breaker_state: BreakerState;
  created_by: string | null;
  created_at: string;
  answer: string[] | null;
  sources: Partial<Record<DecisionSource, number>>;
}

export interface EpisodeDetail extends EpisodeSummary {
  agents: string[];
  result: Record<string, unknown>;
  steps: DecisionRow[];
}

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
}

export interface Transition {
  id: number;
  deployment: number;
  from_state: BreakerState;
  to_state: BreakerState;
  reason: string;
  detail: string;
  actor: string | null;
  why: string;
  created_at: string;
}

export interface AlertRow {
  id: number;
  deployment: number;
  level: string;
  name: string;
  detail: string;
  transition: number | null;
  created_at: string;
}

export interface Batch {
  id: number;
  deployment: number;
  state: "queued" | "running" | "succeeded" | "failed";
  total: number;
  done: number;
  error: string;
  created_at: string;
  finished_at: string | null;
  /** Exact match and per-intent figures when the batch's tickets carry intents. */
  score: BatchScore | null;
  /** What writing the batch's replies cost (null before any reply is stored). */
  writing?: BatchWriting | null;
}

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
export interface DeployCandidate {
  id: number;
  name: string;
  project: number;
  deployable: boolean;
  why: string | null;
}

/** Frames of ws/deployments/<id>/ (mase_web/deployments/live.py). */
export type StreamEvent =
  | { kind: "hello"; breaker: BreakerSnapshot }
  | { kind: "heartbeat" }
  | { kind: "episode"; episode: EpisodeSummary }
  | { kind: "step"; episode: number; request_id: string; record: Decision }
  | { kind: "breaker"; transition: Transition; breaker: BreakerSnapshot }
  | { kind: "alert"; alert: AlertRow }
  | { kind: "batch"; batch: Batch }
  | { kind: "reply_part"; episode: number; request_id: string; index: number; part: ReplyPart };
