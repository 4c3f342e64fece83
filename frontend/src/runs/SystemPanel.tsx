import { formatNumber } from "./format";
import type { SystemMetrics } from "./types";

function Meter({ label, percent, text }: { label: string; percent: number | null; text: string }) {
  return (
    <div className="run-meter">
      <span>{label}</span>
      <div className="run-meter-bar" role="meter" aria-label={label} aria-valuenow={percent ?? 0} aria-valuemin={0} aria-valuemax={100}>
        <div style={{ width: `${Math.min(100, Math.max(0, percent ?? 0))}%` }} />
      </div>
      <b>{text}</b>
    </div>
  );
}

/** The worker's CPU, memory and (when it has one) GPU use, as the run last reported it. */
export function SystemPanel({ system }: { system: SystemMetrics | null }) {
  return (
    <section className="card">
      <h2>Worker</h2>
      {!system ? (
        <p className="muted">No system report yet (workers report every few seconds while running).</p>
      ) : (
        <div data-testid="system-panel">
          <Meter label="CPU" percent={system.cpu_percent ?? null} text={`${formatNumber(system.cpu_percent)} %`} />
          <Meter label="Memory" percent={system.memory_percent ?? null} text={`${formatNumber(system.memory_percent)} %`} />
          <p className="muted small">
            Process resident memory {formatNumber(system.process_rss_mb)} MB
            {system.gpu_name ? ` · GPU ${system.gpu_name}: ${formatNumber(system.gpu_memory_mb)} MB allocated` : " · no GPU"}
          </p>
        </div>
      )}
    </section>
  );
}
