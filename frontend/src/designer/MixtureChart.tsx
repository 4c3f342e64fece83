interface Props {
  phases: string[];
  terms: { term: string; weights: Record<string, number> }[];
}

const COLORS = ["#3b5bdb", "#2b8a3e", "#e67700", "#c2255c", "#1098ad", "#7048e8", "#5c940d", "#d9480f", "#495057", "#0b7285", "#862e9c"];
const W = 112;
const H = 100;
const PAD = 6;

/** One small SVG bar chart per phase: each term's weight (negative weights hang below the zero line). */
export function MixtureChart({ phases, terms }: Props) {
  const all = terms.flatMap((t) => phases.map((p) => Math.abs(t.weights[p] ?? 0)));
  const scale = Math.max(1, ...all);
  const barWidth = terms.length ? (W - 2 * PAD) / terms.length : 0;
  const zero = H / 2;
  return (
    <div className="mixture" data-testid="mixture-chart">
      {phases.map((phase) => (
        <figure key={phase}>
          <svg width={W} height={H} role="img" aria-label={`Reward mixture in the ${phase} phase`}>
            <line x1={0} x2={W} y1={zero} y2={zero} className="zero" />
            {terms.map((t, i) => {
              const w = t.weights[phase] ?? 0;
              const h = (Math.abs(w) / scale) * (H / 2 - PAD);
              return (
                <rect
                  key={t.term}
                  x={PAD + i * barWidth + 1}
                  y={w >= 0 ? zero - h : zero}
                  width={Math.max(1, barWidth - 2)}
                  height={h}
                  fill={COLORS[i % COLORS.length]}
                  data-term={t.term}
                  data-weight={w}
                >
                  <title>{`${t.term}: ${w}`}</title>
                </rect>
              );
            })}
          </svg>
          <figcaption>{phase}</figcaption>
        </figure>
      ))}
      <ul className="legend">
        {terms.map((t, i) => (
          <li key={t.term}>
            <span className="swatch" style={{ background: COLORS[i % COLORS.length] }} />
            {t.term}
          </li>
        ))}
      </ul>
    </div>
  );
}
