/** Typed calls of the feedback REST API (mase_web/feedback/api.py). */
import { api } from "../api";
import type { Paginated } from "../runs/types";
import type {
  Agreement,
  Choice,
  DeploymentFilter,
  IntentAnswerStored,
  Item,
  JudgementAnswer,
  NewQueue,
  Queue,
  RatingAnswer,
  RewardModel,
} from "./types";

const post = (body?: unknown): RequestInit => ({ method: "POST", body: body === undefined ? undefined : JSON.stringify(body) });

export const feedbackApi = {
  queues: () => api<Paginated<Queue>>("feedback/queues/?page_size=100"),
  queue: (id: number) => api<Queue>(`feedback/queues/${id}/`),
  createQueue: (body: NewQueue) => api<Queue>("feedback/queues/", post(body)),
  myItems: (queue: number) => api<Paginated<Item>>(`feedback/my-items/?queue=${queue}&page_size=500`),
  rate: (item: number, value: number, tags: string[], comment: string) =>
    api<RatingAnswer>("feedback/ratings/", post({ item, value, tags, comment })),
  judge: (item: number, choice: Choice, comment: string) =>
    api<JudgementAnswer>("feedback/judgements/", post({ item, choice, comment })),
  labelIntents: (item: number, intents: string[]) =>
    api<IntentAnswerStored>("feedback/intent-labels/", post({ item, intents })),
  enqueueDataset: (queue: number, body: { version: number; limit?: number; deployment?: number }) =>
    api<{ added: number; items: number[] }>(`feedback/queues/${queue}/enqueue-dataset/`, post(body)),
  agreement: (queue: number) => api<Agreement>(`feedback/queues/${queue}/agreement/`),
  enqueueDeployment: (queue: number, filter: DeploymentFilter) =>
    api<{ added: number; skipped_identical?: number }>(`feedback/queues/${queue}/enqueue-deployment/`, post(filter)),
  rewardModels: (queue: number) => api<RewardModel[]>(`feedback/queues/${queue}/reward-models/`),
  trainRewardModel: (queue: number) => api<RewardModel>(`feedback/queues/${queue}/reward-models/`, post()),
  rewardModel: (id: number) => api<RewardModel>(`feedback/reward-models/${id}/`),
  exportUrl: (queue: number) => `/api/feedback/queues/${queue}/export/`,
};
