/** Query keys and query functions of the deployments API (deploymentsApi.ts, the writer and the fallback
 * preview), defined once; and the cache updates that writes answering with the new state make. */
import { type QueryClient, queryOptions } from "@tanstack/react-query";
import { deploymentsApi } from "./deploymentsApi";
import { writerApi } from "./reply";
import type { Paginated } from "../runs/types";
import type { BreakerSnapshot, DecisionRow, DeploymentSummary, EpisodeRow } from "./types";

const DECISIONS = "decisions";
const EPISODE_ROWS = "episode-rows";

export const deploymentQueries = {
  list: () => queryOptions({ queryKey: ["deployments", "list"], queryFn: deploymentsApi.list }),
  detail: (id: number) => queryOptions({ queryKey: ["deployments", id], queryFn: () => deploymentsApi.get(id) }),
  batches: (id: number) => queryOptions({ queryKey: ["deployments", id, "batches"], queryFn: () => deploymentsApi.batches(id) }),
  transitions: (id: number) =>
    queryOptions({ queryKey: ["deployments", id, "transitions"], queryFn: () => deploymentsApi.transitions(id) }),
  writer: (id: number) => queryOptions({ queryKey: ["deployments", id, "generation"], queryFn: () => writerApi.settings(id) }),
  candidates: () => queryOptions({ queryKey: ["deployments", "candidates"], queryFn: deploymentsApi.candidates }),
  /** The breaker replayed on a run's checkpoint at one threshold (null: the run's own): a fixed answer. */
  preview: (run: number, threshold: number | null) =>
    queryOptions({
      queryKey: ["deployments", "preview", run, threshold],
      queryFn: () => deploymentsApi.preview(run, threshold ?? undefined),
      staleTime: Infinity,
    }),
  /** The intents and agents a correction may name (fixed for a deployment). */
  catalogue: (id: number) =>
    queryOptions({ queryKey: ["deployments", id, "catalogue"], queryFn: () => deploymentsApi.catalogue(id), staleTime: Infinity }),
  episode: (id: number) => queryOptions({ queryKey: ["episodes", id], queryFn: () => deploymentsApi.episode(id) }),
  /** `query`: the tickets' filters and page, as a query string (one row per episode). */
  episodeRows: (query: string) =>
    queryOptions({ queryKey: [EPISODE_ROWS, query], queryFn: () => deploymentsApi.episodes(new URLSearchParams(query)) }),
  /** `query`: the decisions' filters and page, as a query string. */
  decisions: (query: string) =>
    queryOptions({ queryKey: [DECISIONS, query], queryFn: () => deploymentsApi.decisions(new URLSearchParams(query)) }),
};

/** A reviewed decision as the server now has it, in every cached page of decisions that lists it. */
export function patchDecision(queryClient: QueryClient, row: DecisionRow): void {
  queryClient.setQueriesData<Paginated<DecisionRow>>({ queryKey: [DECISIONS] }, (old) =>
    old && { ...old, results: old.results.map((r) => (r.id === row.id ? row : r)) },
  );
}

/** A reviewed ticket as the server now has it, in every cached page of tickets that lists it; its steps'
 * reviews changed with it, so its detail is fetched again. */
export function patchEpisodeRow(queryClient: QueryClient, row: EpisodeRow): void {
  queryClient.setQueriesData<Paginated<EpisodeRow>>({ queryKey: [EPISODE_ROWS] }, (old) =>
    old && { ...old, results: old.results.map((r) => (r.id === row.id ? row : r)) },
  );
  void queryClient.invalidateQueries({ queryKey: deploymentQueries.episode(row.id).queryKey });
}

/** Writes `change` into the deployment wherever it is cached: its page, and its row in the list. */
export function patchDeployment(queryClient: QueryClient, id: number, change: Partial<DeploymentSummary>): void {
  queryClient.setQueryData(deploymentQueries.detail(id).queryKey, (old) => old && { ...old, ...change });
  queryClient.setQueryData(
    deploymentQueries.list().queryKey,
    (old) => old && { ...old, results: old.results.map((d) => (d.id === id ? { ...d, ...change } : d)) },
  );
}

/** The newest word on the deployment's breaker (a forced transition's answer, the live stream) in its page. */
export function setBreaker(queryClient: QueryClient, id: number, breaker: BreakerSnapshot): void {
  queryClient.setQueryData(deploymentQueries.detail(id).queryKey, (old) => old && { ...old, breaker });
}
