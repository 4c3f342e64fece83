import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { AllocationPanel } from "./AllocationPanel";
import { backlogGrid, isAllocation, messageCost, shadeColor, stormReport, topWinners } from "./allocation";
import type { AllocationPayload } from "./events.generated";
import { applyEvents, emptyStream } from "./runStream";

const summary = (over: Partial<AllocationPayload> = {}): AllocationPayload => ({
  allocation: "auction",
  state_sync: "gossip",
  agents: ["guides_0", "guides_1", "couriers_0"],
  tasks: [17, 18],
  backlog: [
    [0, 4],
    [2, 8],
    [1, 0],
  ],
  wins: [3, 5, 5],
  dropped: 2,
  messages: 300,
  gossip_messages: 300,
  central_messages: 1200,
  quota_hits: 0,
  ...over,
});

describe("backlogGrid", () => {
  it("makes one cell per agent and task, shaded against the largest backlog", () => {
    const grid = backlogGrid(summary());
    expect(grid).toMatchObject({ rows: 3, cols: 2, max: 8 });
    expect(grid.cells).toHaveLength(6);
    expect(grid.cells.find((c) => c.agent === "guides_1" && c.task === 18)?.shade).toBe(1);
    expect(grid.cells.find((c) => c.agent === "guides_0" && c.task === 18)?.shade).toBe(0.5);
    expect(grid.cells.find((c) => c.agent === "guides_0" && c.task === 17)?.shade).toBe(0);
  });

  it("shades an all-idle team light instead of dividing by zero", () => {
    const grid = backlogGrid(summary({ backlog: [[0], [0], [0]], tasks: [0] }));
    expect(grid.max).toBe(0);
    expect(grid.cells.every((c) => c.shade === 0)).toBe(true);
  });
});

describe("messageCost", () => {
  it("puts gossip beside what the controller would have sent, and counts quota hits", () => {
    expect(messageCost(summary())).toEqual({
      ratio: 0.25,
      sentence: "Gossip sent 300 messages, 25% of the 1200 a central controller would send for the same changes.",
    });
    expect(messageCost(summary({ quota_hits: 1 })).sentence).toContain("reached 1 time (");
  });

  it("has no ratio when nothing changed, and no comparison for the controller itself", () => {
    expect(messageCost(summary({ central_messages: 0, messages: 0 })).ratio).toBeNull();
    expect(messageCost(summary({ state_sync: "central", messages: 1200 })).sentence).toBe("The central controller sent 1200 messages.");
  });
});

describe("topWinners", () => {
  it("orders by wins then name, with shares of the allocated tasks", () => {
    expect(topWinners(summary(), 2)).toEqual([
      { agent: "couriers_0", wins: 5, share: 5 / 13 },
      { agent: "guides_1", wins: 5, share: 5 / 13 },
    ]);
  });
});

describe("stormReport", () => {
  it("names the stormers, counts throttled messages and lists the lowest reputations", () => {
    const report = stormReport(
      summary({ storms: 1, storm_rounds: 30, throttled: 6009, stormers: ["guides_1"], reputations: [0.95, 0.01, 0.7] }),
    );
    expect(report.sentence).toBe("1 message storm detected (guides_1): 30 agent-rounds over the quota, 6009 messages throttled.");
    expect(report.lowest).toEqual([
      { agent: "guides_1", reputation: 0.01 },
      { agent: "couriers_0", reputation: 0.7 },
    ]);
  });

  it("says a quiet episode had none, and says nothing for an event from before storms were counted", () => {
    expect(stormReport(summary({ storms: 0, reputations: [1, 1, 1] })).sentence).toMatch(/^No message storm/);
    expect(stormReport(summary()).sentence).toBeNull();
  });

  it("shows the storm in the panel", () => {
    const html = renderToStaticMarkup(
      <AllocationPanel summary={summary({ storms: 1, storm_rounds: 2, throttled: 5, stormers: ["guides_0"], reputations: [0.25, 1, 1] })} />,
    );
    expect(html).toContain('data-testid="allocation-storms"');
    expect(html).toContain("guides_0 0.25");
  });
});

describe("isAllocation and shadeColor", () => {
  it("accepts a declared payload and refuses one missing the backlog", () => {
    expect(isAllocation(summary())).toBe(true);
    const { backlog: _, ...partial } = summary();
    expect(isAllocation(partial)).toBe(false);
  });

  it("runs from light to dark", () => {
    expect(shadeColor(0)).toBe("rgb(248, 249, 252)");
    expect(shadeColor(1)).toBe("rgb(180, 40, 40)");
  });
});

describe("the run stream and the panel", () => {
  it("keeps the latest allocation event and draws one cell per agent and task", () => {
    const state = applyEvents(emptyStream, [
      { seq: 1, type: "allocation", payload: { ...summary(), step: 4 }, time: 1 },
      { seq: 2, type: "allocation", payload: { messages: "many" }, time: 2 },
    ]);
    expect(state.allocation?.step).toBe(4); // the malformed second event is not read
    const html = renderToStaticMarkup(<AllocationPanel summary={state.allocation} />);
    expect(html.match(/<rect /g)).toHaveLength(6);
    expect(html).toContain("25% of the 1200");
    expect(html).toContain("couriers_0 5 (38%)");
    expect(renderToStaticMarkup(<AllocationPanel summary={null} />)).toBe("");
  });
});
