"""Every shipped example spec and designer template validates, round-trips, and fits its environment."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from agents.envs import REGISTRY, EnvironmentUnavailableError, env_class, make_env
from agents.spec import ROLES, load_spec, validate_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILES = sorted(EXAMPLES.rglob("*.json"))


# Environments that need a package the library does not install by default. An example for one of them
# is skipped when that package is absent, and only then; every other environment ships with the library,
# so failing to import it is a bug and fails the test.
OPTIONAL_PACKAGES = {"mpe": "mpe2"}


def _environment_or_skip(doc: dict) -> type | None:
    """The example's environment class (None without one): a broken import fails, a missing optional
    package skips."""
    name = (doc.get("environment") or {}).get("name")
    if name is None:
        return None
    package = OPTIONAL_PACKAGES.get(name)
    if package is not None and importlib.util.find_spec(package) is None:
        pytest.skip(f"environment {name!r} needs the optional package {package}, which is not installed")
    return env_class(name)


def test_a_broken_environment_import_fails_instead_of_skipping(monkeypatch):
    monkeypatch.setitem(REGISTRY, "broken_env", "agents.envs.no_such_module:BrokenEnv")
    with pytest.raises(EnvironmentUnavailableError, match="no_such_module"):
        _environment_or_skip({"environment": {"name": "broken_env"}})
    assert _environment_or_skip({"environment": {"name": "number_guess"}}) is env_class("number_guess")


def test_only_a_missing_optional_package_skips(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpe2", None)  # as if mpe2 were not installed
    with pytest.raises(pytest.skip.Exception, match="optional package mpe2"):
        _environment_or_skip({"environment": {"name": "mpe"}})


def test_the_expected_files_are_shipped():
    names = {str(p.relative_to(EXAMPLES)) for p in FILES}
    assert {
        "number_guessing.json",
        "number_guess_n64.json",
        "customer_service.json",
        "research_report.json",
        "collaborative_writing.json",
        "code_generation.json",
    } <= names
    assert not (EXAMPLES / "templates").exists(), "the gallery is examples/ itself: one file per template"


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(EXAMPLES)) for p in FILES])
def test_example_validates_and_round_trips(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    _environment_or_skip(doc)
    assert validate_spec(doc) == []
    spec = load_spec(path)
    assert load_spec(spec.to_dict()) == spec
    for agent in spec.agents:
        assert len(agent.prompt) >= 40, f"{agent.id} needs a realistic prompt"
    assert len(spec.description) >= 80
    if spec.environment.name is not None:
        load_spec(path, require_environment=True)


@pytest.mark.parametrize(
    ("template", "roles", "trainable"),
    [
        ("number_guessing", {"informant", "distractor", "guesser"}, True),
        ("customer_service", {"shopping_guide", "logistics", "dispute_mediator", "quality_supervisor"}, True),
        ("research_report", {"researcher", "analyst", "writer", "reviewer"}, True),
        ("collaborative_writing", {"planner", "writer", "polisher"}, True),
        ("code_generation", {"architect", "implementer", "tester", "code_reviewer"}, True),
    ],
)
def test_gallery_templates_have_their_roles(template, roles, trainable):
    doc = json.loads((EXAMPLES / f"{template}.json").read_text(encoding="utf-8"))
    assert {a["role"] for a in doc["agents"]} == roles
    assert set(roles) <= set(ROLES)
    assert (doc["environment"]["name"] is not None) == trainable
    assert doc["edges"], "a template shows how its agents connect"
    assert any(e["kind"] == "dependency" for e in doc["edges"]) or template == "number_guessing"
    assert doc["fallback"]["kind"] != "none"


@pytest.mark.parametrize("name", ["number_guessing.json", "number_guess_n64.json"])
def test_number_guess_examples_build_their_environment(name):
    spec = load_spec(EXAMPLES / name)
    env = make_env(spec.environment.name, dict(spec.environment.params))
    assert env.possible_agents == list(spec.agent_ids)
    obs, _ = env.reset(seed=0)
    assert env.check_episode(env.decode(obs), obs) == []
    _, rewards, *_ = env.step({a: 0 for a in env.agents} | {"guesser": env.decode(obs)})
    assert rewards["guesser"] == 1.0  # the clues decode to the secret
    # the guesser listens to every other agent, so the team must learn to ignore the distractors
    assert {e.source for e in spec.communication_edges if e.target == "guesser"} == set(spec.agent_ids) - {
        "guesser"
    }


def test_n64_example_is_the_generalisation_benchmark():
    spec = load_spec(EXAMPLES / "number_guess_n64.json")
    params = dict(spec.environment.params)
    assert (
        params["n"] == 64
        and params["distractors"] == 4
        and set(params["clue_kinds"]) == {"ranges", "remainders"}
    )
    train = make_env("number_guess", params)
    held = make_env("number_guess", {**params, "templates": "heldout"})
    for agent in train.possible_agents:
        if agent.startswith("clue_"):
            assert not set(train.vocabulary(agent)) & set(held.vocabulary(agent))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(EXAMPLES)) for p in FILES])
def test_a_template_plays_a_request_to_the_end_within_its_breaker_step_limit(path):
    """The breaker's step limit covers the environment's longest episode (the validator's check), and a
    request played by the template's fallback ends before the limit (it would trip the breaker)."""
    from agents.envs import breaker_step_limit, episode_limit, team_kwargs
    from serving.breaker import Fallback, make_fallback

    doc = json.loads(path.read_text(encoding="utf-8"))
    _environment_or_skip(doc)
    spec = load_spec(doc)
    name, params = spec.environment.name, dict(spec.environment.params)
    limit = breaker_step_limit(env_class(name), params, spec.circuit_breaker.step_limit)
    longest = episode_limit(env_class(name), params)
    assert longest is None or longest <= limit, (longest, limit)
    drawn = team_kwargs(name, spec.agents, spec.edges)
    env = make_env(name, params, **drawn)
    try:
        fallback = make_fallback(spec.fallback, name, params, team=drawn.get("team"))
    except ValueError:  # number guessing has no scripted team yet: its no-op actions play it instead
        fallback = Fallback()
    observations, _ = env.reset(seed=0)
    steps = 0
    while env.agents:
        steps += 1
        assert steps <= limit, f"{path.name}: the request is still playing past step {limit}"
        live = {a: observations[a] for a in env.agents if a in observations}
        observations, *_ = env.step({a: int(action) for a, (action, _) in fallback.actions(live).items()})


def test_a_breaker_step_limit_below_the_longest_episode_is_refused():
    doc = json.loads((EXAMPLES / "research_report.json").read_text(encoding="utf-8"))
    doc["circuit_breaker"]["step_limit"] = 20
    errors = validate_spec(doc)
    assert [e.path for e in errors] == ["$.circuit_breaker.step_limit"]
    assert "32 steps" in errors[0].message and "set it to 32 or more" in errors[0].message
    doc["environment"]["params"]["max_steps"] = 20  # a shorter episode: the limit covers it
    assert validate_spec(doc) == []


def test_an_unset_breaker_step_limit_is_the_environments_longest_episode_plus_a_margin():
    """No template types its step limit: each gets its own environment's (one definition), and a spec
    that sets one keeps it."""
    from agents.envs import UNMEASURED_STEP_LIMIT, breaker_step_limit

    for name, longest in {"research_report": 32, "collaborative_writing": 16, "customer_service": 6}.items():
        doc = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
        assert "step_limit" not in doc["circuit_breaker"], name
        spec = load_spec(doc)
        assert spec.circuit_breaker.step_limit is None
        limit = breaker_step_limit(env_class(name), dict(spec.environment.params))
        assert limit == longest + max(2, longest // 4) and limit > longest, (name, limit)
    cls = env_class("research_report")
    assert breaker_step_limit(cls, {"max_steps": 8}) == 10 and breaker_step_limit(cls, {}, 50) == 50
    assert breaker_step_limit(env_class("number_guess"), {}) == UNMEASURED_STEP_LIMIT
    doc = json.loads((EXAMPLES / "research_report.json").read_text(encoding="utf-8"))
    doc["circuit_breaker"]["step_limit"] = None  # null: unset as well
    assert validate_spec(doc) == [] and load_spec(doc).circuit_breaker.step_limit is None
