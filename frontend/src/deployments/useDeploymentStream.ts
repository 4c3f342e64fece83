import { useCallback, useState } from "react";
import { type SocketStatus, useSocket } from "../useSocket";
import type { AlertRow, Batch, BreakerSnapshot, Decision, EpisodeSummary, StreamEvent } from "./types";
import { type LiveReplies, applyReplyEvent, isReplyChunk } from "./replyStream";
import { type LoadColumn, addAllocation } from "./team/teamLoad";

export interface DeploymentStream {
  status: SocketStatus;
  breaker: BreakerSnapshot | null;
  /** Episodes seen on the stream, newest last. */
  episodes: EpisodeSummary[];
  /** Decisions streamed so far, per request id, in the order they were made. */
  decisions: Record<string, Decision[]>;
  alerts: AlertRow[];
  batches: Record<number, Batch>;
  /** Grows with every breaker transition (pages refetch the history when it changes). */
  transitions: number;
  /** Each request's reply, per request id, part by part as the agents write it (replyStream.ts). */
  replyParts: LiveReplies;
  /** A large team: the last tasks' allocations (who bid, who won, backlog per agent), oldest first. */
  allocations: LoadColumn[];
  /** Grows with every roster change (an agent taken offline or brought back). */
  roster: number;
}

const empty: Omit<DeploymentStream, "status"> = {
  breaker: null,
  episodes: [],
  decisions: {},
  alerts: [],
  batches: {},
  transitions: 0,
  replyParts: {},
  allocations: [],
  roster: 0,
};

function apply(state: Omit<DeploymentStream, "status">, event: StreamEvent): Omit<DeploymentStream, "status"> {
  if (isReplyChunk(event)) return { ...state, replyParts: applyReplyEvent(state.replyParts, event) };
  switch (event.kind) {
    case "hello":
      return { ...state, breaker: event.breaker };
    case "episode": {
      const others = state.episodes.filter((e) => e.id !== event.episode.id);
      return { ...state, episodes: [...others, event.episode].slice(-50) };
    }
    case "step": {
      const sofar = state.decisions[event.request_id] ?? [];
      return { ...state, decisions: { ...state.decisions, [event.request_id]: [...sofar, event.record] } };
    }
    case "breaker":
      return { ...state, breaker: event.breaker, transitions: state.transitions + 1 };
    case "alert":
      return { ...state, alerts: [event.alert, ...state.alerts].slice(0, 100) };
    case "reply_part":
      return { ...state, replyParts: applyReplyEvent(state.replyParts, event) };
    case "batch":
      return { ...state, batches: { ...state.batches, [event.batch.id]: event.batch } };
    case "allocation":
      return { ...state, allocations: addAllocation(state.allocations, event) };
    case "roster":
      return { ...state, roster: state.roster + 1 };
    default:
      return state;
  }
}

/** The live stream of one deployment (ws/deployments/<id>/): breaker, episodes, decisions as they are made. */
export function useDeploymentStream(deploymentId: number): DeploymentStream {
  const [state, setState] = useState(empty);
  const onMessage = useCallback((message: unknown) => setState((old) => apply(old, message as StreamEvent)), []);
  const status = useSocket(`/ws/deployments/${deploymentId}/`, onMessage);
  return { status, ...state };
}
