"""An agent's prompt is an input of its policy: rewriting it changes what the agent does, checkpoints keep
the roster and the prompts, and a prompt-conditioned team follows a prompt swap."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
import torch

from agents.envs.customer_service.env import CustomerServiceEnv
from agents.envs.customer_service.prompt_team import PromptTeam, PromptTeamConfig, prompt_routing
from agents.envs.customer_service.roster import Roster
from agents.envs.customer_service.tickets import INTENTS, load_tickets
from training.mappo import Featurizer, MappoConfig, MappoTeam, MappoTrainer
from training.mappo.featurizer import clause_featurizer

torch.set_num_threads(1)

TEAM = [
    {"id": "guide", "role": "custom", "intents": ["product_question", "recommendation"],
     "prompt": "You answer product questions and recommend products."},
    {"id": "tracking", "role": "custom", "intents": ["order_tracking", "delivery_delay", "address_change"],
     "prompt": "You track parcels, explain late deliveries and change addresses."},
    {"id": "disputes", "role": "custom", "intents": ["return_refund", "damaged_item", "complaint"],
     "prompt": "You handle refunds, damaged items and complaints."},
    {"id": "reviewer", "role": "quality_supervisor", "prompt": "You approve complete answers."},
]  # fmt: skip


class HashBackbone:
    """A deterministic stand-in for the sentence encoder: hashed word and character-trigram counts."""

    name, dim = "hash", 64

    def encode(self, texts, batch_size: int = 64) -> torch.Tensor:
        rows = []
        for text in [texts] if isinstance(texts, str) else texts:
            vec = torch.zeros(self.dim)
            low = text.lower()
            for gram in low.split() + [low[i : i + 3] for i in range(len(low) - 2)]:
                vec[int(hashlib.md5(gram.encode()).hexdigest(), 16) % self.dim] += 1.0
            rows.append(vec / vec.norm().clamp(min=1e-6))
        return torch.stack(rows)


@pytest.fixture(scope="module")
def tickets():
    return load_tickets("train")[:120]


def _trainer(tickets, team, featurizer) -> MappoTrainer:
    cfg = MappoConfig(updates=1, episodes_per_update=2, hidden=16, eval_every=0, checkpoint_every=0, seed=0)
    return MappoTrainer(
        cfg, MappoTeam(lambda split: CustomerServiceEnv(tickets, team=team), featurizer=featurizer)
    )


@pytest.mark.parametrize("reader", ["whole", "clause"])
def test_rewriting_a_prompt_changes_the_mappo_policy(tickets, reader):
    featurizer = (
        Featurizer(None, skip=("status", "action_mask"), char_ngrams=64)
        if reader == "whole"
        else clause_featurizer(HashBackbone())
    )
    trainer = _trainer(tickets, TEAM, featurizer)
    env = CustomerServiceEnv(tickets, team=TEAM)
    observations, _ = env.reset(seed=0, options={"ticket_index": 0})
    before = trainer.act_probs([observations[a] for a in trainer.agents])
    rewritten = {**observations["tracking"], "prompt": "You only ever recommend gifts for grandparents."}
    after = trainer.act_probs([rewritten if a == "tracking" else observations[a] for a in trainer.agents])
    i = trainer.agents.index("tracking")
    assert not torch.allclose(before[i], after[i])
    if reader == "clause":  # the prompt is one whole-text vector; the clause block still ends the row
        assert trainer.actor.reader is not None


def test_checkpoints_record_the_roster_and_prompts(tickets, tmp_path):
    trainer = _trainer(tickets, TEAM, Featurizer(None, skip=("status", "action_mask"), char_ngrams=64))
    trainer.save_checkpoint(tmp_path)
    roster = json.loads((tmp_path / "state.json").read_text())["roster"]
    assert [m["id"] for m in roster] == [a["id"] for a in TEAM]
    assert [m["prompt"] for m in roster] == [a["prompt"] for a in TEAM]
    assert roster[1]["intents"] == TEAM[1]["intents"]


@pytest.fixture(scope="module")
def prompt_team(tickets):
    team = PromptTeam(HashBackbone(), PromptTeamConfig(hidden=16, epochs=8, seed=0))
    team.fit(tickets, Roster.from_agents(TEAM))
    return team


def test_the_prompt_team_reads_its_prompts(prompt_team, tickets):
    roster = Roster.from_agents(TEAM)
    text = tickets[0].text
    before = prompt_team.scores(text, [roster.prompt(s) for s in roster.specialists])
    rewritten = roster.with_prompts({"tracking": "You only ever recommend gifts for grandparents."})
    after = prompt_team.scores(text, [rewritten.prompt(s) for s in rewritten.specialists])
    assert before.shape == (3, len(INTENTS))
    assert not torch.allclose(before[1], after[1]) and torch.allclose(before[0], after[0])


def test_swapping_prompts_swaps_the_handler(prompt_team, tickets):
    roster = Roster.from_agents(TEAM)
    swapped = roster.with_prompts({"guide": roster.prompt("disputes"), "disputes": roster.prompt("guide")})
    for ticket in tickets[:30]:
        before = prompt_team.handler(ticket.text, roster)
        after = prompt_team.handler(ticket.text, swapped)
        assert after == {"guide": "disputes", "disputes": "guide"}.get(before, before)


def test_the_prompt_team_plays_the_env_and_round_trips(prompt_team, tickets, tmp_path):
    roster = Roster.from_agents(TEAM)
    env = CustomerServiceEnv(tickets[:20], team=roster, shuffle=False)
    act = prompt_team.policy()
    observations, _ = env.reset(seed=0)
    actions = act(observations)
    assert set(actions) == set(roster.ids)
    assert all(0 <= actions[a] < env.action_space(a).n for a in actions)
    prompt_team.save(tmp_path)
    loaded = PromptTeam.load(tmp_path, HashBackbone())
    assert loaded.roster == roster
    text = tickets[3].text
    prompts = [roster.prompt(s) for s in roster.specialists]
    assert torch.allclose(loaded.scores(text, prompts), prompt_team.scores(text, prompts))


def test_untrained_routing_by_prompt_is_measured_against_chance(tickets):
    result = prompt_routing(PromptTeam(HashBackbone()).bank, tickets, Roster.from_agents(TEAM))
    assert result["tickets"] == sum(len(t.intents) == 1 for t in tickets)
    assert result["chance"] == pytest.approx(1 / 3) and 0 <= result["accuracy"] <= 1
    assert np.isfinite(result["accuracy"])
