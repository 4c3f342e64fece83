"""The live side of the interactive-support environment: a conversation whose customer is a person, one turn
per episode, its state carried between turns as plain JSON; and the breaker counting only agents that chose."""

from __future__ import annotations

import json

import numpy as np

from agents.envs.interactive_support.baselines import Procedure
from agents.envs.interactive_support.env import ACTIONS
from agents.envs.interactive_support.live import LiveSupportEnv
from agents.envs.interactive_support.words import reply_text
from agents.envs.interactive_support.world import GOALS, PROBLEMS
from serving.breaker import choosing_agents

RULES = Procedure(clarify="always", article="verified", review="always")


def reading(problem=None, goal=None, order=None, accepted=False) -> dict:
    """A message as the team reads it: a sharp belief on each stated fact, a flat one otherwise."""

    def belief(name, names):
        if name is None:
            return [1 / len(names)] * len(names)
        return [0.96 if n == name else 0.04 / (len(names) - 1) for n in names]

    return {
        "problem_belief": belief(problem, PROBLEMS),
        "goal_belief": belief(goal, GOALS),
        "problem_stated": problem is not None,
        "goal_stated": goal is not None,
        "order_number": order,
        "clarity": sum(x is not None for x in (problem, goal, order)) / 3,
        "accepted": accepted,
        "problem_score": 0.5,
        "goal_score": 0.5,
    }


def turn(env, state, message, policy=RULES):
    """One customer turn; the state goes through JSON as the server stores it."""
    observations, infos = env.reset(options={"conversation": state, "message": message, "seed": 5})
    info = infos["triage"]
    while env.agents:
        observations, _, _, _, infos = env.step(policy(observations))
        info = next(iter(infos.values()))
    live = info["live"]
    return json.loads(json.dumps(live["state"])), live["event"]


def test_an_ambiguous_message_is_answered_after_two_questions_and_ends_on_the_customers_word():
    env = LiveSupportEnv()
    state, event = turn(env, None, reading())
    assert event == {"kind": "question", "fact": "problem"} and reply_text(event).endswith("?")
    assert state["awaiting"] == "answer:problem" and state["outcome"] is None
    state, event = turn(env, state, reading(problem="damaged"))
    assert event == {"kind": "question", "fact": "goal"}
    assert state["known"] == [False, True, False] and state["counts"]["repeats"] == 0
    state, event = turn(env, state, reading(goal="refund", order="#48213"))
    assert event["kind"] == "answer" and (event["problem"], event["remedy"]) == ("damaged", "refund")
    assert "refund for order #48213" in reply_text(event) and state["awaiting"] == "feedback"
    state, event = turn(env, state, reading(accepted=True))
    assert event == {"kind": "accepted"} and state["outcome"] == "resolved" and state["first_contact"]


def test_a_rejected_answer_reopens_with_what_was_wrong_and_a_second_loses_the_customer():
    env, direct = LiveSupportEnv(), Procedure(clarify="never", article="verified", review="never")
    state, _ = turn(env, None, reading(problem="late", goal="guidance"), direct)
    assert state["awaiting"] == "feedback"  # a procedure that never clarifies answers at once
    state, event = turn(env, state, reading(problem="billing"), direct)  # "no, it is about my bill"
    assert state["reopened"] and state["reason"] == "problem"
    assert PROBLEMS[int(np.argmax(state["problem_belief"]))] == "billing"
    assert event["kind"] == "answer" and event["problem"] == "billing"  # searched again for the bill
    state, event = turn(env, state, reading(), direct)
    assert event == {"kind": "failed"} and state["outcome"] == "failed"


def test_a_team_that_only_asks_loses_the_customer_to_patience():
    env = LiveSupportEnv()
    ask = ACTIONS["triage"].index("ask_order")

    def asker(observations):
        return dict.fromkeys(observations, 0) | {"triage": ask}

    state, event = None, None
    for _ in range(30):
        state, event = turn(env, state, reading(), policy=asker)
        if state["outcome"] is not None:
            break
    assert state["outcome"] == "abandoned" and event == {"kind": "left"}
    assert "has ended" in reply_text(event)


def test_the_breaker_hears_only_agents_that_had_a_choice():
    waiting = {"action_mask": np.array([1, 0, 0])}
    choosing = {"action_mask": np.array([0, 1, 1])}
    assert choosing_agents({"triage": choosing, "knowledge": waiting, "resolver": waiting}) == ["triage"]
    assert choosing_agents({"a": waiting, "b": waiting}) == ["a", "b"]  # nobody chose: all of them, as before
    assert choosing_agents({"a": "a text observation", "b": choosing}) == ["a", "b"]
