import { DIAGNOSTICS, splitDiagnostics } from "./diagnostics";
import { formatNumber } from "./format";
import type { RunDetail } from "./types";

/** Keys of the final metrics that count things rather than measure them, said in words (one, many). */
const COUNTS: Record<string, [string, string]> = { episode: ["training episode", "training episodes"], step: ["update", "updates"] };

/** "1 update · 64 training episodes · training budget 32 episodes (rounded up to whole updates of 64)". */
export function countsText(counts: [string, number][], training: { episodes?: unknown; batch_size?: unknown } | undefined): string {
  const count = (v: number) => v.toLocaleString("en-US"); // exact: formatNumber keeps 3 digits (1407 → 1410)
  const words = counts.map(([k, v]) => `${count(v)} ${COUNTS[k][v === 1 ? 0 : 1]}`);
  const budget = training?.episodes;
  if (typeof budget === "number") {
    const trained = counts.find(([k]) => k === "episode")?.[1];
    const perUpdate = training?.batch_size;
    // PPO trains whole updates: a budget that is not a multiple of the update's episodes is rounded up.
    const rounded = typeof trained === "number" && trained > budget && typeof perUpdate === "number" ? ` (rounded up to whole updates of ${count(perUpdate)})` : "";
    words.push(`training budget ${count(budget)} episodes${rounded}`);
  }
  return words.join(" · ");
}

/**
 * The run's final metrics, once it ended: what the evaluation measured (and on how many evaluation
 * episodes), kept apart from the training budget, so "episodes 200" never reads as the run's length.
 */
export function FinalMetrics({ run }: { run: RunDetail }) {
  const numbers = Object.entries(run.metrics ?? {}).filter((entry): entry is [string, number] => typeof entry[1] === "number");
  if (!numbers.length) return null;
  const evalEpisodes = numbers.find(([k]) => k === "episodes")?.[1];
  const { evaluation: measured, diagnostics } = splitDiagnostics(
    numbers.filter(([k]) => k !== "episodes" && !(k in COUNTS)),
  );
  const counts = numbers.filter(([k]) => k in COUNTS);
  return (
    <div className="final-metrics" data-testid="final-metrics">
      <span>
        <b>Final evaluation</b>
        {evalEpisodes !== undefined && <span className="muted"> on {formatNumber(evalEpisodes)} evaluation episodes</span>}:
      </span>
      {measured.map(([k, v]) => (
        <span key={k} className="metric-chip">
          {k.replace(/_/g, " ")} <b>{formatNumber(v)}</b>
        </span>
      ))}
      {diagnostics.length > 0 && (
        <details className="muted" data-testid="training-diagnostics">
          <summary>Training diagnostics</summary>
          {diagnostics.map(([k, v]) => (
            <span key={k} className="metric-chip" title={DIAGNOSTICS[k].means}>
              {DIAGNOSTICS[k].name} <b>{formatNumber(v)}</b>
            </span>
          ))}
        </details>
      )}
      <span className="muted" data-testid="training-budget">
        {countsText(counts, run.spec?.training as Parameters<typeof countsText>[1])}
      </span>
    </div>
  );
}
