/** Types of the runs API (mase_web/runs) and of what the run stream makes of the library's events.
 * What the API's schema declares is aliased from it (../api.ts `Schema`); the event payloads are generated
 * from their declaration (training/event_payloads.py → events.schema.json → events.generated.ts,
 * `npm run gen:events`); the rest (WebSocket frames, the reducer's state, endpoints the schema leaves
 * free-form) is typed here. */
import type { Refine, Schema } from "../api";
import type { CommunicationGraph, EventPayloads, MetricsPayload, ProgressPayload } from "./events.generated";

export type { AttentionPayload, CommunicationGraph, EventPayloads, FinishedPayload, GraphEdge, GraphNode, ProgressPayload } from "./events.generated";

/** The kinds of run event (training/event_payloads.py `PAYLOADS`). */
export type RunEventType = keyof EventPayloads;

export type RunState = Schema<"Run">["state"];
export const RUN_STATES: RunState[] = ["queued", "running", "succeeded", "failed", "cancelled"];
export const TERMINAL_STATES: ReadonlySet<string> = new Set(["succeeded", "failed", "cancelled"]);

export interface Paginated<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** A run's JSON columns: where its spec came from, its final metrics. */
type RunJson = { source: Record<string, unknown>; metrics: Record<string, unknown> };

export type RunSummary = Refine<Schema<"Run">, RunJson>;

export type RunDetail = Refine<Schema<"RunDetail">, RunJson & { spec: Record<string, unknown> }>;

export type Checkpoint = Refine<Schema<"Checkpoint">, { metrics: Record<string, unknown> }>;

/** One event as the WebSocket and GET /api/runs/<id>/events/ send it. */
export type RunEventMessage = Refine<
  Schema<"RunEvent">,
  {
    type: RunEventType;
    /** Read defensively: a stored event of an older version may lack what its type declares now. */
    payload: Record<string, unknown>;
    /** Seconds since the epoch on the WebSocket, an ISO date from the REST API. */
    time: string | number;
  }
>;

export type StreamFrame =
  | { type: "events"; events: RunEventMessage[] }
  | { type: "heartbeat"; last_seq: number };

/** One "attention" event: row i of `matrix` is how much agent i listens to each agent j. */
export interface AttentionFrame {
  seq: number;
  step: number | null;
  episode: number | null;
  mode: string;
  agents: string[];
  matrix: number[][];
  graph: CommunicationGraph | null;
}

export interface PhaseChange {
  seq: number;
  episode: number | null;
  from: string;
  to: string;
  reason: string;
}

export interface PlateauWarning {
  seq: number;
  episode: number | null;
  cycles: number | null;
  recommendation: string;
}

/** Alerts (golden ranges, circuit breaker, health), errors and log lines, in arrival order. */
export interface FeedItem {
  seq: number;
  time: string | number;
  kind: "alert" | "error" | "log";
  level: "ok" | "warn" | "alert" | "info" | "error";
  title: string;
  detail: string;
}

export type GoldenLevel = NonNullable<MetricsPayload["golden_levels"]>[string];

/** A stage of the run as its last "progress" event described it (training/events.py `RunStage`). */
export interface StageProgress {
  /** The stage's name: reader_texts, reader_fit, expert_episodes, cloning_data, cloning, critic_warmup,
   * training, evaluation, calibration. */
  phase: ProgressPayload["phase"];
  label: ProgressPayload["label"];
  done: ProgressPayload["done"];
  total: ProgressPayload["total"];
  unit: ProgressPayload["unit"];
  elapsedS: ProgressPayload["elapsed_s"];
  /** Seconds left at the stage's rate since its first unit of work (whose time holds the start-up), from
   * the reports the page holds (`runStream.stageOf`); null until a unit more than the first is done. */
  etaS: ProgressPayload["eta_s"];
  /** Units done when this run of the stage began (a resumed stage begins past 0). */
  begunAt: number;
  /** The first report after the stage's first unit of work: where its rate is measured from (null: none yet). */
  firstUnit: { done: number; elapsedS: number } | null;
  state: ProgressPayload["state"];
  /** When the event was emitted (seconds since the epoch on the socket, ISO from the API). */
  time: string | number;
  /** The event's number: the most recent running stage is the one the run is in. */
  seq: number;
  /** How many times the stage began (evaluation repeats during training). */
  runs: number;
}

export interface SystemMetrics {
  cpu_percent?: number;
  memory_percent?: number;
  process_rss_mb?: number;
  gpu_memory_mb?: number;
  gpu_name?: string;
  [key: string]: unknown;
}

export interface CompareSummary {
  final_metrics: Record<string, number>;
  wall_seconds: number | null;
  budget_episodes: number | null;
  episodes_done: number | null;
  algorithm: string;
  seed: number | null;
  device: string;
  kind: string;
  tags: string[];
}

export interface CompareRun {
  id: number;
  name: string;
  state: RunState;
  series: Record<string, [number, number][]>;
  summary?: CompareSummary;
}

/** One setting whose value differs between the compared runs' specs (one value per run, null: absent). */
export interface ConfigDiffRow {
  path: string;
  values: unknown[];
}

export interface CompareBody {
  runs: CompareRun[];
  config_diff?: ConfigDiffRow[];
}

/** GET /api/runs/workers/: connected workers and the device queues they consume. */
export interface WorkerState {
  queues: Record<string, string[]>;
  workers: { name: string; queues: string[] }[];
  checked_at: number;
  error: string;
}

export type Membership = Schema<"Membership">;
export type Me = Schema<"Me">;
