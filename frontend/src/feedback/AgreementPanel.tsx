import { useQuery } from "@tanstack/react-query";
import { agreementBasis } from "./agreementText";
import { feedbackQueries } from "./queries";

const formatAlpha = (alpha: number | null | undefined) => (alpha === null || alpha === undefined ? "n/a" : alpha.toFixed(3));

/** An answer as the API keys it for agreement: an intents answer's names are joined by "|". */
const answerWords = (value: string | number) => String(value).split("|").join(" + ");

/** Krippendorff's alpha of the queue and the items annotators disagree on most (widest spread first);
 * re-read when items are queued (EnqueueDeploymentForm). */
export function AgreementPanel({ queue }: { queue: number }) {
  const { data: agreement, error } = useQuery(feedbackQueries.agreement(queue));

  if (error) return <p className="error">{error.message}</p>;
  if (!agreement) return null;
  return (
    <div className="fb-agreement">
      <p data-testid="queue-alpha">
        Krippendorff's α ({agreement.metric}): <strong>{formatAlpha(agreement.alpha)}</strong>
        {agreement.interval_alpha !== undefined && <> · interval {formatAlpha(agreement.interval_alpha)}</>}{" "}
        <span className="hint">{agreementBasis(agreement.units, agreement.values)}</span>
      </p>
      {agreement.per_intent && <IntentAgreement perIntent={agreement.per_intent} landed={agreement.labelled_rows ?? 0} />}
      {agreement.disagreements.length > 0 && (
        <table className="list" data-testid="disagreements">
          <caption className="hint">Disagreements (ratings ≥ 2 stars apart, split pairwise judgements, or rows labelled differently)</caption>
          <thead>
            <tr>
              <th>Item</th>
              <th>Task</th>
              <th>Answers</th>
              <th>Spread</th>
            </tr>
          </thead>
          <tbody>
            {agreement.disagreements.map((row) => (
              <tr key={row.item}>
                <td title={row.episode_key}>#{row.item}</td>
                <td>{row.task.length > 80 ? `${row.task.slice(0, 77)}…` : row.task}</td>
                <td>{row.values.map(answerWords).join(", ")}</td>
                <td>{agreement.metric === "nominal" ? `${Math.round(row.spread * 100)} %` : row.spread}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** An intents queue: alpha per intent (which intents annotators read alike) and the rows labelled so far. */
function IntentAgreement({ perIntent, landed }: { perIntent: Record<string, number | null>; landed: number }) {
  const names = Object.keys(perIntent);
  return (
    <div data-testid="intent-agreement">
      <p className="hint">
        {landed} row{landed === 1 ? "" : "s"} labelled in the dataset so far.
      </p>
      {names.length > 0 && (
        <table className="list">
          <caption className="hint">Agreement per intent (chosen or not)</caption>
          <thead>
            <tr>
              <th>Intent</th>
              <th>α</th>
            </tr>
          </thead>
          <tbody>
            {names.map((name) => (
              <tr key={name}>
                <td>{name}</td>
                <td>{formatAlpha(perIntent[name])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
