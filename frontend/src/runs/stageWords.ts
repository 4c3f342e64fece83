/** How the run page words a stage's progress (the same words as `mase train`'s bars, training/cli.py). */
import type { StageProgress } from "./types";

/** "12 s", "6 min 40 s". */
export function seconds(value: number): string {
  const whole = Math.round(Math.max(0, value));
  return whole < 120 ? `${whole} s` : `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
}

/** "about 75 s left", "estimating…" (nothing done yet), "done in 13 s", "stopped after 4 s". */
export function timeLeft(stage: StageProgress): string {
  if (stage.state === "done") return `done in ${seconds(stage.elapsedS)}`;
  if (stage.state === "stopped") return `stopped after ${seconds(stage.elapsedS)}`;
  if (stage.etaS === null) return "estimating…";
  return `about ${seconds(stage.etaS)} left`;
}

/** "48 / 96 episodes". */
export function doneOfTotal(stage: StageProgress): string {
  return `${stage.done.toLocaleString()} / ${stage.total.toLocaleString()} ${stage.unit}`;
}

/** Share done, 0–100. */
export function percentDone(stage: StageProgress): number {
  return stage.total > 0 ? Math.min(100, (100 * stage.done) / stage.total) : stage.state === "done" ? 100 : 0;
}
