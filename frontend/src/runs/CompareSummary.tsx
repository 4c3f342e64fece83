import { runStyle } from "./compareStyle";
import { formatNumber } from "./format";
import type { CompareRun } from "./types";

function seconds(value: number | null | undefined): string {
  if (value == null) return "–";
  if (value < 90) return `${Math.round(value)} s`;
  return value < 5400 ? `${Math.round(value / 60)} min` : `${(value / 3600).toFixed(1)} h`;
}

/** One row per compared run: budget and progress, wall time, seed, and its final metrics side by side. */
export function CompareSummary({ runs }: { runs: CompareRun[] }) {
  const metricKeys = [...new Set(runs.flatMap((r) => Object.keys(r.summary?.final_metrics ?? {})))].sort();
  return (
    <div className="table-scroll">
      <table className="compare-table" data-testid="compare-summary">
        <thead>
          <tr>
            <th>Run</th>
            <th>Budget (episodes)</th>
            <th>Trained to</th>
            <th>Wall time</th>
            <th>Algorithm · device</th>
            <th>Seed</th>
            {metricKeys.map((k) => (
              <th key={k}>{k === "episodes" ? "eval episodes" : k.replace(/_/g, " ")}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {runs.map((run, index) => {
            const s = run.summary;
            return (
              <tr key={run.id}>
                <td>
                  <span className="compare-swatch" style={{ borderColor: runStyle(index).colour, borderTopStyle: index % 2 ? "dashed" : "solid" }} />
                  <a href={`/runs/${run.id}/`}>
                    #{run.id} {run.name}
                  </a>
                </td>
                <td>{formatNumber(s?.budget_episodes ?? null)}</td>
                <td>{formatNumber(s?.episodes_done ?? null)}</td>
                <td>{seconds(s?.wall_seconds)}</td>
                <td>
                  {s?.algorithm ?? "–"} · {s?.device ?? "–"}
                </td>
                <td>{s?.seed ?? "–"}</td>
                {metricKeys.map((k) => (
                  <td key={k}>{formatNumber(s?.final_metrics[k] ?? null)}</td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
