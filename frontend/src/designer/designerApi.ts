/** Typed calls to the workflow API (mase_web/workflows/api.py). */
import { api } from "../api";
import type {
  Catalogue,
  Layout,
  Page,
  SpecDiff,
  TeamSpec,
  TemplateSummary,
  ValidationReport,
  Version,
  VersionSummary,
  Workflow,
  WorkflowSummary,
} from "./types";

const json = (body: unknown): RequestInit => ({ method: "POST", body: JSON.stringify(body) });

export const workflowsApi = {
  list: (query = "") => api<Page<WorkflowSummary>>(`workflows/${query}`),
  get: (id: number) => api<Workflow>(`workflows/${id}/`),
  create: (body: { project: number; name: string; template?: string }) => api<Workflow>("workflows/", json(body)),
  saveDraft: (id: number, spec: TeamSpec, layout: Layout) =>
    api<Workflow>(`workflows/${id}/`, { method: "PATCH", body: JSON.stringify({ spec, layout }) }),
  rename: (id: number, name: string) =>
    api<Workflow>(`workflows/${id}/`, { method: "PATCH", body: JSON.stringify({ name }) }),
  remove: (id: number) => api<void>(`workflows/${id}/`, { method: "DELETE" }),
  validate: (id: number, spec: TeamSpec, signal?: AbortSignal) =>
    api<ValidationReport>(`workflows/${id}/validate/`, { ...json({ spec }), signal }),
  publish: (id: number, note: string) => api<Version>(`workflows/${id}/publish/`, json({ note })),
  versions: (id: number) => api<Page<VersionSummary>>(`workflows/${id}/versions/`),
  version: (id: number, number: number) => api<Version>(`workflows/${id}/versions/${number}/`),
  restore: (id: number, number: number) => api<Workflow>(`workflows/${id}/versions/${number}/restore/`, json({})),
  diff: (id: number, base: number | "draft", target: number | "draft") =>
    api<SpecDiff>(`workflows/${id}/diff/?base=${base}&target=${target}`),
  importInto: (id: number, spec: unknown) => api<Workflow>(`workflows/${id}/import/`, json({ spec })),
  importNew: (project: number, spec: unknown) => api<Workflow>("workflows/import/", json({ project, spec })),
  templates: () => api<TemplateSummary[]>("workflows/templates/"),
  catalogue: () => api<Catalogue>("workflows/catalogue/"),
};

/** The page data Django renders into <script id="page-data">. */
export function pageData<T>(): T {
  const el = document.getElementById("page-data");
  return (el?.textContent ? JSON.parse(el.textContent) : {}) as T;
}
