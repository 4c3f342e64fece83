import { DIAGNOSTICS, splitDiagnostics } from "./diagnostics";
import { formatNumber } from "./format";
import type { RunDetail } from "./types";

/** Keys of the final metrics that count things rather than measure them, said in words. */
const COUNTS: Record<string, string> = { episode: "training episodes", step: "updates" };

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
  const budget = (run.spec?.training as { episodes?: unknown } | undefined)?.episodes;
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
        {counts.map(([k, v]) => `${formatNumber(v)} ${COUNTS[k]}`).join(" · ")}
        {typeof budget === "number" && `${counts.length ? " · " : ""}training budget ${formatNumber(budget)} episodes`}
      </span>
    </div>
  );
}
