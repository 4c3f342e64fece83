/** The learned-communication overlay of the designer: its toolbar controls, its edges and its legend. */
import { type Edge, MarkerType } from "@xyflow/react";
import { useMemo } from "react";
import { pageData } from "./designerApi";
import type { LearnedFlowEdge } from "./LearnedEdge";
import { type OverlayModel, overlayModel, useOverlay } from "./overlayModel";
import { useDesigner } from "./store";
import { useLearnedCommunication } from "./useLearnedCommunication";

const LEARNED_COLOUR = "#f08c00";

export const formatWeight = (w: number): string => w.toFixed(2);

/** The overlay model of the current draft, or null while the overlay is off or has no report. */
export function useOverlayModel(): OverlayModel | null {
  const enabled = useOverlay((s) => s.enabled);
  const report = useOverlay((s) => s.report);
  const threshold = useOverlay((s) => s.threshold);
  const agents = useDesigner((s) => s.spec.agents);
  const designed = useDesigner((s) => s.spec.edges);
  return useMemo(
    () =>
      enabled && report
        ? overlayModel(
            report,
            agents.map((a) => a.id),
            designed ?? [],
            threshold,
          )
        : null,
    [enabled, report, threshold, agents, designed],
  );
}

/** React Flow edges for the learned links: view-only (not selectable, focusable or deletable). */
export function learnedFlowEdges(model: OverlayModel | null): Edge[] {
  return (model?.edges ?? []).map(
    ({ speaker, listener, weight }): LearnedFlowEdge => ({
      id: `learned:${speaker}:${listener}`,
      type: "learned",
      source: speaker,
      target: listener,
      sourceHandle: "comm-out",
      targetHandle: "comm-in",
      data: { weight },
      selectable: false,
      focusable: false,
      deletable: false,
      className: "edge-learned",
      style: { stroke: LEARNED_COLOUR, strokeWidth: 1 + 9 * Math.min(weight, 1), strokeOpacity: 0.5 },
      // In user space the arrowhead keeps its size instead of growing with the stroke width.
      markerEnd: { type: MarkerType.ArrowClosed, color: LEARNED_COLOUR, width: 14, height: 14, markerUnits: "userSpaceOnUse" },
      ariaLabel: `learned communication from ${speaker} to ${listener}, weight ${formatWeight(weight)}`,
    }),
  ) as Edge[];
}

/** Toolbar part: the "Learned communication" toggle, the run picker and the threshold slider. */
export function LearnedOverlayControls() {
  const { workflow_id: workflowId } = pageData<{ workflow_id: number }>();
  useLearnedCommunication(workflowId);
  const { enabled, threshold, runId, runs, error, setEnabled, setThreshold, setRunId } = useOverlay();
  const none = runs !== null && runs.length === 0;
  const title =
    runs === null
      ? "Looking for runs of this workflow that reported attention…"
      : none
        ? error || "No run of this workflow has reported attention yet: train it (Runs → Launch) to see what the team learned"
        : "Draw the communication the trained team actually uses over the designed links";

  return (
    <span className="overlay-controls" data-testid="overlay-controls">
      <span title={title}>
        <button
          className={enabled ? "active" : ""}
          aria-pressed={enabled}
          disabled={runs === null || none}
          onClick={() => setEnabled(!enabled)}
          data-testid="overlay-toggle"
        >
          Learned communication
        </button>
      </span>
      {enabled && runs && runs.length > 0 && (
        <>
          <select
            aria-label="Run whose learned communication is shown"
            value={runId ?? ""}
            onChange={(e) => setRunId(Number(e.target.value))}
            data-testid="overlay-run"
          >
            {runs.map((run) => (
              <option key={run.id} value={run.id}>
                #{run.id} {run.name} ({run.state})
              </option>
            ))}
          </select>
          <label className="overlay-threshold" title="Learned links weaker than this are not drawn; designed links weaker than this are marked unused">
            ≥{" "}
            <input
              type="range"
              min={0}
              max={0.5}
              step={0.01}
              value={threshold}
              onChange={(e) => setThreshold(Number(e.target.value))}
              aria-label="Weight threshold"
              data-testid="overlay-threshold"
            />
            <output>{formatWeight(threshold)}</output>
          </label>
        </>
      )}
    </span>
  );
}

/** The overlay's legend over the canvas, with the run's step and the agents that were ignored. */
export function LearnedLegend({ model }: { model: OverlayModel | null }) {
  const enabled = useOverlay((s) => s.enabled);
  const report = useOverlay((s) => s.report);
  const error = useOverlay((s) => s.error);
  if (!enabled) return null;
  return (
    <div className="overlay-legend" data-testid="overlay-legend">
      <strong>Learned communication</strong>
      {error && <span className="error">{error}</span>}
      {!model && !error && <span className="hint">Loading…</span>}
      {model && report && (
        <>
          <span className="hint">
            attention at step {report.step ?? "?"}
            {report.mode ? ` (${report.mode})` : ""}
          </span>
          <span>
            <span className="swatch swatch-learned" /> used by the team (width ∝ weight; hover for the weight)
          </span>
          <span>
            <span className="swatch swatch-unused" /> designed link the team does not use ({model.unused.size})
          </span>
          <span className="hint">{model.edges.length} learned links drawn</span>
          {model.ignoredAgents.length > 0 && (
            <span className="hint" data-testid="overlay-ignored">
              Ignored (in the run, not in this draft): {model.ignoredAgents.join(", ")}
            </span>
          )}
        </>
      )}
    </div>
  );
}
