import { splitShare } from "./logic";
import { SPLITS, type SplitsSummary } from "./types";

/** Rows per split (drawn once per version with the seed, then frozen), and where they came from. */
export function SplitSummary({ summary }: { summary: SplitsSummary }) {
  return (
    <div data-testid="splits">
      <table className="run-table split-table">
        <thead>
          <tr>
            <th>Split</th>
            <th>Rows</th>
            <th>Share</th>
            <th>From</th>
          </tr>
        </thead>
        <tbody>
          {SPLITS.map((split) => (
            <tr key={split} data-testid={`split-${split}`}>
              <td>{split}</td>
              <td>{summary.counts[split]}</td>
              <td>{splitShare(summary.counts, split)}</td>
              <td className="small">
                {Object.entries(summary.by_provenance[split] ?? {})
                  .map(([provenance, count]) => `${count} ${provenance}`)
                  .join(", ") || "–"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint">Drawn once with seed {summary.seed}, stratified by label set; a row keeps its split in every later version.</p>
    </div>
  );
}
