import { useEffect, useRef, useState } from "react";
import { keepConnected, socketUrl } from "../reconnect";
import { acceptable, applyEvents, emptyStream, type RunStreamState } from "./runStream";
import type { RunEventMessage, StreamFrame } from "./types";

export type StreamStatus = "connecting" | "live" | "reconnecting" | "forbidden";

/** Frames arriving within this window are applied in one render (a busy run sends many per second). */
const APPLY_EVERY_MS = 120;
const FORBIDDEN = 4403;

/**
 * The live event stream of run `runId` over /ws/runs/<id>/?after=N.
 *
 * The socket sends the backlog after N, then live events. On a drop, a detected gap, or a heartbeat
 * that says the server sent more than we hold, it reconnects (../reconnect.ts) with ?after=<last seq held>,
 * so each event is applied exactly once.
 */
export function useRunStream(runId: number): { stream: RunStreamState; status: StreamStatus } {
  const [stream, setStream] = useState<RunStreamState>(emptyStream);
  const [status, setStatus] = useState<StreamStatus>("connecting");
  // The last sequence number accepted from the socket (possibly not yet rendered).
  const lastSeq = useRef(0);

  useEffect(() => {
    let applyTimer: number | undefined;
    let pending: RunEventMessage[] = [];
    lastSeq.current = 0;
    setStream(emptyStream);

    const flush = () => {
      applyTimer = undefined;
      const batch = pending;
      pending = [];
      if (batch.length) setStream((old) => applyEvents(old, batch));
    };

    const receive = (frame: StreamFrame, from: WebSocket) => {
      if (frame.type === "heartbeat") {
        if (frame.last_seq > lastSeq.current) from.close(); // frames were lost: reconnect and catch up
        return;
      }
      if (frame.type !== "events" || !Array.isArray(frame.events)) return;
      const { accepted, gap } = acceptable(lastSeq.current, frame.events);
      if (accepted.length) {
        lastSeq.current = accepted[accepted.length - 1].seq;
        pending.push(...accepted);
        applyTimer ??= window.setTimeout(flush, APPLY_EVERY_MS);
      }
      if (gap) from.close();
    };

    const stop = keepConnected({
      url: () => socketUrl(`/ws/runs/${runId}/?after=${lastSeq.current}`),
      onSocket: (current, healthy) => {
        current.onmessage = (message) => {
          healthy(); // a server that accepts and then talks is healthy
          setStatus("live");
          try {
            receive(JSON.parse(message.data) as StreamFrame, current);
          } catch {
            current.close();
          }
        };
        current.onopen = () => setStatus("live");
      },
      onDrop: (event) => {
        if (event.code === FORBIDDEN) {
          setStatus("forbidden");
          return "stop";
        }
        setStatus("reconnecting");
      },
    });

    return () => {
      stop();
      window.clearTimeout(applyTimer);
    };
  }, [runId]);

  return { stream, status };
}
