import { useState } from "react";
import { ApiError } from "../api";
import { BreakerBadge } from "./BreakerBadge";
import { deploymentsApi } from "./deploymentsApi";
import { errorLines } from "./format";
import type { BreakerSnapshot } from "./types";
import { ErrorList } from "./ErrorList";

interface Props {
  deploymentId: number;
  breaker: BreakerSnapshot;
  canControl: boolean;
  onChanged: (breaker: BreakerSnapshot) => void;
}

/** The circuit breaker: state, hold, streak, cool-down, thresholds; operators force it with a reason. */
export function BreakerPanel({ deploymentId, breaker, canControl, onChanged }: Props) {
  const [reason, setReason] = useState("");
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const { config, counts } = breaker;

  const force = async (state: "open" | "closed") => {
    setBusy(true);
    try {
      const body = await deploymentsApi.force(deploymentId, state, reason);
      setErrors([]);
      setReason("");
      onChanged(body.breaker);
    } catch (e) {
      const err = e as ApiError;
      setErrors(errorLines(err.body?.errors, err.message));
    } finally {
      setBusy(false);
    }
  };

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
      <ErrorList lines={errors} />
    </section>
  );
}
