"""Files a spec names: names resolve in the shipped data and the configured directories; a confined
validator (a server) accepts names only, with one message whatever the file system holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents import places
from agents.envs.customer_service.tickets import DEFAULT_DATA_DIR, TICKET_FILES
from agents.spec import validate_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def dirs(tmp_path):
    models, tickets = tmp_path / "models", tmp_path / "tickets"
    (models / "tiny-lm").mkdir(parents=True)
    (models / "tiny-lm" / "config.json").write_text("{}")
    tickets.mkdir()
    line = (DEFAULT_DATA_DIR / "test.jsonl").read_text().splitlines()[0]
    (tickets / "october.jsonl").write_text(line + "\n")
    before = places.places()
    places.configure(models, tickets)
    yield models, tickets
    places.configure(before.models_dir, before.tickets_dir, before.runs_dir, before.datasets_dir)


def cs_spec(**params) -> dict:
    spec = json.loads((EXAMPLES / "customer_service.json").read_text())
    spec["environment"]["params"] = {**spec["environment"].get("params", {}), **params}
    return spec


def confined_errors(spec) -> dict[str, str]:
    return {e.path: e.message for e in validate_spec(spec, confined=True)}


def test_names_resolve_inside_the_directories(dirs):
    models, tickets = dirs
    assert places.model_path("tiny-lm") == models / "tiny-lm"
    assert places.data_path("october", TICKET_FILES) == tickets / "october.jsonl"
    assert places.data_path("test", TICKET_FILES) == DEFAULT_DATA_DIR / "test.jsonl"
    assert places.data_path("handwritten", TICKET_FILES) == DEFAULT_DATA_DIR / "handwritten.jsonl"
    assert places.model_path("../models/tiny-lm") == Path("../models/tiny-lm")  # never a name


@pytest.mark.parametrize("path", ["/etc/passwd", "/definitely/not/here.jsonl", "../../etc/hosts", "~/x"])
def test_a_path_for_tickets_gets_one_message_whether_or_not_it_exists(dirs, path):
    errors = confined_errors(cs_spec(tickets=path))
    assert errors == {"$.environment.params.tickets": places.refusal(TICKET_FILES)}
    assert validate_spec(cs_spec(tickets="/etc/passwd")) == []  # the command line still takes paths


@pytest.mark.parametrize("model", ["/usr", "/nope", "./models/tiny-lm", ".hidden"])
def test_a_path_for_a_model_is_refused(dirs, model):
    spec = cs_spec()
    spec["backbone"] = {**spec.get("backbone", {}), "model": model}
    assert confined_errors(spec) == {"$.backbone.model": places.MODEL_MESSAGE}


def test_names_are_accepted_and_missing_names_say_so(dirs):
    spec = cs_spec(tickets="october")
    spec["backbone"] = {**spec.get("backbone", {}), "model": "tiny-lm"}
    assert confined_errors(spec) == {}
    spec["backbone"]["model"] = "other-lm"
    spec["environment"]["params"]["tickets"] = "november"
    errors = confined_errors(spec)
    assert errors["$.backbone.model"] == "no model named 'other-lm' in the server's models directory"
    assert errors["$.environment.params.tickets"] == (
        "no ticket file named 'november' among the shipped ones or in the server's customer_service data "
        "directory"
    )


def test_writer_model_is_confined_too(dirs):
    spec = json.loads((EXAMPLES / "research_report.json").read_text())
    spec["environment"]["params"] = {**spec["environment"].get("params", {}), "writer_model": "/usr/lib"}
    assert confined_errors(spec) == {"$.environment.params.writer_model": places.MODEL_MESSAGE}


def test_a_teacher_is_a_run_id_on_a_server(tmp_path):
    runs = tmp_path / "runs"
    best = runs / "12" / "checkpoints" / "mappo" / "best"
    best.mkdir(parents=True)
    (best / "state.json").write_text("{}")
    (best / "model.safetensors").write_bytes(b"")
    before = places.places()
    places.configure(None, None, runs)
    try:
        spec = cs_spec()
        spec["training"] |= {
            "algorithm": "mappo",
            "teacher": "checkpoint",
            "teacher_checkpoint": str(runs / "12"),
        }
        assert confined_errors(spec) == {"$.training.teacher_checkpoint": places.TEACHER_MESSAGE}
        spec["training"]["teacher_checkpoint"] = "12"
        assert confined_errors(spec) == {}
        assert places.find_checkpoint("12") == best
        assert places.find_checkpoint("13") is None
    finally:
        places.configure(before.models_dir, before.tickets_dir, before.runs_dir, before.datasets_dir)
