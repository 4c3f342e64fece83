"""A decision below the breaker's confidence threshold is never executed as it is: the rule fallback answers it
(logged as the fallback's, with the model's proposal and confidence) while the breaker, still closed, counts it
towards its streak as before. Here on a live conversation of the interactive-support team: a barely trained
team that proposes to escalate the customer's first message at 22 % confidence must not hand it to a person."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import torch

from agents.envs.interactive_support.baselines import ScriptedSupportTeam
from agents.envs.interactive_support.env import ACTIONS, AGENTS
from agents.envs.interactive_support.live import LiveSupportEnv
from serving.breaker import BreakerConfig, CircuitBreaker, ScriptedFallback
from serving.model import TeamModel
from serving.runtime import RuntimeConfig, TeamRuntime

ESCALATE = ACTIONS["triage"].index("escalate")
WIDTH = max(len(names) for names in ACTIONS.values())


class UnsureTeam(TeamModel):
    """Proposes to escalate at ``escalate_p`` whenever triage may, spreading the rest over its other allowed
    actions; every other choosing agent is sure of its first allowed action."""

    def __init__(self, escalate_p: float):
        self.policy = SimpleNamespace(backbone=None, link=None)
        self.agents, self.n_actions = list(AGENTS), [len(ACTIONS[a]) for a in AGENTS]
        self.temperature, self.escalate_p = None, escalate_p

    def forward_many(self, batch):
        return [(torch.tensor([self._row(a, obs.get(a)) for a in self.agents]), None) for obs in batch]

    def _row(self, agent, observation):
        row = np.zeros(WIDTH)
        allowed = [] if observation is None else list(np.flatnonzero(observation["action_mask"]))
        if agent == "triage" and ESCALATE in allowed:
            others = [i for i in allowed if i != ESCALATE]
            row[others] = (1 - self.escalate_p) / len(others)
            row[ESCALATE] = self.escalate_p
        elif allowed:
            row[allowed] = 0.02 / max(1, len(allowed) - 1)
            row[allowed[-1]] = 0.98 if len(allowed) > 1 else 1.0
        return row.tolist()


def first_turn(escalate_p: float, consecutive_low: int = 3):
    breaker = CircuitBreaker(BreakerConfig(confidence_threshold=0.5, consecutive_low=consecutive_low))
    runtime = TeamRuntime(
        UnsureTeam(escalate_p), lambda: LiveSupportEnv(split="train"), breaker=breaker,
        fallback=ScriptedFallback(ScriptedSupportTeam(params={"split": "train"})),
        config=RuntimeConfig(timeout_s=None),
    )  # fmt: skip
    vague = {
        "problem_belief": [1 / 6] * 6, "goal_belief": [1 / 3] * 3, "problem_stated": False,
        "goal_stated": False, "order_number": None, "clarity": 0.0, "accepted": False,
        "problem_score": 0.2, "goal_score": 0.2,
    }  # fmt: skip
    result = runtime.run({"conversation": None, "message": vague, "seed": 3}, reward_known=False)
    return result, breaker


def test_an_unsure_escalation_is_answered_by_the_rules_and_logged_with_the_models_proposal():
    result, breaker = first_turn(escalate_p=0.22)
    first = next(d for d in result["decisions"] if d["agent"] == "triage" and d["step"] == 1)
    assert first["source"] == "fallback" and first["action"] != "escalate" and first["reason"]["rule"]
    proposed = first["reason"]["proposed"]
    assert proposed["action"] == "escalate" and abs(proposed["confidence"] - 0.22) < 1e-6
    assert proposed["confidence"] == first["confidence"]
    assert result["info"]["live"]["event"]["kind"] != "escalated" and result["held_back"] >= 1
    # the breaker counts the ticket: one ticket with a low decision is a streak of one, it stays closed
    assert breaker.state == "closed" and breaker.counts["low"] >= 1


def test_a_sure_decision_is_still_the_models_and_the_streak_still_opens_the_breaker():
    sure, _ = first_turn(escalate_p=0.9)
    first = next(d for d in sure["decisions"] if d["agent"] == "triage")
    assert first["source"] == "model" and first["action"] == "escalate" and "proposed" not in first["reason"]
    assert sure["info"]["live"]["event"]["kind"] == "escalated" and sure["held_back"] == 0
    _, breaker = first_turn(escalate_p=0.22, consecutive_low=1)
    assert breaker.state == "open"
