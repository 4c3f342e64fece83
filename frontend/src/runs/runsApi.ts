/** Typed calls of the runs REST API (mase_web/runs/api.py) and the spec sources the launch form offers. */
import { api } from "../api";
import type { Checkpoint, CompareBody, Me, Paginated, RunDetail, RunSummary } from "./types";

/** A run from a spec document, or from a published workflow version (the server records which). */
export type LaunchRequest = {
  project: number;
  name: string;
  kind: "training" | "evaluation";
  device: "cpu" | "gpu";
  /** Launch-time changes the server applies to the spec and records in the run's source. */
  overrides?: { episodes?: number };
  tags?: string[];
} & ({ spec: unknown } | { workflow: number; version: number });

export interface TemplateSummary {
  slug: string;
  name: string;
  description: string;
  agents: number;
  environment: string | null;
}

export interface WorkflowSummary {
  id: number;
  project: number;
  project_name: string;
  name: string;
  latest_version: number | null;
}

export interface WorkflowVersionSummary {
  number: number;
  note: string;
  created_at: string;
}

const post = { method: "POST" } as const;

export const runsApi = {
  me: () => api<Me>("me/"),
  list: (query: URLSearchParams) => api<Paginated<RunSummary>>(`runs/?${query}`),
  get: (id: number) => api<RunDetail>(`runs/${id}/`),
  launch: (body: LaunchRequest) => api<RunDetail>("runs/", { ...post, body: JSON.stringify(body) }),
  cancel: (id: number) => api<RunSummary>(`runs/${id}/cancel/`, post),
  resume: (id: number) => api<RunSummary>(`runs/${id}/resume/`, post),
  checkpoints: (id: number) => api<Checkpoint[]>(`runs/${id}/checkpoints/`),
  compare: (ids: number[]) => api<CompareBody>(`runs/compare/?ids=${ids.join(",")}`),
  templates: () => api<TemplateSummary[]>("workflows/templates/"),
  template: (slug: string) => api<TemplateSummary & { spec: unknown }>(`workflows/templates/${encodeURIComponent(slug)}/`),
  workflows: (project: number) => api<Paginated<WorkflowSummary>>(`workflows/?project=${project}&page_size=100`),
  versions: (workflow: number) => api<Paginated<WorkflowVersionSummary>>(`workflows/${workflow}/versions/`),
  version: (workflow: number, number: number) =>
    api<WorkflowVersionSummary & { spec: unknown }>(`workflows/${workflow}/versions/${number}/`),
};
