import { describeMessages } from "./messages";
import type { Snapshot, StepSnapshot } from "./types";
import { answerIntents, spoken, words } from "./words";

/** Who told whom what in this step, as sentences; how much an agent listened is a small bar, not a figure. */
function MessagesCell({ messages, agent }: { messages: unknown; agent: string }) {
  if (messages === undefined || messages === null) return <span className="muted">–</span>;
  const lines = describeMessages(messages, agent);
  if (lines.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="fb-messages" data-testid="step-messages">
      {lines.map((line, i) => (
        <li key={i}>
          {(line.from || line.to) && (
            <span className="fb-message-route">
              {spoken(line.from ?? "?")} → {spoken(line.to ?? "?")}
            </span>
          )}
          {line.text && <span>{line.from || line.to ? `: ${line.text}` : line.text}</span>}
          {line.weight !== undefined && (
            <span className="fb-weight" title="how much the recipient listened" aria-hidden="true">
              <span style={{ width: `${Math.round(line.weight * 100)}%` }} />
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

function StepRow({ step }: { step: StepSnapshot }) {
  const confidence = step.confidence;
  return (
    <tr className={confidence !== null && confidence !== undefined && confidence < 0.5 ? "fb-low" : undefined}>
      <td>{step.step ?? ""}</td>
      <td>{spoken(step.agent)}</td>
      <td>
        <strong>{words(step.action)}</strong>
        {step.source && step.source !== "model" && <span className="badge warn fb-source">{step.source}</span>}
      </td>
      <td>{confidence === null || confidence === undefined ? "–" : `${Math.round(confidence * 100)} %`}</td>
      <td>
        <MessagesCell messages={step.messages} agent={step.agent} />
      </td>
    </tr>
  );
}

/** The operator's review a decision was queued with (`meta.review`, e.g. marked wrong and why); null if none. */
export function operatorReview(snapshot: Snapshot): { status: string; reason: string } | null {
  const review = snapshot.meta?.review as { status?: unknown; reason?: unknown } | undefined;
  if (!review || typeof review.status !== "string") return null;
  return { status: review.status, reason: typeof review.reason === "string" ? review.reason : "" };
}

/** One episode (or one step of it) as the annotator sees it: the ticket and the reply first, what the team
 * answered in words, then (folded away for a whole episode) the decisions that led there. */
export function EpisodeView({ snapshot, label }: { snapshot: Snapshot; label?: string }) {
  const intents = answerIntents(snapshot.answer, snapshot.intents);
  // a decision queued from review: its guidelines point the annotator at the operator's reason, so show it
  const review = operatorReview(snapshot);
  return (
    <article className="fb-episode" data-testid="feedback-episode" aria-label={label ?? "Episode"}>
      {label && <h3>{label}</h3>}
      <p className="fb-field-label">Ticket</p>
      <p className="fb-task">{snapshot.task}</p>
      {snapshot.reply && (
        <>
          <p className="fb-field-label">Reply the customer read</p>
          <div className="fb-reply" data-testid="feedback-reply">
            <p>{snapshot.reply.text}</p>
          </div>
        </>
      )}
      <p className="fb-field-label">{snapshot.intents?.length ? "What the team understood" : "Answer"}</p>
      {intents.length === 0 ? (
        <p className="fb-answer muted">(no answer)</p>
      ) : (
        <ul className="fb-answer fb-intents" data-testid="answer-intents">
          {intents.map((intent, i) => (
            <li key={i}>
              <b>{intent.label}</b>
              {intent.description && <span className="hint"> — {intent.description}</span>}
            </li>
          ))}
        </ul>
      )}
      {review && (
        <>
          <p className="fb-field-label">The operator's review</p>
          <p className="fb-review" data-testid="operator-review">
            <b>marked {review.status}</b>
            {review.reason ? `: ${review.reason}` : " (no reason given)"}
          </p>
        </>
      )}
      {snapshot.steps.length > 0 && (
        <details className="fb-decisions" open={snapshot.steps.length <= 2 || !snapshot.reply}>
          <summary>
            How the team decided ({snapshot.steps.length} decision{snapshot.steps.length === 1 ? "" : "s"})
          </summary>
          <table className="list fb-steps">
            <thead>
              <tr>
                <th>Step</th>
                <th>Agent</th>
                <th>Action</th>
                <th>Confidence</th>
                <th>Messages</th>
              </tr>
            </thead>
            <tbody>
              {snapshot.steps.map((step, i) => (
                <StepRow key={i} step={step} />
              ))}
            </tbody>
          </table>
        </details>
      )}
    </article>
  );
}
