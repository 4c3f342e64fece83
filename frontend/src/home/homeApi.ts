/** The home page's own read and write: your projects' deployments, a new workflow from a template. */
import { api } from "../api";
import type { Paginated } from "../runs/types";

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
  deployments: () => api<Paginated<HomeDeployment>>("deployments/"),
  startFromTemplate: (project: number, template: HomeTemplate) =>
    api<{ id: number }>("workflows/", { method: "POST", body: JSON.stringify({ project, name: template.name, template: template.slug }) }),
};
