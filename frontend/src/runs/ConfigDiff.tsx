import { useState } from "react";
import type { CompareRun, ConfigDiffRow } from "./types";

const SHOWN = 25;

function show(value: unknown): string {
  if (value === null || value === undefined) return "(not set)";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

/** The settings whose values differ between the compared runs' specs, one column per run. */
export function ConfigDiff({ runs, rows }: { runs: CompareRun[]; rows: ConfigDiffRow[] }) {
  const [all, setAll] = useState(false);
  if (!rows.length) return <p className="muted" data-testid="config-diff-none">The runs' specs are identical.</p>;
  const listed = all ? rows : rows.slice(0, SHOWN);
  return (
    <>
      <div className="table-scroll">
        <table className="compare-table" data-testid="config-diff">
          <thead>
            <tr>
              <th>Setting</th>
              {runs.map((r) => (
                <th key={r.id}>#{r.id}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {listed.map((row) => (
              <tr key={row.path}>
                <td>
                  <code>{row.path}</code>
                </td>
                {row.values.map((v, i) => (
                  <td key={runs[i]?.id ?? i} className="diff-value" title={typeof v === "string" ? v : JSON.stringify(v)}>
                    {show(v)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length > SHOWN && (
        <button type="button" className="link" onClick={() => setAll(!all)}>
          {all ? "Show fewer" : `Show all ${rows.length} differences`}
        </button>
      )}
    </>
  );
}
