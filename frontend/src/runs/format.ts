/** Small display helpers shared by the run pages. */

export function formatNumber(value: unknown, digits = 3): string {
  if (typeof value !== "number" || !Number.isFinite(value)) return value == null ? "–" : String(value);
  if (Math.abs(value) >= 10_000) return value.toLocaleString(undefined, { maximumFractionDigits: 0 });
  return String(+value.toPrecision(digits));
}

/** An ISO date, or seconds since the epoch (how the event stream sends times), as local time. */
export function formatTime(when: string | number | null | undefined): string {
  if (when === null || when === undefined || when === "") return "–";
  const date = new Date(typeof when === "number" ? when * 1000 : when);
  return Number.isNaN(date.getTime()) ? String(when) : date.toLocaleString();
}

export function formatDuration(fromIso: string | null, toIso: string | null): string {
  if (!fromIso) return "–";
  const seconds = Math.max(0, ((toIso ? new Date(toIso) : new Date()).getTime() - new Date(fromIso).getTime()) / 1000);
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** Readable name of a metric key: "eval_success" → "eval success", "golden.x_ms" stays as is. */
export function metricLabel(key: string): string {
  return key.startsWith("golden.") ? key : key.replace(/_/g, " ");
}
