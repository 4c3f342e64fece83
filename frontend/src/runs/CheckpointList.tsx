import { formatNumber, formatTime } from "./format";
import type { Checkpoint } from "./types";

/** Checkpoints the run wrote (a failed or cancelled run resumes from the last one). */
export function CheckpointList({ checkpoints }: { checkpoints: Checkpoint[] }) {
  return (
    <section className="card">
      <h2>Checkpoints</h2>
      {checkpoints.length === 0 ? (
        <p className="muted">No checkpoint yet.</p>
      ) : (
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
            {checkpoints.map((c) => (
              <tr key={`${c.step}-${c.path}`}>
                <td>{c.step}</td>
                <td>{formatTime(c.created_at)}</td>
                <td>
                  {Object.entries(c.metrics)
                    .filter(([, v]) => typeof v === "number")
                    .slice(0, 4)
                    .map(([k, v]) => `${k.replace(/_/g, " ")} ${formatNumber(v)}`)
                    .join(" · ") || "–"}
                </td>
                <td>
                  <code className="path">{c.path}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
