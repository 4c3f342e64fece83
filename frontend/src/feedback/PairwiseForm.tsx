import { useState } from "react";
import { ErrorList } from "./ErrorList";
import type { Choice, JudgementAnswer } from "./types";

interface Props {
  previous: JudgementAnswer | null | undefined;
  onSubmit: (choice: Choice, comment: string) => Promise<void>;
}

const CHOICES: { choice: Choice; label: string }[] = [
  { choice: "A", label: "A is better" },
  { choice: "tie", label: "Tie" },
  { choice: "B", label: "B is better" },
];

/** Which of two episodes handled the task better: A, B or a tie, with a comment. */
export function PairwiseForm({ previous, onSubmit }: Props) {
  const [comment, setComment] = useState(previous?.comment ?? "");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (choice: Choice) => {
    setBusy(true);
    setError(null);
    try {
      await onSubmit(choice, comment);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="fb-answer-form" role="group" aria-label="Compare the two episodes">
      <label className="field column">
        Comment
        <textarea value={comment} onChange={(e) => setComment(e.target.value)} rows={2} maxLength={5000} />
      </label>
      <div className="row">
        {CHOICES.map(({ choice, label }) => (
          <button
            key={choice}
            disabled={busy}
            className={previous?.choice === choice ? undefined : "secondary"}
            onClick={() => void submit(choice)}
          >
            {label}
          </button>
        ))}
      </div>
      <ErrorList error={error} />
    </div>
  );
}
