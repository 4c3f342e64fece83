import type { CurvePoint } from "./evolution";

const W = 320;
const H = 110;
const PAD = 26;

/** Exact match on the evaluation slice across generations; filled dots served users. */
export function GenerationCurve({ points }: { points: CurvePoint[] }) {
  if (points.length < 2) return null;
  const values = points.map((p) => p.exactMatch);
  const low = Math.max(0, Math.min(...values) - 0.05);
  const high = Math.min(1, Math.max(...values) + 0.05);
  const x = (i: number) => PAD + (i * (W - 2 * PAD)) / (points.length - 1);
  const y = (v: number) =>
    H - PAD - ((v - low) / (high - low || 1)) * (H - 2 * PAD);
  const path = points
    .map((p, i) => `${i ? "L" : "M"}${x(i)},${y(p.exactMatch)}`)
    .join(" ");
  return (
    <svg
      width={W}
      height={H}
      role="img"
      data-testid="generation-curve"
      aria-label={`Exact match on the slice by generation: ${points
        .map((p) => `${p.number}: ${(100 * p.exactMatch).toFixed(1)} %`)
        .join(", ")}`}
    >
      <path d={path} fill="none" stroke="currentColor" strokeWidth={1.5} />
      {points.map((p, i) => (
        <g key={p.number}>
          <circle
            cx={x(i)}
            cy={y(p.exactMatch)}
            r={4}
            fill={p.served ? "currentColor" : "white"}
            stroke="currentColor"
          />
          <text x={x(i)} y={H - 6} fontSize={10} textAnchor="middle">
            {p.number}
          </text>
          <text
            x={x(i)}
            y={y(p.exactMatch) - 8}
            fontSize={10}
            textAnchor="middle"
          >
            {(100 * p.exactMatch).toFixed(1)}
          </text>
        </g>
      ))}
    </svg>
  );
}
