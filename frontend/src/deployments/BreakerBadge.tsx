import type { BreakerState } from "./types";

/** The circuit breaker's state as a coloured pill. */
export function BreakerBadge({ state, testId }: { state: BreakerState; testId?: string }) {
  return (
    <span className={`breaker breaker-${state}`} data-testid={testId}>
      {state.replace("_", "-")}
    </span>
  );
}
