import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../api";
import { workflowsApi } from "./designerApi";
import { DiffView } from "./DiffView";
import { LaunchVersion } from "./LaunchVersion";
import { workflowQueries } from "./queries";
import { useDesigner } from "./store";
import type { Workflow } from "./types";

interface Props {
  workflowId: number;
  /** Set when the user may launch runs: the project and name a launched run is filed under. */
  launchAs: { project: number; workflowName: string } | null;
  flush: () => Promise<void>;
  onRestored: (workflow: Workflow) => void;
}

/** Publish the draft with a note (which re-reads the versions); browse published versions, compare them
 * with the draft, restore one. */
export function HistoryPanel({ workflowId, launchAs, flush, onRestored }: Props) {
  const queryClient = useQueryClient();
  const list = workflowQueries.versions(workflowId);
  const { data, isError } = useQuery(list);
  const versions = data?.results ?? (isError ? [] : null);
  const [note, setNote] = useState("");
  const [message, setMessage] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const report = useDesigner((s) => s.report);
  const readOnly = useDesigner((s) => s.readOnly);
  const diff = useDesigner((s) => s.diff);
  const setDiff = useDesigner.getState().setDiff;

  const run = async (what: () => Promise<void>) => {
    setBusy(true);
    setMessage(null);
    try {
      await what();
    } catch (e) {
      const err = e as ApiError;
      const details = err.body?.errors ? Object.entries(err.body.errors).map(([k, v]) => `${k}: ${v.join(" ")}`) : [];
      setMessage({ kind: "error", text: [err.message, ...details.slice(0, 3)].join(" — ") });
    } finally {
      setBusy(false);
    }
  };

  const publish = () =>
    run(async () => {
      await flush();
      const version = await workflowsApi.publish(workflowId, note.trim());
      setNote("");
      setMessage({ kind: "ok", text: `Published version ${version.number}.` });
      void queryClient.invalidateQueries({ queryKey: list.queryKey, exact: true });
    });

  const compare = (number: number) => run(async () => setDiff(await workflowsApi.diff(workflowId, number, "draft")));

  const restore = (number: number) =>
    run(async () => {
      await flush();
      const workflow = await workflowsApi.restore(workflowId, number);
      onRestored(workflow);
      setDiff(null);
      setMessage({ kind: "ok", text: `Version ${number} restored into the draft.` });
    });

  const hasErrors = (report?.errors.length ?? 1) > 0;
  return (
    <div className="history" data-testid="history">
      <h2>Publish</h2>
      {!readOnly && (
        <div className="publish">
          <label className="field column">
            <span>Note for this version</span>
            <textarea
              rows={2}
              value={note}
              maxLength={500}
              placeholder="What changed and why"
              onChange={(e) => setNote(e.target.value)}
              data-testid="publish-note"
            />
          </label>
          <button
            onClick={publish}
            disabled={busy || !note.trim() || hasErrors}
            title={hasErrors ? "Fix the errors in the Problems list first" : !note.trim() ? "Write a note first" : "Save an immutable version of the draft"}
          >
            Publish version
          </button>
        </div>
      )}
      {message && (
        <p className={message.kind === "ok" ? "ok" : "error"} role={message.kind === "error" ? "alert" : "status"}>
          {message.text}
        </p>
      )}
      <h2>Versions</h2>
      {versions === null && <p className="hint">Loading…</p>}
      {versions?.length === 0 && <p className="empty-state">Nothing published yet. Publish the draft to start its history.</p>}
      <ul className="versions">
        {versions?.map((v) => (
          <li key={v.number} data-testid={`version-${v.number}`}>
            <div>
              <strong>v{v.number}</strong> {v.note}
            </div>
            <div className="hint">
              {v.author ?? "unknown"} · {new Date(v.created_at).toLocaleString()}
            </div>
            <button className="secondary" onClick={() => compare(v.number)} disabled={busy} title="Show what changed from this version to the draft">
              Compare with draft
            </button>
            {!readOnly && (
              <button className="secondary" onClick={() => restore(v.number)} disabled={busy} title="Copy this version into the draft (Undo takes it back)">
                Restore
              </button>
            )}
            {launchAs && <LaunchVersion {...launchAs} workflowId={workflowId} version={v.number} />}
          </li>
        ))}
      </ul>
      {diff && <DiffView diff={diff} onClose={() => setDiff(null)} />}
    </div>
  );
}
