import { useState } from "react";
import { ErrorList } from "./ErrorList";
import { HotkeyLegend, NAVIGATION_KEYS } from "./HotkeyLegend";
import type { Choice, JudgementAnswer } from "./types";
import { useHotkeys } from "./useHotkeys";

interface Props {
  previous: JudgementAnswer | null | undefined;
  onSubmit: (choice: Choice, comment: string) => Promise<void>;
}

const CHOICES: { choice: Choice; label: string; key: string }[] = [
  { choice: "A", label: "A is better", key: "a" },
  { choice: "tie", label: "Tie", key: "t" },
  { choice: "B", label: "B is better", key: "b" },
];

const LEGEND: [string[], string][] = [...CHOICES.map(({ key, label }): [string[], string] => [[key], label]), ...NAVIGATION_KEYS];

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
  useHotkeys((key) => {
    const picked = CHOICES.find((c) => c.key === key);
    if (!picked) return false;
    if (!busy) void submit(picked.choice);
    return true;
  });

  return (
    <div className="fb-answer-form" role="group" aria-label="Compare the two episodes">
      <label className="field column">
        Comment
        <textarea value={comment} onChange={(e) => setComment(e.target.value)} rows={2} maxLength={5000} />
      </label>
      <div className="row">
        {CHOICES.map(({ choice, label, key }) => (
          <button
            key={choice}
            disabled={busy}
            aria-keyshortcuts={key}
            className={previous?.choice === choice ? undefined : "secondary"}
            onClick={() => void submit(choice)}
          >
            <kbd aria-hidden="true">{key}</kbd> {label}
          </button>
        ))}
      </div>
      <ErrorList error={error} />
      <HotkeyLegend entries={LEGEND} />
    </div>
  );
}
