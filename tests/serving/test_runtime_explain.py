"""Generated "reason" text in decision logs: a causal LM backbone explains model-answered decisions.

The tiny Llama-style LM (built on the spot) writes gibberish, but real text through the real generation
path; MiniLM (an encoder) has no text; a backbone whose generation fails still answers the ticket.
"""

from __future__ import annotations

import json

import pytest
import torch

from agents.backbone import Backbone, BackboneError
from agents.envs.customer_service.env import CustomerServiceEnv
from agents.envs.customer_service.rules import KeywordRouter, ScriptedTeam
from agents.envs.customer_service.tickets import Ticket
from serving.breaker import BreakerConfig, CircuitBreaker, ScriptedFallback
from serving.runtime import RuntimeConfig, TeamRuntime
from tests.fixtures.tiny_models import build_tiny_causal_lm
from training.mappo import Featurizer, MappoConfig, MappoTeam, MappoTrainer

torch.set_num_threads(1)

TICKET = Ticket("t-1", "my lamp arrived broken and I want a refund", ("return_refund", "damaged_item"))


class GenerationFails:
    """A real causal LM backbone whose text generation crashes (encoding still works)."""

    def __init__(self, inner: Backbone):
        self.inner, self.name, self.dim, self.is_causal = inner, inner.name, inner.dim, True

    def encode(self, texts, *args, **kwargs):
        return self.inner.encode(texts, *args, **kwargs)

    def generate(self, prompts, max_new_tokens=24):
        raise RuntimeError("generation worker crashed")


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    return Backbone.load(str(build_tiny_causal_lm(tmp_path_factory.mktemp("tiny_lm"))), max_length=32)


def runtime_with(backbone, explain_tokens=6):
    cfg = MappoConfig(updates=1, episodes_per_update=2, hidden=16, eval_every=0, checkpoint_every=0, seed=0)
    trainer = MappoTrainer(
        cfg,
        MappoTeam(
            lambda split: CustomerServiceEnv(tickets=[TICKET]),
            backbone=backbone,
            featurizer=Featurizer(backbone, skip=("status", "action_mask")),
        ),
    )
    return TeamRuntime(
        trainer,
        lambda: CustomerServiceEnv(tickets=[TICKET], shuffle=False),
        breaker=CircuitBreaker(BreakerConfig(0.0, 3, cooldown_s=5.0, step_limit=20)),
        fallback=ScriptedFallback(ScriptedTeam(KeywordRouter())),
        config=RuntimeConfig(explain_tokens=explain_tokens),
    )


def test_tiny_causal_lm_generates_batched_greedy_text_and_encoders_refuse(tiny_lm):
    prompts = ["The number is", "It rains in the city today and the secret number is larger than"]
    texts = tiny_lm.generate(prompts, max_new_tokens=5)
    assert len(texts) == 2 and all(isinstance(t, str) and t for t in texts)
    assert tiny_lm.generate(prompts, max_new_tokens=5) == texts  # greedy: deterministic
    assert tiny_lm.generate(prompts[1:], max_new_tokens=5) == texts[1:]  # left padding does not change it
    assert tiny_lm.generate([], 5) == []
    with pytest.raises(BackboneError, match="cannot generate"):
        Backbone.load("default").generate(["hello"])


def test_causal_backbone_explains_model_answered_decisions_and_not_fallback_ones(tiny_lm):
    with runtime_with(tiny_lm) as runtime:
        result = runtime.run_ticket(TICKET)
        assert result["sources"]["fallback"] == 0 and result["decisions"]
        json.dumps(result)
        for d in result["decisions"]:
            assert d["source"] == "model"
            assert isinstance(d["reason"]["text"], str) and d["reason"]["text"].strip()
            assert d["reason"]["alternatives"] and "text_error" not in d["reason"]
        runtime.breaker.force_open("operator", "test the fallback")
        fallback = runtime.run_ticket(TICKET)
        assert fallback["sources"]["model"] == 0 and fallback["decisions"]
        for d in fallback["decisions"]:
            assert d["reason"]["rule"] and "text" not in d["reason"]
    with runtime_with(tiny_lm, explain_tokens=0) as runtime:
        assert all("text" not in d["reason"] for d in runtime.run_ticket(TICKET)["decisions"])


def test_encoder_backbone_has_no_text():
    with runtime_with(Backbone.load("default")) as runtime:
        result = runtime.run_ticket(TICKET)
    assert result["sources"]["fallback"] == 0 and result["decisions"]
    assert all("text" not in d["reason"] and "text_error" not in d["reason"] for d in result["decisions"])


def test_failing_generation_is_recorded_and_the_ticket_still_answered(tiny_lm):
    with runtime_with(GenerationFails(tiny_lm)) as runtime:
        result = runtime.run_ticket(TICKET)
        assert result["status"] in ("completed", "truncated") and result["faults"] == []
        assert result["sources"]["fallback"] == 0 and runtime.breaker.state == "closed"
    for d in result["decisions"]:
        assert "text" not in d["reason"]
        assert d["reason"]["text_error"] == "RuntimeError: generation worker crashed"
