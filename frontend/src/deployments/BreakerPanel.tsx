import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { BreakerBadge } from "./BreakerBadge";
import { deploymentsApi } from "./deploymentsApi";
import { apiErrorLines } from "./format";
import { setBreaker } from "./queries";
import type { BreakerSnapshot } from "./types";
import { ErrorList } from "./ErrorList";

interface Props {
  deploymentId: number;
  breaker: BreakerSnapshot;
  canControl: boolean;
}

/** The circuit breaker: state, hold, streak, cool-down, thresholds; operators force it with a reason (the
 * answer's breaker is written into the cached deployment). */
export function BreakerPanel({ deploymentId, breaker, canControl }: Props) {
  const queryClient = useQueryClient();
  const [reason, setReason] = useState("");
  const { config, counts } = breaker;
  const forcing = useMutation({
    mutationFn: (state: "open" | "closed") => deploymentsApi.force(deploymentId, state, reason),
    onSuccess: (body) => {
      setReason("");
      setBreaker(queryClient, deploymentId, body.breaker);
    },
  });
  const busy = forcing.isPending;
  const force = (state: "open" | "closed") => forcing.mutate(state);

  return (
    <section className="card" aria-label="Circuit breaker">
      <div className="card-head">
        <h2>
          Circuit breaker <BreakerBadge state={breaker.state} testId="breaker-state" />
          {breaker.forced && <span className="badge warn">held by an operator</span>}
        </h2>
      </div>
      <dl className="facts breaker-facts">
        <div>
          <dt>Low-confidence streak</dt>
          <dd>
            {breaker.consecutive_low} / {config.consecutive_low} below {config.confidence_threshold}
          </dd>
        </div>
        <div>
          <dt>Cool-down</dt>
          <dd>{breaker.cooldown_left_s === null ? `${config.cooldown_s} s` : `${breaker.cooldown_left_s.toFixed(0)} s left`}</dd>
        </div>
        <div>
          <dt>Step limit</dt>
          <dd>{config.step_limit}</dd>
        </div>
        <div>
          <dt>Decisions · low · faults · opened</dt>
          <dd>
            {counts.decisions ?? 0} · {counts.low ?? 0} · {counts.faults ?? 0} · {counts.opened ?? 0}
          </dd>
        </div>
      </dl>
      {canControl && (
        <form className="row force-form" aria-label="Force the breaker" onSubmit={(e) => e.preventDefault()}>
          <label className="grow">
            Reason
            <input value={reason} onChange={(e) => setReason(e.target.value)} placeholder="why you force it (recorded)" />
          </label>
          <button type="button" className="danger" disabled={busy} onClick={() => force("open")}>
            Force open
          </button>
          <button type="button" className="secondary" disabled={busy} onClick={() => force("closed")}>
            Force closed
          </button>
        </form>
      )}
      <ErrorList lines={apiErrorLines(forcing.error)} />
    </section>
  );
}
