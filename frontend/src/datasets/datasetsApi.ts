/** Typed calls of the datasets REST API (mase_web/datasets/api.py). */
import { ApiError, api, csrfToken } from "../api";
import type { Paginated } from "../runs/types";
import type { Dataset, DatasetRow, DatasetVersion, LabelDistribution, SplitsSummary, UploadMode, UploadResult } from "./types";

export interface NewDataset {
  project: number;
  name: string;
  description?: string;
  catalogue?: { intents: { name: string; description: string }[] } | null;
}

/** A multipart POST (the browser sets the boundary), answered like `api`. */
async function postForm<T>(path: string, form: FormData): Promise<T> {
  const response = await fetch(`/api/${path}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "X-CSRFToken": csrfToken() },
    body: form,
  });
  const body = await response.json();
  if (!response.ok) throw new ApiError(response.status, body);
  return body as T;
}

export const datasetsApi = {
  list: () => api<Paginated<Dataset>>("datasets/?page_size=500"),
  get: (id: number) => api<Dataset>(`datasets/${id}/`),
  create: (body: NewDataset) => api<Dataset>("datasets/", { method: "POST", body: JSON.stringify(body) }),
  update: (id: number, body: Partial<NewDataset>) => api<Dataset>(`datasets/${id}/`, { method: "PATCH", body: JSON.stringify(body) }),
  versions: (id: number) => api<DatasetVersion[]>(`datasets/${id}/versions/`),
  upload: (id: number, file: File, mode: UploadMode) => {
    const form = new FormData();
    form.append("file", file);
    form.append("mode", mode);
    return postForm<UploadResult>(`datasets/${id}/upload/`, form);
  },
  rows: (version: number, query: string) => api<Paginated<DatasetRow>>(`dataset-versions/${version}/rows/?${query}`),
  labels: (version: number) => api<LabelDistribution>(`dataset-versions/${version}/labels/`),
  splits: (version: number) => api<SplitsSummary>(`dataset-versions/${version}/splits/`),
  exportUrl: (version: number, split?: string) => `/api/dataset-versions/${version}/export/${split ? `?split=${split}` : ""}`,
};
