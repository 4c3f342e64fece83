"""Spec options reach the trainers by name (training.spec_options): an option declared once in
agents/spec/nodes.py arrives in a config field of the same name with no other line, and no training
option is silently ignored."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from pydantic import Field

from agents.spec import load_spec
from agents.spec.nodes import CommunicationSpec, TrainingSpec
from training.mappo.config import MappoConfig
from training.mappo.from_spec import config_from_spec
from training.reinforce_comm.config import ReinforceCommConfig
from training.spec_options import TRANSLATED, same_named


def team(algorithm: str, **training: object):
    agents = [{"id": "a", "role": "custom", "prompt": "p"}, {"id": "b", "role": "custom", "prompt": "q"}]
    return load_spec({"name": "t", "agents": agents, "training": {"algorithm": algorithm, **training}})


def names(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def test_every_training_option_reaches_a_trainer_or_is_translated():
    read = names(MappoConfig) | names(ReinforceCommConfig) | set(TRANSLATED)
    ignored = sorted(names(TrainingSpec) - read)
    assert not ignored, f"training options no trainer reads: {ignored}"
    assert set(TRANSLATED) <= names(TrainingSpec), "TRANSLATED names an option the spec no longer has"


def test_same_named_options_arrive_as_given_and_null_keeps_the_default():
    mappo = config_from_spec(team("mappo", grad_clip=0.7, eval_episodes=17, seed=5, counterfactual=True))
    assert (mappo.grad_clip, mappo.eval_episodes, mappo.seed, mappo.counterfactual) == (0.7, 17, 5, True)
    reinforce = ReinforceCommConfig.from_spec(team("reinforce_comm", grad_clip=0.7, reading="per_agent"))
    assert (reinforce.grad_clip, reinforce.reading) == (0.7, "per_agent")
    assert same_named(MappoConfig, team("mappo").training).get("entropy_coef", "absent") == "absent"


def test_translated_options_are_not_passed_raw():
    """Episode counts become updates; the raw same-named value must not win over the translation."""
    mappo = config_from_spec(team("mappo", batch_size=16, eval_every=160, checkpoint_every=320))
    assert (mappo.eval_every, mappo.checkpoint_every) == (10, 20)


def test_a_new_option_needs_one_declaration():
    """`value_coef` exists in MappoConfig but not (yet) in the spec: declaring it on the training section
    alone — here on a subclass standing in for that one line in nodes.py — is enough to reach MAPPO."""
    assert "value_coef" not in names(TrainingSpec) and "value_coef" in names(MappoConfig)

    @dataclasses.dataclass(frozen=True)
    class WithValueCoef(TrainingSpec):
        value_coef: Annotated[float, Field(ge=0, le=100, description="weight of the critic's loss")] = 0.5

    base = team("mappo")
    extended = dataclasses.replace(
        base,
        training=WithValueCoef(
            **{f.name: getattr(base.training, f.name) for f in dataclasses.fields(TrainingSpec)},
            value_coef=0.25,
        ),
    )
    assert config_from_spec(extended).value_coef == 0.25
    assert config_from_spec(base).value_coef == MappoConfig.value_coef


def test_communication_options_reach_both_trainers_by_name():
    shared = names(CommunicationSpec) & names(MappoConfig)
    assert {"d_k", "beta_start", "beta_end", "explore_share"} <= shared
    spec = load_spec(
        {
            "name": "t",
            "agents": [
                {"id": "a", "role": "custom", "prompt": "p"},
                {"id": "b", "role": "custom", "prompt": "q"},
            ],
            "communication": {"d_k": 24, "beta_start": 0.9},
            "training": {"algorithm": "mappo"},
        }
    )
    cfg = config_from_spec(spec)
    assert (cfg.d_k, cfg.beta_start) == (24, 0.9)
    assert ReinforceCommConfig.from_spec(spec).d_k == 24


def test_options_declared_for_one_algorithm_are_not_read_by_the_others():
    """`read_by` (agents/spec/nodes.py) agrees with the trainers: MAPPO's config has no field for them."""
    from agents.spec.declared import rules

    for r in rules(TrainingSpec):
        if r.read_by and "mappo" not in r.read_by:
            assert r.name not in names(MappoConfig) and r.name not in TRANSLATED, r.name
        if r.read_by and "reinforce_comm" in r.read_by:
            assert r.name in names(ReinforceCommConfig), r.name
