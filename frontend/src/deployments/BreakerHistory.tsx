import { useQuery } from "@tanstack/react-query";
import { useRefetchOnChange } from "../queryClient";
import { formatTime } from "../runs/format";
import { BreakerBadge } from "./BreakerBadge";
import { deploymentQueries } from "./queries";

/** Every transition of the breaker, newest first, with who forced it and why; re-read whenever `version`
 * (the live stream's transition count) moves. */
export function BreakerHistory({ deploymentId, version }: { deploymentId: number; version: number }) {
  const transitions = deploymentQueries.transitions(deploymentId);
  const rows = useQuery(transitions).data ?? [];
  useRefetchOnChange(transitions.queryKey, version);
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
