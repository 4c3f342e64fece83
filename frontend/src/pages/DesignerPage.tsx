import { ReactFlowProvider } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import "../designer/designer.css";
import type React from "react";
import { useEffect, useMemo, useRef, useState } from "react";
import { ApiError } from "../api";
import { AdvisorPanel } from "../designer/AdvisorPanel";
import { Canvas } from "../designer/Canvas";
import { CanvasToolbar } from "../designer/CanvasToolbar";
import { DesignerErrorBoundary } from "../designer/DesignerErrorBoundary";
import { pageData, workflowsApi } from "../designer/designerApi";
import { EnvironmentEditor } from "../designer/EnvironmentEditor";
import { HistoryPanel } from "../designer/HistoryPanel";
import { Inspector } from "../designer/Inspector";
import { Palette } from "../designer/Palette";
import { ProblemsList } from "../designer/ProblemsList";
import { RewardComposer } from "../designer/RewardComposer";
import { SafetyEditor } from "../designer/SafetyEditor";
import { ScheduleEditor } from "../designer/ScheduleEditor";
import { specDefaults } from "../designer/specDefaults";
import { TrainingEditor } from "../designer/TrainingEditor";
import { useDesigner } from "../designer/store";
import type { Catalogue, Workflow } from "../designer/types";
import { type SaveStatus, useDraftSync } from "../designer/useDraftSync";

const TABS = [
  ["inspector", "Inspector", "The selected agent or edge"],
  ["reward", "Reward", "Reward terms and their weights per phase"],
  ["schedule", "Schedule", "Evolution phases, plateau rule and curriculum"],
  ["training", "Training", "Algorithm, budget, policy sharing, credit and teachers"],
  ["environment", "Environment", "The environment's settings: rewards, limits, what each agent sees"],
  ["safety", "Safety", "Circuit breaker and fallback rules"],
  ["advisor", "Advisor", "Does this workflow need multi-agent RL?"],
  ["history", "History", "Publish, compare and restore versions"],
] as const;
type Tab = (typeof TABS)[number][0];

const STATUS_TEXT: Record<SaveStatus, string> = {
  saved: "All changes saved",
  unsaved: "Unsaved changes…",
  saving: "Saving…",
  error: "Save failed",
};

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName) || el.isContentEditable);
}

/** The workflow designer page, guarded so that an undrawable draft explains itself. */
export function DesignerPage() {
  const { workflow_id: workflowId } = pageData<{ workflow_id: number }>();
  return (
    <DesignerErrorBoundary workflowId={workflowId}>
      <Designer />
    </DesignerErrorBoundary>
  );
}

/** The workflow designer: palette, canvas, inspector and editors around one zustand store. */
function Designer() {
  const {
    workflow_id: workflowId,
    can_edit: canEdit,
    can_launch: canLaunch,
  } = pageData<{ workflow_id: number; can_edit: boolean; can_launch?: boolean }>();
  const [workflow, setWorkflow] = useState<Workflow | null>(null);
  const [catalogue, setCatalogue] = useState<Catalogue | null>(null);
  const [loadError, setLoadError] = useState("");
  const [tab, setTab] = useState<Tab>("inspector");
  const [importErrors, setImportErrors] = useState<string[]>([]);
  const [name, setName] = useState("");
  const fileInput = useRef<HTMLInputElement>(null);
  const selection = useDesigner((s) => s.selection);
  const spec = useDesigner((s) => s.spec);
  const { status, saveError, validating, flush } = useDraftSync(workflowId, workflow !== null);

  useEffect(() => {
    Promise.all([workflowsApi.get(workflowId), workflowsApi.catalogue()]).then(([w, c]) => {
      useDesigner.getState().load(w.spec, w.layout ?? {}, !canEdit);
      setCatalogue(c);
      setWorkflow(w);
      setName(w.name);
    }, (e: Error) => setLoadError(e.message));
  }, [workflowId, canEdit]);

  useEffect(() => {
    if (selection) setTab("inspector");
  }, [selection]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isTyping(event.target)) return;
      const s = useDesigner.getState();
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (mod && key === "z" && !event.shiftKey) s.undo();
      else if (mod && (key === "y" || (key === "z" && event.shiftKey))) s.redo();
      else if (mod && key === "c") s.copySelection();
      else if (mod && key === "v") s.paste();
      else if (key === "delete" || key === "backspace") s.deleteSelection();
      else return;
      event.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  const templateRoles = useMemo(() => new Set(spec.agents.map((a) => String(a.role))), [spec.agents]);

  const importFile = async (event: React.ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = "";
    if (!file) return;
    setImportErrors([]);
    let doc: unknown;
    try {
      doc = JSON.parse(await file.text());
    } catch (e) {
      setImportErrors([`${file.name} is not valid JSON: ${(e as Error).message}`]);
      return;
    }
    try {
      await flush();
      const w = await workflowsApi.importInto(workflowId, doc);
      useDesigner.getState().replace(w.spec, w.layout ?? {});
    } catch (e) {
      const err = e as ApiError;
      setImportErrors([err.message, ...Object.entries(err.body?.errors ?? {}).map(([k, v]) => `${k}: ${v.join(" ")}`)]);
    }
  };

  if (loadError) return <p className="error page" role="alert">Could not open this workflow: {loadError}</p>;
  if (!workflow || !catalogue) return <p className="page hint">Loading the designer…</p>;

  return (
    <ReactFlowProvider>
      <div className="designer">
        <header className="designer-header">
          <a href="/workflows/" title="All workflows">
            ← Workflows
          </a>
          <input
            className="workflow-name"
            aria-label="Workflow name"
            value={name}
            disabled={!canEdit}
            onChange={(e) => setName(e.target.value)}
            onBlur={() => name.trim() && name !== workflow.name && workflowsApi.rename(workflowId, name.trim()).then(setWorkflow)}
          />
          <span className="badge" title="Project">{workflow.project_name}</span>
          {!canEdit && <span className="badge warn" title="Your role can view but not edit workflows">read only</span>}
          <span className={`save-status ${status}`} data-testid="save-status" title={saveError || undefined}>
            {STATUS_TEXT[status]}
          </span>
          <span className="spacer" />
          <a className="button secondary" href={`/api/workflows/${workflowId}/export/`} download title="Download the draft spec as JSON (usable by the CLI)">
            Export JSON
          </a>
          {canEdit && (
            <>
              <button className="secondary" onClick={() => fileInput.current?.click()} title="Replace the draft with a spec JSON file (checked first; nothing is saved if it is invalid)">
                Import JSON
              </button>
              <input ref={fileInput} type="file" accept="application/json,.json" hidden onChange={importFile} data-testid="import-file" />
            </>
          )}
        </header>
        {saveError && <p className="error banner" role="alert">Autosave failed: {saveError}</p>}
        {importErrors.length > 0 && (
          <div className="error banner" role="alert" data-testid="import-errors">
            <strong>Import refused, nothing was changed.</strong>
            <ul>
              {importErrors.slice(0, 12).map((m, i) => (
                <li key={i}>{m}</li>
              ))}
            </ul>
            <button className="link" onClick={() => setImportErrors([])}>
              dismiss
            </button>
          </div>
        )}
        <div className="designer-body">
          <Palette roles={catalogue.roles} templateRoles={templateRoles} />
          <main className="designer-main">
            <CanvasToolbar />
            <Canvas roles={catalogue.roles} environments={catalogue.environments} />
            <ProblemsList validating={validating} openTab={setTab} />
          </main>
          <aside className="side-panel">
            <nav className="tabs" role="tablist">
              {TABS.map(([id, label, hint]) => (
                <button key={id} role="tab" aria-selected={tab === id} className={tab === id ? "active" : ""} onClick={() => setTab(id)} title={hint}>
                  {label}
                </button>
              ))}
            </nav>
            <div className="tab-body">
              {tab === "history" ? (
                <HistoryPanel
                  workflowId={workflowId}
                  launchAs={canLaunch ? { project: workflow.project, workflowName: workflow.name } : null}
                  flush={flush}
                  onRestored={(w) => useDesigner.getState().replace(w.spec, w.layout ?? {})}
                />
              ) : tab === "advisor" ? (
                <AdvisorPanel />
              ) : (
                <fieldset className="editor" disabled={!canEdit}>
                  {tab === "inspector" && (
                    <Inspector
                      roles={catalogue.roles}
                      defaults={specDefaults(catalogue)}
                      intents={catalogue.intents}
                      promptRouting={catalogue.prompt_routing}
                      environments={catalogue.environments}
                      workflowId={workflowId}
                      publishedVersion={workflow.latest_version}
                    />
                  )}
                  {tab === "reward" && <RewardComposer catalogue={catalogue} />}
                  {tab === "schedule" && <ScheduleEditor catalogue={catalogue} />}
                  {tab === "training" && <TrainingEditor algorithms={catalogue.algorithms} />}
                  {tab === "environment" && <EnvironmentEditor catalogue={catalogue} project={workflow.project} />}
                  {tab === "safety" && <SafetyEditor catalogue={catalogue} />}
                </fieldset>
              )}
            </div>
          </aside>
        </div>
      </div>
    </ReactFlowProvider>
  );
}
