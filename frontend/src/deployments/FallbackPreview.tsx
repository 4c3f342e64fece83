import { useEffect, useState } from "react";
import { api, ApiError } from "../api";

/** GET deployments/preview/ (mase_web/deployments/preview.py): the breaker replayed on the checkpoint's
 * dev-split confidences at one threshold. */
export interface FallbackPreviewResult {
  run: number;
  checkpoint: string;
  split: string;
  confidence_threshold: number;
  spec_threshold: number;
  consecutive_low: number;
  tickets: number;
  decisions: number;
  fallback_tickets: number;
  fallback_ticket_share: number;
  model_decision_share: number;
  low_decision_share: number;
  calibration_error: number | null;
  calibration_error_before: number | null;
}

export const fetchPreview = (run: number, threshold?: number) => {
  const query = new URLSearchParams({ run: String(run) });
  if (threshold !== undefined) query.set("threshold", String(threshold));
  return api<FallbackPreviewResult>(`deployments/preview/?${query}`);
};

export const percent = (share: number) => `${(100 * share).toFixed(1)} %`;

/** How often the chosen run would fall back on the dev split at `threshold`; refetched (debounced) as the
 * threshold moves. `onSpecThreshold` receives the run's own threshold the first time it is known. */
export function FallbackPreview({
  run,
  threshold,
  onSpecThreshold,
}: {
  run: number;
  threshold: number | null;
  onSpecThreshold: (value: number) => void;
}) {
  const [preview, setPreview] = useState<FallbackPreviewResult | null>(null);
  const [error, setError] = useState("");
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    let live = true;
    setLoading(true);
    const timer = window.setTimeout(
      () => {
        fetchPreview(run, threshold ?? undefined).then(
          (body) => {
            if (!live) return;
            setPreview(body);
            setError("");
            setLoading(false);
            if (threshold === null) onSpecThreshold(body.spec_threshold);
          },
          (e: ApiError) => {
            if (!live) return;
            setError(Object.values(e.body?.errors ?? {}).flat()[0] ?? e.message);
            setLoading(false);
          },
        );
      },
      threshold === null ? 0 : 150,
    );
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [run, threshold, onSpecThreshold]);

  if (error) return <p className="hint" data-testid="fallback-preview-error">No fallback preview: {error}</p>;
  if (!preview) return <p className="hint">Replaying the dev split through the breaker…</p>;
  return (
    <p className="fallback-preview" data-testid="fallback-preview" aria-busy={loading}>
      At threshold <strong>{preview.confidence_threshold.toFixed(2)}</strong> the breaker would hand{" "}
      <strong data-testid="fallback-share">{percent(preview.fallback_ticket_share)}</strong> of the {preview.tickets}{" "}
      {preview.split} tickets to the fallback ({preview.fallback_tickets}); the team would make{" "}
      <strong>{percent(preview.model_decision_share)}</strong> of the decisions, {percent(preview.low_decision_share)} of
      them below the threshold.
      {preview.calibration_error !== null && (
        <span className="hint">
          {" "}
          Confidence is calibrated (error {preview.calibration_error.toFixed(3)} on the {preview.split} split).
        </span>
      )}
    </p>
  );
}
