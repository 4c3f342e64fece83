"""The table of training algorithms (agents.spec.algorithms) is the one place their capabilities live:
each has a trainer builder registered (training.algorithms) and an options model, and the validator, trainers, runtime and catalogue agree with it."""

from __future__ import annotations

import dataclasses
import json

import pytest

from agents.spec import load_spec, spec_catalog, validate_spec
from agents.spec.algorithms import (
    ALGORITHM_TABLE,
    ALGORITHMS,
    CAPABILITIES,
    DEFAULT_ALGORITHM,
    algorithm_info,
    either,
    has_centralised_critic,
    is_deployable,
    is_ppo,
    names_with,
    supports_data_parallel,
)
from agents.spec.nodes import TRAINING_SECTIONS, CommonTraining


def team_doc(algorithm: str, **training) -> dict:
    return {
        "name": "t",
        "agents": [{"id": "a", "role": "planner"}, {"id": "b", "role": "writer"}],
        "training": {"algorithm": algorithm, **training},
    }


def errors_at(doc: dict, path: str) -> list[str]:
    return [e.message for e in validate_spec(doc) if e.path == path]


def test_the_table_is_the_list_of_algorithms():
    assert ALGORITHMS == tuple(a.name for a in ALGORITHM_TABLE)
    assert len(set(ALGORITHMS)) == len(ALGORITHMS)
    assert DEFAULT_ALGORITHM in ALGORITHMS
    # each algorithm has its training section: the common options and its options model, named by the table
    assert list(TRAINING_SECTIONS) == list(ALGORITHMS)
    for name, section in TRAINING_SECTIONS.items():
        assert issubclass(section, CommonTraining) and issubclass(section, algorithm_info(name).options)
        assert {f.name for f in dataclasses.fields(section)} == {
            f.name for cls in (CommonTraining, algorithm_info(name).options) for f in dataclasses.fields(cls)
        }
        assert section().algorithm == name
    assert {"reinforce_comm", "mappo", "ippo"} <= set(ALGORITHMS)
    for name in ALGORITHMS:
        assert algorithm_info(name).name == name and algorithm_info(name).description


@pytest.mark.parametrize("info", ALGORITHM_TABLE, ids=lambda a: a.name)
def test_every_algorithm_has_a_registered_builder(info):
    from training.algorithms import BUILDERS, builder

    assert set(BUILDERS) == set(ALGORITHMS)  # no builder for an algorithm the spec does not accept
    assert callable(builder(info.name))
    if info.ppo:  # the PPO family trains through training.mappo and its config accepts the name
        from training.mappo import MappoConfig

        assert MappoConfig(algorithm=info.name).algorithm == info.name


def test_the_ppo_config_refuses_the_others_naming_the_table():
    from training.mappo import MappoConfig

    for name in ALGORITHMS:
        if not is_ppo(name):
            with pytest.raises(ValueError, match=f"must be {either('ppo', quoted=True)}"):
                MappoConfig(algorithm=name)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_deployable_exactly_when_the_runtime_accepts_it(name, tmp_path):
    from serving.runtime import RuntimeInputError, TeamRuntime

    team = load_spec(team_doc(name))  # design-only: the runtime stops at the first thing it lacks
    with pytest.raises(RuntimeInputError) as caught:
        TeamRuntime.from_spec_checkpoint(team, tmp_path, backbone=object())
    refused_algorithm = "this spec trains" in str(caught.value)
    assert refused_algorithm == (not is_deployable(name))


def test_the_validator_lists_the_tables_names_for_an_unknown_algorithm():
    (message,) = errors_at(team_doc("dqn"), "$.training.algorithm")
    assert message.startswith('unknown value "dqn"; choose one of ')
    for name in ALGORITHMS:
        assert json.dumps(name) in message


def test_capability_checks_follow_the_table():
    for name in ALGORITHMS:
        info = algorithm_info(name)
        ppo_errors = errors_at(team_doc(name, self_imitation=0.5), "$.training.self_imitation")
        assert bool(ppo_errors) == (not info.ppo)
        critic_errors = errors_at(team_doc(name, counterfactual=True), "$.training.counterfactual")
        assert bool(critic_errors) == (not info.centralised_critic)
        parallel = {**team_doc(name), "resources": {"processes": 2}}
        assert bool(errors_at(parallel, "$.resources.processes")) == (not info.data_parallel)
    (message,) = errors_at(team_doc("reinforce_comm", self_imitation=0.5), "$.training.self_imitation")
    assert message == f"a PPO setting: set algorithm to {either('ppo')}, not 'reinforce_comm'"


def test_predicates_take_any_value():
    for value in (None, 3, ["mappo"], {"a": 1}, "MAPPO", ""):
        assert not any(
            f(value) for f in (is_ppo, is_deployable, supports_data_parallel, has_centralised_critic)
        )
    assert names_with("ppo") == tuple(a.name for a in ALGORITHM_TABLE if a.ppo)
    with pytest.raises(ValueError, match="unknown capability"):
        names_with("flying")


def test_the_catalogue_serves_the_capabilities():
    cat = json.loads(json.dumps(spec_catalog()))
    assert cat["algorithms"] == list(ALGORITHMS)  # the existing key is unchanged
    rows = {row["name"]: row for row in cat["algorithm_capabilities"]}
    assert list(rows) == list(ALGORITHMS)
    for info in ALGORITHM_TABLE:
        assert rows[info.name]["options"] == [f.name for f in dataclasses.fields(info.options)]
        assert all(rows[info.name][c] == getattr(info, c) for c in CAPABILITIES)
