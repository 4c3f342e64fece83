import { useState } from "react";
import { formatNumber, formatTime } from "./format";
import type { Checkpoint } from "./types";

const PAGE = 10;

function metricsText(metrics: Record<string, unknown>): string {
  return (
    Object.entries(metrics)
      .filter(([k, v]) => typeof v === "number" && k !== "episode" && k !== "step")
      .slice(0, 4)
      .map(([k, v]) => `${k.replace(/_/g, " ")} ${formatNumber(v)}`)
      .join(" · ") || "–"
  );
}

/** Episodes played at a checkpoint: older MAPPO rows stored the update number as `step`, with the
 * episode in their metrics. */
function episodeOf(c: Checkpoint): number {
  return typeof c.metrics.episode === "number" ? c.metrics.episode : c.step;
}

/** Checkpoints the run wrote, newest first, ten to a page (a failed or cancelled run resumes from the newest). */
export function CheckpointList({ checkpoints }: { checkpoints: Checkpoint[] }) {
  const [page, setPage] = useState(0);
  const newest = [...checkpoints].reverse();
  const pages = Math.max(1, Math.ceil(newest.length / PAGE));
  const shown = newest.slice(Math.min(page, pages - 1) * PAGE, Math.min(page, pages - 1) * PAGE + PAGE);
  return (
    <section className="card">
      <div className="card-head">
        <h2>Checkpoints</h2>
        {checkpoints.length > 0 && <span className="muted">{checkpoints.length} written</span>}
      </div>
      {checkpoints.length === 0 ? (
        <p className="muted">No checkpoint yet.</p>
      ) : (
        <>
          <table className="run-table" data-testid="checkpoints">
            <thead>
              <tr>
                <th>Episode</th>
                <th>Written</th>
                <th>Metrics</th>
                <th>Path</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((c) => (
                <tr key={`${c.step}-${c.path}-${c.created_at}`}>
                  <td>{formatNumber(episodeOf(c))}</td>
                  <td>{formatTime(c.created_at)}</td>
                  <td>{metricsText(c.metrics)}</td>
                  <td>
                    <code className="path">{c.path}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {pages > 1 && (
            <div className="pager" aria-label="Checkpoint pages">
              <button disabled={page <= 0} onClick={() => setPage(page - 1)}>
                Newer
              </button>
              <span>
                page {Math.min(page, pages - 1) + 1} of {pages}
              </span>
              <button disabled={page >= pages - 1} onClick={() => setPage(page + 1)}>
                Older
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
