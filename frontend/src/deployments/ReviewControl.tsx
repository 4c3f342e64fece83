import { useState } from "react";
import type { ApiError } from "../api";
import { deploymentsApi } from "./deploymentsApi";
import type { DecisionRow, ReviewStatus } from "./types";

interface Props {
  row: DecisionRow;
  onChanged: (row: DecisionRow) => void;
}

/** One decision's review: mark it ok, wrong (a reason is asked), escalated, or back to unreviewed;
 * a decision marked wrong can be queued for annotation in one click. */
export function ReviewControl({ row, onChanged }: Props) {
  const [asking, setAsking] = useState<ReviewStatus | null>(null);
  const [reason, setReason] = useState("");
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);

  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setNote("");
    try {
      await what();
    } catch (e) {
      const err = e as ApiError;
      setNote(Object.values(err.body?.errors ?? {}).flat()[0] ?? err.message);
    } finally {
      setBusy(false);
    }
  };
  const mark = (status: ReviewStatus, why = "") =>
    act(async () => {
      onChanged(await deploymentsApi.review(row.id, status, why));
      setAsking(null);
      setReason("");
    });
  const queue = () =>
    act(async () => {
      const placed = await deploymentsApi.annotate(row.id);
      setNote(placed.added ? `Queued in "${placed.queue_name}".` : `Already in "${placed.queue_name}".`);
    });

  return (
    <div className="review-control" data-testid={`review-${row.id}`}>
      <span className={`review-badge review-${row.review_status}`} title={row.review_reason || undefined}>
        {row.review_status}
      </span>
      {row.review_reason && <span className="small muted review-reason">{row.review_reason}</span>}
      {asking ? (
        <form
          className="review-reason-form"
          onSubmit={(e) => {
            e.preventDefault();
            mark(asking, reason.trim());
          }}
        >
          <input
            autoFocus
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder={asking === "wrong" ? "Why is it wrong?" : "Why escalate? (optional)"}
            aria-label={`Reason (${asking})`}
            required={asking === "wrong"}
            maxLength={2000}
          />
          <button type="submit" disabled={busy}>
            Mark {asking}
          </button>
          <button type="button" className="link" onClick={() => setAsking(null)}>
            cancel
          </button>
        </form>
      ) : (
        <span className="review-actions">
          {row.review_status !== "ok" && (
            <button type="button" className="link" disabled={busy} onClick={() => mark("ok")}>
              ok
            </button>
          )}
          {row.review_status !== "wrong" && (
            <button type="button" className="link" disabled={busy} onClick={() => setAsking("wrong")}>
              wrong…
            </button>
          )}
          {row.review_status !== "escalated" && (
            <button type="button" className="link" disabled={busy} onClick={() => setAsking("escalated")}>
              escalate…
            </button>
          )}
          {row.review_status !== "unreviewed" && (
            <button type="button" className="link" disabled={busy} onClick={() => mark("unreviewed")}>
              clear
            </button>
          )}
          {row.review_status === "wrong" && (
            <button type="button" className="secondary small-button" disabled={busy} onClick={queue}>
              Queue for annotation
            </button>
          )}
        </span>
      )}
      {note && (
        <span className="small review-note" role="status">
          {note}
        </span>
      )}
    </div>
  );
}
