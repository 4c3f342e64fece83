import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { hotkeyOf, type KeyLike } from "./hotkeys";
import { IntentForm } from "./IntentForm";
import { EMPTY_ANSWER, type IntentAnswer, intentIndexOf, intentKey, onIntentKey } from "./intentKeys";

const CATALOGUE = ["order_tracking", "delivery_delay", "damaged_item", "complaint"];

/** Presses `keys` in turn (as the page's hotkey reader passes them), collecting what each did. */
function typed(keys: string[], catalogue = CATALOGUE, start: IntentAnswer = EMPTY_ANSWER) {
  let answer = start;
  const effects: string[] = [];
  for (const key of keys) {
    const press: KeyLike = { key, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false };
    const hotkey = hotkeyOf(press, "other");
    if (hotkey === null) continue;
    const outcome = onIntentKey(answer, hotkey, catalogue);
    answer = outcome.answer;
    if (outcome.effect) effects.push(outcome.effect);
  }
  return { answer, effects };
}

describe("intent keys", () => {
  it("number keys toggle intents in catalogue order, Enter submits what is chosen", () => {
    const { answer, effects } = typed(["3", "1", "Enter"]);
    expect(answer).toEqual({ chosen: ["order_tracking", "damaged_item"], none: false });
    expect(effects).toEqual(["submit"]);
    expect(typed(["2", "2"]).answer.chosen).toEqual([]);
  });

  it("Enter submits nothing until an intent or 'none of these' is chosen; 0 and intents clear each other", () => {
    expect(typed(["Enter"]).effects).toEqual([]);
    expect(typed(["1", "0"]).answer).toEqual({ chosen: [], none: true });
    expect(typed(["0", "Enter"]).effects).toEqual(["submit"]);
    expect(typed(["0", "4"]).answer).toEqual({ chosen: ["complaint"], none: false });
  });

  it("S skips (upper or lower case), keys past the catalogue and the page's n do nothing here", () => {
    expect(typed(["S"]).effects).toEqual(["skip"]);
    expect(typed(["s", "1"]).answer.chosen).toEqual(["order_tracking"]);
    expect(typed(["9", "n", "q"]).answer).toEqual(EMPTY_ANSWER);
    expect(onIntentKey(EMPTY_ANSWER, "n", CATALOGUE).used).toBe(false);
    expect(onIntentKey(EMPTY_ANSWER, "ArrowRight", CATALOGUE).used).toBe(false);
  });

  it("a catalogue longer than nine goes on with letters that are never skip or next", () => {
    const twelve = Array.from({ length: 12 }, (_, i) => `intent_${i}`);
    expect(twelve.map((_, i) => intentKey(i))).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9", "q", "w", "e"]);
    expect(intentIndexOf("w", 12)).toBe(10);
    expect(intentIndexOf("r", 12)).toBeNull();
    expect(typed(["e", "1"], twelve).answer.chosen).toEqual(["intent_0", "intent_11"]);
    for (let i = 0; i < 33; i++) expect(["s", "n", "0"]).not.toContain(intentKey(i));
  });
});

describe("IntentForm", () => {
  it("shows every intent with its key and meaning, and 'none of these', with the earlier answer pressed", () => {
    const intents = [
      { name: "order_tracking", description: "Where an order or parcel is now." },
      { name: "damaged_item", description: "An item that arrived broken." },
    ];
    const html = renderToStaticMarkup(
      <IntentForm intents={intents} previous={["damaged_item"]} onSubmit={async () => {}} onSkip={() => {}} />,
    );
    expect(html).toContain("Where an order or parcel is now.");
    expect(html).toMatch(/aria-pressed="false" aria-keyshortcuts="1"[^>]*><kbd aria-hidden="true">1<\/kbd><b title="order_tracking">Order tracking/);
    expect(html).toMatch(/aria-pressed="true" aria-keyshortcuts="2"[^>]*><kbd aria-hidden="true">2<\/kbd><b title="damaged_item">Damaged item/);
    expect(html).toContain("none of these");
  });
});
