import { useEffect, useState } from "react";
import { formatTime } from "../runs/format";
import { BreakerBadge } from "./BreakerBadge";
import { deploymentsApi } from "./deploymentsApi";
import type { Transition } from "./types";

/** Every transition of the breaker, newest first, with who forced it and why. */
export function BreakerHistory({ deploymentId, version }: { deploymentId: number; version: number }) {
  const [rows, setRows] = useState<Transition[]>([]);
  useEffect(() => {
    deploymentsApi.transitions(deploymentId).then(setRows, () => undefined);
  }, [deploymentId, version]);
  return (
    <section className="card" aria-label="Breaker history">
      <h2>Breaker transitions and alerts</h2>
      {rows.length === 0 ? (
        <p className="muted">No transitions yet. Low-confidence streaks, faults and operator forces appear here live.</p>
      ) : (
        <table className="run-table" data-testid="transitions">
          <thead>
            <tr>
              <th>When</th>
              <th>Change</th>
              <th>Reason</th>
              <th>Detail</th>
              <th>By</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <tr key={t.id}>
                <td className="small">{formatTime(t.created_at)}</td>
                <td>
                  <BreakerBadge state={t.from_state} /> → <BreakerBadge state={t.to_state} />
                </td>
                <td>{t.reason.replace(/_/g, " ")}</td>
                <td className="small">{t.why || t.detail}</td>
                <td>{t.actor ?? "breaker"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
