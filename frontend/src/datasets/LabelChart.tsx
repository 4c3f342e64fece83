import { labelBars } from "./logic";
import type { LabelDistribution } from "./types";

/** Rows per intent as horizontal bars, each split a segment (train, dev, test), drawn with plain CSS. */
export function LabelChart({ distribution }: { distribution: LabelDistribution }) {
  const bars = labelBars(distribution.intents, distribution.unlabelled, distribution.out_of_scope);
  if (bars.length === 0) return <p className="muted">No rows.</p>;
  return (
    <div className="label-chart" data-testid="label-chart" role="figure" aria-label="Rows per intent">
      <p className="label-legend small">
        <span className="seg seg-train" /> train <span className="seg seg-dev" /> dev <span className="seg seg-test" /> test
      </p>
      {bars.map((bar) => (
        <div key={bar.name} className="label-bar" data-testid={`label-${bar.name}`}>
          <span className="label-name">{bar.name.replaceAll("_", " ")}</span>
          <span className="label-track">
            {bar.segments.map((s) => (
              <span
                key={s.split}
                className={`seg seg-${s.split}`}
                style={{ width: `${s.percent}%` }}
                title={`${s.split}: ${s.count}`}
              />
            ))}
          </span>
          <span className="label-count">{bar.count}</span>
        </div>
      ))}
    </div>
  );
}
