/** Typed calls of the runs REST API (mase_web/runs/api.py) and the template spec the launch form offers
 * (the workflow lists and versions it offers are read through designer/queries.ts). */
import { api } from "../api";
import type { TemplateSummary } from "../designer/types";
import type { Checkpoint, CompareBody, Me, Paginated, RunDetail, RunSummary } from "./types";

/** A run from a spec document, a published workflow version or a gallery template (the server records which). */
export type LaunchRequest = {
  project: number;
  name: string;
  kind: "training" | "evaluation";
  device: "cpu" | "gpu";
  /** Launch-time changes the server applies to the spec and records in the run's source. */
  overrides?: { episodes?: number };
  tags?: string[];
  /** Evaluate the team beside its rules and imitation after training; left out: on where the team has them. */
  baselines?: boolean;
} & ({ spec: unknown } | { workflow: number; version: number } | { template: string });

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
  template: (slug: string) => api<TemplateSummary & { spec: unknown }>(`workflows/templates/${encodeURIComponent(slug)}/`),
};
