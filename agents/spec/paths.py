"""A server's check that a spec names files, never gives paths: `path_problems`, `refuse_paths` and
`without_paths`.

The files a spec may name are the backbone (`backbone.model`), a checkpoint teacher
(`training.teacher_checkpoint`) and every environment parameter whose description declares the data it
names (`agents.envs.params.ParamInfo.data`): the checks follow those declarations, so a new environment's
data parameter is confined by declaring it, not by a line here. How a name resolves and the messages are
`agents.places`.
"""

from __future__ import annotations

from typing import Any

from agents import places
from agents.envs import UnknownEnvironmentError, env_class


def data_params(environment: object) -> dict[str, places.DataFiles]:
    """The parameters of ``environment`` (a registered name) that name data, and what they name; {} for
    an unknown or unavailable environment (the validator says so)."""
    if not isinstance(environment, str):
        return {}
    try:
        described = getattr(env_class(environment), "parameters", ())
    except UnknownEnvironmentError:
        return {}
    return {p.name: p.data for p in described if getattr(p, "data", None) is not None}


def path_problems(doc: Any) -> list[tuple[str, str]]:
    """(JSON path, message) for every file a spec names other than by a server-side name.

    Never touches the file system for a value that is not a name; a name is looked up only inside the
    shipped data and the configured directories. Wrong types are left to the validator.
    """
    if not isinstance(doc, dict):
        return []
    problems: list[tuple[str, str]] = []
    backbone = doc.get("backbone")
    model = backbone.get("model") if isinstance(backbone, dict) else None
    if isinstance(model, str) and model not in ("default", ""):
        problem = places.value_problem(model, places.MODEL)
        problems += [("$.backbone.model", problem)] if problem else []
    environment = doc.get("environment")
    if isinstance(environment, dict) and isinstance(environment.get("params"), dict):
        params = environment["params"]
        for key, files in data_params(environment.get("name")).items():
            problem = places.value_problem(params.get(key), files)
            problems += [(f"$.environment.params.{key}", problem)] if problem else []
    training = doc.get("training")
    teacher = training.get("teacher_checkpoint") if isinstance(training, dict) else None
    if isinstance(teacher, str) and teacher and not places.is_name(teacher):
        problems.append(("$.training.teacher_checkpoint", places.TEACHER_MESSAGE))
    return problems


def refuse_paths(doc: Any) -> None:
    """Raise ValueError naming every field of ``doc`` that gives a file other than by name (`path_problems`);
    a server calls it before opening anything a stored spec names (one stored before specs were checked)."""
    refused = path_problems(doc)
    if refused:
        raise ValueError("; ".join(f"{where}: {message}" for where, message in refused))


def without_paths(doc: Any) -> Any:
    """A copy of `doc` with every refused file value replaced by a harmless one (the backbone's default,
    an environment's default for the parameter), so that the rest of validation, which opens what a spec
    names, never touches a path a user sent."""
    problems = {p for p, _ in path_problems(doc)}
    if not problems:
        return doc
    doc = dict(doc)
    if "$.backbone.model" in problems:
        doc["backbone"] = {**doc["backbone"], "model": "default"}
    prefix = "$.environment.params."
    refused = [p.removeprefix(prefix) for p in problems if p.startswith(prefix)]
    if refused:
        described = getattr(env_class(doc["environment"]["name"]), "parameters", ())
        defaults = {p.name: p.default for p in described}
        environment = dict(doc["environment"])
        environment["params"] = {**environment["params"], **{key: defaults[key] for key in refused}}
        doc["environment"] = environment
    if "$.training.teacher_checkpoint" in problems:
        doc["training"] = {**doc["training"], "teacher_checkpoint": "refused"}
    return doc
