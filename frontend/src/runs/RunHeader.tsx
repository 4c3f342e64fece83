import { StateBadge } from "./StateBadge";
import { TeamSource } from "./TeamSource";
import { formatDuration, formatNumber, formatTime } from "./format";
import type { RunDetail } from "./types";
import type { StreamStatus } from "./useRunStream";

interface Props {
  run: RunDetail;
  status: StreamStatus;
  lastSeq: number;
  busy: boolean;
  onCancel: () => void;
  onResume: () => void;
}

/** Name, state, where it runs, and the controls that make sense in its state. */
export function RunHeader({ run, status, lastSeq, busy, onCancel, onResume }: Props) {
  const canCancel = (run.state === "queued" || run.state === "running") && !run.cancel_requested;
  const canResume = run.state === "failed" || run.state === "cancelled";
  const finalMetrics = Object.entries(run.metrics ?? {}).filter(([, v]) => typeof v === "number");
  return (
    <section className="card run-header">
      <div className="run-title">
        <h1>
          {run.name} <StateBadge state={run.state} cancelling={run.cancel_requested} />
        </h1>
        <div className="run-actions">
          <span className={`status stream-${status}`} data-testid="stream-status" title="live event stream">
            {status === "live" ? "live" : status}
          </span>
          {canCancel && (
            <button className="danger" onClick={onCancel} disabled={busy}>
              Cancel run
            </button>
          )}
          {canResume && (
            <button onClick={onResume} disabled={busy}>
              Resume from last checkpoint
            </button>
          )}
        </div>
      </div>
      <dl className="facts">
        <div>
          <dt>Run</dt>
          <dd>
            #{run.id} · {run.kind} on {run.device}
          </dd>
        </div>
        <div>
          <dt>Team</dt>
          <dd>
            <TeamSource source={run.source} />
          </dd>
        </div>
        <div>
          <dt>Worker</dt>
          <dd data-testid="run-worker">{run.worker || `waiting for a ${run.device.toUpperCase()} worker`}</dd>
        </div>
        <div>
          <dt>Deliveries</dt>
          <dd>{run.deliveries}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatTime(run.started_at)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{formatDuration(run.started_at, run.finished_at)}</dd>
        </div>
        <div>
          <dt>Events</dt>
          <dd data-testid="event-count">{lastSeq}</dd>
        </div>
        <div>
          <dt>By</dt>
          <dd>{run.created_by ?? "–"}</dd>
        </div>
      </dl>
      {run.error && (
        <p className="error" role="alert">
          {run.error}
        </p>
      )}
      {finalMetrics.length > 0 && (
        <p className="final-metrics">
          Final:{" "}
          {finalMetrics.map(([k, v]) => (
            <span key={k} className="metric-chip">
              {k.replace(/_/g, " ")} <b>{formatNumber(v)}</b>
            </span>
          ))}
        </p>
      )}
    </section>
  );
}
