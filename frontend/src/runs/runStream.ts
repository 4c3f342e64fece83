/**
 * What the run page knows about one run's event stream, and the pure reducer that folds events into it.
 *
 * Events are numbered per run from 1 with no gaps. The reducer accepts only the next number: an event
 * already seen (a reconnect's overlap, a duplicate frame) is dropped, and an event past a gap is
 * refused so the caller can reconnect with ?after=lastSeq and let the server fill the gap. So no event
 * is ever counted twice and none is silently skipped.
 */
import type {
  AttentionFrame,
  CommunicationGraph,
  FeedItem,
  GoldenLevel,
  PhaseChange,
  PlateauWarning,
  RunEventMessage,
  StageProgress,
  SystemMetrics,
} from "./types";
import type { AllocationPayload, VerdictPayload } from "./events.generated";
import { isVerdict } from "./verdict";
import { isAllocation } from "./allocation";

export type Point = [number, number];

export interface GoldenReading {
  value: number;
  level: GoldenLevel | null;
  episode: number | null;
}

/** Range and thresholds an alert event carried for a golden metric (overrides the default table). */
export interface GoldenBounds {
  golden: [number, number] | null;
  alertBelow: number | null;
  alertAbove: number | null;
  unit: string | null;
}

export interface RunStreamState {
  lastSeq: number;
  started: Record<string, unknown> | null;
  finished: { status: string; metrics: Record<string, unknown> } | null;
  totalEpisodes: number | null;
  lastEpisode: number | null;
  /** metric name → [episode, value] points, in arrival order (training windows, eval and golden values). */
  series: Record<string, Point[]>;
  /** (episode, phase) whenever the evolution phase reported with the metrics changed. */
  phaseMarks: [number, string][];
  attention: AttentionFrame[];
  phases: PhaseChange[];
  plateaus: PlateauWarning[];
  feed: FeedItem[];
  golden: Record<string, GoldenReading>;
  goldenBounds: Record<string, GoldenBounds>;
  system: SystemMetrics | null;
  /** Every stage the run reported progress for, in the order they began, each as last reported. */
  stages: StageProgress[];
  systemHistory: { time: string | number; cpu: number | null; memory: number | null }[];
  /** Bumped by every "checkpoint" event so the page refetches the checkpoint list. */
  checkpointEvents: number;
  /** Bumped by lifecycle events (started, finished, error) so the page refetches the run's row. */
  lifecycleEvents: number;
  /** The learned team beside its baselines, when the run evaluated them (the "verdict" event). */
  verdict: VerdictPayload | null;
  /** A large team's last evaluation episode: backlogs, wins, messages (the "allocation" event). */
  allocation: AllocationPayload | null;
}

export const emptyStream: RunStreamState = {
  lastSeq: 0,
  started: null,
  finished: null,
  totalEpisodes: null,
  lastEpisode: null,
  series: {},
  phaseMarks: [],
  attention: [],
  phases: [],
  plateaus: [],
  feed: [],
  golden: {},
  goldenBounds: {},
  system: null,
  stages: [],
  systemHistory: [],
  checkpointEvents: 0,
  verdict: null,
  allocation: null,
  lifecycleEvents: 0,
};

const FEED_LIMIT = 500;
const SYSTEM_HISTORY_LIMIT = 360;

const num = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null;
const str = (value: unknown): string => (typeof value === "string" ? value : value == null ? "" : String(value));

/** The events of `batch` that may be applied after `lastSeq`: new ones only, stopping at a gap. */
export function acceptable(lastSeq: number, batch: RunEventMessage[]): { accepted: RunEventMessage[]; gap: boolean } {
  const accepted: RunEventMessage[] = [];
  let next = lastSeq + 1;
  for (const event of [...batch].sort((a, b) => a.seq - b.seq)) {
    if (event.seq < next) continue; // seen already
    if (event.seq > next) return { accepted, gap: true };
    accepted.push(event);
    next += 1;
  }
  return { accepted, gap: false };
}

function isGraph(value: unknown): value is CommunicationGraph {
  const g = value as CommunicationGraph | null;
  return !!g && Array.isArray(g.nodes) && Array.isArray(g.edges);
}

function isMatrix(value: unknown): value is number[][] {
  return Array.isArray(value) && value.every((row) => Array.isArray(row) && row.every((x) => typeof x === "number"));
}

function formatValue(value: unknown): string {
  const n = num(value);
  if (n === null) return str(value);
  return Math.abs(n) >= 1000 ? n.toLocaleString(undefined, { maximumFractionDigits: 0 }) : String(+n.toPrecision(4));
}

const BREAKER_LEVELS: Record<string, FeedItem["level"]> = { critical: "alert", warning: "warn", info: "ok" };

function alertItem(event: RunEventMessage): FeedItem {
  const p = event.payload;
  const source = str(p.source);
  const rawLevel = str(p.level);
  if (source === "breaker") {
    // serving/breaker.py reports levels critical/warning/info, the breaker's name as `breaker` and the
    // why as `message`; the feed speaks ok/warn/alert.
    const state = str(p.state);
    const byState = state === "open" ? "alert" : state === "closed" ? "ok" : "warn";
    const level = (BREAKER_LEVELS[rawLevel] ?? (["ok", "warn", "alert"].includes(rawLevel) ? rawLevel : byState)) as FeedItem["level"];
    const name = str(p.breaker) || str(p.name);
    return {
      seq: event.seq,
      time: event.time,
      kind: "alert",
      level,
      title: `Circuit breaker ${state || "changed"}${name ? ` (${name})` : ""}`,
      detail: str(p.reason) || str(p.message),
    };
  }
  const golden = Array.isArray(p.golden) ? (p.golden as unknown[]) : null;
  const parts = [p.value !== undefined ? `value ${formatValue(p.value)}${p.unit ? ` ${str(p.unit)}` : ""}` : ""];
  if (golden && golden.length === 2) parts.push(`golden ${formatValue(golden[0])}–${formatValue(golden[1])}`);
  if (num(p.alert_below) !== null) parts.push(`alert below ${formatValue(p.alert_below)}`);
  if (num(p.alert_above) !== null) parts.push(`alert above ${formatValue(p.alert_above)}`);
  if (p.message) parts.push(str(p.message));
  if (p.reason) parts.push(str(p.reason));
  const level = (["ok", "warn", "alert"].includes(rawLevel) ? rawLevel : "warn") as FeedItem["level"];
  return {
    seq: event.seq,
    time: event.time,
    kind: "alert",
    level,
    title: `${str(p.name) || "alert"}: ${rawLevel || "raised"}${source ? ` · ${source.replace("_", " ")}` : ""}`,
    detail: parts.filter(Boolean).join(" · "),
  };
}

/** Seconds left at the rate since the stage's first unit of work: that unit's time holds the start-up
 * (loading, caches filling, a first update far slower than the next), and a rate counting it promised a
 * run of 3 min 43 min. Null until a unit more than the first is done. */
export function secondsLeft(stage: Pick<StageProgress, "done" | "total" | "elapsedS" | "firstUnit">): number | null {
  const left = stage.total - stage.done;
  if (left <= 0) return 0;
  const from = stage.firstUnit;
  if (!from || stage.done <= from.done || stage.elapsedS <= from.elapsedS) return null;
  return (left * (stage.elapsedS - from.elapsedS)) / (stage.done - from.done);
}

function stageOf(event: RunEventMessage, before: StageProgress | undefined): StageProgress {
  const p = event.payload ?? {};
  const state = p.state === "done" || p.state === "stopped" ? p.state : "running";
  const begins = !before || (before.state !== "running" && state === "running");
  const done = num(p.done) ?? 0;
  const elapsedS = num(p.elapsed_s) ?? 0;
  const begunAt = begins ? done : before.begunAt;
  const firstUnit = begins ? null : (before.firstUnit ?? (done > begunAt ? { done, elapsedS } : null));
  const total = num(p.total) ?? 0;
  return {
    phase: str(p.phase),
    label: str(p.label) || str(p.phase),
    done,
    total,
    unit: str(p.unit),
    elapsedS,
    etaS: secondsLeft({ done, total, elapsedS, firstUnit }),
    begunAt,
    firstUnit,
    state,
    time: event.time,
    seq: event.seq,
    runs: (before?.runs ?? 0) + (begins ? 1 : 0),
  };
}

/** The stage the run is in now: the most recently reported of those still running (null: none). */
export function currentStage(stages: StageProgress[]): StageProgress | null {
  let current: StageProgress | null = null;
  for (const stage of stages) if (stage.state === "running" && (!current || stage.seq > current.seq)) current = stage;
  return current;
}

/** Fold events (already checked with `acceptable`) into a new state; the old one is left untouched. */
export function applyEvents(state: RunStreamState, events: RunEventMessage[]): RunStreamState {
  const { accepted } = acceptable(state.lastSeq, events);
  if (!accepted.length) return state;
  const s: RunStreamState = { ...state };
  // Copy each collection at most once per batch, and only when the batch touches it.
  const touched = new Set<string>();
  const own = <K extends keyof RunStreamState>(key: K): RunStreamState[K] => {
    if (!touched.has(key)) {
      touched.add(key);
      const value = s[key];
      (s as unknown as Record<string, unknown>)[key] = Array.isArray(value) ? [...value] : { ...(value as object) };
    }
    return s[key];
  };
  const ownSeries = new Set<string>();

  for (const event of accepted) {
    const p = event.payload ?? {};
    s.lastSeq = event.seq;
    switch (event.type) {
      case "started": {
        s.started = p;
        s.totalEpisodes = num(p.episodes) ?? s.totalEpisodes;
        s.finished = null;
        s.lifecycleEvents += 1;
        // A resumed delivery trains again from its checkpoint's episode: what the dead delivery
        // reported after that point is superseded, so the curves continue instead of doubling back.
        const from = num(p.resumed_from);
        if (from !== null) {
          const series = own("series");
          for (const key of Object.keys(series)) {
            if (series[key].some((point) => point[0] > from)) {
              series[key] = series[key].filter((point) => point[0] <= from);
              ownSeries.add(key);
            }
          }
          s.phaseMarks = s.phaseMarks.filter(([episode]) => episode <= from);
          s.lastEpisode = s.lastEpisode === null ? null : Math.min(s.lastEpisode, from);
        }
        break;
      }
      case "finished":
        s.finished = { status: str(p.status), metrics: (p.metrics as Record<string, unknown>) ?? {} };
        s.lifecycleEvents += 1;
        // a stage still running when the run ended (a worker killed mid-stage) did not finish
        if (s.stages.some((stage) => stage.state === "running"))
          s.stages = s.stages.map((stage) => (stage.state === "running" ? { ...stage, state: "stopped" } : stage));
        break;
      case "metrics": {
        if (p.system && typeof p.system === "object") {
          const system = p.system as SystemMetrics;
          s.system = system;
          const history = own("systemHistory");
          history.push({ time: event.time, cpu: num(system.cpu_percent), memory: num(system.memory_percent) });
          if (history.length > SYSTEM_HISTORY_LIMIT) history.splice(0, history.length - SYSTEM_HISTORY_LIMIT);
        }
        const episode = num(p.episode) ?? num(p.step);
        if (episode === null) break;
        s.lastEpisode = Math.max(s.lastEpisode ?? 0, episode);
        const series = own("series");
        for (const [key, value] of Object.entries(p)) {
          const v = num(value);
          if (v === null || key === "episode" || key === "step") continue;
          if (!ownSeries.has(key)) {
            ownSeries.add(key);
            series[key] = [...(series[key] ?? [])];
          }
          series[key].push([episode, v]);
          if (key.startsWith("golden.")) {
            const name = key.slice("golden.".length);
            const levels = (p.golden_levels as Record<string, GoldenLevel> | undefined) ?? {};
            own("golden")[name] = { value: v, level: levels[name] ?? null, episode };
          }
        }
        if (typeof p.phase === "string") {
          const marks = s.phaseMarks;
          // The first reported phase is taken to hold from the start of training.
          if (!marks.length) own("phaseMarks").push([0, p.phase]);
          else if (marks[marks.length - 1][1] !== p.phase) own("phaseMarks").push([episode, p.phase]);
        }
        break;
      }
      case "attention": {
        const agents = Array.isArray(p.agents) ? p.agents.map(str) : [];
        if (!isMatrix(p.matrix) || p.matrix.length !== agents.length) break;
        own("attention").push({
          seq: event.seq,
          step: num(p.step),
          episode: s.lastEpisode,
          mode: str(p.mode) || "train",
          agents,
          matrix: p.matrix,
          graph: isGraph(p.graph) ? p.graph : null,
        });
        break;
      }
      case "phase": {
        const change = { seq: event.seq, episode: s.lastEpisode, from: str(p.from), to: str(p.to), reason: str(p.reason) };
        own("phases").push(change);
        const marks = s.phaseMarks;
        if (!marks.length || marks[marks.length - 1][1] !== change.to) {
          const at = s.lastEpisode ?? 0;
          if (!marks.length && change.from) own("phaseMarks").push([0, change.from]);
          own("phaseMarks").push([at, change.to]);
        }
        break;
      }
      case "plateau":
        own("plateaus").push({
          seq: event.seq,
          episode: s.lastEpisode,
          cycles: num(p.cycles),
          recommendation: str(p.recommendation),
        });
        break;
      case "checkpoint":
        s.checkpointEvents += 1;
        break;
      case "progress": {
        if (!str(p.phase)) break;
        const stages = own("stages");
        const at = stages.findIndex((stage) => stage.phase === p.phase);
        if (at < 0) stages.push(stageOf(event, undefined));
        else stages[at] = stageOf(event, stages[at]);
        break;
      }
      case "alert": {
        own("feed").push(alertItem(event));
        if (p.source === "golden_range" && typeof p.name === "string") {
          const golden = Array.isArray(p.golden) && p.golden.length === 2 ? (p.golden as [number, number]) : null;
          own("goldenBounds")[p.name] = {
            golden,
            alertBelow: num(p.alert_below),
            alertAbove: num(p.alert_above),
            unit: typeof p.unit === "string" ? p.unit : null,
          };
          const level = str(p.level) as GoldenLevel;
          const value = num(p.value);
          if (value !== null && ["ok", "warn", "alert"].includes(level))
            own("golden")[p.name] = { value, level, episode: s.lastEpisode };
        }
        break;
      }
      case "error":
        own("feed").push({ seq: event.seq, time: event.time, kind: "error", level: "error", title: "Error", detail: str(p.message) });
        s.lifecycleEvents += 1;
        break;
      case "verdict":
        if (isVerdict(p)) s.verdict = p;
        break;
      case "allocation":
        if (isAllocation(p)) s.allocation = p;
        break;
      case "log":
        own("feed").push({ seq: event.seq, time: event.time, kind: "log", level: "info", title: "Log", detail: str(p.message) });
        break;
      default:
        break;
    }
  }
  if (s.feed.length > FEED_LIMIT) s.feed = s.feed.slice(s.feed.length - FEED_LIMIT);
  return s;
}
