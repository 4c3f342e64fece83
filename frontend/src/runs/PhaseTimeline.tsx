import type { PhaseChange, PlateauWarning } from "./types";

interface Props {
  marks: [number, string][];
  phases: PhaseChange[];
  plateaus: PlateauWarning[];
  totalEpisodes: number | null;
  lastEpisode: number | null;
}

const PHASE_COLOURS: Record<string, string> = {
  exploration: "#74c0fc",
  exploitation: "#69db7c",
  transfer: "#b197fc",
};

const colour = (phase: string) => PHASE_COLOURS[phase] ?? "#ced4da";

/** Evolution phases over episodes, with phase transitions and plateau warnings marked where they happened. */
export function PhaseTimeline({ marks, phases, plateaus, totalEpisodes, lastEpisode }: Props) {
  const end = Math.max(totalEpisodes ?? 0, lastEpisode ?? 0, 1);
  const upTo = lastEpisode ?? 0;
  const segments = marks.map(([start, phase], i) => ({
    phase,
    start,
    stop: i + 1 < marks.length ? marks[i + 1][0] : upTo,
  }));
  const pct = (episode: number | null) => `${(100 * Math.min(end, Math.max(0, episode ?? 0))) / end}%`;
  const history = [
    ...phases.map((p) => ({ seq: p.seq, episode: p.episode, kind: "phase" as const, text: `${p.from} → ${p.to}`, detail: p.reason })),
    ...plateaus.map((p) => ({
      seq: p.seq,
      episode: p.episode,
      kind: "plateau" as const,
      text: `plateau${p.cycles !== null ? ` after ${p.cycles} cycles` : ""}`,
      detail: p.recommendation,
    })),
  ].sort((a, b) => a.seq - b.seq);

  return (
    <section className="card">
      <h2>Evolution phases</h2>
      {!segments.length && !history.length ? (
        <p className="muted">No phase reported yet.</p>
      ) : (
        <>
          <div className="timeline" data-testid="phase-timeline" aria-label={`episodes 0 to ${end}`}>
            {segments.map((s) => (
              <div
                key={`${s.phase}-${s.start}`}
                className="timeline-segment"
                style={{ left: pct(s.start), width: `calc(${pct(s.stop)} - ${pct(s.start)})`, background: colour(s.phase) }}
                title={`${s.phase}: episodes ${s.start}–${s.stop}`}
              >
                {s.phase}
              </div>
            ))}
            {history.map((h) => (
              <span
                key={h.seq}
                className={`timeline-mark mark-${h.kind}`}
                style={{ left: pct(h.episode) }}
                title={`${h.text} at episode ${h.episode ?? "?"}: ${h.detail}`}
              />
            ))}
          </div>
          <div className="timeline-axis">
            <span>0</span>
            <span>episode {end}</span>
          </div>
          {history.length > 0 && (
            <ul className="timeline-list" aria-label="Phase changes and plateau warnings, newest first">
              {[...history].reverse().map((h) => (
                <li key={h.seq} className={`mark-${h.kind}-text`}>
                  <b>{h.text}</b> at episode {h.episode ?? "?"}
                  {h.detail && <span className="muted"> — {h.detail}</span>}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
