import { useState } from "react";
import { ErrorList } from "./ErrorList";
import { HotkeyLegend, NAVIGATION_KEYS } from "./HotkeyLegend";
import { TAG_KEYS, tagKey } from "./hotkeys";
import { SKIP_KEY } from "./intentKeys";
import { NO_RATING, onRatingKey, toggleTag } from "./ratingKeys";
import type { RatingAnswer } from "./types";
import { useHotkeys } from "./useHotkeys";

interface Props {
  tags: string[];
  previous: RatingAnswer | null | undefined;
  onSubmit: (value: number, tags: string[], comment: string) => Promise<void>;
  /** Leave the item for now (S), as in the intents queue. */
  onSkip: () => void;
}

const STARS = [1, 2, 3, 4, 5];

function legend(tags: string[]): [string[], string][] {
  const keyed = Math.min(tags.length, TAG_KEYS.length);
  const tagKeys: [string[], string][] = keyed > 0 ? [[[keyed > 1 ? `${TAG_KEYS[0]}–${TAG_KEYS[keyed - 1]}` : TAG_KEYS[0]], "tag (key on each tag)"]] : [];
  return [[["1–5"], "rating"], ...tagKeys, [["Enter", "Ctrl+Enter"], "submit"], [[SKIP_KEY.toUpperCase()], "skip"], ...NAVIGATION_KEYS];
}

/** 1–5 rating buttons, the queue's tags as toggle chips, a comment, and submit; all of it by keyboard too. */
export function RatingForm({ tags, previous, onSubmit, onSkip }: Props) {
  const [value, setValue] = useState<number | null>(previous?.value ?? null);
  const [chosen, setChosen] = useState<string[]>(previous?.tags ?? []);
  const [comment, setComment] = useState(previous?.comment ?? "");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // said when the annotator submits before choosing a rating (Enter did nothing, silently)
  const [notice, setNotice] = useState<string | null>(null);
  const rate = (star: number) => {
    setValue(star);
    setNotice(null);
  };

  const toggle = (tag: string) => setChosen((old) => toggleTag(old, tag));
  const submit = async () => {
    if (value === null) {
      setNotice(NO_RATING);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onSubmit(value, chosen, comment);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  useHotkeys((key) => {
    const outcome = onRatingKey({ value, chosen }, key, tags);
    if (!outcome.used) return false;
    if (outcome.draft.value !== null && outcome.draft.value !== value) rate(outcome.draft.value);
    setChosen(outcome.draft.chosen);
    if (outcome.notice) setNotice(outcome.notice);
    if (outcome.effect === "submit" && !busy) void submit();
    else if (outcome.effect === "skip") onSkip();
    return true;
  });

  return (
    <form className="fb-answer-form" aria-label="Rate this item" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <div className="fb-stars" role="radiogroup" aria-label="Rating">
        {STARS.map((star) => (
          <button
            type="button"
            key={star}
            role="radio"
            aria-checked={value === star}
            aria-label={`${star} star${star > 1 ? "s" : ""}`}
            aria-keyshortcuts={String(star)}
            className={value === star ? "fb-star fb-star-on" : "fb-star secondary"}
            onClick={() => rate(star)}
          >
            {star}
          </button>
        ))}
        <span className="hint">1 = useless … 5 = perfect</span>
      </div>
      {tags.length > 0 && (
        <div className="chips" role="group" aria-label="Tags">
          {tags.map((tag, i) => (
            <button
              type="button"
              key={tag}
              aria-pressed={chosen.includes(tag)}
              aria-keyshortcuts={tagKey(i)}
              className={chosen.includes(tag) ? "run-chip run-chip-on" : "run-chip"}
              onClick={() => toggle(tag)}
            >
              {tagKey(i) && <kbd aria-hidden="true">{tagKey(i)}</kbd>}
              {tag}
            </button>
          ))}
        </div>
      )}
      <label className="field column">
        Comment
        <textarea value={comment} onChange={(e) => setComment(e.target.value)} rows={2} maxLength={5000} aria-keyshortcuts="Control+Enter" />
      </label>
      <ErrorList error={error} />
      {notice && (
        <p className="error" role="alert" data-testid="rating-notice">
          {notice}
        </p>
      )}
      <button type="submit" disabled={busy}>
        Submit rating
      </button>
      <button type="button" className="link" onClick={onSkip} aria-keyshortcuts="s">
        Skip for now
      </button>
      <HotkeyLegend entries={legend(tags)} />
    </form>
  );
}
