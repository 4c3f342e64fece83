import { useState } from "react";
import { formatNumber } from "./format";
import { groupPlateaus } from "./plateauGroups";
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
/** Phase changes listed before "show all". */
const RECENT = 5;

const colour = (phase: string) => PHASE_COLOURS[phase] ?? "#ced4da";
const at = (episode: number | null) => (episode === null ? "?" : formatNumber(episode));

/**
 * Evolution phases over episodes. Phase changes and plateau warnings are ticked in a lane of their own
 * under the phase bar (so they never cover its labels); below, the latest phase changes and the plateau
 * warnings grouped by recommendation, collapsed.
 */
export function PhaseTimeline({ marks, phases, plateaus, totalEpisodes, lastEpisode }: Props) {
  const [allPhases, setAllPhases] = useState(false);
  const end = Math.max(totalEpisodes ?? 0, lastEpisode ?? 0, 1);
  const upTo = lastEpisode ?? 0;
  const segments = marks.map(([start, phase], i) => ({
    phase,
    start,
    stop: i + 1 < marks.length ? marks[i + 1][0] : upTo,
  }));
  const pct = (episode: number | null) => `${(100 * Math.min(end, Math.max(0, episode ?? 0))) / end}%`;
  const groups = groupPlateaus(plateaus);
  const newestPhases = [...phases].reverse();
  const listedPhases = allPhases ? newestPhases : newestPhases.slice(0, RECENT);

  if (!segments.length && !phases.length && !plateaus.length)
    return (
      <section className="card">
        <h2>Evolution phases</h2>
        <p className="muted">No phase reported yet.</p>
      </section>
    );

  return (
    <section className="card">
      <h2>Evolution phases</h2>
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
      </div>
      <div className="timeline-lane" data-testid="timeline-marks" aria-hidden="true">
        {phases.map((p) => (
          <span key={p.seq} className="timeline-tick mark-phase" style={{ left: pct(p.episode) }} title={`${p.from} → ${p.to} at episode ${at(p.episode)}`} />
        ))}
        {plateaus.map((p) => (
          <span key={p.seq} className="timeline-tick mark-plateau" style={{ left: pct(p.episode) }} title={`plateau at episode ${at(p.episode)}`} />
        ))}
      </div>
      <div className="timeline-axis">
        <span>0</span>
        <span>episode {formatNumber(end)}</span>
      </div>
      {phases.length > 0 && (
        <ul className="timeline-list" aria-label="Phase changes, newest first">
          {listedPhases.map((p) => (
            <li key={p.seq} className="mark-phase-text">
              <b>
                {p.from} → {p.to}
              </b>{" "}
              at episode {at(p.episode)}
              {p.reason && <span className="muted"> — {p.reason}</span>}
            </li>
          ))}
          {phases.length > RECENT && (
            <li className="muted">
              <button type="button" className="link" onClick={() => setAllPhases(!allPhases)}>
                {allPhases ? "Show the latest only" : `Show all ${phases.length} phase changes`}
              </button>
            </li>
          )}
        </ul>
      )}
      {plateaus.length > 0 && (
        <details className="plateau-groups" data-testid="plateau-groups">
          <summary>
            <b className="plateau-count">{plateaus.length} plateau warning{plateaus.length === 1 ? "" : "s"}</b>{" "}
            <span className="muted">
              ({groups.length} kind{groups.length === 1 ? "" : "s"}, last at episode {at(plateaus[plateaus.length - 1].episode)})
            </span>
          </summary>
          <table className="run-table">
            <thead>
              <tr>
                <th>Times</th>
                <th>Recommendation</th>
                <th>Episodes</th>
                <th>Longest plateau</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={g.recommendation}>
                  <td>{g.count}×</td>
                  <td>{g.recommendation}</td>
                  <td>
                    {at(g.firstEpisode)}
                    {g.count > 1 && `–${at(g.lastEpisode)}`}
                  </td>
                  <td>{g.maxCycles === null ? "–" : `${g.maxCycles} cycles`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </section>
  );
}
