import { useState } from "react";
import type { ApiError } from "../api";
import { CorrectionForm } from "./CorrectionForm";
import { deploymentsApi } from "./deploymentsApi";
import type { Correction, CorrectionBody, DecisionRow, EpisodeRow, ReviewStatus } from "./types";

interface Props {
  row: DecisionRow;
  onChanged: (row: DecisionRow) => void;
  /** The decision's deployment: known, the decision can be corrected (its catalogue is the deployment's). */
  deployment?: number;
}

/** Where a correction went, in words. */
export function correctedNote(correction: Correction): string {
  const at = correction.dataset_row;
  return at.dataset !== undefined
    ? `Corrected: the ticket joined dataset "${at.dataset_name ?? at.dataset}" (version ${at.version_number ?? "?"}).`
    : "Corrected.";
}

/** One decision's review: mark it ok, wrong (a reason is asked), escalated, or back to unreviewed;
 * a decision marked wrong can be queued for annotation in one click. */
export function ReviewControl({ row, onChanged, deployment }: Props) {
  return (
    <ReviewActions
      testId={`review-${row.id}`}
      status={row.review_status}
      reason={row.review_reason}
      mark={async (status, why) => onChanged(await deploymentsApi.review(row.id, status, why))}
      correction={
        deployment === undefined
          ? undefined
          : {
              deployment,
              save: (body) => deploymentsApi.correct("decisions", row.id, body),
              corrected: (saved) => onChanged({ ...row, review_status: "wrong", review_reason: saved.reason }),
            }
      }
      queue={async () => {
        const placed = await deploymentsApi.annotate(row.id);
        return placed.added ? `Queued in "${placed.queue_name}".` : `Already in "${placed.queue_name}".`;
      }}
    />
  );
}

/** A ticket's review (POST /api/episodes/<id>/review/): stored on the decisions that decided it. */
export function EpisodeReviewControl({ row, onChanged }: { row: EpisodeRow; onChanged: (row: EpisodeRow) => void }) {
  return (
    <ReviewActions
      testId={`episode-review-${row.id}`}
      status={row.review_status}
      reason={row.review_reason ?? ""}
      mark={async (status, why) => onChanged(await deploymentsApi.reviewEpisode(row.id, status, why))}
      correction={{
        deployment: row.deployment,
        save: (body) => deploymentsApi.correct("episodes", row.id, body),
        // its decisions are wrong now: the row says so in place (the list is not read again, see CorrectionForm)
        corrected: (saved) => onChanged({ ...row, review_status: "wrong", review_reason: saved.reason }),
      }}
    />
  );
}

interface ActionsProps {
  testId: string;
  status: ReviewStatus;
  reason: string;
  mark: (status: ReviewStatus, reason: string) => Promise<void>;
  /** Queue what was marked wrong for annotation; returns where it went, in words. */
  queue?: () => Promise<string>;
  /** Say what was right (the deployment's intents and agents); absent, no "correct…" is offered. `corrected`
   * shows the reviewed row as the correction left it (its decisions marked wrong). */
  correction?: {
    deployment: number;
    save: (body: CorrectionBody) => Promise<Correction>;
    corrected: (saved: Correction) => void;
  };
}

/** Mark ok, wrong (a reason is asked), escalated, or back to unreviewed; what is wrong can be queued. */
function ReviewActions({ testId, status, reason: storedReason, mark: store, queue: toQueue, correction }: ActionsProps) {
  const row = { review_status: status, review_reason: storedReason };
  const [asking, setAsking] = useState<ReviewStatus | null>(null);
  const [correcting, setCorrecting] = useState(false);
  const [landedIn, setLandedIn] = useState<number | null>(null);
  const [reason, setReason] = useState("");
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);

  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setNote("");
    setLandedIn(null);
    try {
      await what();
    } catch (e) {
      const err = e as ApiError;
      setNote(Object.values(err.body?.errors ?? {}).flat()[0] ?? err.message);
    } finally {
      setBusy(false);
    }
  };
  const mark = (next: ReviewStatus, why = "") =>
    act(async () => {
      await store(next, why);
      setAsking(null);
      setReason("");
    });
  const queue = () =>
    act(async () => {
      if (toQueue) setNote(await toQueue());
    });

  return (
    <div className="review-control" data-testid={testId}>
      <span className={`review-badge review-${row.review_status}`} title={row.review_reason || undefined}>
        {row.review_status}
      </span>
      {row.review_reason && <span className="small muted review-reason">{row.review_reason}</span>}
      {correcting && correction ? (
        <CorrectionForm
          deployment={correction.deployment}
          save={correction.save}
          onCancel={() => setCorrecting(false)}
          onSaved={(saved) => {
            setCorrecting(false);
            setNote(correctedNote(saved));
            setLandedIn(saved.dataset_row.dataset ?? null);
            correction.corrected(saved);
          }}
        />
      ) : asking ? (
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
          {correction && (
            <button type="button" className="link" disabled={busy} onClick={() => setCorrecting(true)}>
              correct…
            </button>
          )}
          {row.review_status === "wrong" && toQueue && (
            <button type="button" className="secondary small-button" disabled={busy} onClick={queue}>
              Queue for annotation
            </button>
          )}
        </span>
      )}
      {note && (
        <span className="small review-note" role="status">
          {note}
          {landedIn !== null && (
            <>
              {" "}
              <a href={`/datasets/${landedIn}/`}>Open the dataset</a>
            </>
          )}
        </span>
      )}
    </div>
  );
}
