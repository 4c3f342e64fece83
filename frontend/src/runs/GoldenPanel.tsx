import { GOLDEN_RANGES } from "./golden";
import { formatNumber } from "./format";
import type { GoldenBounds, GoldenReading } from "./runStream";

interface Props {
  readings: Record<string, GoldenReading>;
  bounds: Record<string, GoldenBounds>;
}

/** The golden-range metrics: latest value of each, coloured ok / warn / alert. */
export function GoldenPanel({ readings, bounds }: Props) {
  const known = new Set(GOLDEN_RANGES.map((r) => r.name));
  const extra = Object.keys(readings).filter((name) => !known.has(name));
  return (
    <section className="card">
      <h2>Golden ranges</h2>
      <table className="golden" data-testid="golden-panel">
        <thead>
          <tr>
            <th>Metric</th>
            <th>Latest</th>
            <th>Golden</th>
            <th>Alert</th>
          </tr>
        </thead>
        <tbody>
          {GOLDEN_RANGES.map((range) => {
            const reading = readings[range.name];
            const b = bounds[range.name];
            const level = reading?.level ?? (reading ? "unknown" : "none");
            return (
              <tr key={range.name} className={`golden-${level}`} data-level={level}>
                <td>{range.label}</td>
                <td className="golden-value">
                  {reading ? `${formatNumber(reading.value)} ${b?.unit ?? range.unit}`.trim() : "not measured"}
                  {reading?.level && <span className={`level-pill level-${reading.level}`}>{reading.level}</span>}
                </td>
                <td>{b?.golden ? `${formatNumber(b.golden[0])}–${formatNumber(b.golden[1])} ${b.unit ?? ""}` : range.golden}</td>
                <td>
                  {b && (b.alertBelow !== null || b.alertAbove !== null)
                    ? [b.alertBelow !== null && `< ${formatNumber(b.alertBelow)} ${b.unit ?? ""}`, b.alertAbove !== null && `> ${formatNumber(b.alertAbove)} ${b.unit ?? ""}`]
                        .filter(Boolean)
                        .join(", ")
                    : range.alert}
                </td>
              </tr>
            );
          })}
          {extra.map((name) => (
            <tr key={name} className={`golden-${readings[name].level ?? "unknown"}`}>
              <td>{name.replace(/_/g, " ")}</td>
              <td>{formatNumber(readings[name].value)}</td>
              <td>–</td>
              <td>–</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">Durations are scaled to the run's own clock (by default one run second reads as one hour of the golden ranges).</p>
    </section>
  );
}
