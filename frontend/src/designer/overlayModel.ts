/** The learned-communication overlay: which links the trained team actually uses, drawn over the draft.
 *
 * Its state lives in a store of its own, apart from the designer store: nothing here is part of the
 * spec, so it never enters undo history, never bumps `revision` and is never autosaved.
 */
import { create } from "zustand";
import type { EdgeSpec } from "./types";

/** GET /api/runs/<id>/communication/: the newest attention report of a run.
 * matrix[i][j] = α_ij, how much listener agents[i] attends to speaker agents[j]. */
export interface CommunicationReport {
  /** null: the run has reported no attention yet (the report is then empty). */
  seq: number | null;
  step: number | null;
  mode: string | null;
  agents: string[];
  matrix: number[][];
}

/** A run of this workflow that has reported attention (one choice of the run picker). */
export interface OverlayRun {
  id: number;
  name: string;
  state: string;
}

/** One learned link: `speaker` → `listener` with attention weight α(listener, speaker). */
export interface LearnedEdge {
  speaker: string;
  listener: string;
  weight: number;
}

export const DEFAULT_THRESHOLD = 0.05;

interface OverlayState {
  enabled: boolean;
  threshold: number;
  runId: number | null;
  /** Runs of this workflow with an attention report, newest first (null while still looking). */
  runs: OverlayRun[] | null;
  /** The chosen run's newest report (null until loaded). */
  report: CommunicationReport | null;
  error: string;
  setEnabled: (enabled: boolean) => void;
  setThreshold: (threshold: number) => void;
  setRunId: (runId: number | null) => void;
}

export const useOverlay = create<OverlayState>()((set) => ({
  enabled: false,
  threshold: DEFAULT_THRESHOLD,
  runId: null,
  runs: null,
  report: null,
  error: "",
  setEnabled: (enabled) => set({ enabled }),
  setThreshold: (threshold) => set({ threshold }),
  setRunId: (runId) => set({ runId }),
}));

/** What the overlay draws for one report over one draft. */
export interface OverlayModel {
  /** Learned links between agents of the draft with weight ≥ threshold, strongest first. */
  edges: LearnedEdge[];
  /** Indexes into the draft's edges of communication links the team does not use (weight < threshold). */
  unused: Map<number, number>;
  /** Agents the run reported that the draft no longer has (their links are not drawn). */
  ignoredAgents: string[];
}

/** Reads `report` against the draft: learned edges above `threshold` and unused designed links.
 *
 * A designed communication link source → target lets `target` listen to `source` (agents/spec.py
 * communication_mask), so its weight is α(target, source). Links touching an agent the run did not
 * have are left unmarked: the run says nothing about them.
 */
export function overlayModel(
  report: CommunicationReport,
  draftAgents: string[],
  designed: EdgeSpec[],
  threshold: number,
): OverlayModel {
  const inDraft = new Set(draftAgents);
  // A report is whatever the run emitted: anything but a list of names and rows reads as empty.
  const matrix = Array.isArray(report.matrix) ? report.matrix : [];
  const index = new Map<string, number>();
  (Array.isArray(report.agents) ? report.agents : []).forEach((id, i) => typeof id === "string" && index.set(id, i));
  const agents = [...index.keys()];
  const weight = (listener: string, speaker: string): number | undefined => {
    const i = index.get(listener);
    const j = index.get(speaker);
    if (i === undefined || j === undefined) return undefined;
    const row = matrix[i];
    const value = Array.isArray(row) ? row[j] : undefined;
    return typeof value === "number" && Number.isFinite(value) ? value : undefined;
  };

  const edges: LearnedEdge[] = [];
  for (const listener of agents) {
    for (const speaker of agents) {
      if (listener === speaker || !inDraft.has(listener) || !inDraft.has(speaker)) continue;
      const w = weight(listener, speaker);
      if (w !== undefined && w >= threshold) edges.push({ speaker, listener, weight: w });
    }
  }
  edges.sort((a, b) => b.weight - a.weight);

  const unused = new Map<number, number>();
  designed.forEach((edge, i) => {
    if ((edge.kind ?? "communication") !== "communication") return;
    const w = weight(edge.target, edge.source);
    if (w !== undefined && w < threshold) unused.set(i, w);
  });

  return { edges, unused, ignoredAgents: agents.filter((id) => !inDraft.has(id)) };
}
