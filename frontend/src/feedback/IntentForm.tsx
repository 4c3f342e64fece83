import { useState } from "react";
import { ErrorList } from "./ErrorList";
import { HotkeyLegend, NAVIGATION_KEYS } from "./HotkeyLegend";
import { type IntentAnswer, EMPTY_ANSWER, NONE_KEY, SKIP_KEY, intentKey, isComplete, onIntentKey, toggleIntent, toggleNone } from "./intentKeys";
import { useHotkeys } from "./useHotkeys";
import { spoken } from "./words";

export interface CatalogueIntent {
  name: string;
  description: string;
}

interface Props {
  /** The catalogue the row is labelled from, in order (its keys follow this order). */
  intents: CatalogueIntent[];
  /** The annotator's earlier answer to this row (an empty list: "none of these"). */
  previous: string[] | null | undefined;
  onSubmit: (intents: string[]) => Promise<void>;
  onSkip: () => void;
}

function legend(count: number): [string[], string][] {
  const last = intentKey(Math.max(0, count - 1));
  const keys = count > 1 ? `1–${count > 9 ? `9, q–${last}` : last}` : "1";
  return [
    [[keys], "toggle an intent (key on each)"],
    [[NONE_KEY], "none of these"],
    [["Enter"], "submit"],
    [[SKIP_KEY.toUpperCase()], "skip"],
    ...NAVIGATION_KEYS,
  ];
}

const fromPrevious = (previous: string[] | null | undefined, names: string[]): IntentAnswer =>
  previous == null ? EMPTY_ANSWER : { chosen: names.filter((n) => previous.includes(n)), none: previous.length === 0 };

/** The catalogue's intents as toggles, each with its key and what it means; "none of these"; submit and skip;
 * all of it by keyboard too (`intentKeys`). */
export function IntentForm({ intents, previous, onSubmit, onSkip }: Props) {
  const names = intents.map((i) => i.name);
  const [answer, setAnswer] = useState<IntentAnswer>(() => fromPrevious(previous, names));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    if (!isComplete(answer) || busy) return;
    setBusy(true);
    setError(null);
    try {
      await onSubmit(answer.none ? [] : answer.chosen);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  useHotkeys((key) => {
    const outcome = onIntentKey(answer, key, names);
    if (!outcome.used) return false;
    setAnswer(outcome.answer);
    if (outcome.effect === "submit") void submit();
    else if (outcome.effect === "skip") onSkip();
    return true;
  });

  return (
    <form className="fb-answer-form" aria-label="Choose the intents" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <div className="fb-intent-choices" role="group" aria-label="Intents">
        {intents.map((intent, i) => {
          const on = answer.chosen.includes(intent.name);
          return (
            <button
              type="button"
              key={intent.name}
              aria-pressed={on}
              aria-keyshortcuts={intentKey(i)}
              className={on ? "fb-intent fb-intent-on" : "fb-intent"}
              onClick={() => setAnswer((old) => toggleIntent(old, intent.name, names))}
            >
              {intentKey(i) && <kbd aria-hidden="true">{intentKey(i)}</kbd>}
              <b title={intent.name}>{spoken(intent.name)}</b>
              <span className="small muted">{intent.description}</span>
            </button>
          );
        })}
        <button
          type="button"
          aria-pressed={answer.none}
          aria-keyshortcuts={NONE_KEY}
          className={answer.none ? "fb-intent fb-intent-on" : "fb-intent"}
          onClick={() => setAnswer(toggleNone)}
        >
          <kbd aria-hidden="true">{NONE_KEY}</kbd>
          <b>none of these</b>
          <span className="small muted">the ticket asks for nothing in this list</span>
        </button>
      </div>
      <ErrorList error={error} />
      <button type="submit" disabled={!isComplete(answer) || busy}>
        Submit intents
      </button>
      <button type="button" className="link" onClick={onSkip} aria-keyshortcuts="s">
        Skip for now
      </button>
      <HotkeyLegend entries={legend(intents.length)} />
    </form>
  );
}
