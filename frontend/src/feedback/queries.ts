/** Query keys, query functions and polling of the feedback API (feedbackApi.ts), defined once. */
import { queryOptions } from "@tanstack/react-query";
import { feedbackApi } from "./feedbackApi";
import type { RewardModel } from "./types";

/** A reward model being trained is re-read this often until it succeeds or fails. */
export const REWARD_MODEL_POLL_MS = 1000;

/** Queued or running: a Celery job is training it and writes its progress. */
export function isTraining(model: Pick<RewardModel, "state"> | null | undefined): boolean {
  return model?.state === "queued" || model?.state === "running";
}

/** A reward model is polled while it trains. */
export function rewardModelPollInterval(model: Pick<RewardModel, "state"> | undefined): number | false {
  return isTraining(model) ? REWARD_MODEL_POLL_MS : false;
}

export const feedbackQueries = {
  queues: () => queryOptions({ queryKey: ["feedback", "queues"], queryFn: feedbackApi.queues }),
  agreement: (queue: number) => queryOptions({ queryKey: ["feedback", "queues", queue, "agreement"], queryFn: () => feedbackApi.agreement(queue) }),
  rewardModels: (queue: number) =>
    queryOptions({ queryKey: ["feedback", "queues", queue, "reward-models"], queryFn: () => feedbackApi.rewardModels(queue) }),
  /** One model, polled until it is finished; its first answer comes from the queue's list or the training request. */
  rewardModel: (id: number) =>
    queryOptions({
      queryKey: ["feedback", "reward-models", id],
      queryFn: () => feedbackApi.rewardModel(id),
      staleTime: Infinity,
      refetchInterval: (query) => rewardModelPollInterval(query.state.data),
    }),
  myItems: (queue: number) => queryOptions({ queryKey: ["feedback", "my-items", queue], queryFn: () => feedbackApi.myItems(queue) }),
};
