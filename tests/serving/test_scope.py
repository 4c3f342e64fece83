"""The scope gate of a routing team (serving/scope.py) on a catalogue no code knows: the IT-helpdesk
dataset's intents and labelled tickets on the default backbone, against customer-service requests that are
outside it. The floor keeps 99.5 % of the dev tickets (each scored leaving itself out, decision 0031);
tickets from another domain fall under it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from serving.scope import KEEP, ScopeGate, handoff_text, in_scope_floor

DATA = Path(__file__).resolve().parents[2] / "data"


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def helpdesk():
    from agents.backbone import Backbone

    backbone = Backbone.load("default")
    catalogue = json.loads((DATA / "it_helpdesk" / "catalogue.json").read_text())["intents"]
    dev = rows(DATA / "it_helpdesk" / "dev.jsonl")
    gate = ScopeGate(catalogue, rows(DATA / "it_helpdesk" / "train.jsonl"), backbone.encode, dev=dev)
    return gate, dev


@pytest.mark.slow  # embeds the dataset's 356 tickets (~25 s on a busy 2-core machine)
def test_the_floor_keeps_the_share_of_dev_tickets_it_promises(helpdesk):
    gate, dev = helpdesk
    assert gate.floor_from == "dev" and len(gate.floor_scores) == len(dev)
    assert (gate.floor_scores > gate.floor).mean() >= KEEP - 1e-9
    assert gate.floor_scores.max() < 0.999  # each dev ticket left out of the anchors it is scored against
    assert 0.2 < gate.floor < 0.9  # a cosine, chosen on data, not 0 (everything) or 1 (nothing)


@pytest.mark.slow  # embeds the dataset's 356 tickets (~25 s on a busy 2-core machine)
def test_requests_of_another_domain_fall_under_the_floor(helpdesk):
    gate, _ = helpdesk
    outside = [r["text"] for r in rows(DATA / "customer_service" / "out_of_scope_dev.jsonl")]
    outside += [r["text"] for r in rows(DATA / "customer_service" / "handwritten.jsonl")[:40]]
    answered = (gate.scores(outside) > gate.floor).mean()
    assert answered <= 0.25, answered  # measured 2026-12-05: 0.13 (bench/datasets.py reports the test set)
    check = gate.check("thanks, that's all!")
    assert check["in_scope"] is False and check["score"] <= check["floor"]
    assert check["offers"][0] == "password_reset" and check["items"] == 12


@pytest.mark.slow  # embeds the dataset's 356 tickets (~25 s on a busy 2-core machine)
def test_a_ticket_of_the_catalogue_is_in_scope_and_names_its_nearest_intent(helpdesk):
    gate, _ = helpdesk
    check = gate.check("my VPN keeps disconnecting every few minutes when I work from home")
    assert check["in_scope"] is True and check["nearest"] == "vpn_access"


@pytest.mark.slow  # embeds the dataset's 356 tickets (~25 s on a busy 2-core machine)
def test_without_dev_tickets_the_floor_comes_from_the_labelled_tickets_left_out_in_turn(helpdesk):
    gate, _ = helpdesk
    catalogue = [{"name": n, "description": n.replace("_", " ")} for n in gate.intents]
    alone = ScopeGate(catalogue, rows(DATA / "it_helpdesk" / "train.jsonl")[:60], gate._embed)
    assert alone.floor_from == "leave_one_out" and 0.0 < alone.floor < 1.0


def test_the_floor_rule_and_the_handoff_words():
    # 3 scores: none may drop, and the 1 % quantile lies beyond the lowest: mean - 2.33 sd (0.7 - 2.33 * 0.2)
    assert in_scope_floor([0.9, 0.5, 0.7], keep=0.99) == pytest.approx(0.7 - 2.3263 * 0.2, abs=1e-4)
    assert in_scope_floor([0.6, 0.6]) == pytest.approx(0.6 - 1e-6)  # no spread: just under them
    scores = [k / 200 for k in range(200)]
    assert in_scope_floor(scores, keep=0.99) == pytest.approx(2 / 200 - 1e-6)  # two of 200 may drop
    assert in_scope_floor([]) == 0.0
    text = handoff_text("IT helpdesk")
    assert "cannot help" in text and "member of staff" in text and "IT helpdesk" in text


def test_a_small_catalogue_turns_away_what_it_has_no_intent_for():
    from agents.backbone import Backbone

    catalogue = [{"name": "vpn_access", "description": "Cannot connect to the VPN from home."},
                 {"name": "printer_issue", "description": "A printer that jams or will not print."}]  # fmt: skip
    labelled = [{"text": t, "intents": [i]} for i, t in (
        ("vpn_access", "the vpn drops every hour"), ("vpn_access", "cannot connect to the vpn from the hotel"),
        ("printer_issue", "printer on floor 2 is jammed"), ("printer_issue", "my print jobs never come out"))]  # fmt: skip
    gate = ScopeGate(catalogue, labelled, Backbone.load("default").encode)
    assert gate.check("the VPN won't connect since this morning")["in_scope"] is True
    assert gate.check("what's a good lasagne recipe?")["in_scope"] is False


@pytest.fixture(scope="module")
def shop():
    """The shipped customer-service catalogue's gate as a deployment builds it (a share of its labelled
    tickets, to stay quick): floor on dev tickets, contrasted with the generated out-of-scope tickets."""
    from agents.backbone import Backbone
    from agents.envs.customer_service import interface
    from agents.envs.customer_service.catalogue import SHIPPED

    catalogue = [{"name": n, "description": d} for n, d in SHIPPED.descriptions.items()]
    train = rows(DATA / "customer_service" / "train.jsonl")[::4]
    dev = rows(DATA / "customer_service" / "validation.jsonl")[::3]
    outside = interface.out_of_scope_tickets({})
    return ScopeGate(catalogue, train, Backbone.load("default").encode, dev=dev, outside=outside)


@pytest.mark.slow  # embeds ~1,400 tickets with MiniLM (~40 s alone, minutes on a loaded 2-core machine)
@pytest.mark.timeout(1200)
def test_the_shop_gate_turns_away_what_no_intent_covers_and_keeps_its_own_tickets(shop):
    assert shop.describe()["score"] == "contrast_5" and shop.describe()["outside"] == 600
    outside = ["thanks so much, that's everything!", "My card was charged twice for the same order",
               "can I swap these trainers for a half size bigger instead of sending them back for money?",
               "how do I change the password on my account", "are you hiring at the warehouse?"]  # fmt: skip
    inside = ["where is my parcel? it was meant to arrive on monday", "the lamp arrived with a cracked base",
              "I need to change the delivery address on my order", "do you have this jacket in a waterproof version?",
              "I want to return the shoes and get my money back"]  # fmt: skip
    for text in outside:
        check = shop.check(text)
        assert check["in_scope"] is False and check["score"] <= check["floor"], (text, check)
    for text in inside:
        assert shop.check(text)["in_scope"] is True, text
