"""Each event type's payload is declared once (`training.event_payloads`): the stream's types come from it,
the frontend's payload types are generated from the schema it prints, and real runs emit what it declares
(`tests/training/test_run_progress.py` checks every event of two short runs against it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.event_payloads import PAYLOADS, payload_problems, schema_text
from training.events import EVENT_TYPES, EventStream

COMMITTED = Path(__file__).resolve().parents[2] / "frontend" / "src" / "runs" / "events.schema.json"


def test_the_committed_schema_is_what_the_payload_models_declare():
    assert COMMITTED.read_text(encoding="utf-8") == schema_text(), (
        "an event payload changed: run `python -m training.event_payloads > frontend/src/runs/events.schema.json` "
        "and `npm run gen:events` in frontend/"
    )


def test_the_stream_knows_exactly_the_declared_event_types():
    assert EVENT_TYPES == set(PAYLOADS)
    with pytest.raises(ValueError, match="unknown event type 'progres'"):
        EventStream().emit("progres", done=1)


def test_a_stage_reports_a_progress_payload_as_declared():
    heard = []
    stream = EventStream([heard.append])
    with stream.stage("cloning", "Cloning the expert", total=4, unit="epochs") as stage:
        stage.advance(4)
    assert heard and all(not payload_problems(e.type, e.payload) for e in heard)
    assert heard[-1].payload["state"] == "done"


@pytest.mark.parametrize(
    ("type", "payload", "problem"),
    [
        (
            "progress",
            {
                "phase": "x",
                "label": "x",
                "done": 1,
                "total": 2,
                "unit": "u",
                "elapsed_s": 0.1,
                "eta_s": None,
                "state": "paused",
            },
            "state",
        ),
        ("finished", {"status": "done", "metrics": {}}, "status"),
        ("phase", {"to": "exploitation"}, "from"),
        ("plateau", {"cycles": 3, "recommendation": "r", "extra": 1}, "extra"),
        ("nothing", {}, "unknown event type"),
    ],
)
def test_a_payload_that_is_not_as_declared_is_named(type, payload, problem):
    problems = payload_problems(type, payload)
    assert problems and problem in " ".join(problems)


def test_payloads_that_carry_more_than_declared_keep_their_readings():
    assert not payload_problems("metrics", {"step": 1, "episode": 32, "success": 0.2, "golden.success": 0.2})
    assert not payload_problems("phase", {"from": "exploration", "to": "exploitation", "reason": "score"})
    assert not payload_problems(
        "alert", {"level": "warning", "name": "loss.spike", "message": "jumped", "value": 3}
    )
