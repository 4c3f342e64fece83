import { percent } from "./format";
import type { BatchScore as Score } from "./types";

/** A labelled batch's score: exact match over the answered tickets and, per intent, recall and precision. */
export function BatchScore({ score }: { score: Score }) {
  if (score.scored === 0)
    return <p className="batch-score muted">{score.labelled} tickets carry intents; scored as they are answered.</p>;
  return (
    <div className="batch-score" data-testid="batch-score">
      <strong>Exact match {percent(score.exact_match)}</strong>{" "}
      <span className="muted">
        ({score.exact} of {score.scored} answered tickets name exactly their intents
        {score.scored < score.labelled ? `; ${score.labelled - score.scored} still to answer` : ""})
      </span>
      <details>
        <summary>Per intent</summary>
        <table aria-label="Per-intent figures">
          <thead>
            <tr>
              <th>Intent</th>
              <th title="Tickets that carry it">Tickets</th>
              <th title="Of the tickets that carry it, how many answers named it">Found (recall)</th>
              <th title="Of the answers that named it, how many were right">Right when named (precision)</th>
            </tr>
          </thead>
          <tbody>
            {score.intents.map((row) => (
              <tr key={row.intent} data-testid={`intent-${row.intent}`}>
                <td>{row.intent.replaceAll("_", " ")}</td>
                <td>{row.support}</td>
                <td>{percent(row.recall)}</td>
                <td>{percent(row.precision)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
