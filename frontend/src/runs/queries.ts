/** Query keys, query functions and polling periods of the runs API (runsApi.ts, runExtrasApi.ts), defined once. */
import { queryOptions } from "@tanstack/react-query";
import { runExtrasApi } from "./runExtrasApi";
import { runsApi } from "./runsApi";
import { TERMINAL_STATES, type CompareBody } from "./types";

/** While a run is not finished its row (state, worker, deliveries) is refreshed this often. */
export const RUN_POLL_MS = 3000;
/** The runs page's list (and the tags it filters by) is refreshed this often. */
export const RUN_LIST_POLL_MS = 4000;
/** A comparison is refreshed this often while any of its runs is queued or running. */
export const COMPARE_POLL_MS = 5000;
/** The server caches the workers' answer about 10 s; asking more often gains nothing. */
export const WORKERS_POLL_MS = 10_000;

/** A run's row is polled until it is finished (its final state is written just after the "finished" event). */
export function runPollInterval(run: { state: string } | undefined): number | false {
  return run && TERMINAL_STATES.has(run.state) ? false : RUN_POLL_MS;
}

/** A comparison is polled once it is known that one of its runs is still queued or running. */
export function comparePollInterval(body: CompareBody | undefined): number | false {
  return body?.runs.some((r) => r.state === "queued" || r.state === "running") ? COMPARE_POLL_MS : false;
}

export const runQueries = {
  me: () => queryOptions({ queryKey: ["me"], queryFn: runsApi.me }),
  list: (query: URLSearchParams) => queryOptions({ queryKey: ["runs", "list", query.toString()], queryFn: () => runsApi.list(query) }),
  tags: () => queryOptions({ queryKey: ["runs", "tags"], queryFn: runExtrasApi.tags }),
  detail: (id: number) =>
    queryOptions({ queryKey: ["runs", id], queryFn: () => runsApi.get(id), refetchInterval: (query) => runPollInterval(query.state.data) }),
  checkpoints: (id: number) => queryOptions({ queryKey: ["runs", id, "checkpoints"], queryFn: () => runsApi.checkpoints(id) }),
  compare: (ids: number[]) =>
    queryOptions({
      queryKey: ["runs", "compare", ids.join(",")],
      queryFn: () => runsApi.compare(ids),
      refetchInterval: (query) => comparePollInterval(query.state.data),
    }),
  workers: () => queryOptions({ queryKey: ["runs", "workers"], queryFn: runExtrasApi.workers, refetchInterval: WORKERS_POLL_MS }),
};
