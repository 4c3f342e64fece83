"""The learned-communication trainer: REINFORCE sign, learning, resume equivalence, events, errors."""

from __future__ import annotations

import json

import pytest
import torch

from agents.backbone import Backbone
from agents.comm import allowed_links, exploration_log_prob, explore, masked_softmax
from training.api import evaluate_run, train
from training.checkpoint import CheckpointError
from training.events import EventStream
from training.reinforce_comm import ReinforceCommTrainer, TrainingError

torch.set_num_threads(1)


def spec_doc(n=4, informative=2, distractors=1, seed=0, episodes=4000, **training):
    agents = [f"clue_{j}" for j in range(informative)] + [f"distractor_{j}" for j in range(distractors)]
    return {
        "spec_version": 1,
        "name": "small number guessing",
        "agents": [{"id": a, "role": "custom", "prompt": "Share your clue."} for a in agents]
        + [{"id": "guesser", "role": "guesser", "prompt": "Name the number."}],
        "edges": [{"source": a, "target": "guesser", "kind": "communication"} for a in agents],
        "reward": {
            "terms": [{"term": "task", "weights": {"exploration": 1, "exploitation": 1, "transfer": 1}}]
        },
        "environment": {
            "name": "number_guess",
            "params": {"n": n, "informative": informative, "distractors": distractors},
        },
        "training": {
            "episodes": episodes,
            "seed": seed,
            "entropy_coef": 0.05,
            "eval_every": 0,
            "checkpoint_every": 0,
            "eval_episodes": 100,
            **training,
        },
    }


FAST = {"attention_start_success": 0.0, "beta_start": 0.5, "beta_decay_episodes": 2000}


@pytest.fixture(scope="module")
def backbone():
    return Backbone.load("default")


def test_reinforce_on_explored_weights_moves_attention_towards_rewarded_sender():
    # A bandit over routings: reward = weight given to sender 2. REINFORCE with our log-probability
    # must raise α on sender 2 (a sign error would lower it).
    torch.manual_seed(0)
    allowed = allowed_links(4)[:1]  # one receiver (agent 0) hearing agents 1..3
    logits = torch.zeros(1, 4, requires_grad=True)
    optimizer = torch.optim.SGD([logits], lr=0.5)
    for _ in range(200):
        alpha = masked_softmax(logits.expand(64, 4).unsqueeze(1), allowed)
        tilde = explore(alpha, 0.5, allowed)
        reward = tilde[:, 0, 2]
        loss = -((reward - reward.mean()) * exploration_log_prob(tilde, alpha, 0.5, allowed)[:, 0]).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    final = masked_softmax(logits.unsqueeze(1), allowed)[0, 0]
    assert final[2] > 0.8 and final[2] > final[1] + 0.6 and final[0] == 0


def test_short_fixed_seed_run_learns_and_turns_away_from_the_distractor(backbone):
    from agents.spec import load_spec

    trainer = ReinforceCommTrainer(
        load_spec(spec_doc()), backbone=backbone, beta_start=0.5, beta_decay_episodes=4000
    )
    before = trainer.evaluate(400)
    for _ in range(400):
        trainer.update(*trainer.sample(32))
    after = trainer.evaluate(400)
    assert before["success"] < 0.45  # chance is 0.25
    assert after["success"] >= 0.9
    assert trainer.attention_started_at is not None  # warm-up ended on success, then attention learned
    assert before["distractor_attention"] == pytest.approx(1 / 3, abs=1e-4)  # uniform start
    assert after["distractor_attention"] < 0.25


def test_resume_continues_bit_for_bit(backbone, tmp_path):
    from agents.spec import load_spec

    spec = load_spec(spec_doc(seed=3))
    straight = ReinforceCommTrainer(spec, backbone=backbone, **FAST)
    for _ in range(16):
        straight.update(*straight.sample(32))
    first = ReinforceCommTrainer(spec, backbone=backbone, **FAST)
    for _ in range(8):
        first.update(*first.sample(32))
    path = first.save_checkpoint(tmp_path / "ckpt")
    resumed = ReinforceCommTrainer(spec, backbone=backbone, **FAST)
    resumed.load_checkpoint(path)
    for _ in range(8):
        resumed.update(*resumed.sample(32))
    for (name, a), (_, b) in zip(
        straight.policy.state_dict().items(), resumed.policy.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name
    assert resumed.episode == straight.episode and resumed.baseline_value == straight.baseline_value


def test_train_api_events_cancel_resume_and_corruption(backbone, tmp_path):
    doc = spec_doc(episodes=640, checkpoint_every=320, eval_every=320)
    seen = []
    stop_after = {"calls": 0}

    def should_stop():
        stop_after["calls"] += 1
        return stop_after["calls"] > 12  # cancel after 12 updates (384 episodes)

    result = train(
        doc, tmp_path, events=EventStream([seen.append]), should_stop=should_stop, backbone=backbone
    )
    assert result.status == "cancelled" and result.episodes == 384
    assert [e.seq for e in seen] == list(range(1, len(seen) + 1))
    types = [e.type for e in seen]
    assert (
        types[0] == "started" and types[-1] == "finished" and "checkpoint" in types and "attention" in types
    )
    assert seen[-1].payload["status"] == "cancelled"
    # Resume: continues from the cancel checkpoint, numbering continues after the last event.
    again = train(doc, tmp_path, events=EventStream([seen.append], start_seq=seen[-1].seq), backbone=backbone)
    assert again.status == "succeeded" and again.episodes == 640
    assert [e.seq for e in seen] == list(range(1, len(seen) + 1))
    assert [e.payload["resumed_from"] for e in seen if e.type == "started"] == [None, 384]
    metrics = evaluate_run(tmp_path, episodes=100, backbone=backbone, templates="heldout")
    assert 0 <= metrics["success"] <= 1 and metrics["templates"] == "heldout"
    # A corrupted checkpoint is a clear error, not a torch traceback.
    latest = json.loads((tmp_path / "checkpoints" / "latest.json").read_text())["path"]
    (tmp_path / "checkpoints" / latest / "heads.safetensors").write_bytes(b"\x00" * 10)
    with pytest.raises(CheckpointError, match="heads.safetensors is corrupted"):
        evaluate_run(tmp_path, episodes=10, backbone=backbone)


def test_jsonl_events_continue_across_runs_without_a_stream(backbone, tmp_path):
    doc = spec_doc(episodes=64)
    train(doc, tmp_path, backbone=backbone)
    doc["training"]["episodes"] = 128
    train(doc, tmp_path, backbone=backbone)
    seqs = [json.loads(line)["seq"] for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > 6


def test_bad_settings_are_clear_errors(backbone):
    from agents.spec import load_spec

    spec = load_spec(spec_doc())
    with pytest.raises(TrainingError, match="routing must be one of"):
        ReinforceCommTrainer(spec, backbone=backbone, routing="telepathy")
    with pytest.raises(TrainingError, match="unknown reinforce_comm setting"):
        ReinforceCommTrainer(spec, backbone=backbone, learning_rate=1)


def test_one_update_reaches_heads_attention_value_and_every_lora_adapter(tmp_path):
    # Adapters train (tiny local causal LM as the backbone): one joint update must move every agent's
    # LoRA weights, the guesser's head, the value baseline and, with exploration on, W_Q.
    from agents.spec import load_spec
    from tests.fixtures.tiny_models import build_tiny_causal_lm

    doc = spec_doc(n=4, informative=2, distractors=1, train_adapters=True, baseline="value")
    doc["backbone"] = {
        "model": str(build_tiny_causal_lm(tmp_path / "lm")),
        "pooling": "last",
        "max_length": 32,
    }
    trainer = ReinforceCommTrainer(load_spec(doc), attention_start_success=0.0)
    for agent in trainer.agents:  # LoRA B starts at zero; give every adapter an effect on its output
        for name, parameter in trainer.adapters.named_parameters(agent):
            if "lora_B" in name:
                torch.nn.init.normal_(parameter, std=0.05)
    before = {n: p.detach().clone() for n, p in trainer.policy.named_parameters()}
    lora_before = {a: [p.detach().clone() for p in trainer.adapters.parameters(a)] for a in trainer.agents}
    trainer.update(*trainer.sample(16))
    changed = {n for n, p in trainer.policy.named_parameters() if not torch.equal(p, before[n])}
    assert {"head_w2", "trunk.weight", "message.weight", "attention.W_Q.weight", "value.0.weight"} <= changed
    for agent in trainer.agents:
        moved = [
            not torch.equal(p, q)
            for p, q in zip(trainer.adapters.parameters(agent), lora_before[agent], strict=True)
        ]
        assert any(moved), agent
