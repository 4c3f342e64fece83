"""Learned communication over the HCP link: the team still learns, the link reports its statistics as
events, the codebook is checkpointed, and a change in what the team says raises a storm and a re-fit."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.backbone import Backbone
from agents.envs import make_env
from agents.spec import load_spec
from tests.training.test_reinforce_comm import spec_doc
from training.events import EventStream
from training.reinforce_comm import ReinforceCommTrainer

torch.set_num_threads(1)


def hcp_doc(**kwargs):
    doc = spec_doc(**kwargs)
    doc["communication"] = {"protocol": "hcp"}
    return doc


@pytest.fixture(scope="module")
def backbone():
    return Backbone.load("default")


def make_trainer(backbone, doc):
    return ReinforceCommTrainer(load_spec(doc), backbone=backbone, beta_start=0.5, beta_decay_episodes=4000)


def test_hcp_run_learns_reports_the_link_and_checkpoints_the_codebook(backbone, tmp_path):
    # the same budget as the dense run of test_reinforce_comm.py (400 updates of 32 episodes)
    trainer = make_trainer(backbone, hcp_doc(episodes=12_800))
    before = trainer.evaluate(400)["success"]
    events: list = []
    result = trainer.run(EventStream([events.append]), checkpoint_root=tmp_path)
    after = trainer.evaluate(400)["success"]
    assert before < 0.45 and after >= 0.9, (before, after)  # chance is 0.25

    reports = [e.payload for e in events if e.type == "metrics" and "protocol.byte_ratio" in e.payload]
    assert len(reports) >= 5
    last = reports[-1]
    # one codebook per sender (2 informants, 1 distractor); an informant's 20 sentences get a code each
    assert last["protocol.fitted"] == 1 and last["protocol.codebooks"] == 3
    assert all(trainer.link.books[j].codec.config.residual_dims == 0 for j in (0, 1))
    assert last["protocol.compressed_messages"] > 0.8 * last["protocol.messages"]
    # a frame of 32 messages is ~90 bytes against ~1 KB of clue sentences
    assert last["protocol.frame_byte_ratio"] < 0.15 and last["protocol.compression_ratio"] > 1
    assert 0 <= last["protocol.reconstruction_error"] < 1 and last["protocol.channel_p95_ms"] is not None
    assert not [e for e in events if e.type == "alert"]  # steady traffic raises no storm

    checkpoint = Path(result.checkpoint)
    assert (checkpoint / "protocol.safetensors").is_file()
    saved = json.loads((checkpoint / "state.json").read_text())["protocol"]
    versions = {str(j): b.codec.version for j, b in trainer.link.books.items()}
    assert saved["fitted"] and {j: b["codec"]["version"] for j, b in saved["senders"].items()} == versions

    fresh = make_trainer(backbone, hcp_doc(episodes=12_800))
    fresh.load_checkpoint(checkpoint)
    assert {str(j): b.codec.version for j, b in fresh.link.books.items()} == versions
    x = np.random.default_rng(1).normal(size=(4, len(trainer.agents), backbone.dim)).astype(np.float32)
    np.testing.assert_allclose(fresh.link.transmit(x), trainer.link.transmit(x), rtol=1e-5)
    assert fresh.evaluate(400)["success"] == trainer.evaluate(400)["success"]


def test_new_kind_of_traffic_raises_a_storm_alert_and_refits_the_codebook(backbone):
    trainer = make_trainer(backbone, hcp_doc(episodes=2000))
    events: list = []
    trainer.run(EventStream([events.append]))
    assert not [e for e in events if e.type == "alert"]
    versions = {j: b.codec.version for j, b in trainer.link.books.items()}
    # Everyone starts using sentences (held-out templates) their codebooks were never fitted on.
    trainer.env = make_env(
        "number_guess", {"n": 4, "informative": 2, "distractors": 1, "templates": "heldout"}
    )
    trainer.run(EventStream([events.append], start_seq=events[-1].seq), episodes=trainer.episode + 1000)
    storms = [e.payload for e in events if e.type == "alert"]
    assert storms and storms[0]["name"] == "communication_storm" and storms[0]["source"] == "protocol"
    assert "codebook_drift" in storms[0]["reason"] and storms[0]["distortion_ratio"] > 1.5
    assert {"clue_0", "clue_1"} & {s["agent"] for s in storms}  # informants' codebooks are re-fitted too
    refits = [e.payload for e in events if e.type == "log" and "re-fitted" in e.payload["message"]]
    assert refits and any(trainer.link.books[j].codec.version > v for j, v in versions.items())
    last = [e.payload for e in events if e.type == "metrics" and "protocol.refits" in e.payload][-1]
    assert last["protocol.storms"] >= 1 and last["protocol.refits"] >= 1
