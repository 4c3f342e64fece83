"""The product path (spec → `run_spec` → checkpoint → `TeamRuntime`) with clause readers, a warm start and
the PPO options (policy sharing, counterfactual baseline, teacher)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from agents.backbone import Backbone
from agents.spec import load_spec, validate_spec
from serving.runtime import TeamRuntime
from tests.fixtures.tiny_models import build_tiny_causal_lm
from training.mappo import run_spec

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service.json"
TRAIN = Path(__file__).resolve().parents[2] / "data" / "customer_service" / "train.jsonl"


def small_spec(tmp_path: Path, backbone: Backbone) -> dict:
    tickets = tmp_path / "tickets.jsonl"
    tickets.write_text("".join(TRAIN.read_text().splitlines(keepends=True)[:24]))
    doc = json.loads(EXAMPLE.read_text())
    doc["backbone"] = {"model": backbone.name, "pooling": "mean", "max_length": 32}
    doc["environment"]["params"] |= {
        "tickets": str(tickets),
        "reader": "clause",
        "reader_epochs": 5,
        "warm_start_episodes": 4,
        "warm_start_epochs": 1,
    }
    doc["training"] |= {"episodes": 4, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0}
    doc["circuit_breaker"] |= {"confidence_threshold": 0.0, "step_limit": 9}
    return doc


@pytest.mark.parametrize("reading", ["clause", "clause_keywords"])
def test_clause_reader_spec_trains_and_the_runtime_rebuilds_the_same_team(tmp_path, reading):
    torch.set_num_threads(1)
    backbone = Backbone.load(str(build_tiny_causal_lm(tmp_path / "lm")), pooling="mean", max_length=32)
    doc = small_spec(tmp_path, backbone)
    doc["environment"]["params"]["reader"] = reading
    spec = load_spec(doc)
    result = run_spec(spec, tmp_path / "run", backbone=backbone)
    assert result["status"] == "succeeded"
    assert (tmp_path / "run" / "warm_start" / "expert_s0_n4.jsonl").is_file()
    checkpoint = tmp_path / "run" / "checkpoints" / "mappo" / "last"
    runtime = TeamRuntime.from_spec_checkpoint(spec, checkpoint, backbone=backbone)
    # the runtime's actors carry exactly the trained clause readers of the checkpoint
    weights = load_file(str(checkpoint / "model.safetensors"))
    reader = runtime.model.policy.actor.reader.state_dict()
    assert reader and all(torch.equal(weights[f"actor.reader.{k}"], v) for k, v in reader.items())
    # the readers keep their pre-training (one reader copied to every agent): cloning and PPO trained the
    # actors on top of it, so no agent's reader moved away from the others
    assert all(torch.equal(v[1:], v[:1].expand_as(v[1:])) for v in reader.values())
    # with keywords every clause carries one pattern verdict per intent beside its sentence vector
    assert runtime.model.policy.actor.reader.dim == backbone.dim + (8 if reading == "clause_keywords" else 0)
    # the template's actors read 0/1 answers of the readers averaged with a plain classifier (decision 0030)
    assert runtime.model.policy.actor.reader.answers and weights["actor.reader.whole.weight"].abs().sum() > 0
    answer = runtime.run_ticket("my lamp arrived broken and I want a refund")
    assert answer["decisions"] and answer["sources"]["model"] == answer["steps"] > 0


def test_fitted_readers_stay_fixed_when_a_run_resumes(tmp_path):
    torch.set_num_threads(1)
    backbone = Backbone.load(str(build_tiny_causal_lm(tmp_path / "lm")), pooling="mean", max_length=32)
    doc = small_spec(tmp_path, backbone)
    doc["training"]["critic_warmup_episodes"] = 0  # the actors train from the first update
    assert run_spec(load_spec(doc), tmp_path / "run", backbone=backbone)["status"] == "succeeded"
    last = tmp_path / "run" / "checkpoints" / "mappo" / "last" / "model.safetensors"
    first = load_file(str(last))
    fitted = {k: v for k, v in first.items() if k.startswith("actor.reader.")}
    doc["training"]["episodes"] = 8  # resumed: no warm start this time, only more PPO updates
    resumed = run_spec(load_spec(doc), tmp_path / "run", backbone=backbone, resume=True)
    assert resumed["status"] == "succeeded" and resumed["metrics"]["episode"] == 8
    after = load_file(str(last))
    assert fitted and all(torch.equal(after[k], v) for k, v in fitted.items())
    assert any(not torch.equal(after[k], v) for k, v in first.items() if k.startswith("actor.l"))  # it trained


def test_spec_options_reach_the_trainer_and_the_runtime_rebuilds_that_team(tmp_path):
    torch.set_num_threads(1)
    backbone = Backbone.load(str(build_tiny_causal_lm(tmp_path / "lm")), pooling="mean", max_length=32)
    doc = small_spec(tmp_path, backbone)
    doc["environment"]["params"] |= {"reader": "whole", "warm_start_episodes": 0}
    doc["training"] |= {
        "policy_sharing": "independent",
        "counterfactual": True,
        "teacher": "expert",
    }
    spec = load_spec(doc)
    result = run_spec(spec, tmp_path / "run", backbone=backbone)
    assert result["status"] == "succeeded"
    # the expert disagrees with an untrained student somewhere: its corrections became samples
    assert result["metrics"]["teacher_samples"] > 0
    checkpoint = tmp_path / "run" / "checkpoints" / "mappo" / "last"
    runtime = TeamRuntime.from_spec_checkpoint(spec, checkpoint, backbone=backbone)
    policy = runtime.model.policy
    assert policy.cfg.sharing == "independent" and policy.cfg.counterfactual
    doc["training"]["policy_sharing"] = "lora"  # a different team than the checkpoint holds
    with pytest.raises(ValueError):
        TeamRuntime.from_spec_checkpoint(load_spec(doc), checkpoint, backbone=backbone)


def test_a_trained_run_teaches_a_student_with_other_settings(tmp_path):
    torch.set_num_threads(1)
    backbone = Backbone.load(str(build_tiny_causal_lm(tmp_path / "lm")), pooling="mean", max_length=32)
    doc = small_spec(tmp_path, backbone)
    doc["environment"]["params"] |= {"reader": "whole", "warm_start_episodes": 0}
    run_spec(load_spec(doc), tmp_path / "teacher", backbone=backbone)  # lora sharing, the default
    doc["training"] |= {"policy_sharing": "independent", "teacher": "checkpoint"}
    assert [e.path for e in validate_spec(doc)] == ["$.training.teacher_checkpoint"]  # none named
    doc["training"]["teacher_checkpoint"] = str(tmp_path / "nowhere")
    assert "no MAPPO checkpoint" in validate_spec(doc)[0].message
    doc["training"]["teacher_checkpoint"] = str(tmp_path / "teacher")
    assert validate_spec(doc) == []
    result = run_spec(load_spec(doc), tmp_path / "student", backbone=backbone)
    assert result["status"] == "succeeded" and result["metrics"]["teacher_samples"] > 0
    doc["training"]["teacher"] = "rules"  # a path no teacher reads is a mistake, not silence
    assert [e.path for e in validate_spec(doc)] == ["$.training.teacher_checkpoint"]


@pytest.mark.parametrize(
    ("params", "path"),
    [
        ({"reader": "sentences"}, "$.environment.params.reader"),
        ({"reader_epochs": -1}, "$.environment.params.reader_epochs"),
        ({"warm_start_episodes": "many"}, "$.environment.params.warm_start_episodes"),
    ],
)
def test_validator_names_a_bad_reader_setting_by_its_path(params, path):
    doc = json.loads(EXAMPLE.read_text())
    doc["environment"]["params"] |= params
    assert path in [e.path for e in validate_spec(doc)]


@pytest.mark.parametrize("reader", ["clause", "clause_keywords"])
def test_clause_reader_needs_the_labelled_tickets_of_customer_service(reader):
    doc = json.loads((EXAMPLE.parent / "number_guessing.json").read_text())
    doc["training"]["algorithm"] = "mappo"
    doc["environment"]["params"]["reader"] = reader  # only customer_service declares it
    errors = {e.path: e.message for e in validate_spec(doc)}
    assert "unknown parameter" in errors["$.environment.params.reader"]
    del doc["environment"]["params"]["reader"]
    doc["training"]["reader"] = reader  # a draft of the earlier shape: a reader it could not have
    assert "unknown key" in {e.path: e.message for e in validate_spec(doc)}["$.training.reader"]
    doc["training"]["reader"] = "whole"  # the earlier default, which it had written out, did nothing
    assert validate_spec(doc) == []
