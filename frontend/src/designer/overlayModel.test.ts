import { describe, expect, it } from "vitest";
import { DEFAULT_THRESHOLD, overlayModel, type CommunicationReport } from "./overlayModel";
import type { EdgeSpec } from "./types";

// matrix[i][j] = how much listener agents[i] attends to speaker agents[j].
const report = (agents: string[], matrix: number[][]): CommunicationReport => ({ seq: 7, step: 3, mode: "eval", agents, matrix });

const team = report(
  ["triage", "billing", "tech"],
  [
    [0.5, 0.3, 0.2], // triage listens to billing 0.3, tech 0.2
    [0.9, 0.08, 0.02], // billing listens to triage 0.9, tech 0.02
    [0.6, 0.01, 0.39], // tech listens to triage 0.6, billing 0.01
  ],
);

describe("overlayModel", () => {
  it("turns off-diagonal weights at or above the threshold into speaker → listener edges, strongest first", () => {
    const { edges } = overlayModel(team, ["triage", "billing", "tech"], [], 0.2);
    expect(edges).toEqual([
      { speaker: "triage", listener: "billing", weight: 0.9 },
      { speaker: "triage", listener: "tech", weight: 0.6 },
      { speaker: "billing", listener: "triage", weight: 0.3 },
      { speaker: "tech", listener: "triage", weight: 0.2 }, // equal to the threshold: kept
    ]);
  });

  it("never draws self-attention, however strong", () => {
    const { edges } = overlayModel(team, ["triage", "billing", "tech"], [], 0);
    expect(edges.some((e) => e.speaker === e.listener)).toBe(false);
    expect(edges).toHaveLength(6);
  });

  it("reads a designed communication link source → target as α(target, source) and marks it unused below the threshold", () => {
    const designed: EdgeSpec[] = [
      { source: "tech", target: "billing", kind: "communication" }, // α(billing, tech) = 0.02 → unused
      { source: "triage", target: "billing" }, // kind defaults to communication; 0.9 → used
      { source: "billing", target: "tech", kind: "dependency" }, // dependencies are not about attention
      { source: "billing", target: "tech", kind: "communication" }, // α(tech, billing) = 0.01 → unused
    ];
    const { unused } = overlayModel(team, ["triage", "billing", "tech"], designed, DEFAULT_THRESHOLD);
    expect([...unused.entries()]).toEqual([
      [0, 0.02],
      [3, 0.01],
    ]);
  });

  it("leaves out agents the draft no longer has, and says which", () => {
    const designed: EdgeSpec[] = [{ source: "tech", target: "billing" }];
    const model = overlayModel(team, ["triage", "billing"], designed, 0.05);
    expect(model.ignoredAgents).toEqual(["tech"]);
    expect(model.edges.every((e) => e.speaker !== "tech" && e.listener !== "tech")).toBe(true);
    // A designed link is still judged when both its ends were in the run.
    expect(model.unused.get(0)).toBe(0.02);
  });

  it("says nothing about links touching an agent the run did not have", () => {
    const designed: EdgeSpec[] = [{ source: "triage", target: "newcomer" }];
    const model = overlayModel(team, ["triage", "billing", "tech", "newcomer"], designed, 0.05);
    expect(model.unused.size).toBe(0);
    expect(model.edges.some((e) => e.listener === "newcomer" || e.speaker === "newcomer")).toBe(false);
  });

  it("reads a malformed report (ragged rows, non-numbers, no matrix) as empty instead of throwing", () => {
    const ragged = report(["a", "b"], [[0, Number.NaN], "x" as unknown as number[]]);
    expect(overlayModel(ragged, ["a", "b"], [{ source: "b", target: "a" }], 0)).toEqual({
      edges: [],
      unused: new Map(),
      ignoredAgents: [],
    });
    const broken = { ...report(["a", "b"], []), matrix: null as unknown as number[][] };
    expect(overlayModel(broken, ["a", "b"], [], 0).edges).toEqual([]);
  });
});
