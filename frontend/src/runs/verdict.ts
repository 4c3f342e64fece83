/**
 * A run's verdict (the "verdict" event, training/baselines.py): the learned team beside its rules,
 * imitation and (routing teams) a plain classifier on the same held-out episodes, as rows the run page
 * draws, and the words around them.
 */
import type { VerdictPayload } from "./events.generated";
import type { FeedItem, StageProgress } from "./types";

export interface VerdictRow {
  name: string;
  label: string;
  /** Mean score, and its interval, in percentage points (0–100). */
  mean: number;
  low: number;
  high: number;
  cost: number | null;
  episodes: number;
  learned: boolean;
  /** The baseline the learned team was judged against (the best of rules, imitation and plain). */
  judgedAgainst: boolean;
}

const LABELS: Record<string, string> = {
  rules: "Rules (scripted procedure)",
  imitation: "Imitation (supervised, no RL)",
  plain: "Plain classifier (same backbone, no RL)",
  mappo: "Learned: MAPPO",
  ippo: "Learned: independent PPO",
  reinforce_comm: "Learned: communication (REINFORCE)",
  alone: "Agents acting alone",
};

const OUTCOME_TONE: Record<VerdictPayload["outcome"], "good" | "neutral" | "bad"> = {
  marl_paid: "good",
  marl_paid_costlier: "neutral",
  no_better: "neutral",
  worse: "bad",
  no_baseline: "neutral",
};

const BASELINE_ORDER = ["rules", "imitation", "plain"];

/** Rows in the order rules, imitation, plain classifier, other arms, then the learned arm; scores in points. */
export function verdictRows(verdict: VerdictPayload): VerdictRow[] {
  const order = (name: string) =>
    BASELINE_ORDER.includes(name) ? BASELINE_ORDER.indexOf(name) : name === verdict.learned ? 4 : 3;
  return [...verdict.arms]
    .sort((a, b) => order(a.name) - order(b.name))
    .map((arm) => ({
      name: arm.name,
      label: LABELS[arm.name] ?? arm.name,
      mean: arm.mean * 100,
      low: arm.low * 100,
      high: arm.high * 100,
      cost: arm.cost ?? null,
      episodes: arm.episodes,
      learned: arm.name === verdict.learned,
      judgedAgainst: arm.name === verdict.baseline,
    }));
}

/** "good" when MARL paid at no higher cost, "bad" when the learned team is worse, else "neutral". */
export function verdictTone(verdict: VerdictPayload): "good" | "neutral" | "bad" {
  return OUTCOME_TONE[verdict.outcome] ?? "neutral";
}

/** The paired difference learned − baseline in points with its interval, e.g. "+12 points (95% CI +8 to +16)". */
export function differenceText(verdict: VerdictPayload): string | null {
  if (verdict.difference === null || verdict.low === null || verdict.high === null) return null;
  const points = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(Math.round(x * 100))}`;
  const level = Math.round((verdict.level ?? 0.95) * 100);
  return `${points(verdict.difference)} points (${level}% CI ${points(verdict.low)} to ${points(verdict.high)})`;
}

/** A payload that has what the panel draws (an older or foreign event is ignored rather than drawn wrong). */
export function isVerdict(payload: unknown): payload is VerdictPayload {
  const p = payload as Partial<VerdictPayload> | null;
  return (
    !!p &&
    typeof p.sentence === "string" &&
    typeof p.learned === "string" &&
    Array.isArray(p.arms) &&
    p.arms.every((a) => typeof a?.name === "string" && typeof a.mean === "number" && typeof a.low === "number" && typeof a.high === "number")
  );
}

/** Why a run that set out to compare its team with the baselines has no verdict: the "baselines" stage
 * stopped, and the log line training/baselines.py writes then ("the baselines could not be evaluated: …")
 * says why. Null while the stage runs, when it finished or was never started. */
export function missingVerdict(stages: StageProgress[], feed: FeedItem[]): string | null {
  const stage = stages.find((s) => s.phase === "baselines");
  if (!stage || stage.state !== "stopped") return null;
  const reason = [...feed].reverse().find((item) => item.kind === "log" && item.detail.startsWith("the baselines could not"));
  return reason ? reason.detail : "the baselines stage stopped before every arm was played";
}
