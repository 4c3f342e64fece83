import { describe, expect, it } from "vitest";
import type { ReplyPart } from "./reply";
import { type LiveReplies, applyReplyEvent, isReplyChunk } from "./replyStream";

const chunk = (index: number, agent: string, text: string, request_id = "browser-1") => ({
  kind: "reply_chunk" as const,
  episode: 7,
  request_id,
  index,
  agent,
  text,
});

const part = (agent: string, text: string, extra: Partial<ReplyPart> = {}): ReplyPart => ({
  agent,
  intents: [],
  text,
  source: "model",
  backend: "openai_compatible",
  model: "m",
  usage: { prompt_tokens: 1, completion_tokens: 1 },
  latency_ms: 1,
  cost: 0,
  fault: null,
  fault_detail: "",
  ...extra,
});

const settle = (index: number, p: ReplyPart, request_id = "browser-1") => ({ kind: "reply_part", episode: 7, request_id, index, part: p });

function run(events: { kind: string }[]): LiveReplies {
  return events.reduce(applyReplyEvent, {} as LiveReplies);
}

describe("applyReplyEvent", () => {
  it("appends each part's chunks in order, parts interleaved, ordered by index and tagged by agent", () => {
    const state = run([
      chunk(1, "dispute_mediator", "I'm sorry "),
      chunk(0, "logistics", "Your parcel "),
      chunk(1, "dispute_mediator", "it broke."),
      chunk(0, "logistics", "is on its way."),
    ]);
    expect(state["browser-1"].map((p) => [p.index, p.agent, p.text, p.done])).toEqual([
      [0, "logistics", "Your parcel is on its way.", false],
      [1, "dispute_mediator", "I'm sorry it broke.", false],
    ]);
  });

  it("keeps requests apart and ignores other frames", () => {
    const state = run([chunk(0, "a", "one", "r1"), { kind: "step" }, chunk(0, "b", "two", "r2"), { kind: "heartbeat" }]);
    expect(state.r1[0].text).toBe("one");
    expect(state.r2[0].text).toBe("two");
  });

  it("settles a part with its kept text and drops late chunks", () => {
    const kept = part("logistics", "Your parcel is on its way.");
    const state = run([chunk(0, "logistics", "Your parcel "), chunk(0, "logistics", "is on its way. "), settle(0, kept), chunk(0, "logistics", "late")]);
    const [only] = state["browser-1"];
    expect(only).toMatchObject({ done: true, replaced: false, text: "Your parcel is on its way.", part: kept });
  });

  it("says when the template replaced what had streamed (a fault mid-stream)", () => {
    const template = part("logistics", "I've looked up your order.", { source: "fallback", backend: "template", fault: "refusal" });
    const state = run([chunk(0, "logistics", "I'm sorry, but "), chunk(0, "logistics", "I can't help."), settle(0, template)]);
    const [only] = state["browser-1"];
    expect(only.replaced).toBe(true);
    expect(only.discarded).toBe("I'm sorry, but I can't help.");
    expect(only.text).toBe("I've looked up your order.");
    expect(only.part?.fault).toBe("refusal");
  });

  it("shows a settled part that never streamed (breaker open) without calling it replaced", () => {
    const template = part("logistics", "Held reply.", { source: "fallback", backend: "template" });
    const state = run([settle(2, template), chunk(0, "a", "x")]);
    expect(state["browser-1"].map((p) => [p.index, p.done, p.replaced])).toEqual([
      [0, false, false],
      [2, true, false],
    ]);
  });

  it("rejects frames that are not chunks", () => {
    expect(isReplyChunk(chunk(0, "a", "x"))).toBe(true);
    expect(isReplyChunk({ ...chunk(0, "a", "x"), index: -1 })).toBe(false);
    expect(isReplyChunk({ ...chunk(0, "a", "x"), text: 3 })).toBe(false);
    expect(isReplyChunk(null)).toBe(false);
    expect(run([{ ...chunk(0, "a", "x"), agent: undefined } as unknown as { kind: string }])).toEqual({});
  });
});
