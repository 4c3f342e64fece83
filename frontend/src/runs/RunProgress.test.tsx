import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RunProgress } from "./RunProgress";
import { applyEvents, currentStage, emptyStream } from "./runStream";
import { timeLeft } from "./stageWords";
import type { RunEventMessage } from "./types";

/** A "progress" event as the socket sends it (training/events.py RunStage.payload). */
const progress = (seq: number, phase: string, done: number, total: number, more: Record<string, unknown> = {}): RunEventMessage => ({
  seq,
  type: "progress",
  payload: { phase, label: `Label of ${phase}`, done, total, unit: "episodes", elapsed_s: done, eta_s: total - done, state: "running", ...more },
  time: 1_700_000_000 + seq,
});

describe("applyEvents: progress", () => {
  it("keeps each stage as last reported, in the order the stages began, and knows the one running now", () => {
    const s = applyEvents(emptyStream, [
      progress(1, "reader_fit", 0, 300, { eta_s: null }),
      progress(2, "reader_fit", 300, 300, { state: "done", eta_s: 0 }),
      progress(3, "training", 0, 96, { eta_s: null }),
      progress(4, "evaluation", 0, 8), // evaluation runs inside training
      progress(5, "evaluation", 8, 8, { state: "done" }),
      progress(6, "training", 32, 96),
    ]);
    expect(s.stages.map((stage) => [stage.phase, stage.done, stage.total, stage.state])).toEqual([
      ["reader_fit", 300, 300, "done"],
      ["training", 32, 96, "running"],
      ["evaluation", 8, 8, "done"],
    ]);
    expect(currentStage(s.stages)?.phase).toBe("training");
    expect(currentStage(s.stages)?.etaS).toBeNull(); // one update done: its time holds the start-up, no rate yet
    // a nested stage is the one the run is in while it runs
    const nested = applyEvents(s, [progress(7, "evaluation", 0, 8)]);
    expect(currentStage(nested.stages)?.phase).toBe("evaluation");
    expect(nested.stages.find((stage) => stage.phase === "evaluation")?.runs).toBe(2);
  });

  it("a page opened mid-run shows where the run is from the backlog alone", () => {
    const backlog = [
      progress(1, "training", 0, 640),
      progress(2, "training", 320, 640, { elapsed_s: 50 }),
      progress(3, "training", 480, 640, { elapsed_s: 60 }),
    ];
    const s = applyEvents(emptyStream, backlog);
    expect(timeLeft(currentStage(s.stages)!)).toBe("about 10 s left");
  });

  it("a run that ends with a stage still running marks that stage stopped", () => {
    const s = applyEvents(emptyStream, [progress(1, "training", 10, 96), { seq: 2, type: "finished", payload: { status: "failed" }, time: 0 }]);
    expect(s.stages[0].state).toBe("stopped");
    expect(currentStage(s.stages)).toBeNull();
  });
});

describe("the first estimate", () => {
  // a run of about 3 minutes whose first update took 45 s (the backbone loading, caches filling): the
  // server's first estimate, 45 s · 944 / 16, read "about 44 min left"
  const start = [
    progress(1, "training", 0, 960, { elapsed_s: 0, eta_s: null }),
    progress(2, "training", 0, 960, { elapsed_s: 30, eta_s: null }), // the ticker while the first update runs
    progress(3, "training", 16, 960, { elapsed_s: 45, eta_s: 2655 }),
  ];

  it("is no estimate while only the first unit, which holds the start-up, is done", () => {
    const s = applyEvents(emptyStream, start);
    expect(currentStage(s.stages)?.etaS).toBeNull();
    const html = renderToStaticMarkup(<RunProgress stages={s.stages} live />);
    expect(html).toContain("estimating…");
    expect(html).not.toContain(" left");
  });

  it("then extrapolates the rate since the first unit, not since the stage began", () => {
    const s = applyEvents(emptyStream, [...start, progress(4, "training", 32, 960, { elapsed_s: 48, eta_s: 2700 })]);
    expect(currentStage(s.stages)?.etaS).toBeCloseTo((928 * 3) / 16);
    expect(timeLeft(currentStage(s.stages)!)).toBe("about 2 min 54 s left");
    // a stage that begins again (evaluation inside training) measures afresh
    const again = applyEvents(s, [
      progress(5, "training", 960, 960, { state: "done" }),
      progress(6, "training", 0, 960, { elapsed_s: 0 }),
      progress(7, "training", 16, 960, { elapsed_s: 40 }),
    ]);
    expect(currentStage(again.stages)?.etaS).toBeNull();
  });
});

describe("timeLeft", () => {
  const stage = applyEvents(emptyStream, [progress(1, "training", 4, 10, { eta_s: 400, elapsed_s: 12.4 })]).stages[0];
  it("words the estimate, its absence and the end", () => {
    expect(timeLeft({ ...stage, etaS: 400 })).toBe("about 6 min 40 s left");
    expect(timeLeft({ ...stage, etaS: null })).toBe("estimating…");
    expect(timeLeft({ ...stage, state: "done" })).toBe("done in 12 s");
    expect(timeLeft({ ...stage, state: "stopped" })).toBe("stopped after 12 s");
  });
});

describe("RunProgress", () => {
  it("shows the current stage's bar, units done of the total and the time left, then every stage", () => {
    const s = applyEvents(emptyStream, [
      progress(1, "cloning", 16, 16, { state: "done", eta_s: 0 }),
      progress(2, "training", 0, 96),
      progress(3, "training", 16, 96, { elapsed_s: 20 }),
      progress(4, "training", 48, 96, { elapsed_s: 30 }),
    ]);
    const html = renderToStaticMarkup(<RunProgress stages={s.stages} live />);
    expect(html).toContain('aria-valuenow="48"');
    expect(html).toContain('aria-valuemax="96"');
    expect(html).toContain("width:50%");
    expect(html).toContain("48 / 96 episodes");
    expect(html).toContain("about 15 s left");
    expect(html).toContain("Label of cloning");
    expect(html).toContain("done in 16 s");
  });

  it("says a report is coming while a run has sent none", () => {
    expect(renderToStaticMarkup(<RunProgress stages={[]} live />)).toContain("first progress report");
    expect(renderToStaticMarkup(<RunProgress stages={[]} live={false} />)).toContain("reported no progress");
  });
});
