/** Typed calls of the deployments REST API (mase_web/deployments/api.py). */
import { api, type Schema } from "../api";
import type { Paginated } from "../runs/types";
import type {
  AlertRow,
  Batch,
  BreakerSnapshot,
  Catalogue,
  Correction,
  CorrectionBody,
  DecisionRow,
  DeployCandidate,
  DeploymentDetail,
  DeploymentSummary,
  EpisodeDetail,
  EpisodeRow,
  EpisodeSummary,
  FallbackPreviewResult,
  ReviewStatus,
  TicketResult,
  Transition,
} from "./types";
import type { WriterRequest } from "./reply";

const post = (body: unknown) => ({ method: "POST", body: JSON.stringify(body) }) as const;

export const deploymentsApi = {
  list: () => api<Paginated<DeploymentSummary>>("deployments/?page_size=100"),
  get: (id: number) => api<DeploymentDetail>(`deployments/${id}/`),
  create: (body: {
    run: number;
    name?: string;
    generation?: WriterRequest;
    confidence_threshold?: number;
    scope_gate?: boolean;
  }) =>
    api<DeploymentDetail>("deployments/", post(body)),
  stop: (id: number) => api<DeploymentDetail>(`deployments/${id}/stop/`, post({})),
  resume: (id: number) => api<DeploymentDetail>(`deployments/${id}/resume/`, post({})),
  /** The share of replies written in another style, marked explored (decision 0035). */
  setStyleExplore: (id: number, share: number) =>
    api<Schema<"StyleExplore">>(`deployments/${id}/style-explore/`, post({ style_explore: share })),
  setScopeGate: (id: number, on: boolean) =>
    api<Schema<"ScopeGate">>(`deployments/${id}/scope-gate/`, post({ scope_gate: on })),
  sendTicket: (id: number, text: string) =>
    api<{ episode: EpisodeSummary; result: TicketResult }>(`deployments/${id}/tickets/`, post({ text, source: "browser" })),
  uploadBatch: (id: number, jsonl: string) => api<Batch>(`deployments/${id}/batches/`, post({ jsonl })),
  batches: (id: number) => api<Batch[]>(`deployments/${id}/batches/`),
  force: (id: number, state: "open" | "closed", reason: string) =>
    api<{ transition: Transition; breaker: BreakerSnapshot }>(`deployments/${id}/breaker/`, post({ state, reason })),
  transitions: (id: number) => api<Transition[]>(`deployments/${id}/transitions/`),
  alerts: (id: number) => api<AlertRow[]>(`deployments/${id}/alerts/`),
  /** Tickets for review, one row each (who decided, how sure, the reply); the steps come with `episode`. */
  episodes: (query: URLSearchParams) => api<Paginated<EpisodeRow>>(`episodes/?${query}`),
  episode: (id: number) => api<EpisodeDetail>(`episodes/${id}/`),
  decisions: (query: URLSearchParams) => api<Paginated<DecisionRow>>(`decisions/?${query}`),
  exportUrl: (query: URLSearchParams) => `/api/decisions/export/?${query}`,
  candidates: () => api<DeployCandidate[]>("deployments/candidates/"),
  preview: (run: number, threshold?: number) => {
    const query = new URLSearchParams({ run: String(run) });
    if (threshold !== undefined) query.set("threshold", String(threshold));
    return api<FallbackPreviewResult>(`deployments/preview/?${query}`);
  },
  review: (id: number, status: ReviewStatus, reason = "") =>
    api<DecisionRow>(`decisions/${id}/review/`, post({ status, reason })),
  reviewEpisode: (id: number, status: ReviewStatus, reason = "") =>
    api<EpisodeRow>(`episodes/${id}/review/`, post({ status, reason })),
  catalogue: (deployment: number) => api<Catalogue>(`deployments/${deployment}/catalogue/`),
  /** Say what was right for a decision (`decisions`) or a whole ticket (`episodes`). */
  correct: (target: "decisions" | "episodes", id: number, body: CorrectionBody) =>
    api<Correction>(`${target}/${id}/correct/`, post(body)),
  annotate: (id: number) =>
    api<{ queue: number; queue_name: string; item: number | null; added: boolean }>(`decisions/${id}/annotate/`, post({})),
};
