import type { DatasetRow } from "./types";

const ORIGIN: Record<string, string> = {
  uploaded: "uploaded",
  generated: "generated",
  corrected: "corrected in review",
  annotated: "annotated",  // "annotated by <annotator>", as the origin filter names it
};

/** Where a row came from, who gave it and, for a correction, what it corrected. */
function Origin({ row }: { row: DatasetRow }) {
  return (
    <span className={`provenance provenance-${row.provenance}`}>
      {ORIGIN[row.provenance] ?? row.provenance}
      {row.by && <span className="muted"> by {row.by}</span>}
      {row.source_ref && <span className="muted"> ({row.source_ref})</span>}
    </span>
  );
}

/** One page of a version's rows: text, intents, split and origin (the file's line for uploaded rows). */
export function RowTable({ rows }: { rows: DatasetRow[] }) {
  if (rows.length === 0) return <p className="muted">No rows match.</p>;
  return (
    <table className="run-table dataset-rows" data-testid="dataset-rows">
      <thead>
        <tr>
          <th>#</th>
          <th>Text</th>
          <th>Intents</th>
          <th>Split</th>
          <th>Origin</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id}>
            <td className="small muted" title={row.line ? `line ${row.line} of the file` : undefined}>
              {row.index}
            </td>
            <td className="row-text">
              {row.text}
              {row.owner && <div className="small muted">owner: {row.owner}</div>}
              {row.reference_reply && <div className="small muted">reply: {row.reference_reply}</div>}
            </td>
            <td>
              {row.intents.length === 0 ? (
                // A majority of annotators saying "none of these" is a label too: not unlabelled.
                <span className="muted">{row.metadata?.out_of_scope ? "out of scope" : "unlabelled"}</span>
              ) : (
                row.intents.map((name) => (
                  <span key={name} className="badge">
                    {name}
                  </span>
                ))
              )}
            </td>
            <td>{row.split}</td>
            <td className="small">
              <Origin row={row} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
