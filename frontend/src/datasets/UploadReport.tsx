import { problemsByLine, storedText } from "./logic";
import type { DatasetVersion, Duplicates, RowError } from "./types";

interface Props {
  /** Rows stored and refused; null when nothing was stored. */
  accepted: number | null;
  refused: number;
  errors: RowError[];
  errorsTotal: number;
  duplicates?: Duplicates;
  /** The version the upload made. */
  version?: Pick<DatasetVersion, "number" | "row_count">;
}

/** What an upload kept and what it refused, each refused line with its fields' problems. */
export function UploadReport({ accepted, refused, errors, errorsTotal, duplicates, version }: Props) {
  const lines = problemsByLine(errors);
  return (
    <div className="dataset-report" data-testid="upload-report">
      {accepted !== null && (
        <p data-testid="upload-stored">{storedText(accepted, refused, version)}</p>
      )}
      {lines.length > 0 && (
        <div className="field-errors" role="alert" data-testid="row-errors">
          <ul>
            {lines.map((entry) => (
              <li key={entry.line}>
                <strong>line {entry.line}</strong>:{" "}
                {entry.problems.map((p, i) => (
                  <span key={i}>
                    {i > 0 && "; "}
                    <code>{p.field}</code> {p.message}
                  </span>
                ))}
              </li>
            ))}
          </ul>
          {errorsTotal > errors.length && <p className="muted">… and {errorsTotal - errors.length} more problems.</p>}
        </div>
      )}
      {duplicates && duplicates.exact + duplicates.near > 0 && (
        <details className="dataset-duplicates">
          <summary>
            {duplicates.exact} exact and {duplicates.near} near duplicates (kept)
          </summary>
          <ul>
            {duplicates.rows.map((d) => (
              <li key={d.line}>
                line {d.line} repeats line {d.duplicate_of} ({d.kind})
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
