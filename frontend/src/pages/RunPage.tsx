import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, fieldErrorText } from "../api";
import { useRefetchOnChange } from "../queryClient";
import { AlertFeed } from "../runs/AlertFeed";
import { AttentionReplay } from "../runs/AttentionReplay";
import { CheckpointList } from "../runs/CheckpointList";
import { GoldenPanel } from "../runs/GoldenPanel";
import { MetricCurves } from "../runs/MetricCurves";
import { PhaseTimeline } from "../runs/PhaseTimeline";
import { ProtocolPanel } from "../runs/ProtocolPanel";
import { RunHeader } from "../runs/RunHeader";
import { RunProgress } from "../runs/RunProgress";
import { mayTagRuns } from "../runs/RunTags";
import { SystemPanel } from "../runs/SystemPanel";
import { pageData } from "../runs/pageData";
import { runQueries } from "../runs/queries";
import { runExtrasApi } from "../runs/runExtrasApi";
import "../runs/runs.css";
import { runsApi } from "../runs/runsApi";
import { TERMINAL_STATES } from "../runs/types";
import { useRunStream } from "../runs/useRunStream";
import { useWorkers } from "../runs/useWorkers";
import { VerdictPanel } from "../runs/VerdictPanel";
import { missingVerdict } from "../runs/verdict";
import { AllocationPanel } from "../runs/AllocationPanel";

type Control = "cancel" | "resume" | "cpu" | "gpu";

const sendControl = (runId: number, action: Control) =>
  action === "cancel" ? runsApi.cancel(runId) : action === "resume" ? runsApi.resume(runId) : runExtrasApi.moveDevice(runId, action);

function loadErrorText(runId: number, e: Error): string {
  return e instanceof ApiError && e.status === 404 ? `Run ${runId} does not exist or is not in your projects.` : e.message;
}

/** One run, live: header and controls, progress of its stages, curves, communication graph, phases, alerts, golden ranges, worker, checkpoints. */
export function RunPage() {
  const runId = pageData<{ run: number }>()?.run ?? 0;
  const queryClient = useQueryClient();
  const { stream, status } = useRunStream(runId);

  // The run's row: now, on every lifecycle event, and on a timer until it is finished (runQueries.detail).
  const detail = runQueries.detail(runId);
  const { data: run, error: loadError, dataUpdatedAt } = useQuery(detail);
  useRefetchOnChange(detail.queryKey, stream.lifecycleEvents);
  const terminal = run !== undefined && TERMINAL_STATES.has(run.state);

  const checkpointsQuery = runQueries.checkpoints(runId);
  const checkpoints = useQuery(checkpointsQuery).data ?? [];
  useRefetchOnChange(checkpointsQuery.queryKey, `${stream.checkpointEvents} ${terminal}`);

  const me = useQuery(runQueries.me()).data ?? null;

  // Only a run waiting in a queue needs to know whether a worker consumes that queue.
  const workers = useWorkers(run?.state === "queued");

  const control = useMutation({
    mutationFn: (action: Control) => sendControl(runId, action),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: detail.queryKey, exact: true }),
  });
  // A refused control is reported until the run's row is read again.
  const controlError = control.error && dataUpdatedAt <= control.submittedAt ? fieldErrorText(control.error) : "";
  const error = controlError || (loadError ? loadErrorText(runId, loadError) : "");

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
          busy={control.isPending}
          onCancel={() => control.mutate("cancel")}
          onResume={() => control.mutate("resume")}
          checkpointCount={checkpoints.length}
          workers={workers}
          onMoveDevice={(device) => control.mutate(device)}
          canTag={mayTagRuns(me, run.project)}
        />
      )}
      <RunProgress stages={stream.stages} live={!terminal} />
      <VerdictPanel verdict={stream.verdict} missing={missingVerdict(stream.stages, stream.feed)} />
      <MetricCurves series={stream.series} />
      <AttentionReplay
        frames={stream.attention}
        algorithm={typeof stream.started?.algorithm === "string" ? stream.started.algorithm : null}
        ended={terminal}
        spec={run?.spec}
      />
      <ProtocolPanel series={stream.series} />
      <AllocationPanel summary={stream.allocation} />
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
