/** Loads what the learned-communication overlay draws: the workflow's runs that reported attention
 * and the chosen run's newest attention report (GET /api/runs/?workflow= and /communication/). */
import { useEffect } from "react";
import { api, ApiError } from "../api";
import { type CommunicationReport, type OverlayRun, useOverlay } from "./overlayModel";

/** How many of the newest runs are asked whether they reported attention. */
const RUNS_LOOKED_AT = 20;

interface RunRow {
  id: number;
  name: string;
  state: string;
}

const communication = (runId: number) => api<CommunicationReport>(`runs/${runId}/communication/`);

/** A run's report, or null when it has none yet (an empty report) or is gone (404); other failures propagate. */
async function reportOrNull(runId: number): Promise<CommunicationReport | null> {
  try {
    const report = await communication(runId);
    return report.seq === null || !report.agents.length ? null : report;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

/** Finds the runs with attention once per workflow, then (re)loads the chosen run's report whenever the
 * overlay is switched on or another run is picked. Call it once, from the overlay controls. */
export function useLearnedCommunication(workflowId: number): void {
  const enabled = useOverlay((s) => s.enabled);
  const runId = useOverlay((s) => s.runId);

  useEffect(() => {
    let live = true;
    useOverlay.setState({ runs: null, runId: null, report: null, error: "" });
    (async () => {
      const page = await api<{ results: RunRow[] }>(`runs/?workflow=${workflowId}&page_size=${RUNS_LOOKED_AT}`);
      const reports = await Promise.all(page.results.map((run) => reportOrNull(run.id)));
      const withAttention = page.results.flatMap((run, i) => {
        const report = reports[i];
        return report ? [{ run: { id: run.id, name: run.name, state: run.state }, report }] : [];
      });
      if (!live) return;
      const runs: OverlayRun[] = withAttention.map((r) => r.run);
      // The default is the newest run that has reported attention; its report is already here.
      useOverlay.setState({ runs, runId: runs[0]?.id ?? null, report: withAttention[0]?.report ?? null });
    })().catch((e: Error) => live && useOverlay.setState({ runs: [], error: e.message }));
    return () => {
      live = false;
    };
  }, [workflowId]);

  useEffect(() => {
    if (!enabled || runId === null) return;
    let live = true;
    communication(runId).then(
      (report) => live && useOverlay.setState({ report, error: "" }),
      (e: Error) => live && useOverlay.setState({ report: null, error: e.message }),
    );
    return () => {
      live = false;
    };
  }, [enabled, runId]);
}
