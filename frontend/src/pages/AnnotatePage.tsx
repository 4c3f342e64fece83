import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { AnnotationItem } from "../feedback/AnnotationItem";
import { feedbackApi } from "../feedback/feedbackApi";
import { feedbackQueries } from "../feedback/queries";
import type { Choice } from "../feedback/types";
import { useHotkeys } from "../feedback/useHotkeys";
import { useMyItems } from "../feedback/useMyItems";

/** The annotator's work: pick a queue, read its guidelines, answer the assigned items one by one. */
export function AnnotatePage() {
  const { data: queues = [], error: queuesError } = useQuery({
    ...feedbackQueries.queues(),
    select: (body) => body.results.filter((q) => q.my_progress.assigned > 0),
  });
  // The first queue with work left (else the first) until another is chosen.
  const [picked, setPicked] = useState<number | null>(null);
  const queueId = picked ?? (queues.find((q) => q.my_progress.done < q.my_progress.assigned) ?? queues[0])?.id ?? null;
  const error = queuesError?.message ?? "";
  const { items, current, done, error: itemsError, reload, skip, move } = useMyItems(queueId);
  useHotkeys((key) => {
    if (key === "n" || key === "ArrowRight") move(1);
    else if (key === "ArrowLeft") move(-1);
    else return false;
    return true;
  });

  const queue = queues.find((q) => q.id === queueId) ?? null;
  const rate = async (value: number, tags: string[], comment: string) => {
    if (!current) return;
    await feedbackApi.rate(current.id, value, tags, comment);
    await reload();
  };
  const label = async (intents: string[]) => {
    if (!current) return;
    await feedbackApi.labelIntents(current.id, intents);
    await reload();
  };
  const judge = async (choice: Choice, comment: string) => {
    if (!current) return;
    await feedbackApi.judge(current.id, choice, comment);
    await reload();
  };

  return (
    <main className="page wide runs-ui feedback-ui">
      <h1>Annotate</h1>
      {(error || itemsError) && <p className="error" role="alert">{error || itemsError}</p>}
      {queues.length === 0 && !error && <p className="empty-state">Nothing is assigned to you yet.</p>}
      {queues.length > 1 && (
        <label className="field">
          Queue
          <select aria-label="Queue" value={queueId ?? ""} onChange={(e) => setPicked(Number(e.target.value))}>
            {queues.map((q) => (
              <option key={q.id} value={q.id}>
                {q.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {queue && (
        <>
          <section className="card fb-guidelines" aria-label="Guidelines">
            <div className="card-head">
              <h2>{queue.name}</h2>
              <span className="badge" data-testid="annotate-progress">
                {done} of {items.length} done
              </span>
              {current && (
                <span className="hint" data-testid="annotate-position">
                  item {items.indexOf(current) + 1} of {items.length}
                </span>
              )}
            </div>
            <p className="fb-guidelines-text">{queue.guidelines || "No guidelines for this queue."}</p>
          </section>
          {current ? (
            <AnnotationItem
              queue={queue}
              item={current}
              onRate={rate}
              onJudge={judge}
              onLabel={label}
              onSkip={() => skip(current.id)}
            />
          ) : (
            items.length > 0 && <p className="ok" data-testid="annotate-finished">
                All {items.length} {items.length === 1 ? "item" : "items"} done — thank you!
              </p>
          )}
        </>
      )}
    </main>
  );
}
