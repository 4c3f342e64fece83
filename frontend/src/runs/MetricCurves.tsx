import { useMemo, useState } from "react";
import { MetricChart } from "./MetricChart";
import { metricLabel } from "./format";
import type { Point } from "./runStream";

// Success, reward and delivered messages, as each trainer names them (REINFORCE: reward, messages; PPO: return,
// messages_per_episode).
const DEFAULT_METRICS = ["success", "reward", "return", "messages", "messages_per_episode"];

/** The curves shown until the user picks: the defaults this run reports, else its first three metrics. */
export function defaultMetrics(keys: string[]): string[] {
  const reported = DEFAULT_METRICS.filter((k) => keys.includes(k));
  return reported.length ? reported : keys.slice(0, 3);
}

/** Sort order of the picker: training metrics, then evaluation, then golden-range values. */
function rank(key: string): number {
  if (key.startsWith("protocol.")) return 3; // the protocol panel shows these; here they close the list
  if (key.startsWith("golden.")) return 2;
  if (key.startsWith("eval_")) return 1;
  return 0;
}

/** Live learning curves: one small chart per chosen metric, against episodes. */
export function MetricCurves({ series }: { series: Record<string, Point[]> }) {
  const keys = useMemo(
    () => Object.keys(series).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)),
    [series],
  );
  const [chosen, setChosen] = useState<string[] | null>(null);
  const shown = chosen ?? defaultMetrics(keys);

  const toggle = (key: string) =>
    setChosen(shown.includes(key) ? shown.filter((k) => k !== key) : [...shown, key]);

  return (
    <section className="card">
      <h2>Learning curves</h2>
      {keys.length === 0 ? (
        <p className="muted">No metrics yet: the curves appear with the first training window.</p>
      ) : (
        <>
          <fieldset className="metric-picker" aria-label="Metrics to plot">
            {keys.map((key) => (
              <label key={key} className={shown.includes(key) ? "run-chip run-chip-on" : "run-chip"}>
                <input type="checkbox" checked={shown.includes(key)} onChange={() => toggle(key)} />
                {metricLabel(key)}
              </label>
            ))}
          </fieldset>
          <div className="chart-grid">
            {shown
              .filter((key) => key in series)
              .map((key) => (
                <MetricChart key={key} name={key} points={series[key]} evalPoints={series[`eval_${key}`]} />
              ))}
          </div>
        </>
      )}
    </section>
  );
}
