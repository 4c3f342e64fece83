import { useEffect, useState } from "react";
import { runExtrasApi } from "./runExtrasApi";
import type { WorkerState } from "./types";

/** The server caches the answer about 10 s; asking more often gains nothing. */
const POLL_MS = 10_000;

/** Connected workers and their queues, refreshed while `active`; null until the first answer. */
export function useWorkers(active = true): WorkerState | null {
  const [state, setState] = useState<WorkerState | null>(null);
  useEffect(() => {
    if (!active) return;
    let current = true;
    const load = () =>
      runExtrasApi.workers().then(
        (fresh) => current && setState(fresh),
        () => undefined, // unknown stays unknown: no notice is better than a wrong one
      );
    load();
    const timer = window.setInterval(load, POLL_MS);
    return () => {
      current = false;
      window.clearInterval(timer);
    };
  }, [active]);
  return state;
}

/** True when the workers were asked and none consumes `device`'s queue. */
export function noWorkerFor(state: WorkerState | null, device: string): boolean {
  return !!state && !state.error && (state.queues[device]?.length ?? 0) === 0;
}
