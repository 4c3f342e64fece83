import { splitShare } from "./logic";
import { SPLITS, type SplitsSummary } from "./types";

/** Rows per split (drawn once per version with the seed, then frozen), where they came from, and each
 * split's JSONL (a held-out test file to score on elsewhere). */
export function SplitSummary({ summary, version }: { summary: SplitsSummary; version: number }) {
  const empty = SPLITS.filter((split) => summary.counts[split] === 0);
  return (
    <div data-testid="splits">
      <table className="run-table split-table">
        <thead>
          <tr>
            <th>Split</th>
            <th>Rows</th>
            <th>Share</th>
            <th>From</th>
            <th>Export</th>
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
              <td className="small">
                {summary.counts[split] > 0 && (
                  <a href={`/api/dataset-versions/${version}/export/?split=${split}`} download>
                    {split}.jsonl
                  </a>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint">Drawn once with seed {summary.seed}, stratified by label set; a row keeps its split in every later version.</p>
      {empty.length > 0 && (
        <p className="hint" data-testid="empty-split">
          {empty.join(" and ")} {empty.length === 1 ? "holds" : "hold"} no row yet: each label set gives
          a tenth of its rows to dev and to test, so a label with a handful of rows stays in train. Upload more rows
          (append) before scoring on it.
        </p>
      )}
    </div>
  );
}
