"""The scope gate's second signal (serving/scope_none.py, decision 0041) on hand-made vectors, no backbone: with
out-of-scope and labelled in-scope tickets, a "none of these" regression is fitted beside the contrast score,
and a ticket is turned away only when the score is at or under the floor AND the in-scope probability is under
the threshold; without out-of-scope tickets the gate is what it was; the store keeps the regression's inputs, so
a gate read from it fits the same regression."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from serving.scope import NONE_THRESHOLD, STORE_FILE, ScopeGate, handoff_detail
from serving.scope_none import NONE, NoneClass

CATALOGUE = [{"name": "vpn", "description": "vpn"}, {"name": "printer", "description": "printer"}]
VECTORS = {  # dims: vpn, printer, a wording only the dev split has, things outside the catalogue
    "vpn: vpn": [1.0, 0.0, 0.0, 0.0],
    "printer: printer": [0.0, 1.0, 0.0, 0.0],
    "the vpn drops": [0.9, 0.1, 0.0, 0.0],
    "vpn slow": [0.95, 0.0, 0.1, 0.0],
    "vpn gone": [0.9, 0.0, 0.2, 0.0],
    "vpn again": [0.92, 0.05, 0.15, 0.0],
    "vpn down": [0.97, 0.0, 0.05, 0.05],
    "printer jammed": [0.1, 0.9, 0.0, 0.0],
    "printer offline": [0.0, 0.95, 0.1, 0.0],
    "printer empty": [0.05, 0.97, 0.0, 0.1],
    "tunnel keeps falling over": [0.9, 0.0, 0.3, 0.0],
    "tunnel falls over again": [0.85, 0.05, 0.3, 0.05],
    "weather tomorrow": [0.0, 0.1, 0.1, 0.9],
    "lasagne recipe": [0.0, 0.0, 0.0, 1.0],
    "football scores": [0.1, 0.0, 0.0, 0.95],
    "cinema times": [0.0, 0.0, 0.2, 0.95],
    "printer on fire": [0.0, 1.0, 0.0, 0.0],  # in scope, but few anchors near it: under the dense vpn floor
}
EXAMPLES = [
    {"text": t, "intents": ["vpn"]}
    for t in ("the vpn drops", "vpn slow", "vpn gone", "vpn again", "vpn down")
]
EXAMPLES += [
    {"text": t, "intents": ["printer"]} for t in ("printer jammed", "printer offline", "printer empty")
]
DEV = [{"text": t, "intents": ["vpn"]} for t in ("tunnel keeps falling over", "tunnel falls over again")]
OUTSIDE = [
    {"text": t, "intents": []}
    for t in ("weather tomorrow", "lasagne recipe", "football scores", "cinema times")
]


def embed(texts):
    return torch.tensor([VECTORS[t] for t in texts], dtype=torch.float32)


def gate(outside=OUTSIDE, examples=EXAMPLES, store=None) -> ScopeGate:
    return ScopeGate(CATALOGUE, examples, embed, dev=DEV, outside=outside, store=store, backbone_key="toy")


def test_a_ticket_under_the_floor_that_the_none_class_reads_as_in_scope_is_kept():
    check = gate().check("printer on fire")
    assert check["score"] <= check["floor"]  # the contrast alone would turn it away
    assert check["in_scope_probability"] >= NONE_THRESHOLD and check["threshold"] == NONE_THRESHOLD
    assert check["in_scope"] is True and check["nearest"] == "printer"


def test_a_ticket_both_signals_reject_is_turned_away_and_its_fault_says_both():
    check = gate().check("lasagne recipe")
    assert check["score"] <= check["floor"] and check["in_scope_probability"] < NONE_THRESHOLD
    assert check["in_scope"] is False
    detail = handoff_detail(check)
    assert (
        "scope floor" in detail and "in-scope probability" in detail and detail.endswith("handed to a person")
    )


def test_verdicts_agree_with_check_and_describe_names_the_signal():
    built = gate()
    texts = ["printer on fire", "lasagne recipe", "the vpn drops", "weather tomorrow"]
    verdicts = built.verdicts(texts)
    assert [bool(v) for v in verdicts["in_scope"]] == [built.check(t)["in_scope"] for t in texts]
    assert verdicts["in_scope_probability"][0] == pytest.approx(
        built.check(texts[0])["in_scope_probability"], abs=1e-4
    )
    assert (
        built.describe()["second_signal"] == "none_class" and built.describe()["threshold"] == NONE_THRESHOLD
    )


@pytest.mark.parametrize(
    "outside, examples", [((), EXAMPLES), (OUTSIDE, ())], ids=["no_outside", "no_labelled"]
)
def test_without_out_of_scope_or_labelled_tickets_the_gate_is_unchanged(outside, examples):
    built = gate(outside=outside, examples=examples)
    assert built.none_class is None and built.describe()["second_signal"] is None
    for text in ("printer on fire", "lasagne recipe", "the vpn drops"):
        check = built.check(text)
        assert check["in_scope_probability"] is None and check["threshold"] is None
        assert check["in_scope"] is (check["score"] > check["floor"])  # the score and floor alone decide
        assert "in-scope probability" not in handoff_detail(check)


def test_the_store_keeps_the_regressions_inputs(tmp_path):
    first = gate(store=tmp_path)
    kept = np.load(tmp_path / STORE_FILE)
    labelled = kept["anchors"][len(CATALOGUE) : len(CATALOGUE) + len(EXAMPLES)]
    expected = torch.nn.functional.normalize(embed([r["text"] for r in EXAMPLES]), dim=1).numpy()
    assert np.allclose(labelled, expected) and len(kept["outside"]) == len(OUTSIDE)
    second = gate(store=tmp_path)
    assert second.describe()["vectors"] == "store"
    assert np.array_equal(second.none_class.model.coef_, first.none_class.model.coef_)
    for text in ("printer on fire", "lasagne recipe"):
        assert second.check(text) == first.check(text)


def test_the_fit_takes_a_row_per_intent_and_a_none_label_no_intent_has():
    inside = np.eye(3)[:2]
    fitted = NoneClass.fit(inside, [("a", "b"), ()], np.eye(3)[2:])
    assert list(fitted.model.classes_) == [
        "a",
        "b",
        NONE,
    ]  # the two-intent row once per intent, the other none
    clash = NoneClass.fit(inside, [(NONE,), ("b",)], np.eye(3)[2:])
    assert clash.none_label == NONE + "_" and NONE in clash.model.classes_
    assert (
        NoneClass.fit(inside, [(), ()], np.eye(3)[2:]) is None
        and NoneClass.fit(inside, [("a",), ("b",)], np.zeros((0, 3))) is None
    )
