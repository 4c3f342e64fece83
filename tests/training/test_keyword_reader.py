"""Reader "clause_keywords" (issue 19, item 4): each clause of a ticket reaches the actors' clause readers as
its sentence vector plus the hand-written keyword patterns' verdict per intent, so a terse note that is all
keywords and a formal letter that names none are both read."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from agents.backbone import Backbone
from agents.envs.customer_service.rules import keyword_evidence
from agents.envs.customer_service.tickets import INTENTS
from agents.spec import load_spec
from training.mappo.featurizer import CLAUSE_SLOTS, clause_featurizer, featurizer_from_spec

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service.json"


@pytest.fixture(scope="module")
def backbone():
    return Backbone.load("default")


def flags(vector) -> list[str]:
    return [intent for intent, on in zip(INTENTS, vector, strict=True) if on]


def test_the_patterns_verdict_is_per_clause_and_respects_negation():
    assert flags(keyword_evidence("where is my parcel?")) == ["order_tracking"]
    assert flags(keyword_evidence("my lamp arrived broken")) == ["damaged_item"]
    assert flags(keyword_evidence("I would be grateful for clarification")) == []  # no keyword: nothing
    assert len(keyword_evidence("")) == len(INTENTS)


def test_each_clause_of_the_block_carries_its_own_verdict(backbone):
    plain, keywords = clause_featurizer(backbone), clause_featurizer(backbone, keywords=True)
    dim = backbone.dim
    assert plain.clause_block == (CLAUSE_SLOTS, dim)
    assert keywords.clause_block == (CLAUSE_SLOTS, dim + len(INTENTS))
    assert plain._cache_tag() != keywords._cache_tag()  # a cache of one layout is never read as the other

    text = "Where is my parcel? Also my lamp arrived broken, and I want my money back"
    block = keywords.text([text])[0]
    width = dim + len(INTENTS)
    clauses = block[: CLAUSE_SLOTS * width].reshape(CLAUSE_SLOTS, width)
    mask = block[CLAUSE_SLOTS * width :]
    assert mask.tolist() == [1.0, 1.0, 1.0] + [0.0] * (CLAUSE_SLOTS - 3)
    assert [flags(c[dim:].tolist()) for c in clauses[:3]] == [
        ["order_tracking"],
        ["damaged_item"],
        ["return_refund"],
    ]
    # the sentence vectors are the plain reader's, unchanged
    same = plain.text([text])[0][: CLAUSE_SLOTS * dim].reshape(CLAUSE_SLOTS, dim)
    assert torch.allclose(clauses[:, :dim], same)


def test_the_shipped_template_reads_clauses_with_keywords(backbone):
    spec = load_spec(json.loads(EXAMPLE.read_text()))
    assert spec.environment.params["reader"] == "clause_keywords"
    block = (CLAUSE_SLOTS, backbone.dim + len(INTENTS))
    # actor_evidence "reader_plain_answers" (decision 0030): the whole ticket's vector comes first
    assert featurizer_from_spec(spec, backbone).clause_block == (*block, backbone.dim)


def test_pretraining_hides_a_share_of_sentence_vectors_and_never_the_keywords(backbone):
    from agents.envs.customer_service.tickets import load_tickets
    from training.mappo.config import MappoConfig
    from training.mappo.networks import ClauseReader
    from training.offline import VECTOR_DROPOUT, hide_vectors, intent_labels, pretrain_reader

    clauses = torch.rand(4000, 10) + 0.1
    torch.manual_seed(0)
    hidden = hide_vectors(clauses, 6, 0.25)
    zeroed = (hidden[:, :6] == 0).all(1)
    assert 0.2 < zeroed.float().mean() < 0.3
    assert torch.equal(hidden[~zeroed], clauses[~zeroed]) and torch.equal(hidden[:, 6:], clauses[:, 6:])

    # the keyword reader's pre-training hides them and still reads the training tickets
    tickets = load_tickets("train")[:300]
    featurizer = clause_featurizer(backbone, keywords=True)
    cfg = MappoConfig()
    reader = ClauseReader(1, *featurizer.clause_block, cfg.reader_hidden, cfg.reader_outputs)
    trainer = SimpleNamespace(actor=SimpleNamespace(reader=reader), featurize=featurizer, cfg=cfg)
    report = pretrain_reader(trainer, [t.text for t in tickets], intent_labels(tickets), epochs=150)
    assert VECTOR_DROPOUT > 0 and report["reader_exact_match"] > 0.8
