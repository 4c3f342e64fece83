"""Drift traffic for `bench/evolve.py`: customer-service tickets in styles the ticket generator never wrote.

The stream mixes the repository's sets the generator did not produce (`holdout_styles`, the two hand-written
sets) with five families written here for the benchmark: a voice-call transcript, a pasted chat log, a
request made on someone else's behalf, a bullet list and a story told before the ask. Each family's
sentences are its own (none comes from `agents.envs.customer_service.tickets`); the wording of what is
asked, per intent, is shared by the five families so that a correction of one family teaches the others
something, as real drift would.

Only the benchmark reads this module: no model, rule or selection step does.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "data" / "customer_service"
REPOSITORY_SETS = ("holdout_styles", "handwritten", "handwritten_voices")

ITEMS = ("stand mixer", "duvet", "trail runners", "phone tripod", "kettle", "desk lamp", "yoga mat",
         "rucksack", "bluetooth speaker", "car seat", "coffee grinder", "winter coat")  # fmt: skip

# what a customer asks, per intent (``{item}`` is filled in)
ASKS: dict[str, tuple[str, ...]] = {
    "product_question": (
        "does the {item} come with a plug for the UK or do I need an adapter",
        "is the {item} ok to put through the dishwasher or hand wash only",
        "how heavy is the {item} once it's unpacked",
        "what's the {item} actually made of, the listing doesn't say",
    ),
    "recommendation": (
        "what would you point me to if I want something like the {item} but cheaper",
        "which {item} do most people end up happy with, I can't decide between three",
        "I need a present for my nan, would a {item} be a good shout or something else",
        "help me pick a {item} that will last more than a year",
    ),
    "order_tracking": (
        "where has my parcel with the {item} got to, the link you sent shows nothing",
        "has the {item} even left your warehouse yet",
        "can you see which van the {item} is on today",
        "my tracking number for the {item} just says label created, what does that mean",
    ),
    "delivery_delay": (
        "the {item} was meant to turn up on Tuesday and it's now Friday",
        "you promised the {item} within three days, that was two weeks back",
        "the {item} keeps getting pushed back a day every morning",
        "still waiting on the {item}, it's way past the date on my receipt",
    ),
    "address_change": (
        "I've moved flat, can the {item} go to my new place instead",
        "please send the {item} to my office rather than home",
        "I typed the wrong postcode for the {item}, can you fix it before it ships",
        "can the courier leave the {item} at my neighbour's house number 14 instead",
    ),
    "return_refund": (
        "I'd like my money back for the {item}, it's not what I wanted",
        "how do I send the {item} back, I changed my mind",
        "can I cancel the {item} and get the cash returned to my card",
        "the {item} doesn't suit me, I want to return it",
    ),
    "damaged_item": (
        "the {item} showed up smashed in the box",
        "the {item} arrived with a big crack down one side",
        "half the {item} was snapped when I opened it",
        "the {item} came dented and it won't switch on",
    ),
    "complaint": (
        "your helpline kept me on hold for an hour and then cut me off",
        "nobody has replied to any of my messages in a week, this is shocking service",
        "the courier was really rude to my elderly dad at the door",
        "I'm fed up with being passed around between your departments",
    ),
}


def _voice(asks: list[str], rng: random.Random) -> str:
    fillers = ("um", "so", "yeah so basically", "right, erm")
    parts = [f"{rng.choice(fillers)} {a}" for a in asks]
    return "[call transcript] hi yeah " + " ... ".join(parts) + " ... okay thanks bye"


def _chat(asks: list[str], rng: random.Random) -> str:
    lines = ["Agent: Hi, how can I help today?"]
    for a in asks:
        lines.append(f"Customer: {a}")
        lines.append(rng.choice(("Agent: Let me check.", "Agent: One moment please.")))
    return " | ".join(lines[:-1])


def _on_behalf(asks: list[str], rng: random.Random) -> str:
    who = rng.choice(("my husband", "my flatmate", "my mum", "a client of ours"))
    return f"Writing for {who} who isn't online: " + "; also ".join(asks) + "."


def _bullets(asks: list[str], rng: random.Random) -> str:
    return "Two minutes of your time please:\n" + "\n".join(f"- {a}" for a in asks)


def _story(asks: list[str], rng: random.Random) -> str:
    opener = rng.choice(
        ("I've shopped with you for years and never had to write in before.",
         "Long story short, it has been a bad week.",
         "I ordered this in a hurry on my lunch break.")
    )  # fmt: skip
    return f"{opener} Anyway, {' and '.join(asks)}."


FAMILIES = {"voice": _voice, "chat_log": _chat, "on_behalf": _on_behalf, "bullets": _bullets, "story": _story}


def written_families(per_family: int, seed: int = 0) -> list[dict[str, Any]]:
    """``per_family`` tickets of each family written here: one intent, or two (a quarter of them)."""
    rng = random.Random(seed)
    names = sorted(ASKS)
    out = []
    for family, write in FAMILIES.items():
        for i in range(per_family):
            intents = rng.sample(names, 2 if rng.random() < 0.25 else 1)
            item = rng.choice(ITEMS)
            asks = [rng.choice(ASKS[name]).format(item=item) for name in intents]
            out.append(
                {"id": f"drift-{family}-{i:03d}", "text": write(asks, rng), "intents": sorted(intents),
                 "family": family}
            )  # fmt: skip
    return out


def repository_sets() -> list[dict[str, Any]]:
    out = []
    for name in REPOSITORY_SETS:
        for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                out.append({"id": row["id"], "text": row["text"], "intents": sorted(row["intents"]),
                            "family": name})  # fmt: skip
    return out


def drift_stream(per_family: int = 120, seed: int = 0) -> list[dict[str, Any]]:
    """The whole drift traffic, shuffled with ``seed`` (families interleaved as they would arrive)."""
    tickets = repository_sets() + written_families(per_family, seed)
    random.Random(seed).shuffle(tickets)
    return tickets
