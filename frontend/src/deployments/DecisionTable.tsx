import { formatTime } from "../runs/format";
import { BreakerBadge } from "./BreakerBadge";
import { percent } from "./format";
import { ReviewControl } from "./ReviewControl";
import type { DecisionRow } from "./types";

interface Props {
  rows: DecisionRow[];
  onOpen: (row: DecisionRow) => void;
  /** A row's review changed (the table shows the stored row it is given). */
  onReviewed: (row: DecisionRow) => void;
  /** The rows' deployment (one episode's steps): known, a decision can be corrected. */
  deployment?: number;
}

/** One line per decision; "Trajectory" opens the whole episode at that step. */
export function DecisionTable({ rows, onOpen, onReviewed, deployment }: Props) {
  if (rows.length === 0) return <p className="muted">No decisions match.</p>;
  return (
    <table className="run-table" data-testid="decisions">
      <thead>
        <tr>
          <th>When</th>
          <th>Episode · step</th>
          <th>Agent</th>
          <th>Action</th>
          <th>Source</th>
          <th>Confidence</th>
          <th>Breaker</th>
          <th>Review</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id}>
            <td className="small">{formatTime(row.created_at)}</td>
            <td>
              {row.episode} · {row.step}
            </td>
            <td>{row.agent}</td>
            <td>
              {row.action}
              {row.fault && <span className="badge bad">{row.fault}</span>}
            </td>
            <td>
              <span className={`source-badge source-${row.source}`}>{row.source}</span>
            </td>
            <td>{percent(row.confidence)}</td>
            <td>
              <BreakerBadge state={row.breaker_state} />
            </td>
            <td>
              <ReviewControl row={row} onChanged={onReviewed} deployment={deployment} />
            </td>
            <td>
              <button type="button" className="link" onClick={() => onOpen(row)}>
                Trajectory
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
