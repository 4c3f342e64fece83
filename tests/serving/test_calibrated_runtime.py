"""A run trained through `run_spec` carries its calibration; the runtime applies it, the breaker still trips
on faults, and the deploy form's preview replays the stored dev-split confidences."""

from __future__ import annotations

import json

import pytest
import torch

from agents.backbone import Backbone
from agents.envs.customer_service.tickets import Ticket
from agents.spec import load_spec
from serving.runtime import TeamRuntime
from tests.fixtures.faulty_backbone import FaultyBackbone
from tests.fixtures.quick_team import QUICK_START, QUICK_TEAM
from tests.fixtures.tiny_models import build_tiny_causal_lm
from training.mappo.calibration import CALIBRATION_FILE, load_calibration

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from training.mappo import run_spec

    tiny = Backbone.load(str(build_tiny_causal_lm(tmp_path_factory.mktemp("tiny_lm"))), max_length=32)
    doc = json.loads(open("examples/customer_service.json").read())
    doc["backbone"] = {"model": tiny.name, "pooling": "mean", "max_length": 32}
    doc["training"] |= {"episodes": 4, "batch_size": 2, "eval_every": 2, "checkpoint_every": 0} | QUICK_TEAM
    doc["environment"]["params"] |= QUICK_START
    spec = load_spec(doc)
    out = tmp_path_factory.mktemp("run")
    result = run_spec(spec, out, backbone=tiny)
    return spec, out / "checkpoints" / "mappo", tiny, result


def test_training_stores_a_calibration_with_each_checkpoint(trained):
    spec, root, _, result = trained
    assert result["status"] == "succeeded" and "calibration_error" in result["metrics"]
    for name in ("best", "last"):
        calibration = load_calibration(root / name)
        assert calibration is not None and (root / name / CALIBRATION_FILE).is_file()
        assert calibration["split"] == "validation" and calibration["tickets"] == 600
        assert set(calibration["temperatures"]) == {a.id for a in spec.agents}
        assert all(t > 0 for t in calibration["temperatures"].values())
        assert (
            calibration["ece_after"] <= calibration["ece_before"] + 1e-9
        )  # fitting never hurts on its split
        steps = calibration["confidences"]
        assert len(steps) == 600 and all(len(step) == 4 for ticket in steps for step in ticket)
        assert sum(len(t) for t in steps) * 4 == calibration["decisions"]


def test_the_runtime_reads_calibrated_confidence_and_faults_still_open_the_breaker(trained):
    spec, root, tiny, _ = trained
    faulty = FaultyBackbone(tiny)
    with TeamRuntime.from_spec_checkpoint(spec, root / "last", backbone=faulty) as runtime:
        temperature = runtime.model.temperature.flatten()
        assert runtime.status()["calibrated"] is True
        assert temperature.tolist() == pytest.approx(
            list(load_calibration(root / "last")["temperatures"].values())
        )
        runtime.breaker.config.confidence_threshold = 0.0  # the model answers every step
        result = runtime.run_ticket(
            Ticket("c-1", "my kettle arrived broken, refund please", ("damaged_item",))
        )
        first = result["decisions"][0]
        policy = runtime.model.policy
        observations, _ = runtime.env_factory().reset(
            options={"ticket": Ticket("c-1", "my kettle arrived broken, refund please", ("damaged_item",))}
        )
        o = policy.featurize([observations[a] for a in policy.agents], policy.obs_dim)
        with torch.no_grad():
            logits, _ = policy.actor(o.unsqueeze(0))
        expected = torch.softmax(logits[0, 0] / temperature[0], -1).max()
        assert first["confidence"] == pytest.approx(float(expected), abs=1e-5)
        for mode, kind in (("raise", "backbone_error"), ("nan", "non_finite")):
            runtime.breaker.force_closed("test", "before a fault")
            faulty.mode = mode
            try:
                faulted = runtime.run_ticket(f"where is my parcel? ({mode})")
            finally:
                faulty.mode = None
            assert runtime.breaker.state == "open" and faulted["faults"][0]["kind"] == kind
            assert faulted["sources"]["fallback"] == faulted["steps"]


def test_the_preview_replays_stored_confidences_at_any_threshold(trained):
    from serving.preview import preview

    spec, root, _, _ = trained
    low, spec_default, high = (preview(spec, root / "best", t) for t in (0.0, None, 1.0))
    assert low["fallback_ticket_share"] == 0.0 and low["model_decision_share"] == 1.0
    assert spec_default["confidence_threshold"] == spec_default["spec_threshold"] == 0.6
    assert high["fallback_ticket_share"] >= spec_default["fallback_ticket_share"]
    assert high["tickets"] == 600 and high["split"] == "validation"
    assert high["calibration_error"] == load_calibration(root / "best")["ece_after"]
