"""The interactive support workflow's uncertain world (param ``world``): hurried customers read from their
tone, articles dated against their product line's last policy change, the product line in the observation,
the rules that read the new cues, and the basic world left as it was."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from agents.envs import make_env
from agents.envs.interactive_support.baselines import (
    BEST,
    SHIPPED,
    Procedure,
    ScriptedSupportTeam,
    evaluate,
    grid,
)
from agents.envs.interactive_support.env import ACTIONS, FAMILY_OBS, OBS, InteractiveSupportEnv
from agents.envs.interactive_support.world import FAMILIES, draw_customer
from agents.envs.scripted import scripted_team

UNCERTAIN = {"world": "uncertain"}


def test_the_uncertain_world_keeps_the_parallel_api_and_shows_the_product_line():
    from pettingzoo.test import parallel_api_test

    env = make_env("interactive_support", UNCERTAIN)
    parallel_api_test(env, num_cycles=60)
    basic = InteractiveSupportEnv()
    size = basic.observation_space("triage")["observation"].shape[0]
    assert env.observation_space("triage")["observation"].shape == (size + 4,)
    observations, _ = env.reset(seed=1)
    for agent, obs in observations.items():
        assert env.observation_space(agent).contains(obs)
    line = observations["triage"]["observation"][list(FAMILY_OBS.values())]
    assert line.sum() == 1.0 and line[list(FAMILY_OBS).index(f"family_{env.family.name}")] == 1.0
    held = InteractiveSupportEnv(split="heldout", **UNCERTAIN)
    held.reset(seed=1)
    assert held.observation_vector("triage")[list(FAMILY_OBS.values())].sum() == 0.0  # a line never seen


def test_the_basic_world_draws_the_same_customers_as_before():
    family = FAMILIES["apparel"]
    a = draw_customer(family, np.random.default_rng(7))
    b = draw_customer(family, np.random.default_rng(7), "basic")
    assert a.persona == b.persona and not a.persona.hurried
    assert evaluate(BEST, "dev", 100, first_seed=0) == evaluate(BEST, "dev", 100, first_seed=0, params={})


def test_hurried_customers_wait_less_and_their_tone_gives_them_away():
    customers = [
        draw_customer(FAMILIES["grocery"], np.random.default_rng(s), "uncertain") for s in range(400)
    ]
    hurried = [c for c in customers if c.persona.hurried]
    patient = [c for c in customers if not c.persona.hurried]
    assert 0.3 < len(hurried) / len(customers) < 0.5  # grocery: 0.4
    assert all(3 <= c.persona.patience <= 7 for c in hurried)
    assert all(c.persona.patience >= 8 for c in patient)
    assert np.mean([c.patience_cue for c in hurried]) < np.mean([c.patience_cue for c in patient]) - 0.2


def test_a_deep_search_shows_exact_dates_not_the_verdict():
    env = InteractiveSupportEnv(**UNCERTAIN)
    for seed in range(300):
        env.reset(seed=seed)
        env.step({"triage": ACTIONS["triage"].index("route")})
        if any(a.kind == "outdated" for a in env.candidates):
            break
    else:
        raise AssertionError("no outdated article in 300 searches")
    env.step({"knowledge": ACTIONS["knowledge"].index("search_deeper")})
    v = env.observation_vector("knowledge")
    for k, article in enumerate(env.candidates, start=1):
        assert v[OBS[f"article_{k}_age"]] == np.float32(article.age)
        if article.kind == "outdated":
            assert article.age >= env.family.stale_after


def test_the_rules_read_the_new_cues_and_the_scripted_team_follows_the_world():
    procedures = grid("uncertain")
    assert {p.hurry for p in procedures} == {None, 0.45}
    assert {p.age_cutoff for p in procedures if p.article == "dated"} == {0.3, 0.45, 0.6, 0.75}
    assert ScriptedSupportTeam(params=UNCERTAIN).procedure == SHIPPED["uncertain"]
    assert scripted_team("interactive_support", UNCERTAIN).procedure == SHIPPED["uncertain"]
    assert scripted_team("interactive_support", {}).procedure == BEST
    # a hurried customer's clearly stated problem is not asked again; an unhurried one's is
    hurried = Procedure(clarify="always", hurry=0.45, threshold=0.6)
    v = InteractiveSupportEnv(**UNCERTAIN).observation_vector("triage")
    v[OBS["phase_triage"]], v[OBS["problem_belief_damaged"]], v[OBS["goal_belief_refund"]] = 1.0, 0.9, 0.9
    v[OBS["order_known"]] = 1.0
    v[OBS["patience_cue"]] = 0.2
    assert ACTIONS["triage"][hurried.act("triage", v)] == "route"
    v[OBS["patience_cue"]] = 0.7
    assert ACTIONS["triage"][hurried.act("triage", v)] == "ask_problem"


def test_reading_the_patience_cue_keeps_hurried_customers():
    plain = replace(BEST, age_cutoff=0.6)
    hurry = replace(plain, hurry=0.45)
    before = evaluate(plain, "dev", 200, first_seed=0, params=UNCERTAIN)
    after = evaluate(hurry, "dev", 200, first_seed=0, params=UNCERTAIN)
    assert after["abandoned"] < before["abandoned"] - 0.05
