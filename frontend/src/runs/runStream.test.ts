import { describe, expect, it } from "vitest";
import { acceptable, applyEvents, emptyStream, type RunStreamState } from "./runStream";
import type { RunEventMessage, RunEventType } from "./types";

/** An event as the socket sends it (training/events.py Event.to_dict()). */
const ev = (seq: number, type: RunEventType, payload: Record<string, unknown> = {}): RunEventMessage => ({
  seq,
  type,
  payload,
  time: 1_700_000_000 + seq,
});

const apply = (...events: RunEventMessage[]): RunStreamState => applyEvents(emptyStream, events);

describe("acceptable", () => {
  it("takes the events right after lastSeq, in order, whatever order they came in", () => {
    const { accepted, gap } = acceptable(2, [ev(4, "log"), ev(3, "log"), ev(5, "log")]);
    expect(accepted.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(gap).toBe(false);
  });

  it("drops events already held (a reconnect's overlap, a duplicate frame)", () => {
    const { accepted, gap } = acceptable(3, [ev(2, "log"), ev(3, "log"), ev(4, "log"), ev(4, "log")]);
    expect(accepted.map((e) => e.seq)).toEqual([4]);
    expect(gap).toBe(false);
  });

  it("stops at a gap and says so, keeping what came before it", () => {
    const { accepted, gap } = acceptable(1, [ev(2, "log"), ev(3, "log"), ev(5, "log"), ev(6, "log")]);
    expect(accepted.map((e) => e.seq)).toEqual([2, 3]);
    expect(gap).toBe(true);
  });

  it("reports a gap with nothing accepted when the batch starts past the next number", () => {
    expect(acceptable(0, [ev(2, "log")])).toEqual({ accepted: [], gap: true });
  });
});

describe("applyEvents: numbering", () => {
  it("advances lastSeq and never counts an event twice", () => {
    const once = apply(ev(1, "checkpoint"), ev(2, "checkpoint"));
    expect(once.lastSeq).toBe(2);
    expect(once.checkpointEvents).toBe(2);
    // The same frames again after a reconnect change nothing (and return the very same state).
    const again = applyEvents(once, [ev(1, "checkpoint"), ev(2, "checkpoint")]);
    expect(again).toBe(once);
  });

  it("applies nothing past a gap, so the caller can refetch it", () => {
    const s = apply(ev(1, "checkpoint"), ev(3, "checkpoint"));
    expect(s.lastSeq).toBe(1);
    expect(s.checkpointEvents).toBe(1);
    // The server fills the gap on reconnect (?after=1): both are applied, once each.
    const filled = applyEvents(s, [ev(2, "checkpoint"), ev(3, "checkpoint")]);
    expect(filled.lastSeq).toBe(3);
    expect(filled.checkpointEvents).toBe(3);
  });

  it("leaves the old state untouched", () => {
    const before = apply(ev(1, "metrics", { episode: 10, success: 0.5 }));
    const snapshot = structuredClone(before);
    applyEvents(before, [ev(2, "metrics", { episode: 20, success: 0.7 }), ev(3, "log", { message: "hi" })]);
    expect(before).toEqual(snapshot);
  });
});

describe("applyEvents: lifecycle", () => {
  it("records started and finished, and a new start clears the finish", () => {
    const done = apply(
      ev(1, "started", { episodes: 500, resumed_from: null }),
      ev(2, "finished", { status: "succeeded", metrics: { success: 0.9 } }),
    );
    expect(done.totalEpisodes).toBe(500);
    expect(done.finished).toEqual({ status: "succeeded", metrics: { success: 0.9 } });
    expect(done.lifecycleEvents).toBe(2);
    const restarted = applyEvents(done, [ev(3, "started", { resumed_from: 100 })]);
    expect(restarted.finished).toBeNull();
    expect(restarted.totalEpisodes).toBe(500); // a resume that does not repeat the total keeps it
  });

  it("finished without metrics still ends the run", () => {
    expect(apply(ev(1, "finished", { status: "cancelled" })).finished).toEqual({ status: "cancelled", metrics: {} });
  });

  it("a resumed start drops the points the dead delivery reported after its checkpoint", () => {
    const s = apply(
      ev(1, "metrics", { episode: 100, success: 0.1, phase: "explore" }),
      ev(2, "metrics", { episode: 200, success: 0.2, phase: "exploit" }),
      ev(3, "metrics", { episode: 300, success: 0.3, phase: "exploit" }),
      ev(4, "started", { resumed_from: 200 }),
      ev(5, "metrics", { episode: 300, success: 0.35 }),
    );
    expect(s.series.success).toEqual([
      [100, 0.1],
      [200, 0.2],
      [300, 0.35],
    ]);
    expect(s.phaseMarks).toEqual([
      [0, "explore"],
      [200, "exploit"],
    ]);
    expect(s.lastEpisode).toBe(300);
  });

  it("counts an error as a lifecycle event and shows it in the feed", () => {
    const s = apply(ev(1, "error", { message: "CUDA out of memory" }));
    expect(s.lifecycleEvents).toBe(1);
    expect(s.feed).toEqual([
      { seq: 1, time: 1_700_000_001, kind: "error", level: "error", title: "Error", detail: "CUDA out of memory" },
    ]);
  });
});

describe("applyEvents: metrics", () => {
  it("builds one series per numeric key, by episode (or step when there is no episode)", () => {
    const s = apply(
      ev(1, "metrics", { step: 1, episode: 50, success: 0.25, reward: -1, note: "text", bad: null }),
      ev(2, "metrics", { step: 2, reward: 0.5 }),
    );
    expect(s.series).toEqual({ success: [[50, 0.25]], reward: [[50, -1], [2, 0.5]] });
    expect(s.lastEpisode).toBe(50); // the furthest episode seen, not the latest number
  });

  it("ignores metrics with neither episode nor step, but still records system readings", () => {
    const s = apply(ev(1, "metrics", { system: { cpu_percent: 42, memory_percent: 61.5 } }));
    expect(s.series).toEqual({});
    expect(s.system).toEqual({ cpu_percent: 42, memory_percent: 61.5 });
    expect(s.systemHistory).toEqual([{ time: 1_700_000_001, cpu: 42, memory: 61.5 }]);
  });

  it("keeps the latest golden reading with its level", () => {
    const s = apply(
      ev(1, "metrics", {
        episode: 10,
        "golden.inter_agent_latency_ms": 120,
        golden_levels: { inter_agent_latency_ms: "ok" },
      }),
      ev(2, "metrics", { episode: 20, "golden.inter_agent_latency_ms": 650 }),
    );
    expect(s.golden.inter_agent_latency_ms).toEqual({ value: 650, level: null, episode: 20 });
    expect(s.series["golden.inter_agent_latency_ms"]).toHaveLength(2);
  });

  it("marks a phase once when it first shows, from episode 0, and again only when it changes", () => {
    const s = apply(
      ev(1, "metrics", { episode: 10, success: 0, phase: "explore" }),
      ev(2, "metrics", { episode: 20, success: 0, phase: "explore" }),
      ev(3, "metrics", { episode: 30, success: 0, phase: "exploit" }),
    );
    expect(s.phaseMarks).toEqual([
      [0, "explore"],
      [30, "exploit"],
    ]);
  });
});

describe("applyEvents: attention, phase, plateau", () => {
  it("keeps a well-formed attention frame with the episode it came at", () => {
    const matrix = [
      [0, 0.7],
      [0.4, 0],
    ];
    const s = apply(
      ev(1, "metrics", { episode: 40, success: 0.5 }),
      ev(2, "attention", { step: 4, agents: ["a", "b"], matrix }),
    );
    expect(s.attention).toEqual([{ seq: 2, step: 4, episode: 40, mode: "train", agents: ["a", "b"], matrix, graph: null }]);
  });

  it("drops attention whose matrix does not match its agents", () => {
    const s = apply(
      ev(1, "attention", { step: 1, agents: ["a", "b", "c"], matrix: [[0, 1], [1, 0]] }),
      ev(2, "attention", { step: 2, agents: ["a"], matrix: [["x"]] }),
    );
    expect(s.attention).toEqual([]);
    expect(s.lastSeq).toBe(2); // dropped, but still consumed
  });

  it("records a phase change and its mark (with the phase it left, when none was marked)", () => {
    const s = apply(
      ev(1, "metrics", { episode: 120, success: 0.5 }),
      ev(2, "phase", { from: "explore", to: "exploit", reason: "success ≥ 0.6" }),
    );
    expect(s.phases).toEqual([{ seq: 2, episode: 120, from: "explore", to: "exploit", reason: "success ≥ 0.6" }]);
    expect(s.phaseMarks).toEqual([
      [0, "explore"],
      [120, "exploit"],
    ]);
  });

  it("records plateau warnings", () => {
    const s = apply(ev(1, "plateau", { cycles: 3, recommendation: "raise lr" }));
    expect(s.plateaus).toEqual([{ seq: 1, episode: null, cycles: 3, recommendation: "raise lr" }]);
  });
});

describe("applyEvents: alerts", () => {
  it("shows a golden-range alert and keeps its bounds and reading", () => {
    const s = apply(
      ev(1, "alert", {
        name: "policy_update_interval_h",
        level: "alert",
        value: 0.2,
        unit: "h",
        golden: [2, 4],
        alert_below: 0.5,
        alert_above: null,
        source: "golden_range",
      }),
    );
    expect(s.feed[0].title).toBe("policy_update_interval_h: alert · golden range");
    expect(s.feed[0].detail).toBe("value 0.2 h · golden 2–4 · alert below 0.5");
    expect(s.feed[0].level).toBe("alert");
    expect(s.goldenBounds.policy_update_interval_h).toEqual({ golden: [2, 4], alertBelow: 0.5, alertAbove: null, unit: "h" });
    expect(s.golden.policy_update_interval_h).toEqual({ value: 0.2, level: "alert", episode: null });
  });

  it("reads a circuit-breaker alert as serving/breaker.py emits it", () => {
    const s = apply(
      ev(1, "alert", {
        name: "circuit_breaker.open",
        level: "critical",
        source: "breaker",
        breaker: "guesser",
        state: "open",
        message: "5 low-confidence decisions in a row",
      }),
      ev(2, "alert", { name: "circuit_breaker.half_open", level: "warning", source: "breaker", breaker: "guesser", state: "half_open" }),
      ev(3, "alert", { name: "circuit_breaker.closed", level: "info", source: "breaker", breaker: "guesser", state: "closed" }),
    );
    expect(s.feed.map((f) => [f.title, f.level])).toEqual([
      ["Circuit breaker open (guesser)", "alert"],
      ["Circuit breaker half_open (guesser)", "warn"],
      ["Circuit breaker closed (guesser)", "ok"],
    ]);
    expect(s.feed[0].detail).toBe("5 low-confidence decisions in a row");
  });

  it("falls back to the breaker state for the level when none is given", () => {
    const s = apply(ev(1, "alert", { name: "guesser", source: "breaker", state: "open", reason: "tripped" }));
    expect(s.feed[0]).toMatchObject({ title: "Circuit breaker open (guesser)", level: "alert", detail: "tripped" });
  });

  it("an unknown level reads as a warning", () => {
    const s = apply(ev(1, "alert", { name: "storm", level: "warning", source: "protocol", message: "too chatty" }));
    expect(s.feed[0]).toMatchObject({ level: "warn", title: "storm: warning · protocol", detail: "too chatty" });
  });

  it("keeps only the newest 500 feed items", () => {
    const events = Array.from({ length: 510 }, (_, i) => ev(i + 1, "log", { message: `line ${i + 1}` }));
    const s = apply(...events);
    expect(s.feed).toHaveLength(500);
    expect(s.feed[0].detail).toBe("line 11");
    expect(s.feed[499].seq).toBe(510);
  });
});
