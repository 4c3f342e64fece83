import { useQuery } from "@tanstack/react-query";
import { runQueries } from "./queries";
import type { WorkerState } from "./types";

/** Connected workers and their queues, refreshed while `active`; null until the first answer. A failed
 * request keeps the last answer: unknown stays unknown, no notice is better than a wrong one. */
export function useWorkers(active = true): WorkerState | null {
  return useQuery({ ...runQueries.workers(), enabled: active }).data ?? null;
}

/** True when the workers were asked and none consumes `device`'s queue. */
export function noWorkerFor(state: WorkerState | null, device: string): boolean {
  return !!state && !state.error && (state.queues[device]?.length ?? 0) === 0;
}
