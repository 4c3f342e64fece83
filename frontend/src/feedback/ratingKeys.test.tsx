import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { hotkeyOf, TAG_KEYS, type KeyLike } from "./hotkeys";
import { SKIP_KEY } from "./intentKeys";
import { RatingForm } from "./RatingForm";
import { NO_RATING, onRatingKey, type RatingDraft } from "./ratingKeys";

const TAGS = ["rude", "wrong intent", "too long"];

/** Presses `keys` in turn (as the page's hotkey reader passes them), collecting effects and notices. */
function typed(keys: string[], tags = TAGS) {
  let draft: RatingDraft = { value: null, chosen: [] };
  const said: string[] = [];
  for (const key of keys) {
    const press: KeyLike = { key, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false };
    const hotkey = hotkeyOf(press, "other");
    if (hotkey === null) continue;
    const outcome = onRatingKey(draft, hotkey, tags);
    draft = outcome.draft;
    if (outcome.effect) said.push(outcome.effect);
    if (outcome.notice) said.push(outcome.notice);
  }
  return { draft, said };
}

describe("rating keys", () => {
  it("Enter with no rating says to choose one first, and submits once one is chosen", () => {
    expect(typed(["Enter"]).said).toEqual([NO_RATING]);
    expect(NO_RATING).toBe("choose a rating (1–5) first");
    expect(typed(["Enter", "4", "Enter"])).toEqual({ draft: { value: 4, chosen: [] }, said: [NO_RATING, "submit"] });
  });

  it("S skips the item (upper or lower case), as in the intents queue, and no tag takes S", () => {
    expect(typed(["S"]).said).toEqual(["skip"]);
    expect(typed(["s"]).said).toEqual(["skip"]);
    expect(TAG_KEYS).not.toContain(SKIP_KEY);
    const many = Array.from({ length: 20 }, (_, i) => `tag ${i}`);
    expect(typed(["s"], many)).toEqual({ draft: { value: null, chosen: [] }, said: ["skip"] });
  });

  it("tag letters toggle tags; other keys are the page's", () => {
    expect(typed(["w", "q", "w"]).draft.chosen).toEqual(["rude"]);
    expect(onRatingKey({ value: null, chosen: [] }, "n", TAGS).used).toBe(false);
  });

  it("offers a skip button and names S in the legend", () => {
    const html = renderToStaticMarkup(<RatingForm tags={TAGS} previous={null} onSubmit={async () => {}} onSkip={() => {}} />);
    expect(html).toContain("Skip for now");
    expect(html).toMatch(/<kbd>S<\/kbd><\/span> skip/);
  });
});
