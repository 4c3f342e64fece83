import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { ErrorList } from "../ErrorList";
import { apiErrorLines } from "../format";
import { LoadHeatmap } from "./LoadHeatmap";
import { RosterControls } from "./RosterControls";
import { rosterKey, teamApi } from "./teamApi";
import { type LoadColumn, members } from "./teamLoad";

interface Props {
  deploymentId: number;
  /** The last tasks' allocations heard on the deployment's stream. */
  columns: LoadColumn[];
  /** Grows with every roster change heard on the stream (the roster is read again). */
  rosterVersion: number;
  canSend: boolean;
  canControl: boolean;
}

/** A large team at work: send it a stream of tasks, watch the allocation heat map fill as the tasks are given
 * out, and take agents offline (or bring them back) group by group. */
export function TeamPanel({
  deploymentId,
  columns,
  rosterVersion,
  canSend,
  canControl,
}: Props) {
  const queryClient = useQueryClient();
  const roster = useQuery({
    queryKey: rosterKey(deploymentId),
    queryFn: () => teamApi.roster(deploymentId),
  });
  useEffect(() => {
    if (rosterVersion > 0)
      void queryClient.invalidateQueries({ queryKey: rosterKey(deploymentId) });
  }, [queryClient, deploymentId, rosterVersion]);
  const agents = useMemo(() => members(roster.data), [roster.data]);
  const [count, setCount] = useState(50);
  const sending = useMutation({
    mutationFn: (n: number) => teamApi.sendTasks(deploymentId, n),
  });
  const info = sending.data?.result.info;
  return (
    <section
      className="card team-panel"
      aria-label="Task stream"
      data-testid="team-panel"
    >
      <h2>Task stream</h2>
      {canSend && (
        <form
          className="ticket-form"
          onSubmit={(e) => {
            e.preventDefault();
            sending.mutate(count);
          }}
        >
          <label className="field">
            Tasks in the stream
            <input
              type="number"
              min={1}
              value={count}
              onChange={(e) => setCount(Number(e.target.value))}
            />
          </label>
          <button type="submit" disabled={sending.isPending}>
            {sending.isPending ? "The team is working…" : "Send tasks"}
          </button>
        </form>
      )}
      <ErrorList lines={apiErrorLines(sending.error)} />
      {sending.data && info && (
        <p className="muted small" data-testid="stream-answer">
          {sending.data.result.steps} tasks:{" "}
          {Math.round((info.in_time ?? 0) * 100)}% done in time,{" "}
          {Math.round((info.dropped ?? 0) * 100)}% nobody took,{" "}
          {info.load?.handed_over ?? 0} handed over from agents taken offline ·{" "}
          <a href={`/review/?episode=${sending.data.episode.id}`}>
            its decisions and bids
          </a>
        </p>
      )}
      <LoadHeatmap columns={columns} agents={agents} />
      <h3>Agents</h3>
      {roster.data && (
        <RosterControls
          deploymentId={deploymentId}
          roster={roster.data}
          canControl={canControl}
        />
      )}
      <ErrorList lines={apiErrorLines(roster.error)} />
    </section>
  );
}
