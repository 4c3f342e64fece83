import { percent } from "./format";
import type { Decision } from "./types";

/** One agent's decision: action, who answered, confidence, alternatives, generated reason text, messages. */
export function DecisionCard({ decision }: { decision: Decision }) {
  const alternatives = decision.reason.alternatives ?? [];
  const received = decision.messages.received ?? [];
  return (
    <li className={`decision decision-${decision.source}`} data-testid="decision">
      <div className="decision-head">
        <b>{decision.agent}</b>
        <span className="decision-action">{decision.action}</span>
        <span className={`source-badge source-${decision.source}`} data-testid="decision-source">
          {decision.source}
        </span>
        {decision.fault && <span className="badge bad">fault: {decision.fault}</span>}
        <span className="spacer" />
        <span className="muted small">
          confidence {percent(decision.confidence)} · {decision.latency_ms.toFixed(1)} ms
        </span>
      </div>
      {alternatives.length > 0 && (
        <ul className="alternatives" aria-label={`${decision.agent}'s top alternatives`}>
          {alternatives.map((a) => (
            <li key={a.action}>
              <span>{a.action}</span>
              <span className="p-bar">
                <span style={{ width: `${Math.round(a.p * 100)}%` }} />
              </span>
              <span className="small">{percent(a.p)}</span>
            </li>
          ))}
        </ul>
      )}
      {decision.reason.rule && <p className="small muted decision-rule">rule: {decision.reason.rule}</p>}
      {decision.reason.proposed && (
        <p className="small muted" data-testid="decision-proposed">
          the model proposed {decision.reason.proposed.action} at {percent(decision.reason.proposed.confidence)}; the
          rules answered instead
        </p>
      )}
      {decision.reason.text && (
        <p className="small decision-text" data-testid="decision-text">
          because {decision.reason.text}
        </p>
      )}
      {received.length > 0 && (
        <p className="small decision-messages">
          listened to{" "}
          {received.map((m) => (
            <span key={m.from} className="metric-chip">
              {m.from} {m.weight.toFixed(2)}
            </span>
          ))}
        </p>
      )}
    </li>
  );
}
