import { FinalMetrics } from "./FinalMetrics";
import { NoWorkerNotice } from "./NoWorkerNotice";
import { RunTags } from "./RunTags";
import { StateBadge } from "./StateBadge";
import { TeamSource } from "./TeamSource";
import { formatDuration, formatTime } from "./format";
import { runExtrasApi } from "./runExtrasApi";
import type { RunDetail, WorkerState } from "./types";
import type { StreamStatus } from "./useRunStream";

interface Props {
  run: RunDetail;
  status: StreamStatus;
  lastSeq: number;
  busy: boolean;
  onCancel: () => void;
  onResume: () => void;
  /** How many checkpoints the run wrote: without one, "resume" starts again from the beginning. */
  checkpointCount: number;
  workers: WorkerState | null;
  onMoveDevice: (device: "cpu" | "gpu") => void;
  /** Whether the signed-in user may edit the run's tags (product managers and admins). */
  canTag: boolean;
}

/** Name, state, where it runs, and the controls that make sense in its state. */
export function RunHeader(props: Props) {
  const { run, status, lastSeq, busy, onCancel, onResume, checkpointCount, workers, onMoveDevice, canTag } = props;
  const canCancel = (run.state === "queued" || run.state === "running") && !run.cancel_requested;
  const canResume = run.state === "failed" || run.state === "cancelled";
  const terminal = canResume || run.state === "succeeded";
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
              {checkpointCount > 0 ? "Resume from last checkpoint" : "Run again from the start"}
            </button>
          )}
          <a className="button-link" href={runExtrasApi.reportUrl(run.id)} download>
            Export report
          </a>
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
          <dd data-testid="run-worker">{run.state === "queued" ? `waiting for a ${run.device.toUpperCase()} worker` : run.worker || "–"}</dd>
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
        <div>
          <dt>Tags</dt>
          <dd>
            <RunTags runId={run.id} tags={run.tags ?? []} canEdit={canTag} />
          </dd>
        </div>
      </dl>
      {canResume && checkpointCount === 0 && (
        <p className="muted small">This run wrote no checkpoint before it stopped: running it again starts from episode 0.</p>
      )}
      {run.state === "queued" && (
        <NoWorkerNotice device={run.device} workers={workers} onUseOther={() => onMoveDevice(run.device === "gpu" ? "cpu" : "gpu")} otherLabel={`Move this run to the ${run.device === "gpu" ? "CPU" : "GPU"} queue`} />
      )}
      {run.error && (
        <p className="error" role="alert">
          {run.error}
        </p>
      )}
      {terminal && <FinalMetrics run={run} />}
    </section>
  );
}
