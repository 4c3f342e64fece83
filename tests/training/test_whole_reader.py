"""Clause readers with a whole-ticket head (``environment.params.reader_whole``, issue 35 item 6): the clause
block starts with the whole ticket's unit sentence vector, the reader adds a linear head's logits on it to
the clauses' max, the warm start fits that head with the clauses, and the product path (spec → run →
checkpoint → runtime) rebuilds the same reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from agents.backbone import Backbone
from agents.envs.customer_service.env import CustomerServiceEnv
from agents.envs.customer_service.tickets import INTENTS, Ticket
from agents.spec import load_spec
from serving.runtime import TeamRuntime
from tests.fixtures.tiny_models import build_tiny_causal_lm
from training.mappo import MappoConfig, MappoTeam, MappoTrainer, run_spec
from training.mappo.featurizer import CLAUSE_SLOTS, clause_featurizer
from training.mappo.networks import ClauseReader
from training.offline import pretrain_reader

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service.json"
TRAIN = Path(__file__).resolve().parents[2] / "data" / "customer_service" / "train.jsonl"

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def backbone():
    return Backbone.load("default")


def test_the_block_starts_with_the_whole_tickets_unit_vector(backbone):
    plain, whole = clause_featurizer(backbone), clause_featurizer(backbone, whole=True)
    dim = backbone.dim
    assert plain.clause_block == (CLAUSE_SLOTS, dim)
    assert whole.clause_block == (CLAUSE_SLOTS, dim, dim)
    assert plain._cache_tag() != whole._cache_tag()  # a cache of one layout is never read as the other
    text = "Where is my parcel? Also my lamp arrived broken"
    block = whole.text([text])[0]
    expected = torch.nn.functional.normalize(backbone.encode([text]).float()[0], dim=0)
    assert torch.allclose(block[:dim], expected, atol=1e-6)
    assert torch.allclose(block[dim:], plain.text([text])[0])  # the clause block itself is unchanged


def test_a_whole_head_starts_at_zero_and_adds_its_logits():
    torch.manual_seed(0)
    reader = ClauseReader(2, slots=2, dim=3, hidden=4, outputs=5, whole=6)
    assert reader.width == 6 + 2 * (3 + 1)
    block = torch.randn(1, 2, reader.width)
    block[..., -2:] = torch.tensor([1.0, 0.0])  # one real clause
    clauses_only = reader._clause_logits(block[..., 6:])
    assert torch.equal(reader.logits(block), clauses_only)  # zero head: the clause reader as it was
    with torch.no_grad():
        reader.whole.bias.fill_(1.5)
    assert torch.allclose(reader.logits(block), clauses_only + 1.5)


def test_the_warm_start_fits_the_whole_head_and_copies_it_to_every_agent(backbone):
    texts = {
        "where is my parcel right now": "order_tracking",
        "can you track my order please": "order_tracking",
        "the mug arrived broken": "damaged_item",
        "my lamp came smashed in the box": "damaged_item",
        "i want my money back for the shoes": "return_refund",
        "please refund the jacket": "return_refund",
    }
    tickets = [Ticket(f"t{i}", text, (intent,)) for i, (text, intent) in enumerate(texts.items())]
    featurizer = clause_featurizer(backbone, whole=True)
    cfg = MappoConfig(updates=1, hidden=16, eval_every=0, checkpoint_every=0, reader_fixed=True)
    trainer = MappoTrainer(
        cfg, MappoTeam(lambda split: CustomerServiceEnv(tickets=tickets), featurizer=featurizer)
    )
    head = trainer.actor.reader.whole
    assert head is not None and not head.weight.any()
    labels = torch.tensor([[i in t.intents for i in INTENTS] for t in tickets], dtype=torch.float32)
    stats = pretrain_reader(trainer, [t.text for t in tickets], labels, epochs=150)
    assert stats["reader_exact_match"] == 1.0
    assert head.weight.abs().sum() > 0 and not head.weight.requires_grad  # fitted, then fixed
    assert torch.equal(head.weight[1:], head.weight[:1].expand_as(head.weight[1:]))


def test_a_spec_with_whole_readers_trains_and_the_runtime_rebuilds_the_same_team(tmp_path):
    backbone = Backbone.load(str(build_tiny_causal_lm(tmp_path / "lm")), pooling="mean", max_length=32)
    tickets = tmp_path / "tickets.jsonl"
    tickets.write_text("".join(TRAIN.read_text().splitlines(keepends=True)[:24]))
    doc = json.loads(EXAMPLE.read_text())
    doc["backbone"] = {"model": backbone.name, "pooling": "mean", "max_length": 32}
    doc["environment"]["params"] |= {
        "tickets": str(tickets),
        "reader": "clause_keywords",
        "reader_whole": True,
        "actor_evidence": "reader",  # the whole head fitted with the clauses, not a plain classifier
        "reader_epochs": 5,
        "warm_start_episodes": 4,
        "warm_start_epochs": 1,
    }
    doc["training"] |= {"episodes": 4, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0}
    doc["circuit_breaker"] |= {"confidence_threshold": 0.0, "step_limit": 9}
    spec = load_spec(doc)
    assert run_spec(spec, tmp_path / "run", backbone=backbone)["status"] == "succeeded"
    checkpoint = tmp_path / "run" / "checkpoints" / "mappo" / "last"
    runtime = TeamRuntime.from_spec_checkpoint(spec, checkpoint, backbone=backbone)
    reader = runtime.model.policy.actor.reader
    assert reader.whole_dim == backbone.dim
    weights = load_file(str(checkpoint / "model.safetensors"))
    assert weights["actor.reader.whole.weight"].abs().sum() > 0  # the warm start fitted it
    assert all(torch.equal(weights[f"actor.reader.{k}"], v) for k, v in reader.state_dict().items())
    answer = runtime.run_ticket("my lamp arrived broken and I want a refund")
    assert answer["decisions"] and answer["sources"]["model"] == answer["steps"] > 0
