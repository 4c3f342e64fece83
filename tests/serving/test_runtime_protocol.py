"""An HCP team end to end: MAPPO trains with compressed messages, the checkpoint carries the codebook, the
runtime reads messages with that same codebook and reports the link's statistics.

A tiny Llama-style backbone (built on the spot) stands in for MiniLM.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.backbone import Backbone
from agents.envs.customer_service.tickets import Ticket
from agents.protocol.link import HcpLink, LinkConfig
from agents.spec import load_spec
from serving.runtime import TeamRuntime
from tests.fixtures.quick_team import QUICK_START, QUICK_TEAM
from tests.fixtures.tiny_models import build_tiny_causal_lm
from training.events import EventStream
from training.mappo import CheckpointError, run_spec

torch.set_num_threads(1)

TICKETS = [
    Ticket("t-1", "my lamp arrived broken and I want a refund", ("return_refund", "damaged_item")),
    Ticket("t-2", "where is my order? it is late", ("order_tracking", "delivery_delay")),
    Ticket("t-3", "does the kettle come in blue?", ("product_question",)),
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = build_tiny_causal_lm(tmp_path_factory.mktemp("tiny_lm"))
    return Backbone.load(str(path), pooling="mean", max_length=32)


def hcp_spec(tiny, protocol="hcp", episodes=120):
    doc = json.loads(open("examples/customer_service.json").read())
    doc["backbone"] = {"model": tiny.name, "pooling": "mean", "max_length": 32}
    doc["communication"]["protocol"] = protocol
    doc["training"] |= {"episodes": episodes, "batch_size": 8, "eval_every": 0, "checkpoint_every": 0}
    doc["training"] |= QUICK_TEAM  # no clause-reader pre-training: minutes on the tiny backbone
    doc["environment"]["params"] |= QUICK_START
    for agent in doc["agents"]:  # the width this budget was sized for: at 128, 120 episodes fit no codebook
        agent["policy_head"]["hidden"] = 64
    doc["circuit_breaker"] |= {"confidence_threshold": 0.0}
    return load_spec(doc)


@pytest.fixture(scope="module")
def trained(tiny, tmp_path_factory):
    out = tmp_path_factory.mktemp("hcp_run")
    events: list = []
    spec = hcp_spec(tiny)
    result = run_spec(spec, out, backbone=tiny, events=EventStream([events.append]))
    return spec, out / "checkpoints" / "mappo" / "last", events, result


def test_mappo_hcp_run_reports_protocol_metrics_and_saves_the_codebook(trained):
    spec, checkpoint, events, result = trained
    assert result["status"] == "succeeded"
    metrics = [e.payload for e in events if e.type == "metrics" and "protocol.byte_ratio" in e.payload]
    assert metrics, "no metrics event carried the protocol statistics"
    last = metrics[-1]
    assert last["protocol.codebooks"] >= 1 and 0 < last["protocol.codebook_size"] <= 64 * len(spec.agents)
    assert last["protocol.compressed_messages"] > 0 and last["protocol.reconstruction_error"] is not None
    # SEMANTIC frames are far smaller than the observations they carry
    assert last["protocol.frame_byte_ratio"] < 0.5
    assert (checkpoint / "protocol.safetensors").is_file()
    state = json.loads((checkpoint / "state.json").read_text())
    books = state["protocol"]["senders"]
    assert state["protocol"]["fitted"] and books
    assert all(1 < book["codec"]["config"]["n_codes"] <= 64 for book in books.values())


def test_runtime_reads_messages_with_the_checkpoint_codebook(trained, tiny):
    spec, checkpoint, _, _ = trained
    events: list = []
    runtime = TeamRuntime.from_spec_checkpoint(
        spec, checkpoint, backbone=tiny, events=EventStream([events.append])
    )
    runtime.config.protocol_every = 2
    link = runtime.model.link
    assert isinstance(link, HcpLink)
    saved = json.loads((checkpoint / "state.json").read_text())["protocol"]["senders"]
    assert {str(j): b.codec.version for j, b in link.books.items()} == {
        j: book["codec"]["version"] for j, book in saved.items()
    }
    sent_before = link.counts["compressed_messages"]
    with runtime:
        results = [runtime.run_ticket(t) for t in TICKETS[:2]]
        status = runtime.status()
    assert all(r["sources"]["model"] == r["steps"] > 0 for r in results)
    assert all(r["decisions"] and r["decisions"][0]["action"] for r in results)
    assert link.counts["compressed_messages"] > sent_before
    protocol = status["protocol"]
    assert protocol["codebooks"] == len(protocol["senders"]) >= 1 and protocol["frames"] > 0
    assert protocol["channels"]["regular"]["delivered"] > 0
    emitted = [e.payload for e in events if e.type == "metrics"]
    assert emitted and emitted[-1]["step"] == 2 and "protocol.byte_ratio" in emitted[-1]


def test_runtime_decisions_use_the_reconstructed_messages(trained, tiny):
    # The same checkpoint with the link removed reads exact observations: its action probabilities
    # differ, so the runtime really decides on what the codebook delivers.
    spec, checkpoint, _, _ = trained
    runtime = TeamRuntime.from_spec_checkpoint(spec, checkpoint, backbone=tiny)
    observations, _ = runtime.env_factory().reset(seed=0, options={"ticket": TICKETS[0]})
    with runtime:
        with_link = runtime.model.forward(observations)[0]
        runtime.model.policy.link = None
        exact = runtime.model.forward(observations)[0]
    assert torch.isfinite(with_link).all() and not torch.allclose(with_link, exact)


def test_an_hcp_spec_refuses_a_checkpoint_without_a_codebook(trained, tiny, tmp_path):
    spec, checkpoint, _, _ = trained
    dense = hcp_spec(tiny, protocol=None, episodes=4)
    run_spec(dense, tmp_path, backbone=tiny)
    with pytest.raises(CheckpointError, match="no HCP codebook"):
        TeamRuntime.from_spec_checkpoint(spec, tmp_path / "checkpoints" / "mappo" / "last", backbone=tiny)


def test_link_state_round_trip_gives_the_same_reconstructions():
    rng = np.random.default_rng(0)
    link = HcpLink(LinkConfig(n_codes=8, residual_dims=2, fit_messages=24))
    x = rng.normal(size=(40, 3, 16))
    link.transmit(x[:30])
    assert link.fitted
    arrays, meta = link.state()
    copy = HcpLink.from_state(arrays, json.loads(json.dumps(meta)))
    np.testing.assert_allclose(copy.transmit(x[30:]), link.transmit(x[30:]), rtol=1e-5)
