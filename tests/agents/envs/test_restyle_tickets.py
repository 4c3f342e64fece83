"""``augment_styles``: style copies of training tickets keep their meaning-bearing tokens and intents, are
seeded, are never made of held-out files, and a bad value is a spec error at its path."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path

from agents import places
from agents.envs.customer_service import restyle as rs
from agents.envs.customer_service.env import CustomerServiceEnv
from agents.envs.customer_service.oversample import intent_counts
from agents.envs.customer_service.tickets import Ticket, load_tickets
from agents.spec import load_spec, validate_spec
from training.mappo.from_spec import env_factory

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "customer_service.json"
ADDED = {w for phrase in (*rs.CASUAL_LEADS, *rs.FORMAL_LEADS, *rs.CASUAL_SIGN_OFFS, *rs.FORMAL_SIGN_OFFS,
                          *rs.FILLERS) for w in re.findall(r"[a-z']+", phrase.lower())}  # fmt: skip


def words(text: str) -> Counter[str]:
    """Lower-case words with contractions undone and sentence punctuation dropped."""
    return Counter(re.findall(r"[\w@/%'.:-]+", rs.drop_punctuation(rs.expand(text).lower())))


def one_key_apart(a: str, b: str) -> bool:
    diff = [(x, y) for x, y in zip(a, b, strict=False) if x != y]
    return len(a) == len(b) and len(diff) == 1 and diff[0][1] in rs.NEIGHBOURS[diff[0][0]]


def training_rows() -> list[Ticket]:
    it = [json.loads(line) for line in (ROOT / "data/it_helpdesk/train.jsonl").read_text().splitlines()]
    mine = [Ticket(id=r["id"], text=r["text"], intents=tuple(r["intents"])) for r in it]
    return mine + load_tickets("train")[:300]


def test_style_copies_keep_every_meaning_bearing_token_and_the_intents():
    changed = 0
    for ticket in training_rows():
        for k in (1, 2, 3):
            copy = rs.restyle(ticket, k)
            assert copy.intents == ticket.intents and copy.id == f"{ticket.id}~s{k}"
            before, after = words(ticket.text), words(copy.text)
            missing = before - after
            # every word survives (in any order), but for one typo one key away from the original word
            assert sum(missing.values()) <= 1, (ticket.text, copy.text)
            for word in missing:
                assert any(one_key_apart(word, w) for w in after - before), (word, copy.text)
            # numbers and identifiers never change; negations are kept
            assert all(after[w] >= n for w, n in before.items() if re.search(r"[\d@/_]", w))
            negations = len(re.findall(r"\bnot\b|\bcannot\b", rs.expand(ticket.text).lower()))
            assert len(re.findall(r"\bnot\b|\bcannot\b", rs.expand(copy.text).lower())) == negations
            # only generic lead-ins, sign-offs and fillers are added (one of them, or a word, with a typo)
            for word in after - before:
                assert word in ADDED or any(one_key_apart(w, word) for w in (*before, *ADDED)), word
            changed += copy.text != ticket.text
    assert changed > 0.9 * 3 * len(training_rows())
    assert rs.restyle(ticket, 1) == rs.restyle(ticket, 1)  # seeded by id and copy


def test_the_generic_transforms():
    rng = random.Random(0)
    assert rs.contract("I do not know, it is broken") == "I don't know, it's broken"
    assert rs.expand("It's broken and I can't log in") == "It is broken and I cannot log in"
    assert (
        rs.drop_punctuation("Hi. Version v2.3, mail a@b.com at 10:30!")
        == "Hi Version v2.3 mail a@b.com at 10:30"
    )
    assert rs.typo("VPN 42 x", rng) == "VPN 42 x"  # nothing plain and long enough to misspell
    assert rs.sign_off("Help me. Thanks!", rs.FORMAL_SIGN_OFFS, rng) == "Help me. Thanks!"
    assert rs.reorder("Hi. A is broken. B is late. Thanks!", rng) == "Hi. B is late. A is broken. Thanks!"
    assert rs.reorder("One request only.", rng) == "One request only."


def test_the_environment_restyles_its_training_file_never_a_held_out_one(tmp_path):
    rows = [Ticket(id=f"c{k}", text=f"My order {k} did not arrive. Where is it?", intents=("delivery_delay",))
            for k in range(5)]  # fmt: skip
    for name in ("mine.jsonl", "mine.test.jsonl", "mine.validation.jsonl"):
        (tmp_path / name).write_text("\n".join(t.to_json() for t in rows) + "\n", encoding="utf-8")
    train = CustomerServiceEnv(str(tmp_path / "mine.jsonl"), augment_styles=2)
    assert len(train.tickets) == 15 and train.tickets[:5] == rows
    for held in ("mine.test.jsonl", "mine.validation.jsonl"):
        assert CustomerServiceEnv(str(tmp_path / held), augment_styles=2).tickets == rows
    for split in ("validation", "test", "handwritten"):
        assert CustomerServiceEnv(split, augment_styles=3).tickets == load_tickets(split)
    assert CustomerServiceEnv(str(tmp_path / "mine.jsonl")).tickets == rows  # off by default


def test_a_specs_training_environment_is_restyled_and_its_dev_split_is_not(tmp_path):
    rows = [
        Ticket(id=f"c{k}", text=f"I cannot log in to account {k}.", intents=("complaint",)) for k in range(4)
    ]
    for name in ("shop.jsonl", "shop.validation.jsonl"):
        (tmp_path / name).write_text("\n".join(t.to_json() for t in rows) + "\n", encoding="utf-8")
    doc = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    doc["environment"]["params"] |= {"tickets": "shop", "augment_styles": 1, "min_rows_per_intent": 6}
    before = places.places()
    places.configure(None, tmp_path, None, None)
    try:
        make = env_factory(load_spec(doc))
        assert intent_counts(make("train").tickets) == {"complaint": 12}  # oversampled to 6, then restyled
        assert make("validation").tickets == rows
    finally:
        places.configure(before.models_dir, before.tickets_dir, before.runs_dir, before.datasets_dir)


def test_a_bad_number_of_copies_is_a_spec_error_at_its_path():
    doc = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    for bad in (-1, 11, "many", 2.5):
        doc["environment"]["params"]["augment_styles"] = bad
        assert "$.environment.params.augment_styles" in {e.path for e in validate_spec(doc)}, bad
    doc["environment"]["params"]["augment_styles"] = 2
    assert validate_spec(doc) == []
