"""One trainer interface (training.trainer.Trainer): both algorithms' trainers satisfy it — each is the
algorithm's own trainer class, looked up in the registry (training.algorithms), no adapter — and
`training.reinforce_comm` still offers the names it did as one module."""

from __future__ import annotations

import json

import pytest

from agents.spec import load_spec
from tests.training.test_reinforce_comm import spec_doc
from training.algorithms import builder
from training.events import EventStream
from training.mappo import MappoTrainer
from training.reinforce_comm import (
    ReinforceCommConfig,
    ReinforceCommTrainer,
    TrainingError,
    TrainResult,
    UpdateStats,
)
from training.trainer import Trainer


@pytest.fixture(scope="module")
def backbone():
    from agents.backbone import Backbone

    return Backbone.load("default")


def test_the_package_keeps_the_module_s_public_names():
    import training.reinforce_comm as package
    import training.trainer as interface

    assert set(package.__all__) == {
        "ReinforceCommConfig", "ReinforceCommTrainer", "TrainResult", "TrainingError", "UpdateStats",
        "build_trainer",  # what training.algorithms registers for "reinforce_comm"
    }  # fmt: skip
    assert TrainResult is interface.TrainResult and TrainingError is interface.TrainingError
    assert issubclass(TrainingError, ValueError) and ReinforceCommConfig().episodes == 3000
    assert "beta" in UpdateStats.__dataclass_fields__


def test_reinforce_comm_trainer_is_a_trainer_and_resumes_from_nothing(backbone, tmp_path):
    trainer = ReinforceCommTrainer(load_spec(spec_doc()), backbone=backbone)
    assert isinstance(trainer, Trainer)
    assert trainer.resume(None) is None and trainer.resume(tmp_path / "checkpoints") is None
    assert trainer.episode == 0


@pytest.mark.parametrize("algorithm", ["reinforce_comm", "mappo", "ippo"])
def test_the_registry_builds_the_algorithms_own_trainer_which_is_a_trainer(backbone, tmp_path, algorithm):
    doc = spec_doc()
    doc["training"]["algorithm"] = algorithm
    events = EventStream()
    trainer = builder(algorithm)(load_spec(doc), tmp_path, events=events, backbone=backbone)
    assert isinstance(trainer, Trainer)
    assert type(trainer) is (ReinforceCommTrainer if algorithm == "reinforce_comm" else MappoTrainer)
    assert trainer.agents == [a["id"] for a in doc["agents"]] and trainer.episode == 0
    if algorithm != "reinforce_comm":
        assert trainer.events is events  # its companions report on the run's stream from the start
        with pytest.raises(TrainingError, match="training.episodes"):
            trainer.run(events, episodes=10)  # the budget is the spec's, written by agents.spec.with_episodes
        with pytest.raises(TrainingError, match="overrides"):
            builder(algorithm)(load_spec(doc), tmp_path, backbone=backbone, overrides={"lr": 0.1})


def test_a_mappo_trainer_resumes_from_the_episode_of_its_last_checkpoint(backbone, tmp_path):
    doc = spec_doc()
    doc["training"]["algorithm"] = "mappo"
    trainer = builder("mappo")(load_spec(doc), tmp_path, backbone=backbone)
    assert trainer.resume(tmp_path / "checkpoints") is None
    last = tmp_path / "checkpoints" / "mappo" / "last"
    last.mkdir(parents=True)
    (last / "state.json").write_text(json.dumps({"episodes_done": 96, "update_index": 3}))
    assert trainer.resume(tmp_path / "checkpoints") == 96
    assert trainer.resume(None) is None
