import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { fieldErrorText } from "../api";
import { CompareChart } from "../runs/CompareChart";
import { CompareSummary } from "../runs/CompareSummary";
import { sharedSeeds } from "../runs/compareStyle";
import { ConfigDiff } from "../runs/ConfigDiff";
import { StateBadge } from "../runs/StateBadge";
import { metricLabel } from "../runs/format";
import { runQueries } from "../runs/queries";
import "../runs/runs.css";

function idsFromUrl(): number[] {
  const raw = new URLSearchParams(window.location.search).get("ids") ?? "";
  return raw
    .split(",")
    .map((part) => Number(part.trim()))
    .filter((id) => Number.isInteger(id) && id > 0);
}

/** Two or more runs side by side: a summary table, one chosen metric overlaid, and how their specs
 * differ; refreshed while any of them runs. */
export function ComparePage() {
  const ids = useMemo(idsFromUrl, []);
  const [metric, setMetric] = useState("");
  // Polled while any of the runs is queued or running (runQueries.compare).
  const { data, error } = useQuery({ ...runQueries.compare(ids), enabled: ids.length >= 2 });
  const runs = useMemo(() => data?.runs ?? [], [data]);
  const diff = data?.config_diff ?? [];

  const metrics = useMemo(() => {
    const keys = new Set<string>();
    runs.forEach((r) => Object.keys(r.series).forEach((k) => keys.add(k)));
    return [...keys].sort();
  }, [runs]);
  const chosen = metric || (metrics.includes("success") ? "success" : (metrics[0] ?? ""));

  return (
    <main className="page wide runs-ui">
      <p className="crumbs">
        <a href="/runs/">Runs</a> / compare
      </p>
      <h1>Compare runs</h1>
      {error && <p className="error" role="alert">{fieldErrorText(error)}</p>}
      {ids.length < 2 && <p className="error">Pick at least two runs on the Runs page to compare them.</p>}
      {runs.length > 0 && (
        <section className="card">
          <div className="card-head">
            <ul className="compare-runs">
              {runs.map((r) => (
                <li key={r.id}>
                  <a href={`/runs/${r.id}/`}>
                    #{r.id} {r.name}
                  </a>{" "}
                  <StateBadge state={r.state} />
                </li>
              ))}
            </ul>
            <label>
              Metric{" "}
              <select value={chosen} onChange={(e) => setMetric(e.target.value)} aria-label="Metric to compare">
                {metrics.map((k) => (
                  <option key={k} value={k}>
                    {metricLabel(k)}
                  </option>
                ))}
              </select>
            </label>
          </div>
          {chosen ? <CompareChart runs={runs} metric={chosen} /> : <p className="muted">These runs have reported no metrics yet.</p>}
          {sharedSeeds(runs).map((line) => (
            <p key={line} className="muted small" data-testid="shared-seed">
              {line}: where their curves coincide, each keeps its own dash and marker (see the legend).
            </p>
          ))}
        </section>
      )}
      {runs.length > 0 && (
        <section className="card">
          <h2>Summary</h2>
          <CompareSummary runs={runs} />
        </section>
      )}
      {runs.length > 0 && (
        <section className="card">
          <h2>Configuration differences</h2>
          <ConfigDiff runs={runs} rows={diff} />
        </section>
      )}
    </main>
  );
}
