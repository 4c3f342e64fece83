import type { RunState } from "./types";

/** A run's state as a coloured pill (queued, running, succeeded, failed, cancelled). */
export function StateBadge({ state, cancelling = false }: { state: RunState; cancelling?: boolean }) {
  return (
    <span className={`run-state run-state-${state}`} data-testid="run-state">
      {cancelling && state === "running" ? "cancelling" : state}
    </span>
  );
}
