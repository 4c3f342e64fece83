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


def test_an_environment_must_describe_exactly_its_parameters():
    with pytest.raises(ValueError, match="must cover exactly"):
        describe_params({"a": 1, "b": 2}, {"a": "the a"})
    with pytest.raises(ValueError, match="kinds"):
        describe_params({"a": None}, {"a": "the a"}, kinds={"a": "python"})
    kinds = [
        p.kind for p in describe_params({"a": True, "b": 2, "c": 0.5, "d": "x"}, dict.fromkeys("abcd", "?"))
    ]
    assert kinds == ["bool", "integer", "number", "text"]
