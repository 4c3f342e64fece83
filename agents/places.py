"""Where the files a spec names live: models and ticket files, by name.

A spec names three kinds of file: the backbone (`backbone.model`), the customer-service tickets
(`environment.params.tickets`) and the research report's writer (`environment.params.writer_model`).
Each may be a *name* that resolves inside a directory the machine's owner chose — the models
directory (`MASE_MODELS_DIR`) or the ticket directory (`MASE_TICKETS_DIR`) — or, on a user's own
machine (the `mase` command line), a path.

A server must not let a spec reach its file system: anyone who may edit a workflow could read any
file a worker can open, or probe which files exist through the validator's answers. `path_problems`
is the server's check: it accepts names only, and refuses anything else with one message that says
nothing about the file system (the same words for a path that exists and one that does not).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# A name: letters, digits, '.', '_', '-'; no separator, no leading dot (so never '..' or a hidden file).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
SPLITS = ("train", "validation", "test", "holdout_styles")


@dataclass(frozen=True)
class Places:
    """The directories names resolve in (None: not configured, so names do not resolve)."""

    models_dir: Path | None
    tickets_dir: Path | None
    runs_dir: Path | None = None  # a server's run directories: a checkpoint teacher names a run by id


def _env_dir(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


_places = Places(_env_dir("MASE_MODELS_DIR"), _env_dir("MASE_TICKETS_DIR"))


def configure(models_dir: Path | None, tickets_dir: Path | None, runs_dir: Path | None = None) -> None:
    """Set the directories (the web layer calls this once with its settings; the CLI reads the env)."""
    global _places
    _places = Places(models_dir, tickets_dir, runs_dir)


def places() -> Places:
    return _places


def is_name(value: object) -> bool:
    return isinstance(value, str) and NAME.fullmatch(value) is not None and ".." not in value


def model_path(model: str) -> Path:
    """The directory behind `backbone.model` / `writer_model`: a name in the models directory when one
    exists there, else the value as a path (a user's own machine)."""
    if is_name(model) and _places.models_dir is not None and (_places.models_dir / model).is_dir():
        return _places.models_dir / model
    return Path(model).expanduser()


def ticket_path(value: str | Path, shipped_dir: Path) -> Path:
    """The file behind `tickets`: a shipped split, a name in the ticket directory, else a path."""
    if isinstance(value, str) and value in SPLITS:
        return shipped_dir / f"{value}.jsonl"
    if is_name(value) and _places.tickets_dir is not None:
        for candidate in (_places.tickets_dir / str(value), _places.tickets_dir / f"{value}.jsonl"):
            if candidate.is_file():
                return candidate
    return Path(value)


MODEL_MESSAGE = (
    'on this server a model is "default" or the name of a model in the server\'s models directory; '
    "paths are not accepted"
)
TEACHER_MESSAGE = (
    "on this server a teacher checkpoint is one of this project's runs, named by its id (e.g. \"12\"); "
    "paths are not accepted"
)
TICKETS_MESSAGE = (
    f"on this server tickets are a split ({', '.join(SPLITS)}) or the name of a ticket file in the "
    "server's ticket directory; paths are not accepted"
)


def _missing(what: str, directory: str, name: str) -> str:
    return f"no {what} named {name!r} in the server's {directory} directory"


def path_problems(doc: Any) -> list[tuple[str, str]]:
    """(JSON path, message) for every file a spec names other than by a server-side name.

    Never touches the file system for a value that is not a name; a name is looked up only inside the
    configured directory. Wrong types are left to the validator.
    """
    if not isinstance(doc, dict):
        return []
    problems: list[tuple[str, str]] = []
    backbone = doc.get("backbone")
    model = backbone.get("model") if isinstance(backbone, dict) else None
    if isinstance(model, str) and model not in ("default", ""):
        problems += _model_problem("$.backbone.model", model)
    environment = doc.get("environment")
    params = environment.get("params") if isinstance(environment, dict) else None
    if isinstance(params, dict):
        tickets = params.get("tickets")
        if isinstance(tickets, str) and tickets not in SPLITS:
            if not is_name(tickets):
                problems.append(("$.environment.params.tickets", TICKETS_MESSAGE))
            elif ticket_path(tickets, Path("/nonexistent")) == Path(tickets):
                problems.append(("$.environment.params.tickets", _missing("ticket file", "ticket", tickets)))
        writer = params.get("writer_model")
        if isinstance(writer, str):
            problems += _model_problem("$.environment.params.writer_model", writer)
    training = doc.get("training")
    teacher = training.get("teacher_checkpoint") if isinstance(training, dict) else None
    if isinstance(teacher, str) and teacher and not is_name(teacher):
        problems.append(("$.training.teacher_checkpoint", TEACHER_MESSAGE))
    return problems


def _model_problem(path: str, model: str) -> list[tuple[str, str]]:
    if not is_name(model):
        return [(path, MODEL_MESSAGE)]
    if model_path(model) == Path(model).expanduser():  # did not resolve inside the models directory
        return [(path, _missing("model", "models", model))]
    return []


def without_paths(doc: Any) -> Any:
    """A copy of `doc` with every refused file value replaced by a harmless default, so that the rest of
    validation (which opens what a spec names) never touches a path a user sent."""
    problems = {p for p, _ in path_problems(doc)}
    if not problems:
        return doc
    doc = dict(doc)
    if "$.backbone.model" in problems:
        doc["backbone"] = {**doc["backbone"], "model": "default"}
    env_keys = {"$.environment.params.tickets": ("tickets", "train"),
                "$.environment.params.writer_model": ("writer_model", None)}  # fmt: skip
    for path, (key, safe) in env_keys.items():
        if path in problems:
            environment = dict(doc["environment"])
            environment["params"] = {**environment["params"], key: safe}
            doc["environment"] = environment
    if "$.training.teacher_checkpoint" in problems:
        doc["training"] = {**doc["training"], "teacher_checkpoint": "refused"}
    return doc


def find_checkpoint(path: str | Path) -> Path | None:
    """The MAPPO checkpoint a teacher names: a run id in the runs directory (a server), or a path; the
    directory itself, or a run directory's best (else last) checkpoint; None when there is none."""
    root = Path(path)
    if is_name(str(path)) and _places.runs_dir is not None and (_places.runs_dir / str(path)).is_dir():
        root = _places.runs_dir / str(path)
    for directory in (root, root / "checkpoints" / "mappo" / "best", root / "checkpoints" / "mappo" / "last"):
        if (directory / "state.json").is_file() and (directory / "model.safetensors").is_file():
            return directory
    return None
