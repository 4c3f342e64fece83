import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type React from "react";
import { useState } from "react";
import { ApiError } from "../api";
import { workflowsApi } from "../designer/designerApi";
import { workflowQueries } from "../designer/queries";
import { TemplateGallery } from "../designer/TemplateGallery";
import type { TemplateSummary } from "../designer/types";
import { useDebouncedValue } from "../queryClient";
import { runQueries } from "../runs/queries";

const EDITOR_ROLES = new Set(["product_manager", "admin"]);
/** Typing in the search box should not send a request per key. */
const SETTLE_MS = 250;

function describe(e: unknown): string {
  const err = e as ApiError;
  const details = Object.entries(err.body?.errors ?? {}).map(([k, v]) => `${k}: ${v.join(" ")}`);
  return [err.message, ...details.slice(0, 6)].join(" — ");
}

/** Your projects' workflows, and the ways to start one: blank, from a template, or from a JSON file. */
export function WorkflowsPage() {
  const me = useQuery(runQueries.me());
  const memberships = me.data?.memberships ?? [];
  const templates = useQuery(workflowQueries.templates());
  const [search, setSearch] = useState("");
  const settledSearch = useDebouncedValue(search, search ? SETTLE_MS : 0);
  const query = new URLSearchParams({ ordering: "-updated_at" });
  if (settledSearch) query.set("search", settledSearch);
  const list = useQuery({ ...workflowQueries.list(`?${query}`), placeholderData: keepPreviousData });
  const workflows = list.data?.results ?? null;
  // The first project you may edit in (else your first) until another is chosen.
  const [picked, setPicked] = useState<number | null>(null);
  const project = picked ?? (memberships.find((m) => EDITOR_ROLES.has(m.role)) ?? memberships[0])?.project ?? null;
  const [name, setName] = useState("");
  const [actionError, setActionError] = useState("");
  const loadError = me.error ?? templates.error ?? list.error;
  const error = actionError || (loadError ? describe(loadError) : "");

  const role = memberships.find((m) => m.project === project)?.role;
  const canCreate = project !== null && !!role && EDITOR_ROLES.has(role);
  const open = (id: number) => (window.location.href = `/workflows/${id}/`);

  const create = async (template?: TemplateSummary) => {
    if (project === null) return;
    setActionError("");
    try {
      const w = await workflowsApi.create({ project, name: name.trim() || template?.name || "New workflow", template: template?.slug });
      open(w.id);
    } catch (e) {
      setActionError(describe(e));
    }
  };

  const importFile = async (event: React.ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = "";
    if (!file || project === null) return;
    setActionError("");
    let doc: unknown;
    try {
      doc = JSON.parse(await file.text());
    } catch (e) {
      setActionError(`${file.name} is not valid JSON: ${(e as Error).message}`);
      return;
    }
    try {
      open((await workflowsApi.importNew(project, doc)).id);
    } catch (e) {
      setActionError(`Import refused, nothing was saved. ${describe(e)}`);
    }
  };

  return (
    <main className="page wide">
      <h1>Workflows</h1>
      {error && <p className="error" role="alert" data-testid="page-error">{error}</p>}
      {memberships.length === 0 ? (
        <section className="card empty-state">
          <h2>You are not in a project yet</h2>
          <p>Ask a project admin to add you to a project; its workflows will appear here.</p>
        </section>
      ) : (
        <section className="card">
          <h2>Start a workflow</h2>
          <div className="row">
            <label className="field" title="The project the new workflow belongs to">
              <span>Project</span>
              <select value={project ?? ""} onChange={(e) => setPicked(Number(e.target.value))}>
                {memberships.map((m) => (
                  <option key={m.project} value={m.project}>
                    {m.project_name} ({m.role.replace("_", " ")})
                  </option>
                ))}
              </select>
            </label>
            <label className="field">
              <span>Name</span>
              <input value={name} placeholder="e.g. Support team v2" onChange={(e) => setName(e.target.value)} maxLength={200} />
            </label>
            <button onClick={() => create()} disabled={!canCreate} title="An empty canvas">
              New blank workflow
            </button>
            <label className={`button secondary${canCreate ? "" : " disabled"}`} title="Create a workflow from a team-spec JSON file">
              Import JSON…
              <input type="file" accept="application/json,.json" hidden disabled={!canCreate} onChange={importFile} data-testid="import-new" />
            </label>
          </div>
          {!canCreate && <p className="hint">Your role in this project can view workflows but not create them.</p>}
          <h3>Or start from a template</h3>
          <TemplateGallery templates={templates.data ?? []} disabled={!canCreate} onUse={create} />
        </section>
      )}
      <section className="card">
        <h2>
          Your workflows{" "}
          <input className="search" type="search" placeholder="Search…" value={search} onChange={(e) => setSearch(e.target.value)} aria-label="Search workflows" />
        </h2>
        {workflows === null ? (
          <p className="hint">Loading…</p>
        ) : workflows.length === 0 ? (
          <p className="empty-state">No workflows yet. Start one from a template above.</p>
        ) : (
          <table className="list">
            <thead>
              <tr>
                <th>Name</th>
                <th>Project</th>
                <th>Agents</th>
                <th>Published</th>
                <th>Last edited</th>
              </tr>
            </thead>
            <tbody>
              {workflows.map((w) => (
                <tr key={w.id}>
                  <td>
                    <a href={`/workflows/${w.id}/`}>{w.name}</a>
                  </td>
                  <td>{w.project_name}</td>
                  <td>{w.agents}</td>
                  <td>{w.latest_version ? `v${w.latest_version}` : "draft only"}</td>
                  <td>{new Date(w.updated_at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </main>
  );
}
