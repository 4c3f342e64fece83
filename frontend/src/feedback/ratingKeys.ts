/** Keyboard of the rating form: what a shortcut (`hotkeys.hotkeyOf`) does to the rating being made.
 *
 * 1–5 set the rating, a tag's letter toggles it, Enter (or Ctrl/⌘+Enter) submits once a rating is chosen and
 * otherwise says so (NO_RATING), S skips the item for now as in the intents queue (`intentKeys.SKIP_KEY`).
 */
import { starOf, tagOf } from "./hotkeys";
import { SKIP_KEY } from "./intentKeys";

export const NO_RATING = "choose a rating (1–5) first";

export interface RatingDraft {
  value: number | null;
  chosen: string[];
}

export interface RatingKeyOutcome {
  draft: RatingDraft;
  effect: "submit" | "skip" | null;
  /** What to tell the annotator (a submit with no rating), or null. */
  notice: string | null;
  /** False when the key is not this form's (the page may use it). */
  used: boolean;
}

export const toggleTag = (chosen: string[], tag: string): string[] =>
  chosen.includes(tag) ? chosen.filter((t) => t !== tag) : [...chosen, tag];

/** What shortcut `hotkey` does to `draft` given the queue's tags in order. */
export function onRatingKey(draft: RatingDraft, hotkey: string, tags: string[]): RatingKeyOutcome {
  const done = (next: RatingDraft, effect: RatingKeyOutcome["effect"] = null, notice: string | null = null) => ({
    draft: next,
    effect,
    notice,
    used: true,
  });
  const star = starOf(hotkey);
  if (star !== null) return done({ ...draft, value: star });
  const tag = tagOf(hotkey, tags);
  if (tag !== null) return done({ ...draft, chosen: toggleTag(draft.chosen, tag) });
  if (hotkey === SKIP_KEY) return done(draft, "skip");
  if (hotkey === "Enter" || hotkey === "mod+Enter")
    return draft.value === null ? done(draft, null, NO_RATING) : done(draft, "submit");
  return { draft, effect: null, notice: null, used: false };
}
