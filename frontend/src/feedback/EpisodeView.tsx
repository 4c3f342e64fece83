import type { Snapshot, StepSnapshot } from "./types";

/** Messages as logged: a short JSON text (the full value on hover). */
function MessagesCell({ messages }: { messages: unknown }) {
  if (messages === undefined || messages === null) return <span className="muted">–</span>;
  const text = JSON.stringify(messages);
  if (text === "{}" || text === "[]") return <span className="muted">none</span>;
  return (
    <code className="fb-messages" title={text}>
      {text.length > 120 ? `${text.slice(0, 117)}…` : text}
    </code>
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
        <MessagesCell messages={step.messages} />
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
