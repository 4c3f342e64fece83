import { useMemo, useState } from "react";
import { AttentionHeatmap } from "./AttentionHeatmap";
import { CommunicationNetwork } from "./CommunicationNetwork";
import { NoCommunication } from "./NoCommunication";
import type { AttentionFrame } from "./types";

type ModeFilter = "all" | "train" | "eval";

/**
 * The learned communication structure over time: heat map and network of one attention event, with a
 * slider to replay every event so far. At the end of the slider it follows the run live.
 */
interface Props {
  frames: AttentionFrame[];
  /** For a run without attention reports: its trainer, whether it ended, and its spec's designed links. */
  algorithm?: string | null;
  ended?: boolean;
  spec?: Record<string, unknown>;
}

export function AttentionReplay({ frames, algorithm = null, ended = false, spec }: Props) {
  const [mode, setMode] = useState<ModeFilter>("all");
  // null = follow live (always the newest frame); a number = the frame the user chose.
  const [picked, setPicked] = useState<number | null>(null);
  const [minWeight, setMinWeight] = useState(0.05);

  const shown = useMemo(() => (mode === "all" ? frames : frames.filter((f) => f.mode === mode)), [frames, mode]);
  const last = shown.length - 1;
  const index = picked === null ? last : Math.min(picked, last);
  const frame = shown[index];
  const following = picked === null;

  const entropy = useMemo(() => {
    if (!frame) return null;
    // Mean over listening agents (rows with any attention) of their row's entropy; it falls as
    // structure forms. Agents that never listen (all-zero rows) would only dilute it.
    const rows = frame.matrix
      .filter((row) => row.some((a) => a > 0))
      .map((row) => row.reduce((h, a) => (a > 0 ? h - a * Math.log(a) : h), 0));
    return rows.length ? rows.reduce((a, b) => a + b, 0) / rows.length : null;
  }, [frame]);

  if (!frames.length) return <NoCommunication algorithm={algorithm} ended={ended} spec={spec} />;

  return (
    <section className="card" data-testid="communication">
      <div className="card-head">
        <h2>Communication graph</h2>
        <label>
          Attention{" "}
          <select value={mode} onChange={(e) => { setMode(e.target.value as ModeFilter); setPicked(null); }}>
            <option value="all">all reports</option>
            <option value="train">training (with exploration noise)</option>
            <option value="eval">evaluation</option>
          </select>
        </label>
      </div>
      {frame ? (
        <>
          <div className="replay">
            <input
              type="range"
              aria-label="Replay attention over time"
              min={0}
              max={Math.max(0, last)}
              value={index}
              onChange={(e) => {
                const value = Number(e.target.value);
                setPicked(value >= last ? null : value);
              }}
            />
            <label className="follow">
              <input type="checkbox" checked={following} onChange={(e) => setPicked(e.target.checked ? null : index)} />
              Follow live
            </label>
            <span className="muted" data-testid="attention-frame">
              {index + 1} / {shown.length} · update {frame.step ?? "–"} · episode {frame.episode ?? "–"} · {frame.mode}
              {entropy !== null && ` · mean row entropy ${entropy.toFixed(3)}`}
            </span>
          </div>
          <div className="attention-views">
            <AttentionHeatmap frame={frame} />
            <div>
              {frame.graph ? (
                <CommunicationNetwork graph={frame.graph} minWeight={minWeight} />
              ) : (
                <p className="muted">The server sent no layout for this report.</p>
              )}
              <label className="muted">
                Hide edges below{" "}
                <input
                  type="number"
                  min={0}
                  max={1}
                  step={0.05}
                  value={minWeight}
                  onChange={(e) => setMinWeight(Math.min(1, Math.max(0, Number(e.target.value) || 0)))}
                  style={{ width: "4.5em" }}
                />
              </label>
            </div>
          </div>
        </>
      ) : (
        <p className="muted">No {mode} attention reports yet.</p>
      )}
    </section>
  );
}
