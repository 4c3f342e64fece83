/** Keyboard of the intent annotation form: what a shortcut (`hotkeys.hotkeyOf`) does to the answer.
 *
 * 1–9 toggle the first nine intents of the catalogue, then one letter each (INTENT_LETTERS) for the
 * rest; 0 toggles "none of these" (the ticket asks for nothing in the catalogue: out of scope), which clears
 * the intents chosen, as choosing an intent clears it; Enter (or Ctrl/⌘+Enter) submits once something is
 * chosen; S skips the row for now. n / ← / → stay the page's (next and previous item): no intent takes them.
 */

/** Letters for the intents after the ninth: no "s" (skip) and no "n" (next item). */
export const INTENT_LETTERS = "qwertyuiopadfghjklzxcvbm";
export const NONE_KEY = "0";
export const SKIP_KEY = "s";

/** The key that toggles intent number `index` of the catalogue (0-based), or undefined past the last key. */
export function intentKey(index: number): string | undefined {
  return index < 9 ? String(index + 1) : INTENT_LETTERS[index - 9];
}

/** The catalogue index a shortcut toggles, or null. */
export function intentIndexOf(hotkey: string, count: number): number | null {
  let index = -1;
  if (/^[1-9]$/.test(hotkey)) index = Number(hotkey) - 1;
  else if (hotkey.length === 1 && INTENT_LETTERS.includes(hotkey)) index = 9 + INTENT_LETTERS.indexOf(hotkey);
  return index >= 0 && index < count ? index : null;
}

/** An answer being made: the intents chosen (catalogue order) or "none of these". */
export interface IntentAnswer {
  chosen: string[];
  none: boolean;
}

export const EMPTY_ANSWER: IntentAnswer = { chosen: [], none: false };

/** What a key did: the new answer, and whether to submit or skip now (null: neither). */
export interface KeyOutcome {
  answer: IntentAnswer;
  effect: "submit" | "skip" | null;
  /** False when the key is not this form's (the page may use it). */
  used: boolean;
}

/** A complete answer: at least one intent, or "none of these". */
export const isComplete = (answer: IntentAnswer): boolean => answer.none || answer.chosen.length > 0;

/** `answer` with intent `name` toggled, kept in catalogue order; choosing an intent clears "none". */
export function toggleIntent(answer: IntentAnswer, name: string, catalogue: string[]): IntentAnswer {
  const on = answer.chosen.includes(name) ? answer.chosen.filter((n) => n !== name) : [...answer.chosen, name];
  return { chosen: catalogue.filter((n) => on.includes(n)), none: false };
}

/** `answer` with "none of these" toggled; choosing it clears the intents. */
export const toggleNone = (answer: IntentAnswer): IntentAnswer => (answer.none ? EMPTY_ANSWER : { chosen: [], none: true });

/** What shortcut `hotkey` does to `answer` given the catalogue's intent names in order. */
export function onIntentKey(answer: IntentAnswer, hotkey: string, catalogue: string[]): KeyOutcome {
  const index = intentIndexOf(hotkey, catalogue.length);
  if (index !== null) return { answer: toggleIntent(answer, catalogue[index], catalogue), effect: null, used: true };
  if (hotkey === NONE_KEY) return { answer: toggleNone(answer), effect: null, used: true };
  if (hotkey === SKIP_KEY) return { answer, effect: "skip", used: true };
  if (hotkey === "Enter" || hotkey === "mod+Enter") return { answer, effect: isComplete(answer) ? "submit" : null, used: true };
  return { answer, effect: null, used: false };
}
