"""The interactive support workflow: the parallel API, the simulated customer's hidden facts, reopening of a
wrong solution, the reviewer's check, the scripted procedures and behaviour cloning of one."""

from __future__ import annotations

import numpy as np
import pytest

from agents.envs import make_env
from agents.envs.interactive_support.baselines import (
    BEST,
    NAMED,
    Procedure,
    ScriptedSupportTeam,
    choose_on_dev,
    clone,
    compare_arms,
    decision_differences,
    evaluate,
)
from agents.envs.interactive_support.env import ACTIONS, OBS, InteractiveSupportEnv
from agents.envs.interactive_support.world import FAMILIES, GOALS, HELDOUT_FAMILIES, NEEDS_ORDER
from agents.envs.scripted import scripted_team


def act(env: InteractiveSupportEnv, agent: str, name: str) -> tuple[float, dict]:
    """Step with ``agent`` choosing ``name`` (the others wait); the team reward and the info."""
    _, rewards, _, _, infos = env.step({agent: ACTIONS[agent].index(name)})
    return next(iter(rewards.values())), next(iter(infos.values()))


def customer_where(predicate, split: str = "train", **params) -> InteractiveSupportEnv:
    """An environment reset on the first customer (seed 0, 1, …) for whom ``predicate(env)`` holds."""
    env = InteractiveSupportEnv(split=split, **params)
    for seed in range(500):
        env.reset(seed=seed)
        if predicate(env):
            return env
    raise AssertionError("no such customer in 500 seeds")


def test_parallel_api_and_spec_checks():
    from pettingzoo.test import parallel_api_test

    env = make_env("interactive_support", {})
    parallel_api_test(env, num_cycles=100)
    observations, _ = env.reset(seed=3)
    for agent, obs in observations.items():
        assert env.observation_space(agent).contains(obs)
    # only triage may act first: everyone else may only wait
    assert observations["triage"]["action_mask"][0] == 0
    assert all(
        observations[a]["action_mask"].tolist() == [1] + [0] * (len(ACTIONS[a]) - 1)
        for a in ("knowledge", "resolver", "reviewer")
    )
    assert env.state().shape == (len(OBS) - 4 + 17,)
    assert InteractiveSupportEnv.validate_params({"split": "nope"})[0].path == "$.split"
    with pytest.raises(ValueError, match="split"):
        make_env("interactive_support", {"split": "nope"})


def test_the_same_seed_is_the_same_customer_and_heldout_draws_only_heldout_families():
    a, b = InteractiveSupportEnv(), InteractiveSupportEnv()
    a.reset(seed=7)
    b.reset(seed=7)
    assert a.customer.problem == b.customer.problem and a.customer.order_number == b.customer.order_number
    held = InteractiveSupportEnv(split="heldout")
    families = set()
    for seed in range(40):
        held.reset(seed=seed)
        families.add(held.customer.family)
    assert families == set(HELDOUT_FAMILIES)
    train = InteractiveSupportEnv(split="train")
    for seed in range(40):
        train.reset(seed=seed)
        assert train.customer.family not in HELDOUT_FAMILIES and train.customer.family in FAMILIES


def test_a_hidden_fact_comes_out_only_when_asked_and_asking_again_annoys():
    env = customer_where(lambda e: not any(e.customer.stated[1:]) and e.problem_belief.max() < 0.9)
    truth = env.customer.problem
    assert env.problem_belief.max() < 0.9  # the first message leaves the problem open
    act(env, "triage", "ask_goal")  # the wrong question does not reveal the problem
    assert env.problem_belief.max() < 0.9
    before = env.satisfaction
    act(env, "triage", "ask_problem")
    assert int(np.argmax(env.problem_belief)) == truth and env.problem_belief.max() == 1.0
    assert env.satisfaction == pytest.approx(before - env.p.question_cost)
    assert env.counts["repeats"] == 0
    before = env.satisfaction
    act(env, "triage", "ask_problem")  # asked again what they already said
    assert env.counts["repeats"] == 1
    assert env.satisfaction == pytest.approx(before - env.p.question_cost - env.p.repeat_penalty)


def test_asking_what_the_first_message_stated_lowers_satisfaction():
    env = customer_where(lambda e: e.customer.stated[2])
    act(env, "triage", "ask_goal")
    assert env.counts["repeats"] == 1
    assert env.satisfaction == pytest.approx(1.0 - env.p.question_cost - env.p.repeat_penalty)


def _wrong_remedy_customer(**params) -> InteractiveSupportEnv:
    """A customer whose problem the team asks and whose best article is right, answered with a wrong remedy."""
    env = customer_where(lambda e: GOALS[e.customer.goal] == "guidance", **params)
    act(env, "triage", "ask_problem")
    act(env, "triage", "route")
    right = next(
        k for k, a in enumerate(env.candidates) if a.problem == env.customer.problem and a.kind == "current"
    )
    act(env, "knowledge", f"pick_{right + 1}")
    act(env, "resolver", "refund")  # the customer wanted guidance
    return env


def test_a_wrong_solution_is_reopened_later_at_a_larger_cost_and_a_second_loses_the_customer():
    env = _wrong_remedy_customer(reopen_delay=2)
    reward, info = act(env, "reviewer", "send")
    assert info["outcome"] is None and env.phase == "away"
    assert reward == pytest.approx(-env.p.step_cost)  # the step's work only: the cost comes later
    reward, _ = act(env, "triage", "ask_goal")  # the customer is away: nobody can act
    assert env.phase == "away" and reward == pytest.approx(0.0)
    reward, info = act(env, "triage", "wait")
    assert info["reopened"] and env.phase == "triage"
    assert reward == pytest.approx(-env.p.reopen_cost)
    assert env.known[2] and int(np.argmax(env.goal_belief)) == env.customer.goal  # now the goal is known
    act(env, "triage", "route")
    act(env, "knowledge", "pick_1")
    act(env, "resolver", "replacement")
    if env._what_is_wrong() is None:
        pytest.skip("the picked article happened to be right with the wrong remedy")  # pragma: no cover
    reward, info = act(env, "reviewer", "send")
    assert info["outcome"] == "failed" and info["satisfaction"] == 0.0 and not info["resolved"]


def test_a_check_catches_a_wrong_solution_and_a_right_one_resolves():
    env = _wrong_remedy_customer(catch_rate=1.0)
    reward, info = act(env, "reviewer", "check")
    assert env.phase == "triage" and env.rejected and env.reason == "remedy"
    assert reward == pytest.approx(-env.p.step_cost - env.p.check_cost)
    assert env.known[2]  # the check found out what the customer wants
    if GOALS[env.customer.goal] in NEEDS_ORDER and not env.known[0]:
        act(env, "triage", "ask_order")  # pragma: no cover
    act(env, "triage", "route")
    right = next(
        k for k, a in enumerate(env.candidates) if a.problem == env.customer.problem and a.kind == "current"
    )
    act(env, "knowledge", f"pick_{right + 1}")
    act(env, "resolver", GOALS[env.customer.goal])
    reward, info = act(env, "reviewer", "check")
    assert info["resolved"] and info["first_contact"] and info["outcome"] == "resolved"
    assert reward > env.p.resolve_reward - env.p.check_cost - env.p.step_cost


def test_escalation_hands_over_at_a_cost_and_patience_runs_out():
    env = customer_where(lambda e: True)
    reward, info = act(env, "triage", "escalate")
    assert info["escalated"] and not info["resolved"] and info["cost"] == 1 + env.p.human_cost_steps
    assert reward < env.p.resolve_reward - env.p.escalation_cost + env.p.satisfaction_weight
    env = customer_where(lambda e: True)
    info = {}
    while env.agents:  # the team only talks among itself: the customer gives up
        phase_actor = {"triage": ("triage", "route"), "knowledge": ("knowledge", "ask_more")}[env.phase]
        _, info = act(env, *phase_actor)
    assert info["outcome"] == "abandoned" and info["satisfaction"] == 0.0


def test_the_named_procedures_do_what_they_say():
    always = evaluate(NAMED["always_clarify"], "dev", 60, first_seed=0)
    confident = evaluate(NAMED["confident_else_clarify"], "dev", 60, first_seed=0)
    review = evaluate(NAMED["always_review"], "dev", 60, first_seed=0)
    escalate = evaluate(NAMED["escalate_after_8"], "dev", 60, first_seed=0)
    assert always["questions"] >= 2 and always["checks"] == 0
    assert confident["questions"] < always["questions"] and confident["repeats"] < always["repeats"]
    assert review["checks"] >= 1 and review["reopened"] < confident["reopened"]
    assert escalate["escalations"] > 0 and review["escalations"] == 0
    # a scripted team resolves far more than one that routes at once and sends the top article unchecked
    hasty = evaluate(Procedure(clarify="never", review="never"), "dev", 60, first_seed=0)
    assert always["resolution"] > hasty["resolution"] + 0.1


def test_choose_on_dev_picks_the_best_return_and_the_scripted_team_follows_it():
    best, rows = choose_on_dev(list(NAMED.values()), episodes=40)
    assert best.name == max(rows, key=lambda r: r["return"])["procedure"]
    team = scripted_team("interactive_support", {})
    assert isinstance(team, ScriptedSupportTeam) and team.procedure == BEST
    env = InteractiveSupportEnv()
    observations, _ = env.reset(seed=0)
    assert team.actions(observations) == BEST(observations)


def test_behaviour_cloning_copies_the_procedure_and_the_comparison_reports_every_arm():
    cloned = clone(BEST, episodes=400, epochs=15)  # the dated pick needs a few hundred examples
    arms = compare_arms({"rules": BEST, "imitation": cloned}, episodes=30)
    assert set(arms) == {"rules", "imitation"}
    for metrics in arms.values():
        assert {"resolution", "satisfaction", "escalations", "cost", "heldout_resolution"} <= set(metrics)
    assert abs(arms["imitation"]["resolution"] - arms["rules"]["resolution"]) < 0.25
    found = decision_differences(cloned, BEST, episodes=30)
    turns = sum(found["turns"].values())
    assert turns > 0 and sum(found["differences"].values()) < 0.25 * turns


def test_a_search_always_shows_three_articles_even_after_articles_were_set_aside():
    from agents.envs.interactive_support.world import FAMILIES, search

    rng = np.random.default_rng(0)
    family = FAMILIES["electronics"]
    for _ in range(200):
        found = search(family, 2, rng)
        assert len(found) == 3
        assert len(search(family, 2, rng, exclude=found)) == 3


def test_a_procedure_that_checks_the_dates_searches_deeper_once_and_picks_a_current_article():
    """``article="dated"``: the knowledge agent checks every candidate's date (the age entries become exact)
    before it picks, and picks one the dates show current; it sends far fewer wrong articles than picking
    the first verified one (the shipped best procedure since the grid learned the move)."""
    record: list = []
    dated = evaluate(Procedure(clarify="always", article="dated", review="never"), "dev", 80, 0, record=record)
    verified = evaluate(Procedure(clarify="always", article="verified", review="never"), "dev", 80, 0)
    for decisions, _, _ in record:
        knowledge = [name for agent, name in decisions if agent == "knowledge"]
        assert knowledge[0] == "search_deeper" and knowledge[1].startswith("pick_")
    assert dated["reopened"] < verified["reopened"] - 0.15 and dated["resolution"] >= verified["resolution"]
    assert BEST.article == "dated"
    env = customer_where(lambda e: True)
    for agent, name in (("triage", "ask_problem"), ("triage", "route"), ("knowledge", "search_deeper")):
        act(env, agent, name)
    observation = env.observation_vector("knowledge")
    for k, article in enumerate(env.candidates, start=1):  # exact after a deep search: 1 = wrong article
        assert observation[OBS[f"article_{k}_age"]] == float(article.correct_for is None)
