import { useMemo } from "react";
import type { PlotTrace } from "plotly.js-dist-min";
import { PlotlyChart } from "./PlotlyChart";
import { formatNumber } from "./format";
import type { Point } from "./runStream";

/** Prefix of the HCP link's statistics in "metrics" events (agents/protocol/link.py `metrics()`). */
export const PROTOCOL_PREFIX = "protocol.";

interface Props {
  /** The run's metric series; the panel reads the `protocol.*` ones. */
  series: Record<string, Point[]>;
}

const ROWS: { key: string; label: string; format?: (value: number) => string }[] = [
  { key: "compression_ratio", label: "Compression (raw ÷ sent)", format: (v) => `${formatNumber(v)}×` },
  { key: "wire_bytes", label: "Bytes sent (frames)" },
  { key: "sync_bytes", label: "Codebook sync bytes" },
  { key: "raw_bytes", label: "Raw message bytes" },
  { key: "codebooks", label: "Codebooks (one per sender)" },
  { key: "codebook_size", label: "Codebook entries (all senders)" },
  { key: "codebook_version", label: "Newest codebook version" },
  { key: "bits_per_message", label: "Bits per message (mean over senders)" },
  { key: "reconstruction_error", label: "Reconstruction error (relative L2)" },
  { key: "drift", label: "Drift (distortion ÷ normal)" },
  { key: "storms", label: "Communication storms" },
  { key: "refits", label: "Codebook re-fits" },
  { key: "channel_p95_ms", label: "Regular channel p95 (simulated link)", format: (v) => `${formatNumber(v)} ms` },
];

function latest(series: Record<string, Point[]>, key: string): number | null {
  const points = series[PROTOCOL_PREFIX + key];
  return points?.length ? points[points.length - 1][1] : null;
}

/**
 * The semantic-compression link of an HCP team: sent bytes relative to the raw messages over the run,
 * and the latest link statistics. Renders nothing for runs that do not use the protocol.
 */
export function ProtocolPanel({ series }: Props) {
  const total = series[`${PROTOCOL_PREFIX}byte_ratio`];
  const frames = series[`${PROTOCOL_PREFIX}frame_byte_ratio`];
  const data = useMemo(() => {
    const traces: PlotTrace[] = [];
    if (total?.length)
      traces.push({
        type: "scatter",
        mode: "lines",
        name: "all traffic (incl. warm-up and codebook syncs)",
        x: total.map((p) => p[0]),
        y: total.map((p) => p[1]),
        line: { color: "#3b5bdb", width: 2 },
      });
    if (frames?.length)
      traces.push({
        type: "scatter",
        mode: "lines",
        name: "compressed frames",
        x: frames.map((p) => p[0]),
        y: frames.map((p) => p[1]),
        line: { color: "#2b8a3e", width: 2, dash: "dot" },
      });
    return traces;
  }, [total, frames]);
  const layout = useMemo(
    () => ({
      margin: { l: 48, r: 10, t: 10, b: 64 },
      xaxis: { title: { text: "episode", standoff: 4 }, zeroline: false },
      yaxis: { title: { text: "bytes sent ÷ raw" }, rangemode: "tozero", zeroline: false },
      legend: { orientation: "h", x: 0, y: -0.2, yanchor: "top", font: { size: 11 } }, // clear of the toolbar
    }),
    [],
  );
  if (!total?.length) return null;

  return (
    <section className="card" data-testid="protocol-panel">
      <h2>Communication protocol (HCP)</h2>
      <div className="two-columns">
        <PlotlyChart data={data} layout={layout} height={240} testId="protocol-byte-ratio" label="bytes sent relative to the raw messages per episode" />
        <table className="golden">
          <tbody>
            {ROWS.map(({ key, label, format }) => {
              const value = latest(series, key);
              return (
                <tr key={key} data-key={key}>
                  <td>{label}</td>
                  <td className="golden-value">{value === null ? "–" : format ? format(value) : formatNumber(value)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p className="muted small">
        Messages travel as codebook ids plus quantised residuals; a communication storm (traffic the codebook no longer fits)
        appears in the alerts below and triggers a re-fit.
      </p>
    </section>
  );
}
