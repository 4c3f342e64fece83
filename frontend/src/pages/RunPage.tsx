import { useCallback, useEffect, useState } from "react";
import { ApiError } from "../api";
import { AlertFeed } from "../runs/AlertFeed";
import { AttentionReplay } from "../runs/AttentionReplay";
import { CheckpointList } from "../runs/CheckpointList";
import { GoldenPanel } from "../runs/GoldenPanel";
import { MetricCurves } from "../runs/MetricCurves";
import { PhaseTimeline } from "../runs/PhaseTimeline";
import { ProtocolPanel } from "../runs/ProtocolPanel";
import { RunHeader } from "../runs/RunHeader";
import { SystemPanel } from "../runs/SystemPanel";
import { pageData } from "../runs/pageData";
import { runExtrasApi } from "../runs/runExtrasApi";
import "../runs/runs.css";
import { runsApi } from "../runs/runsApi";
import { TERMINAL_STATES, type Checkpoint, type RunDetail } from "../runs/types";
import { useRunStream } from "../runs/useRunStream";
import { useWorkers } from "../runs/useWorkers";

/** While a run is not finished its row (state, worker, deliveries) is refreshed this often. */
const POLL_MS = 3000;

/** One run, live: header and controls, curves, communication graph, phases, alerts, golden ranges, worker, checkpoints. */
export function RunPage() {
  const runId = pageData<{ run: number }>()?.run ?? 0;
  const [run, setRun] = useState<RunDetail | null>(null);
  const [checkpoints, setCheckpoints] = useState<Checkpoint[]>([]);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const { stream, status } = useRunStream(runId);

  const refresh = useCallback(() => {
    runsApi.get(runId).then(
      (fresh) => {
        setRun(fresh);
        setError("");
      },
      (e: Error) => setError(e instanceof ApiError && e.status === 404 ? `Run ${runId} does not exist or is not in your projects.` : e.message),
    );
  }, [runId]);

  // The run's row: now, on every lifecycle event, and on a timer until it is finished (the final
  // state is written just after the "finished" event).
  useEffect(refresh, [refresh, stream.lifecycleEvents]);
  const terminal = run !== null && TERMINAL_STATES.has(run.state);
  useEffect(() => {
    if (terminal) return;
    const timer = window.setInterval(refresh, POLL_MS);
    return () => window.clearInterval(timer);
  }, [refresh, terminal]);

  useEffect(() => {
    runsApi.checkpoints(runId).then(setCheckpoints, () => undefined);
  }, [runId, stream.checkpointEvents, terminal]);

  // Only a run waiting in a queue needs to know whether a worker consumes that queue.
  const workers = useWorkers(run?.state === "queued");

  const control = async (action: "cancel" | "resume" | "cpu" | "gpu") => {
    setBusy(true);
    try {
      if (action === "cancel") await runsApi.cancel(runId);
      else if (action === "resume") await runsApi.resume(runId);
      else await runExtrasApi.moveDevice(runId, action);
      refresh();
    } catch (e) {
      const err = e as ApiError;
      setError(err.body?.errors ? Object.values(err.body.errors).flat().join("; ") : err.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="page wide runs-ui">
      <p className="crumbs">
        <a href="/runs/">Runs</a> / run {runId}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {run && (
        <RunHeader
          run={run}
          status={status}
          lastSeq={stream.lastSeq}
          busy={busy}
          onCancel={() => control("cancel")}
          onResume={() => control("resume")}
          checkpointCount={checkpoints.length}
          workers={workers}
          onMoveDevice={(device) => control(device)}
          onChanged={refresh}
        />
      )}
      <MetricCurves series={stream.series} />
      <AttentionReplay
        frames={stream.attention}
        algorithm={typeof stream.started?.algorithm === "string" ? stream.started.algorithm : null}
        ended={terminal}
        spec={run?.spec}
      />
      <ProtocolPanel series={stream.series} />
      <PhaseTimeline
        marks={stream.phaseMarks}
        phases={stream.phases}
        plateaus={stream.plateaus}
        totalEpisodes={stream.totalEpisodes}
        lastEpisode={stream.lastEpisode}
      />
      <div className="two-columns">
        <GoldenPanel readings={stream.golden} bounds={stream.goldenBounds} />
        <SystemPanel system={stream.system} />
      </div>
      <AlertFeed items={stream.feed} />
      <CheckpointList checkpoints={checkpoints} />
    </main>
  );
}
