import { ApiError } from "../api";

/** A failed request as something to act on: the server's field messages (each field named by its label
 * in `labels` when the form gives one), or its one-line reason. */
export function ErrorList({ error, labels = {} }: { error: unknown; labels?: Record<string, string> }) {
  if (!error) return null;
  const fields = error instanceof ApiError ? Object.entries(error.body.errors ?? {}) : [];
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="field-errors" role="alert" data-testid="feedback-errors">
      {fields.length === 0 ? (
        <p className="error">{message}</p>
      ) : (
        <ul>
          {fields.map(([path, messages]) => (
            <li key={path} className="error">
              {labels[path] ?? <code>{path}</code>}: {messages.join("; ")}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
