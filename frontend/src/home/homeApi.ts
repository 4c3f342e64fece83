/** The few reads and one write the home page makes (runs, deployments, templates, a new workflow). */
import { api } from "../api";
import type { Paginated, RunSummary } from "../runs/types";

export interface HomeDeployment {
  id: number;
  name: string;
  project_name: string;
  run: number;
  run_name: string;
  status: string;
  breaker_state: string;
  created_at: string;
}

export interface HomeTemplate {
  slug: string;
  name: string;
  description: string;
  agents: number;
  environment: string | null;
}

export const homeApi = {
  recentRuns: () => api<Paginated<RunSummary>>("runs/?ordering=-created_at"),
  deployments: () => api<Paginated<HomeDeployment>>("deployments/"),
  templates: () => api<HomeTemplate[]>("workflows/templates/"),
  startFromTemplate: (project: number, template: HomeTemplate) =>
    api<{ id: number }>("workflows/", { method: "POST", body: JSON.stringify({ project, name: template.name, template: template.slug }) }),
};
