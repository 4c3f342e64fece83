/**
 * The golden ranges (docs/design.md#golden-ranges; training/golden.py), used to label the golden metrics panel.
 * Durations are already scaled to the run's own clock by the library before they are reported.
 */
export interface GoldenRangeInfo {
  name: string;
  label: string;
  unit: string;
  golden: string;
  alert: string;
}

export const GOLDEN_RANGES: GoldenRangeInfo[] = [
  { name: "inter_agent_latency_ms", label: "Inter-agent latency", unit: "ms", golden: "< 200 ms", alert: "> 500 ms" },
  { name: "policy_update_interval_h", label: "Policy update interval", unit: "h", golden: "2–4 h", alert: "< 30 min" },
  { name: "replay_buffer_size", label: "Replay buffer", unit: "samples", golden: "100k–500k", alert: "< 50k" },
  { name: "phase_duration_h", label: "Phase duration", unit: "h", golden: "12–36 h", alert: "< 6 h" },
  { name: "agent_diversity_index", label: "Agent diversity index", unit: "", golden: "0.6–0.8", alert: "< 0.4" },
];
