/** A reply as it streams in over ws/deployments/<id>/ (mase_web/deployments/inference.py): ``reply_chunk``
 * frames carry each part's text as its agent writes it, ``reply_part`` frames settle a part with what was
 * finally kept (the template's text when the part faulted mid-stream). Pure functions: the stream hook and
 * the console share them, and the tests drive them frame by frame. */
import type { ReplyPart } from "./reply";

/** Text of part ``index`` of a request's reply, written by ``agent`` (several chunks per part, in order). */
export interface ReplyChunkEvent {
  kind: "reply_chunk";
  episode: number;
  request_id: string;
  index: number;
  agent: string;
  text: string;
}

/** Part ``index`` is settled: this is what the reply keeps. */
export interface ReplyPartEvent {
  kind: "reply_part";
  episode: number;
  request_id: string;
  index: number;
  part: ReplyPart;
}

/** One part of a reply being written. */
export interface StreamingPart {
  index: number;
  agent: string;
  /** What the reader sees: the chunks so far, then (once settled) the part's kept text. */
  text: string;
  /** The part is settled (``part`` holds it); no chunk changes it any more. */
  done: boolean;
  part?: ReplyPart;
  /** The streamed text was thrown away: the part faulted mid-stream and the template wrote it instead. */
  replaced: boolean;
  /** What had streamed before it was replaced (shown struck through, so nothing silently changes). */
  discarded?: string;
}

/** Parts being written, per request id, by part index. */
export type LiveReplies = Record<string, StreamingPart[]>;

export function isReplyChunk(message: unknown): message is ReplyChunkEvent {
  const m = message as Partial<ReplyChunkEvent> | null;
  return (
    !!m && m.kind === "reply_chunk" && typeof m.request_id === "string" && Number.isInteger(m.index) &&
    (m.index as number) >= 0 && typeof m.agent === "string" && typeof m.text === "string"
  );
}

function placed(parts: StreamingPart[], next: StreamingPart): StreamingPart[] {
  return [...parts.filter((p) => p.index !== next.index), next].sort((a, b) => a.index - b.index);
}

/** One chunk appended to its part (a chunk for a settled part is late and ignored). */
export function addChunk(state: LiveReplies, event: ReplyChunkEvent): LiveReplies {
  const parts = state[event.request_id] ?? [];
  const old = parts.find((p) => p.index === event.index);
  if (old?.done) return state;
  const part: StreamingPart = old
    ? { ...old, text: old.text + event.text }
    : { index: event.index, agent: event.agent, text: event.text, done: false, replaced: false };
  return { ...state, [event.request_id]: placed(parts, part) };
}

/** A part settled: its kept text replaces what streamed; when the template wrote it over streamed text,
 * say so. */
export function settlePart(state: LiveReplies, event: ReplyPartEvent): LiveReplies {
  const parts = state[event.request_id] ?? [];
  const old = parts.find((p) => p.index === event.index);
  const streamed = old && !old.done ? old.text : "";
  const replaced = event.part.source === "fallback" && streamed.trim() !== "" && streamed.trim() !== event.part.text.trim();
  const part: StreamingPart = {
    index: event.index,
    agent: event.part.agent,
    text: event.part.text,
    done: true,
    part: event.part,
    replaced,
    ...(replaced ? { discarded: streamed } : {}),
  };
  return { ...state, [event.request_id]: placed(parts, part) };
}

/** The reducer for the reply frames of a deployment's stream (other frames leave it as it is). */
export function applyReplyEvent(state: LiveReplies, event: { kind: string }): LiveReplies {
  if (isReplyChunk(event)) return addChunk(state, event);
  if (event.kind === "reply_part") return settlePart(state, event as ReplyPartEvent);
  return state;
}
