import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ApiError } from "../api";
import { useDebouncedValue } from "../queryClient";
import { deploymentQueries } from "./queries";

/** A moved threshold is replayed once it has stood still this long. */
const SETTLE_MS = 150;

export const percent = (share: number) => `${(100 * share).toFixed(1)} %`;

const errorText = (e: Error) => Object.values(e instanceof ApiError ? (e.body.errors ?? {}) : {}).flat()[0] ?? e.message;

/** How often the chosen run would fall back on the dev split at `threshold` (null: the run's own, which
 * the deploy form reads from the same query); refetched (debounced) as the threshold moves, the last
 * answer shown meanwhile. */
export function FallbackPreview({ run, threshold }: { run: number; threshold: number | null }) {
  const settled = useDebouncedValue(threshold, threshold === null ? 0 : SETTLE_MS);
  const { data: preview, error, isFetching } = useQuery({
    ...deploymentQueries.preview(run, settled),
    enabled: settled === threshold,
    placeholderData: keepPreviousData,
  });
  const loading = settled !== threshold || isFetching;

  if (error) return <p className="hint" data-testid="fallback-preview-error">No fallback preview: {errorText(error)}</p>;
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
