"""Number guessing takes its team from the canvas (issue 20): the informant, distractor and guesser nodes
are the players under their own ids, the counts come from the canvas, and the validator says in words
what a drawn team lacks."""

from __future__ import annotations

import copy
import json
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
