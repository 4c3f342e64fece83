import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { VerdictPayload } from "./events.generated";
import { applyEvents, emptyStream } from "./runStream";
import type { RunEventMessage } from "./types";
import { VerdictPanel } from "./VerdictPanel";
import { differenceText, isVerdict, missingVerdict, verdictRows, verdictTone } from "./verdict";

/** A "verdict" event's payload as training/baselines.py emits it (training.verdict.Verdict.to_dict). */
const payload: VerdictPayload = {
  learned: "mappo",
  baseline: "imitation",
  difference: 0.1234,
  low: 0.08,
  high: 0.165,
  outcome: "marl_paid",
  sentence: "MAPPO scores 12 points more exact match than imitation of the rules (supervised) (CI 8 to 17) at the same or lower cost: MARL paid",
  level: 0.95,
  arms: [
    { name: "mappo", mean: 0.9, low: 0.86, high: 0.94, episodes: 100, cost: 2.1 },
    { name: "rules", mean: 0.7, low: 0.61, high: 0.79, episodes: 100, cost: 2.4 },
    { name: "imitation", mean: 0.7766, low: 0.7, high: 0.85, episodes: 100, cost: 2.2 },
  ],
};

describe("verdictRows", () => {
  it("orders rules, imitation, then the learned arm, in points, marking the learned arm and the baseline it was judged against", () => {
    const rows = verdictRows(payload);
    expect(rows.map((r) => r.name)).toEqual(["rules", "imitation", "mappo"]);
    expect(rows.map((r) => r.learned)).toEqual([false, false, true]);
    expect(rows.map((r) => r.judgedAgainst)).toEqual([false, true, false]);
    expect(rows[2].mean).toBeCloseTo(90);
    expect([rows[0].low, rows[0].high]).toEqual([61, 79]);
    expect(rows[1].cost).toBe(2.2);
  });
  it("puts a routing team's plain classifier after imitation, labelled, and marks it when it was the best baseline", () => {
    const plain = { name: "plain", mean: 0.8, low: 0.72, high: 0.87, episodes: 100, cost: 2.1 };
    const rows = verdictRows({ ...payload, baseline: "plain", arms: [plain, ...payload.arms] });
    expect(rows.map((r) => r.name)).toEqual(["rules", "imitation", "plain", "mappo"]);
    expect(rows[2].label).toBe("Plain classifier (same backbone, no RL)");
    expect(rows.map((r) => r.judgedAgainst)).toEqual([false, false, true, false]);
  });
});

describe("differenceText and verdictTone", () => {
  it("words the paired difference with its interval and signs", () => {
    expect(differenceText(payload)).toBe("+12 points (95% CI +8 to +17)");
    expect(differenceText({ ...payload, difference: -0.05, low: -0.1, high: 0.004 })).toBe("−5 points (95% CI −10 to +0)");
    expect(differenceText({ ...payload, difference: null, low: null, high: null })).toBeNull();
  });
  it("is good only when MARL paid at no higher cost, bad when the learned team is worse", () => {
    expect(verdictTone(payload)).toBe("good");
    expect(verdictTone({ ...payload, outcome: "marl_paid_costlier" })).toBe("neutral");
    expect(verdictTone({ ...payload, outcome: "no_better" })).toBe("neutral");
    expect(verdictTone({ ...payload, outcome: "worse" })).toBe("bad");
  });
});

describe("the verdict event on the run stream", () => {
  it("is kept as the stream's verdict, and a malformed one is ignored", () => {
    const s = applyEvents(emptyStream, [{ seq: 1, type: "verdict", payload: payload as unknown as Record<string, unknown>, time: 1 }]);
    expect(s.verdict?.sentence).toBe(payload.sentence);
    const broken = applyEvents(emptyStream, [{ seq: 1, type: "verdict", payload: { sentence: "x", learned: "mappo", arms: [{ name: "rules" }] }, time: 1 }]);
    expect(broken.verdict).toBeNull();
    expect(broken.lastSeq).toBe(1);
    expect(isVerdict(null)).toBe(false);
  });
});

describe("VerdictPanel", () => {
  it("draws nothing without a verdict, and the sentence, every arm and the episodes with one", () => {
    expect(renderToStaticMarkup(<VerdictPanel verdict={null} />)).toBe("");
    const html = renderToStaticMarkup(<VerdictPanel verdict={payload} />);
    expect(html).toContain(payload.sentence);
    expect(html).toContain("verdict-good");
    expect(html).toContain("Rules (scripted procedure)");
    expect(html).toContain("Imitation (supervised, no RL)");
    expect(html).toContain("Learned: MAPPO");
    expect(html).toContain("61.0 – 79.0");
    expect(html).toContain("the same 100 held-out evaluation episodes");
    expect(html).toContain("+12 points (95% CI +8 to +17)");
  });
});

describe("a run whose baselines could not be played", () => {
  const why = "the baselines could not be evaluated: SpecValidationError: invalid team spec: $.environment.params.tickets: unknown intent 'damaged_item'";
  const events: RunEventMessage[] = [
    { seq: 1, type: "progress", payload: { phase: "baselines", label: "Evaluating the team beside its baselines", done: 0, total: 4, unit: "arms", elapsed_s: 0, eta_s: null, state: "running" }, time: 1 },
    { seq: 2, type: "progress", payload: { phase: "baselines", label: "Evaluating the team beside its baselines", done: 0, total: 4, unit: "arms", elapsed_s: 0, eta_s: null, state: "stopped" }, time: 2 },
    { seq: 3, type: "log", payload: { message: why }, time: 3 },
  ];

  it("says why there is no verdict, instead of showing nothing", () => {
    const s = applyEvents(emptyStream, events);
    expect(missingVerdict(s.stages, s.feed)).toBe(why);
    const html = renderToStaticMarkup(<VerdictPanel verdict={null} missing={missingVerdict(s.stages, s.feed)} />);
    expect(html).toContain("No verdict for this run: the baselines could not be evaluated");
  });

  it("says nothing while the baselines are being played or when they were never started", () => {
    expect(missingVerdict(applyEvents(emptyStream, events.slice(0, 1)).stages, [])).toBeNull();
    expect(missingVerdict([], [])).toBeNull();
  });
});
