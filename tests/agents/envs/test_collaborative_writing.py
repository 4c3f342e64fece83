"""Collaborative writing: the ParallelEnv contract, the briefs, the judge and the scripted team."""

from __future__ import annotations

import pytest
from pettingzoo.test import parallel_api_test

from agents.envs import make_env
from agents.envs.collaborative_writing.briefs import judge, load_briefs
from agents.envs.collaborative_writing.env import AGENTS, ROLE_ACTIONS, CollaborativeWritingEnv, play
from agents.envs.collaborative_writing.scripted import ScriptedWritingTeam
from agents.errors import SpecValidationError


def test_parallel_api_and_spaces():
    env = CollaborativeWritingEnv()
    parallel_api_test(env, num_cycles=60)
    observations, _ = env.reset(seed=5)
    for agent, obs in observations.items():
        assert env.observation_space(agent).contains(obs)
    assert env.possible_agents == list(AGENTS)


def test_the_briefs_have_a_train_test_split():
    train, test = load_briefs(split="train"), load_briefs(split="test")
    assert len(train) >= 30 and len(test) >= 10
    assert not {b.id for b in train} & {b.id for b in test}
    for brief in train + test:
        assert len(brief.sections) == 6 and all(len(s.blocks) == 4 for s in brief.sections)
        assert {s.aspect for s in brief.sections if s.on_brief} == set(brief.aspects)


def test_the_judge_prefers_on_brief_blocks_in_the_right_tone():
    brief = load_briefs(split="test")[0]
    wanted = [s for s in brief.sections if s.on_brief]
    best = [(s, next(b for b in s.blocks if b.kind == "on"), False) for s in wanted]
    decoys = [(s, next(b for b in s.blocks if b.kind == "off"), False) for s in wanted]
    mistoned = [(s, next(b for b in s.blocks if b.kind == "wrong_tone"), False) for s in wanted]
    assert judge(brief, best)["score"] == pytest.approx(1.0)
    assert judge(brief, decoys)["coverage"] == 0.0
    fixed = [(s, b, True) for s, b, _ in mistoned]
    assert judge(brief, mistoned)["score"] < judge(brief, fixed)["score"] < 1.0
    assert judge(brief, best[:1])["length"] < 1.0
    assert judge(brief, [])["score"] == 0.0


def test_an_episode_plans_writes_polishes_and_pays_the_judge_to_everyone():
    env = CollaborativeWritingEnv(split="test", shuffle=False)
    observations, _ = env.reset(seed=0)
    assert observations["planner"]["action_mask"][0] == 0 and observations["writer"][
        "action_mask"
    ].tolist() == [1, 0, 0, 0, 0]
    team = ScriptedWritingTeam()
    while env.agents:
        observations, rewards, terms, _, infos = env.step(team.actions(observations))
    assert all(terms.values()) and len(set(rewards.values())) == 1
    assert infos["planner"]["accepted"] and 0 < infos["planner"]["score"] <= 1


def test_scripted_team_is_sensible_but_not_perfect():
    result = play(ScriptedWritingTeam().actions, CollaborativeWritingEnv(split="test", shuffle=False))
    assert result["items"] == 10
    assert 0.5 <= result["score"] < 0.95 and result["tone"] >= 0.9 and result["length"] >= 0.9


def test_bad_params_are_refused_with_paths():
    with pytest.raises(SpecValidationError) as caught:
        make_env("collaborative_writing", {"split": "dev", "max_sections": 9})
    paths = {e.path for e in caught.value.errors}
    assert {"$.environment.params.split", "$.environment.params.max_sections"} <= paths
    assert ROLE_ACTIONS["polisher"][1] == "accept"


def test_the_scripted_team_is_the_environments_fallback():
    from agents.envs.scripted import scripted_team

    assert isinstance(scripted_team("collaborative_writing"), ScriptedWritingTeam)
