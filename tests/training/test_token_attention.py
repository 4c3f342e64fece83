"""Token attention: each agent pools the frozen backbone's token states with its own learned query."""

from __future__ import annotations

import copy

import pytest
import torch

from agents.backbone import Backbone
from agents.comm import allowed_links
from agents.policy import TeamPolicy
from agents.spec import load_spec, validate_spec
from tests.agents.test_spec import number_guess_doc
from training.reinforce_comm import ReinforceCommTrainer, TrainingError


@pytest.fixture(scope="module")
def backbone() -> Backbone:
    return Backbone.load("default")


def test_token_states_mean_pooled_are_the_backbone_embedding(backbone):
    texts = ["The number is even.", "Divided by 16, the number leaves a remainder between 12 and 15."]
    states, mask = backbone.encode_tokens(texts)
    assert states.shape[:2] == mask.shape and mask[0].sum() < mask[1].sum() == mask.shape[1]
    assert float(states[0][~mask[0]].abs().sum()) == 0  # padding is zeros
    mean = (states * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
    assert torch.allclose(mean, backbone.encode(texts), atol=1e-5)
    again, _ = backbone.encode_tokens(texts[1:])  # from the cache, trimmed to its own length
    assert torch.equal(again[0], states[1])


def test_pooling_starts_as_the_mean_and_learns_where_to_look():
    torch.manual_seed(0)
    policy = TeamPolicy(["a", "b", "g"], ["g"], 4, 8, allowed_links(3), hidden=6, token_attention=True)
    states = torch.randn(3, 2, 5, 8)
    mask = torch.ones(3, 2, 5, dtype=torch.bool)
    mask[0, 1, 3:] = False
    mask[2, 1] = False  # agent 2 has one text only: its second row is padding
    pooled = policy.pool_tokens(states, mask).detach()
    assert torch.allclose(pooled[0, 1], states[0, 1, :3].mean(0), atol=1e-6)  # zero query: the mean
    assert float(pooled[2, 1].abs().sum()) == 0 and not pooled.isnan().any()
    target = states[:, :, 2]  # every text's third token
    for _ in range(300):
        loss = (policy.pool_tokens(states, mask)[:, 0] - target[:, 0]).pow(2).sum()
        policy.zero_grad()
        loss.backward()
        with torch.no_grad():
            policy.token_query -= 0.5 * policy.token_query.grad
    assert loss.item() < 0.05 * (pooled[:, 0] - target[:, 0]).pow(2).sum().item()
    with pytest.raises(ValueError, match="token_attention"):
        TeamPolicy(["a", "g"], ["g"], 4, 8, allowed_links(2)).pool_tokens(states[:2], mask[:2])


def test_trainer_learns_with_token_attention_and_resumes_with_its_queries(backbone, tmp_path):
    doc = number_guess_doc()
    doc["environment"]["params"] = {"n": 4, "informative": 2, "distractors": 1}
    doc["agents"] = [{"id": a, "role": "informant"} for a in ("clue_0", "clue_1")]
    doc["agents"].append({"id": "distractor_0", "role": "distractor"})
    doc["agents"].append({"id": "guesser", "role": "guesser"})
    doc["edges"] = [
        {"source": a, "target": "guesser", "kind": "communication"}
        for a in ("clue_0", "clue_1", "distractor_0")
    ]
    doc["training"] = {"token_attention": True, "reading": "per_agent", "seed": 0, "lr": 3e-3}
    spec = load_spec(doc)
    trainer = ReinforceCommTrainer(spec, backbone=backbone)
    assert trainer.config.token_attention and float(trainer.policy.token_query.detach().abs().sum()) == 0
    while trainer.episode < 4000:
        trainer.update(*trainer.sample(32))
    assert trainer.evaluate(400)["success"] > 0.9  # chance: 0.25
    assert float(trainer.policy.token_query.detach().abs().sum()) > 0  # the queries learned
    resumed = ReinforceCommTrainer(spec, backbone=backbone)
    resumed.load_checkpoint(trainer.save_checkpoint(tmp_path))
    assert torch.equal(resumed.policy.token_query, trainer.policy.token_query)
    assert resumed.evaluate(400, seed=5) == trainer.evaluate(400, seed=5)


def test_token_attention_is_a_boolean_and_not_with_trained_adapters():
    doc = number_guess_doc()
    bad = copy.deepcopy(doc)
    bad["training"] = {"token_attention": "yes"}
    assert [e.path for e in validate_spec(bad)] == ["$.training.token_attention"]
    bad["training"] = {"token_attention": True, "train_adapters": True}
    assert [e.path for e in validate_spec(bad)] == ["$.training.token_attention"]
    with pytest.raises(TrainingError, match="token_attention"):
        ReinforceCommTrainer(load_spec(doc), backbone=None, token_attention=True, train_adapters=True)
