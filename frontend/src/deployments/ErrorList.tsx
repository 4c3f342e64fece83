/** What the server refused, one line each (see `errorLines`); nothing when there is nothing to say. */
export function ErrorList({ lines }: { lines: string[] }) {
  if (lines.length === 0) return null;
  return (
    <div className="field-errors" role="alert">
      {lines.map((line) => (
        <p key={line}>{line}</p>
      ))}
    </div>
  );
}
