import { describe, expect, it } from "vitest";
import { COMPARE_POLL_MS, RUN_POLL_MS, comparePollInterval, runPollInterval, runQueries } from "./queries";
import type { CompareBody, RunState } from "./types";

const compare = (...states: RunState[]): CompareBody => ({ runs: states.map((state, id) => ({ id, name: `r${id}`, state, series: {} })) });

describe("runPollInterval", () => {
  it("polls a run until it reaches a terminal state", () => {
    expect(runPollInterval(undefined)).toBe(RUN_POLL_MS); // not read yet (or not readable): keep asking
    expect(runPollInterval({ state: "queued" })).toBe(RUN_POLL_MS);
    expect(runPollInterval({ state: "running" })).toBe(RUN_POLL_MS);
    for (const state of ["succeeded", "failed", "cancelled"]) expect(runPollInterval({ state })).toBe(false);
  });
});

describe("comparePollInterval", () => {
  it("polls a comparison only while one of its runs is queued or running", () => {
    expect(comparePollInterval(undefined)).toBe(false);
    expect(comparePollInterval(compare("succeeded", "failed"))).toBe(false);
    expect(comparePollInterval(compare("succeeded", "running"))).toBe(COMPARE_POLL_MS);
    expect(comparePollInterval(compare("queued", "cancelled"))).toBe(COMPARE_POLL_MS);
  });
});

describe("runQueries", () => {
  it("keys a run's row apart from its checkpoints and the list", () => {
    expect(runQueries.detail(3).queryKey).toEqual(["runs", 3]);
    expect(runQueries.checkpoints(3).queryKey).toEqual(["runs", 3, "checkpoints"]);
    expect(runQueries.list(new URLSearchParams({ page: "2", state: "running" })).queryKey).toEqual(["runs", "list", "page=2&state=running"]);
  });
});
