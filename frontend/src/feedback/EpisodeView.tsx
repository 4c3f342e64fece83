import { describeMessages } from "./messages";
import type { Snapshot, StepSnapshot } from "./types";

/** Who sent what to whom in this step, one line per message. */
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
              {line.from ?? "?"} → {line.to ?? "?"}
            </span>
          )}
          {line.text && <span>{line.from || line.to ? `: ${line.text}` : line.text}</span>}
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
      <td>{step.agent}</td>
      <td>
        <strong>{step.action}</strong>
        {step.source && step.source !== "model" && <span className="badge warn fb-source">{step.source}</span>}
      </td>
      <td>{confidence === null || confidence === undefined ? "–" : `${Math.round(confidence * 100)} %`}</td>
      <td>
        <MessagesCell messages={step.messages} agent={step.agent} />
      </td>
    </tr>
  );
}

/** One episode (or one step of it) as the annotator sees it: task, the team's answer, the decisions. */
export function EpisodeView({ snapshot, label }: { snapshot: Snapshot; label?: string }) {
  return (
    <article className="fb-episode" data-testid="feedback-episode" aria-label={label ?? "Episode"}>
      {label && <h3>{label}</h3>}
      <p className="fb-field-label">Task</p>
      <p className="fb-task">{snapshot.task}</p>
      <p className="fb-field-label">Answer</p>
      <p className="fb-answer">{snapshot.answer || <span className="muted">(no answer)</span>}</p>
      {snapshot.reply && (
        <>
          <p className="fb-field-label">Reply ({snapshot.reply.backend})</p>
          <div className="fb-reply" data-testid="feedback-reply">
            {snapshot.reply.parts.length > 0
              ? snapshot.reply.parts.map((part, i) => (
                  <p key={i}>
                    <b>{part.agent.replace(/_/g, " ")}:</b> {part.text}
                  </p>
                ))
              : <p>{snapshot.reply.text}</p>}
          </div>
        </>
      )}
      {snapshot.steps.length > 0 && (
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
      )}
    </article>
  );
}
