"""Every environment describes each of its parameters, and what it describes is what it accepts."""

from __future__ import annotations

import pytest

from agents.envs import REGISTRY, env_class, env_parameters
from agents.envs.params import describe_params


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_parameter_is_described_and_its_default_and_choices_are_valid(name):
    cls = env_class(name)
    described = env_parameters(name)
    assert described and all(p["help"] for p in described)
    assert not cls.validate_params({p["name"]: p["default"] for p in described})
    for param in described:
        for choice in param["choices"]:
            assert not cls.validate_params({param["name"]: choice}), (param["name"], choice)
    # an unknown parameter is refused, so the described set is the whole set
    assert cls.validate_params({"not_a_parameter": 1})


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_parameters_help_is_written_for_the_designer_not_the_code(name):
    """The Environment tab shows this text to a product manager: a code name such as `world.WORLDS` means
    nothing there."""
    assert [p["name"] for p in env_parameters(name) if "`" in p["help"]] == []


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_lists_help_says_how_the_designer_takes_it(name):
    """The designer takes a "lines" parameter one item a line and a "list" one comma-separated: a help
    that says the other (the large team's groups said "one line each" in a comma-separated field) misleads."""
    lists = [p for p in env_parameters(name) if p["kind"] in ("list", "lines")]
    assert [p["name"] for p in lists if "one line each" in p["help"] and p["kind"] != "lines"] == []
    assert [p["name"] for p in lists if "comma-separated" in p["help"] and p["kind"] != "list"] == []


def test_an_environment_must_describe_exactly_its_parameters():
    with pytest.raises(ValueError, match="must cover exactly"):
        describe_params({"a": 1, "b": 2}, {"a": "the a"})
    with pytest.raises(ValueError, match="kinds"):
        describe_params({"a": None}, {"a": "the a"}, kinds={"a": "python"})
    kinds = [
        p.kind for p in describe_params({"a": True, "b": 2, "c": 0.5, "d": "x"}, dict.fromkeys("abcd", "?"))
    ]
    assert kinds == ["bool", "integer", "number", "text"]


def test_adding_an_environment_parameter_is_one_declaration(monkeypatch):
    """One `param` field on a test environment's `EnvParams` gives its default, its range check, its help,
    the designer's form entry and the constructor's checked value; nothing else is written for it."""
    from dataclasses import dataclass

    from agents import places
    from agents.envs import make_env
    from agents.envs.params import EnvParams, param

    @dataclass(frozen=True)
    class EchoParams(EnvParams):
        rounds: int = param(3, "Rounds per episode.", low=1, high=9)
        tone: str = param("calm", "How the echo sounds.", choices=("calm", "loud"))
        notes: str | None = param(None, "A brief file by name.", data=places.MODEL)

    class EchoEnv:
        parameters = EchoParams.describe()
        validate_params = staticmethod(EchoParams.problems)

        def __init__(self, **params):
            self.params = EchoParams.build("echo", params)

    monkeypatch.setitem(REGISTRY, "echo_test", EchoEnv)  # registered for this test only
    assert EchoParams.defaults() == {"rounds": 3, "tone": "calm", "notes": None}
    described = {p["name"]: p for p in env_parameters("echo_test")}
    assert described["rounds"] == {
        "name": "rounds",
        "default": 3,
        "help": "Rounds per episode.",
        "kind": "integer",
        "choices": [],
        "data": None,
    }
    assert described["tone"]["kind"] == "choice" and described["tone"]["choices"] == ["calm", "loud"]
    assert described["notes"]["data"]["what"] == places.MODEL.what
    assert [(e.path, e.message) for e in EchoEnv.validate_params({"rounds": 10, "tone": "shrill"})] == [
        ("$.rounds", "must be an integer between 1 and 9"),
        ("$.tone", "must be one of: calm, loud"),
    ]
    assert make_env("echo_test", {"rounds": 5}).params == EchoParams(rounds=5)
    with pytest.raises(
        ValueError, match=r"\$\.environment\.params\.rounds: must be an integer between 1 and 9"
    ):
        make_env("echo_test", {"rounds": 0})
    with pytest.raises(ValueError, match=r"echo: \$\.rounds"):
        EchoEnv(rounds=True)


def test_environment_constructors_take_their_declared_parameters_by_keyword():
    from agents.envs.code_generation.env import CodeGenerationEnv
    from agents.envs.customer_service.env import CustomerServiceEnv

    assert CustomerServiceEnv("validation", max_steps=9, role_view="triage").max_steps == 9
    assert CodeGenerationEnv(split="test", shaping=0.5).shaping == 0.5
    with pytest.raises(
        ValueError, match=r"customer_service: \$\.max_steps: must be an integer between 2 and 100"
    ):
        CustomerServiceEnv(max_steps=1)
    with pytest.raises(ValueError, match="unknown parameter"):
        CodeGenerationEnv(not_a_parameter=1)
