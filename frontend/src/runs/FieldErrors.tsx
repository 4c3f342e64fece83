/** The server's 400 answer {detail, errors: {path: [messages]}} as a list a user can act on. */
export function FieldErrors({ detail, errors }: { detail: string; errors: Record<string, string[]> }) {
  const entries = Object.entries(errors);
  return (
    <div className="field-errors" role="alert" data-testid="launch-errors">
      <p className="error">{entries.length ? "The run was not launched. Fix these and try again:" : detail}</p>
      {entries.length > 0 && (
        <ul>
          {entries.map(([path, messages]) => (
            <li key={path}>
              <code>{path}</code>: {messages.join("; ")}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
