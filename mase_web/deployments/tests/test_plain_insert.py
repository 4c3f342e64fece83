"""`plain_insert.insert_rows` stores decision steps exactly as Django's `bulk_create` does (every column,
JSON, casts, the creation time), in several statements when the database limits the parameters."""

from __future__ import annotations

import numpy as np
import pytest

from mase_web.deployments.inference import step_row
from mase_web.deployments.models import DecisionStep, Episode
from mase_web.deployments.plain_insert import insert_rows
from mase_web.deployments.tests.conftest import make_deployment, team_spec

pytestmark = pytest.mark.django_db


def record(step: int, agent: str) -> dict:
    return {
        "step": step,
        "agent": agent,
        "observation": {"ticket": "my parcel is late — où est-il ?", "turn": step},
        "action": "route:shipping",
        "action_index": 3,
        "source": "model",
        "confidence": np.float32(0.625),  # the runtime's numbers may be numpy's
        "reason": {"alternatives": [{"action": "pass", "p": 0.25}], "rule": None},
        "messages": {"triage": [0.5, 0.25]},
        "latency_ms": 1.5,
        "reward": None,
        "breaker_state": "closed",
        "fault": "",
    }


def stored(episode: Episode) -> list[dict]:
    rows = DecisionStep.objects.filter(episode=episode).order_by("step", "agent").values()
    return [{k: v for k, v in row.items() if k not in ("id", "episode_id", "created_at")} for row in rows]


def test_rows_inserted_plainly_read_back_as_bulk_created_ones(team, trained_checkpoint, tiny_backbone_dir):
    project, _ = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    plain, bulk = (
        Episode.objects.create(deployment=deployment, request_id=f"r{i}", task_text="t") for i in (1, 2)
    )
    records = [record(step, agent) for step in range(1, 401) for agent in ("triage", "billing")]

    insert_rows([step_row(plain, r) for r in records])  # 800 rows: more than one statement on SQLite
    DecisionStep.objects.bulk_create(step_row(bulk, r) for r in records)

    assert len(stored(plain)) == 800 and stored(plain) == stored(bulk)
    first = DecisionStep.objects.filter(episode=plain).order_by("id").first()
    assert first.reason["alternatives"][0]["p"] == 0.25 and first.confidence == 0.625
    assert first.created_at is not None and first.review_status == "unreviewed"
    insert_rows([])  # nothing to store: no statement
