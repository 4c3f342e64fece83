"""Re-worded copies of clue templates: training-time text augmentation for number_guess (`augment`).

A team that reads ten phrasings of a clue learns what those ten share, not what the clue says; the
held-out phrasings then fall between its clusters. Re-worded copies fill the space around each
training template. A copy keeps every slot ({lo}, {m}, …) and the meaning: it adds a lead-in or an
adverb, swaps a word for a synonym, drops an article or the final full stop — never a negation or a
number. The word lists are generic English, not taken from the held-out templates.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

LEAD_INS = (
    "Okay,",
    "Listen:",
    "Note:",
    "So,",
    "Well,",
    "Fact:",
    "Hint:",
    "For the record,",
    "Good to know:",
    "Trust me,",
)
ADVERBS = ("really", "actually", "certainly", "indeed", "definitely", "surely")
SYNONYMS = {
    "number": ("value", "integer", "figure"),
    "lies": ("is", "stays"),
    "leaves": ("gives", "yields"),
    "remainder": ("rest", "leftover"),
    "result": ("outcome", "answer"),
    "clue": ("hint", "tip"),
    "secret": ("mystery", "unknown"),
    "tell": ("say", "assure"),
    "Divided": ("Split",),
    "divided": ("split",),
    "dividing": ("splitting",),
}
ARTICLES = frozenset({"the", "a", "an"})


def _is_slot(token: str) -> bool:
    return "{" in token


def _lead_in(tokens: list[str], rng: np.random.Generator) -> None:
    first = tokens[0]
    if not _is_slot(first) and first != "I":
        tokens[0] = first[:1].lower() + first[1:]
    tokens.insert(0, LEAD_INS[rng.integers(len(LEAD_INS))])


def _adverb(tokens: list[str], rng: np.random.Generator) -> None:
    tokens.insert(int(rng.integers(1, len(tokens))), ADVERBS[rng.integers(len(ADVERBS))])


def _synonym(tokens: list[str], rng: np.random.Generator) -> None:
    places = [i for i, t in enumerate(tokens) if t.rstrip(".,:") in SYNONYMS]
    if places:
        i = places[rng.integers(len(places))]
        word = tokens[i].rstrip(".,:")
        options = SYNONYMS[word]
        tokens[i] = options[rng.integers(len(options))] + tokens[i][len(word) :]


def _drop_article(tokens: list[str], rng: np.random.Generator) -> None:
    places = [i for i, t in enumerate(tokens) if t.lower() in ARTICLES]
    if places and len(tokens) > 3:
        i = places[rng.integers(len(places))]
        dropped = tokens.pop(i)
        if i == 0 and dropped[0].isupper() and not _is_slot(tokens[0]):
            tokens[0] = tokens[0][:1].upper() + tokens[0][1:]


def _drop_stop(tokens: list[str], rng: np.random.Generator) -> None:
    if tokens[-1].endswith("."):
        tokens[-1] = tokens[-1][:-1]


EDITS = (_lead_in, _adverb, _synonym, _drop_article, _drop_stop)


def reword(template: str, rng: np.random.Generator) -> str:
    """One re-worded copy of ``template``: one to three distinct edits, slots kept."""
    tokens = template.split(" ")
    for edit in rng.choice(len(EDITS), size=int(rng.integers(1, 4)), replace=False):
        EDITS[edit](tokens, rng)
    return " ".join(tokens)


def reworded_family(
    family: Sequence[str | tuple[str, ...]], copies: int, seed: int
) -> list[str | tuple[str, ...]]:
    """``family`` followed by ``copies`` distinct re-worded copies of each of its templates.

    A template may be a tuple (one text per digit, as in the binary families): the copy applies the
    same edits to each text. Deterministic in ``seed``.
    """
    out: list[str | tuple[str, ...]] = list(family)
    seen = set(out)
    for index, template in enumerate(family):
        made, attempt = 0, 0
        while made < copies and attempt < 50 * copies:
            draw = np.random.SeedSequence([seed, index, attempt]).generate_state(1)[0]
            attempt += 1
            if isinstance(template, tuple):
                copy = tuple(reword(text, np.random.default_rng(draw)) for text in template)
            else:
                copy = reword(template, np.random.default_rng(draw))
            if copy not in seen:
                seen.add(copy)
                out.append(copy)
                made += 1
    return out
