"""Style copies of a routing run's training tickets (the ``augment_styles`` parameter, `CustomerServiceParams`).

Other authors write the same request in another register: a casual note in lower case without punctuation
and with a typo, or a formal letter with a salutation and a sign-off. A dataset written by a few people
shows few of these. With ``augment_styles: N`` every training ticket is also played as N rewritten copies
(same intents, id ``<id>~s<k>``), each drawn in one register from generic, meaning-keeping transforms that
know no domain: lead-ins and sign-offs, lower case, dropped sentence punctuation, one keyboard-adjacent
typo, contractions made or undone, a filler word, and, for a ticket with several requests, its sentences in
another order. The word lists are generic English; nothing is taken from a test set. The draw is seeded by
the ticket's id and the copy's number, so a file and a value always give the same tickets.

Held-out tickets (dev, test, out-of-scope, hand-written sets: `oversample.held_out`) are never restyled.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from agents.envs.customer_service.oversample import held_out
from agents.envs.customer_service.tickets import Ticket

CASUAL_LEADS = ("hi,", "hey,", "hi there,", "hello,", "hey team,", "morning,", "quick one:", "ok so")
FORMAL_LEADS = (
    "Dear Sir or Madam,",
    "Good morning,",
    "Hello, I hope you are well.",
    "To whom it may concern,",
    "I am writing about the following.",
)
CASUAL_SIGN_OFFS = ("thanks", "thx", "cheers", "ty", "thanks in advance!", "any help appreciated")
FORMAL_SIGN_OFFS = ("Kind regards.", "Many thanks for your help.", "Best wishes.", "Thank you in advance.")
FILLERS = ("so", "basically", "honestly", "anyway", "just so you know", "to be honest")
CONTRACTIONS = (
    ("I am", "I'm"), ("do not", "don't"), ("does not", "doesn't"), ("did not", "didn't"),
    ("cannot", "can't"), ("is not", "isn't"), ("are not", "aren't"), ("was not", "wasn't"),
    ("will not", "won't"), ("would not", "wouldn't"), ("could not", "couldn't"), ("have not", "haven't"),
    ("has not", "hasn't"), ("it is", "it's"), ("that is", "that's"), ("there is", "there's"),
    ("I will", "I'll"), ("we are", "we're"), ("you are", "you're"),
)  # fmt: skip
KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
END_PUNCTUATION = re.compile(r"[.,!?;:]+(?=\s|$)")
PLAIN_WORD = re.compile(r"^[a-z]{5,}$")
SIGNED = re.compile(r"\b(thanks?|thx|regards|cheers|wishes)\b[^.!?]*[.!?]?\s*$", re.IGNORECASE)
SHORT = 3  # words: an opening greeting or a closing thanks this short stays where it is when reordering


def _neighbours() -> dict[str, str]:
    """Each letter's neighbours on the same row of a QWERTY keyboard."""
    out: dict[str, str] = {}
    for row in KEY_ROWS:
        for k, key in enumerate(row):
            out[key] = row[max(0, k - 1) : k] + row[k + 1 : k + 2]
    return out


NEIGHBOURS = _neighbours()


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def lead_in(text: str, leads: Sequence[str], rng: random.Random) -> str:
    """The text after a salutation of the register."""
    return f"{rng.choice(leads)} {text}"


def sign_off(text: str, endings: Sequence[str], rng: random.Random) -> str:
    """The text followed by a sign-off of the register (a full stop first where the text has none); the
    text unchanged where it already ends with thanks or regards."""
    body = text.rstrip()
    if SIGNED.search(body[-40:]):
        return text
    return f"{body}{'' if body.endswith(('.', '!', '?')) else '.'} {rng.choice(endings)}"


def drop_punctuation(text: str) -> str:
    """Sentence punctuation removed where it ends a word (``v2.3``, ``a@b.com`` and ``10:30`` keep theirs)."""
    return re.sub(r"\s+", " ", END_PUNCTUATION.sub("", text)).strip()


def typo(text: str, rng: random.Random) -> str:
    """One plain lower-case word of five letters or more with one inner letter replaced by a neighbouring
    key (tokens with digits, capitals or symbols are never touched); the text unchanged when none."""
    words = text.split(" ")
    spots = [k for k, w in enumerate(words) if PLAIN_WORD.match(w)]
    if not spots:
        return text
    k = rng.choice(spots)
    word = words[k]
    at = rng.randrange(1, len(word) - 1)
    options = NEIGHBOURS.get(word[at], "")
    if options:
        words[k] = word[:at] + rng.choice(options) + word[at + 1 :]
    return " ".join(words)


def _swap(text: str, old: str, new: str) -> str:
    pattern = re.compile(rf"\b{re.escape(old)}(?![\w'])", re.IGNORECASE)
    return pattern.sub(lambda m: new if m.group(0)[0].islower() or new[0] == "I" else _first_upper(new), text)


def contract(text: str) -> str:
    """Long forms made short (``do not`` -> ``don't``); negations are kept."""
    for long, short in CONTRACTIONS:
        text = _swap(text, long, short)
    return text


def expand(text: str) -> str:
    """Short forms made long (``don't`` -> ``do not``); negations are kept."""
    for long, short in CONTRACTIONS:
        text = _swap(text, short, long)
    return text


def filler(text: str, rng: random.Random) -> str:
    """A filler word at the start of one sentence."""
    parts = SENTENCE_END.split(text)
    k = rng.randrange(len(parts))
    word = rng.choice(FILLERS)
    parts[k] = f"{word}, {parts[k][:1].lower()}{parts[k][1:]}" if parts[k] else parts[k]
    if k == 0:
        parts[0] = _first_upper(parts[0])
    return " ".join(parts)


def reorder(text: str, rng: random.Random) -> str:
    """The sentences in another order, a short opening greeting and closing thanks kept in place (the text
    unchanged when fewer than two sentences are left to move)."""
    parts = SENTENCE_END.split(text.strip())
    head = parts[:1] if len(parts[0].split()) <= SHORT else []
    tail = parts[-1:] if len(parts) > len(head) and len(parts[-1].split()) <= SHORT else []
    middle = parts[len(head) : len(parts) - len(tail)]
    if len(middle) < 2:
        return text
    order = list(range(len(middle)))
    while order == sorted(order):
        rng.shuffle(order)
    moved = [middle[k] if middle[k][-1:] in ".!?" else f"{middle[k]}." for k in order]
    return " ".join([*head, *moved, *tail])


def casual(text: str, rng: random.Random) -> str:
    """A casual note: contractions, maybe a filler, a lead-in, a sign-off, lower case, no punctuation,
    a typo (each but the contractions with probability one half)."""
    text = contract(text)
    steps: list[Callable[[str], str]] = [
        lambda t: filler(t, rng),
        lambda t: lead_in(t, CASUAL_LEADS, rng),
        lambda t: sign_off(t, CASUAL_SIGN_OFFS, rng),
        str.lower,
        drop_punctuation,
        lambda t: typo(t, rng),
    ]
    for step in steps:
        if rng.random() < 0.5:
            text = step(text)
    return text


def formal(text: str, rng: random.Random) -> str:
    """A formal letter: contractions undone, a salutation, a sign-off (each of the two with probability
    0.7), the first letter in upper case."""
    text = _first_upper(expand(text))
    if rng.random() < 0.7:
        text = lead_in(text, FORMAL_LEADS, rng)
    if rng.random() < 0.7:
        text = sign_off(text, FORMAL_SIGN_OFFS, rng)
    return text


def restyle(ticket: Ticket, copy: int) -> Ticket:
    """Style copy number ``copy`` (from 1) of ``ticket``: same intents, another register; seeded by both."""
    rng = random.Random(f"{ticket.id}/{copy}")
    text = ticket.text.strip()
    if len(ticket.intents) > 1 and rng.random() < 0.5:
        text = reorder(text, rng)
    text = (casual if rng.random() < 0.5 else formal)(text, rng)
    return Ticket(id=f"{ticket.id}~s{copy}", text=text, intents=ticket.intents)


def with_styles(tickets: Sequence[Ticket], source: str | Path, copies: int) -> list[Ticket]:
    """The tickets an environment plays from file ``source``: each followed by ``copies`` style copies,
    unless the file holds held-out tickets or ``copies`` is 0."""
    if copies <= 0 or held_out(source):
        return list(tickets)
    return [*tickets, *(restyle(t, k) for t in tickets for k in range(1, copies + 1))]
