"""Fixtures of the deployments tests: a customer-service team trained for a moment on a tiny backbone,
runs and deployments of it, users in every role, and a backbone wrapper that injects faults."""

from __future__ import annotations

import copy
import itertools
import json
import shutil
import uuid
from pathlib import Path

import pytest
import torch
from django.contrib.auth import get_user_model

from agents import places
from mase_web.accounts.models import Membership, Project, Role
from mase_web.deployments import runtimes
from mase_web.deployments.models import Deployment
from mase_web.runs.models import Checkpoint, Run
from mase_web.runs.tests.conftest import client_for  # noqa: F401 - the deployments tests import it from here
from tests.fixtures.faulty_backbone import FaultyBackbone
from tests.fixtures.quick_team import QUICK_START, QUICK_TEAM

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "customer_service.json"
_fresh = itertools.count()


def fresh_text(base: str = "my lamp arrived broken and I want a refund") -> str:
    """A ticket text never seen before (so the backbone's embedding cache cannot hide a fault)."""
    return f"{base} (order {next(_fresh)})"


@pytest.fixture(scope="session")
def tiny_backbone_dir() -> Path:
    """A tiny causal LM in the server's models directory: specs name it (`named_backbone`), as a server
    requires; the library's own calls may still load it by its path."""
    from tests.fixtures.tiny_models import build_tiny_causal_lm

    directory = build_tiny_causal_lm(places.places().models_dir / f"tiny-lm-{uuid.uuid4().hex[:8]}")
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def named_backbone(backbone_dir: Path) -> dict:
    """A spec's `backbone` naming the tiny model in the models directory (never by its path)."""
    return {"model": backbone_dir.name, "pooling": "mean", "max_length": 32}


def team_spec(backbone_dir: Path, threshold: float = 0.0, consecutive_low: int = 3) -> dict:
    """The shipped customer-service team on the tiny backbone, with a training budget of a moment."""
    doc = json.loads(EXAMPLE.read_text())
    doc["backbone"] = named_backbone(backbone_dir)
    doc["training"] |= {"episodes": 2, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0}
    doc["training"] |= QUICK_TEAM  # no clause-reader pre-training: minutes on the tiny backbone
    doc["environment"]["params"] |= QUICK_START
    doc["circuit_breaker"] |= {"confidence_threshold": threshold, "consecutive_low": consecutive_low}
    return doc


@pytest.fixture(scope="session")
def trained_checkpoint(tiny_backbone_dir, tmp_path_factory) -> Path:
    """A MAPPO checkpoint of the team (trained once per session with training.mappo.run_spec)."""
    from agents.backbone import Backbone
    from agents.spec import load_spec
    from training.mappo import run_spec

    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("trained_team")
    backbone = Backbone.load(str(tiny_backbone_dir), pooling="mean", max_length=32)
    run_spec(load_spec(team_spec(tiny_backbone_dir)), out, backbone=backbone)
    return out / "checkpoints" / "mappo" / "last"


@pytest.fixture(autouse=True)
def fresh_runtimes():
    """Each test builds its runtimes anew (SQLite reuses the ids of rolled-back deployments)."""
    runtimes.forget_all()
    yield
    runtimes.forget_all()


@pytest.fixture
def team(db):
    """A project with one user per role, and a stranger from another project."""
    User = get_user_model()
    project, elsewhere = Project.objects.create(name="shop"), Project.objects.create(name="elsewhere")
    users = {}
    for role in Role.values:
        users[role] = User.objects.create_user(f"{role}-user")  # no password: API tests sign in directly
        Membership.objects.create(project=project, user=users[role], role=role)
    users["stranger"] = User.objects.create_user("stranger")
    Membership.objects.create(project=elsewhere, user=users["stranger"], role=Role.ADMIN)
    return project, users


def make_trained_run(project, checkpoint: Path | None, spec: dict, state=Run.State.SUCCEEDED) -> Run:
    """A finished run whose checkpoint row points at ``checkpoint`` (None: a run that wrote none)."""
    run = Run.objects.create(project=project, name="customer service", spec=copy.deepcopy(spec), state=state)
    shutil.rmtree(run.out_dir, ignore_errors=True)  # a rolled-back run with the same id may have left one
    if checkpoint is not None:
        Checkpoint.objects.create(run=run, step=2, path=str(checkpoint))
    return run


def make_deployment(project, checkpoint: Path, spec: dict, name: str = "cs") -> Deployment:
    run = make_trained_run(project, checkpoint, spec)
    return Deployment.objects.create(
        project=project, name=name, run=run, checkpoint=str(checkpoint), spec=copy.deepcopy(spec)
    )


def inject_faults(deployment: Deployment) -> FaultyBackbone:
    """Build the deployment's runtime in this process and put a `FaultyBackbone` under its team."""
    runtime = runtimes.runtime_for(deployment)
    featurizer = runtime.model.policy.featurize
    faulty = FaultyBackbone(featurizer.backbone)
    featurizer.backbone = faulty
    return faulty
