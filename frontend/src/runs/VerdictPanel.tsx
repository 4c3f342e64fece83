import type { VerdictPayload } from "./events.generated";
import { differenceText, verdictRows, verdictTone } from "./verdict";

/** Scale of the interval bars: scores are fractions, drawn on 0–100 points. */
const barStyle = (low: number, high: number) => ({ left: `${Math.max(0, low)}%`, width: `${Math.max(0.5, Math.min(100, high) - Math.max(0, low))}%` });

/**
 * Learned vs rules vs imitation on the same held-out episodes, with confidence intervals, and the one
 * sentence that says whether MARL paid for this team (the run's "verdict" event).
 */
export function VerdictPanel({ verdict, missing = null }: { verdict: VerdictPayload | null; missing?: string | null }) {
  if (!verdict)
    return missing ? (
      <section className="card verdict-panel" data-testid="verdict-missing" aria-label="Did MARL pay?">
        <h2>Did MARL pay?</h2>
        <p className="verdict-sentence" role="status">
          No verdict for this run: {missing}.
        </p>
      </section>
    ) : null;
  const rows = verdictRows(verdict);
  const difference = differenceText(verdict);
  const episodes = rows[0]?.episodes;
  return (
    <section className="card verdict-panel" data-testid="verdict" aria-label="Did MARL pay?">
      <h2>Did MARL pay?</h2>
      <p className={`verdict-sentence verdict-${verdictTone(verdict)}`} data-testid="verdict-sentence">
        {verdict.sentence}
      </p>
      <table className="verdict-table">
        <thead>
          <tr>
            <th>Arm</th>
            <th>Score</th>
            <th>{Math.round((verdict.level ?? 0.95) * 100)}% interval</th>
            <th aria-label="interval bar" />
            <th>Cost / episode</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.name} className={row.learned ? "verdict-learned" : undefined} data-testid={`verdict-arm-${row.name}`}>
              <td>
                {row.label}
                {row.judgedAgainst && <span className="muted"> · best baseline</span>}
              </td>
              <td>
                <b>{row.mean.toFixed(1)}</b>
              </td>
              <td>
                {row.low.toFixed(1)} – {row.high.toFixed(1)}
              </td>
              <td className="verdict-bar-cell">
                <span className="verdict-bar" style={barStyle(row.low, row.high)} />
              </td>
              <td>{row.cost === null ? "–" : row.cost.toFixed(2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        {episodes !== undefined && `All arms played the same ${episodes} held-out evaluation episodes. `}
        {difference && `Learned − best baseline, paired by episode: ${difference}.`}
      </p>
    </section>
  );
}
