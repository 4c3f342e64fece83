"""Number guessing takes its team from the canvas (issue 20): the informant, distractor and guesser nodes
are the players under their own ids, the counts come from the canvas, and the validator says in words
what a drawn team lacks."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from pettingzoo.test import parallel_api_test

from agents.envs import make_env, team_kwargs
from agents.envs.number_guess import NumberGuessEnv
from agents.errors import SpecValidationError
from agents.spec import load_spec, validate_spec

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "number_guessing.json"


def drawn(informants: list[str], distractors: list[str], guesser: str = "asker") -> list[dict]:
    return (
        [{"id": a, "role": "informant"} for a in informants]
        + [{"id": a, "role": "distractor"} for a in distractors]
        + [{"id": guesser, "role": "guesser"}]
    )


def doc(team: list[dict], params: dict) -> dict:
    guesser = next(a["id"] for a in team if "guesser" in (a["role"], a["id"]))
    return {
        "name": "Drawn guessers",
        "agents": [{**a, "prompt": f"You are {a['id']}."} for a in team],
        "edges": [{"source": a["id"], "target": guesser} for a in team if a["id"] != guesser],
        "environment": {"name": "number_guess", "params": params},
    }


@pytest.mark.parametrize(
    ("informants", "distractors", "params"),
    [
        (["parity", "half"], [], {"n": 4}),
        (["low", "mid", "high"], ["weather"], {"n": 8}),
        (["a", "b", "c", "d", "e"], ["x", "y", "z"], {"n": 32}),
        (["block", "quarter", "rest"], ["noise"], {"n": 64, "clue_kinds": ["ranges", "remainders"]}),
    ],
)
def test_the_canvas_nodes_are_the_players(informants, distractors, params):
    team = drawn(informants, distractors)
    assert validate_spec(doc(team, params)) == []
    env = make_env("number_guess", params, team=team)
    assert env.possible_agents == [a["id"] for a in team]
    assert (env.informative, env.distractors, env.guesser) == (len(informants), len(distractors), "asker")
    assert [env.agent_kind(a) for a in informants] == ["informative"] * len(informants)
    assert env.action_space("asker").n == params["n"] and env.action_space(informants[0]).n == 1
    parallel_api_test(env, num_cycles=5)
    # the informants state the secret's digits in the order they are drawn
    for secret in range(params["n"]):
        obs, _ = env.reset(options={"secret": secret})
        assert env.decode(obs) == secret
        assert env.check_episode(secret, obs) == []
    _, rewards, *_ = env.step({"asker": env._secret})
    assert set(rewards.values()) == {1.0}


def test_team_kwargs_hand_the_spec_agents_to_the_environment():
    team = drawn(["p", "q"], ["r"], guesser="g")
    spec = load_spec(doc(team, {"n": 4}))
    env = make_env("number_guess", {"n": 4}, **team_kwargs("number_guess", spec.agents))
    assert env.possible_agents == ["p", "q", "r", "g"]


def test_without_a_team_the_fixed_names_stay():
    env = NumberGuessEnv(n=8, informative=3, distractors=1)
    assert env.possible_agents == ["clue_0", "clue_1", "clue_2", "distractor_0", "guesser"]


def errors_of(document: dict) -> dict[str, str]:
    return {e.path: e.message for e in validate_spec(document)}


def test_the_validator_says_in_words_what_a_drawn_team_lacks():
    no_guesser = doc(drawn(["a", "b"], []), {"n": 4})
    no_guesser["agents"][-1]["role"] = "informant"
    no_guesser["edges"] = []
    assert "add an agent with the role guesser" in errors_of(no_guesser)["$.agents"]

    only_guesser = doc([{"id": "g", "role": "guesser"}], {"n": 2})
    assert "add an informant" in errors_of(only_guesser)["$.agents"]

    stranger = doc(drawn(["a", "b"], []), {"n": 4})
    stranger["agents"].append({"id": "poet", "role": "writer", "prompt": "You write."})
    assert "has no part in number guessing" in errors_of(stranger)["$.agents[3].role"]

    # the number range must fit the clues the canvas draws, said at the parameter
    wrong_n = errors_of(doc(drawn(["a", "b", "c"], []), {"n": 16}))
    assert "n must be 2**informative = 8" in wrong_n["$.environment.params.n"]

    # a count the spec states must agree with the canvas; it is never "remove agents"
    stated = errors_of(doc(drawn(["a", "b", "c"], []), {"n": 8, "informative": 4}))
    assert "the canvas has 3 informants but informative says 4" in stated["$.environment.params.informative"]
    assert not any("remove agents" in m for m in stated.values())


def test_custom_nodes_with_the_fixed_names_keep_their_part():
    team = [{"id": "clue_0", "role": "custom"}, {"id": "clue_1", "role": "custom"}]
    team += [{"id": "distractor_0", "role": "custom"}, {"id": "guesser", "role": "custom"}]
    assert validate_spec(doc(team, {"n": 4})) == []
    env = make_env("number_guess", {"n": 4}, team=team)
    assert [env.agent_kind(a["id"]) for a in team] == ["informative", "informative", "distractor", "guesser"]


def test_a_bad_team_is_refused_by_the_environment_too():
    with pytest.raises(SpecValidationError, match="guesser"):
        NumberGuessEnv(n=4, team=drawn(["a", "b"], [])[:-1])


def test_the_shipped_example_still_validates_and_renamed_informants_train_the_same_shape():
    example = json.loads(EXAMPLE.read_text())
    assert validate_spec(example) == []
    renamed = copy.deepcopy(example)
    names = {f"clue_{j}": name for j, name in enumerate(["parity", "second", "third", "top"])}
    for agent in renamed["agents"]:
        agent["id"] = names.get(agent["id"], agent["id"])
    for edge in renamed["edges"]:
        edge["source"] = names.get(edge["source"], edge["source"])
        edge["target"] = names.get(edge["target"], edge["target"])
    assert validate_spec(renamed) == []
    spec = load_spec(renamed)
    env = make_env("number_guess", dict(spec.environment.params), **team_kwargs("number_guess", spec.agents))
    assert env.possible_agents[:4] == ["parity", "second", "third", "top"]
    assert env.digit_of("top", 8) == 1 and env.digit_of("parity", 8) == 0


def with_clues(team: list[dict], kinds: list[str | None]) -> list[dict]:
    """``team`` with each informant (in order) naming the clue kind of ``kinds`` (None: the environment's)."""
    informants = iter(kinds)
    return [
        {**a, **({"clue": kind} if (kind := next(informants)) else {})} if a["role"] == "informant" else a
        for a in team
    ]


@pytest.mark.parametrize(
    ("kinds", "params", "bases"),
    [
        (["bit", "range"], {"n": 16}, (2, 8)),
        (["range", "bit", "range"], {"n": 18}, (3, 2, 3)),
        ([None, None, "range"], {"n": 12}, (2, 2, 3)),  # the others keep the environment's bit clues
        (["bit", None], {"n": 18, "clue_kinds": ["ranges", "remainders"]}, (2, 9)),
        (["range", "bit", "range", "bit"], {"n": 16}, (2, 2, 2, 2)),  # any mix fits the template's 16
    ],
)
def test_each_informant_node_names_its_clue_kind(kinds, params, bases):
    team = with_clues(drawn([f"i{j}" for j in range(len(kinds))], ["noise"]), kinds)
    assert validate_spec(doc(team, params)) == []
    spec = load_spec(doc(team, params))
    assert [a.clue for a in spec.agents if a.role == "informant"] == kinds
    env = make_env("number_guess", params, **team_kwargs("number_guess", spec.agents))
    assert env.radices == bases and env.action_space("asker").n == params["n"]
    parallel_api_test(env, num_cycles=5)
    for secret in range(params["n"]):
        obs, _ = env.reset(options={"secret": secret})
        assert env.decode(obs) == secret
        assert env.check_episode(secret, obs) == []
    # each clue is phrased as its kind and place say: a bit as parity or a threshold, a range as a range or a remainder
    for j, kind in enumerate(env.kinds):
        texts = " ".join(env.vocabulary(f"i{j}")).lower()
        if kind == "bit" and j == 0:
            assert "even" in texts and "odd" in texts
        elif kind == "range" and j > 0:
            assert re.search(r"between|at least \d+ and at most", texts)


def test_clue_kinds_on_the_canvas_are_checked_in_words():
    team = with_clues(drawn(["low", "high"], ["noise"]), ["bit", "range"])
    wrong = errors_of(doc(team, {"n": 9}))
    assert "1 bit and 1 range informants" in wrong["$.environment.params.n"]
    assert "one of 4, 6, 8" in wrong["$.environment.params.n"]

    stray = doc(drawn(["low", "high"], ["noise"]), {"n": 4})
    stray["agents"][2]["clue"] = "bit"  # a distractor
    assert "only informants hold a clue" in errors_of(stray)["$.agents[2].clue"]
    assert set(errors_of(stray)) == {"$.agents[2].clue"}  # the rest of the team is read as drawn

    unknown = doc(drawn(["low", "high"], []), {"n": 4})
    unknown["agents"][0]["clue"] = "colour"
    assert "must be one of bit, range" in errors_of(unknown)["$.agents[0].clue"]

    support = json.loads((EXAMPLE.parent / "customer_service.json").read_text())
    support["agents"][0]["clue"] = "bit"
    assert "hold no clue kind" in errors_of(support)["$.agents[0].clue"]


def test_clue_kinds_as_a_parameter_list_one_per_informant():
    env = NumberGuessEnv(n=12, informative=3, clue_kinds=["bit", "bit", "range"])
    assert env.radices == (2, 2, 3)
    errors = NumberGuessEnv.validate_params({"n": 12, "informative": 3, "clue_kinds": ["bit", "range"]})
    assert [e.path for e in errors] == ["$.clue_kinds"]
    # without per-node kinds the environment is what it always was
    assert NumberGuessEnv(n=64, informative=3, clue_kinds=["ranges", "remainders"]).radices == (4, 4, 4)
    team = drawn(["low", "high"], ["noise"])
    team[2]["clue"] = "bit"
    with pytest.raises(SpecValidationError, match="only informants hold a clue"):
        NumberGuessEnv(n=4, team=team)
