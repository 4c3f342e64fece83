/** Typed calls of the runs API beyond launch and control: tags, connected workers, the HTML report. */
import { api } from "../api";
import type { RunSummary, WorkerState } from "./types";

export const runExtrasApi = {
  setTags: (id: number, tags: string[]) => api<RunSummary>(`runs/${id}/tags/`, { method: "PUT", body: JSON.stringify({ tags }) }),
  tags: () => api<{ tags: { name: string; runs: number }[] }>("runs/tags/"),
  workers: () => api<WorkerState>("runs/workers/"),
  moveDevice: (id: number, device: "cpu" | "gpu") =>
    api<RunSummary>(`runs/${id}/device/`, { method: "POST", body: JSON.stringify({ device }) }),
  /** A download: the server answers with an attachment, so a plain link saves it. */
  reportUrl: (id: number) => `/api/runs/${id}/report/`,
};
