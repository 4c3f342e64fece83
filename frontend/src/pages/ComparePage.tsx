import { useCallback, useEffect, useMemo, useState } from "react";
import { ApiError } from "../api";
import { CompareChart } from "../runs/CompareChart";
import { CompareSummary } from "../runs/CompareSummary";
import { sharedSeeds } from "../runs/compareStyle";
import { ConfigDiff } from "../runs/ConfigDiff";
import { StateBadge } from "../runs/StateBadge";
import { metricLabel } from "../runs/format";
import { runsApi } from "../runs/runsApi";
import type { CompareRun, ConfigDiffRow } from "../runs/types";
import "../runs/runs.css";

const REFRESH_MS = 5000;

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
  const [runs, setRuns] = useState<CompareRun[]>([]);
  const [diff, setDiff] = useState<ConfigDiffRow[]>([]);
  const [metric, setMetric] = useState("");
  const [error, setError] = useState("");

  const load = useCallback(() => {
    if (ids.length < 2) return;
    runsApi.compare(ids).then(
      (body) => {
        setRuns(body.runs);
        setDiff(body.config_diff ?? []);
        setError("");
      },
      (e: ApiError) => setError(Object.values(e.body?.errors ?? {}).flat().join("; ") || e.message),
    );
  }, [ids]);
  useEffect(load, [load]);
  const live = runs.some((r) => r.state === "queued" || r.state === "running");
  useEffect(() => {
    if (!live) return;
    const timer = window.setInterval(load, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [load, live]);

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
      {error && <p className="error" role="alert">{error}</p>}
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
