"""Where the files a spec names live: models, data files and run checkpoints, by name.

A spec names files in a few places: the backbone (`backbone.model`), a checkpoint teacher
(`training.teacher_checkpoint`) and every environment parameter that declares it names data (its
`DataFiles` in the environment's parameter descriptions, `agents.envs.params`): customer-service
tickets, collaborative-writing briefs, code-generation tasks, the research report's corpus and writer
model. Each may be a *name*: a shipped data file (``data/<environment>/<name>.jsonl``), or a file or
directory in a place the machine's owner chose — the models directory (`MASE_MODELS_DIR`), the
datasets directory with one folder per environment (`MASE_DATASETS_DIR/<environment>/`; customer-service
tickets keep `MASE_TICKETS_DIR`, which came first) or the runs directory — or, on a user's own machine
(the `mase` command line), a path.

A server must not let a spec reach its file system: anyone who may edit a workflow could read any
file a worker can open (code generation even runs the tests its task file holds), or probe which files
exist through the validator's answers. `agents.spec.paths` is the server's check, built from these
functions: it accepts names only, and refuses anything else with one message that says nothing about the
file system (the same words for a path that exists and one that does not). Messages name files by
`shown`, never by the server's absolute path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

# A name: letters, digits, '.', '_', '-'; no separator, no leading dot (so never '..' or a hidden file).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
REPOSITORY = Path(__file__).resolve().parents[1]
SHIPPED_DATA = REPOSITORY / "data"


@dataclass(frozen=True)
class DataFiles:
    """What an environment parameter that names data holds, and where its names resolve.

    ``folder`` is the environment's folder: ``data/<folder>/`` holds the shipped files (named without
    ``.jsonl``), ``<datasets directory>/<folder>/`` the server's own. ``directory``: the value is a
    directory holding the files ``holds`` (a corpus) rather than one JSONL file. ``MODEL`` (folder "")
    stands for a model in the models directory.
    """

    folder: str
    what: str  # the thing's name in messages: "brief file", "corpus"
    directory: bool = False
    holds: tuple[str, ...] = ()


MODEL = DataFiles("", "model", directory=True)
"""A parameter naming a model (a Hugging Face directory): a name in the models directory, never shipped."""
TICKETS_FOLDER = "customer_service"  # its server directory is MASE_TICKETS_DIR (older than the datasets one)


@dataclass(frozen=True)
class Places:
    """The directories names resolve in (None: not configured, so names do not resolve)."""

    models_dir: Path | None
    tickets_dir: Path | None
    runs_dir: Path | None = None  # a server's run directories: a checkpoint teacher names a run by id
    datasets_dir: Path | None = None  # one folder per environment: the data files a spec may name


def _env_dir(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


_places = Places(
    _env_dir("MASE_MODELS_DIR"), _env_dir("MASE_TICKETS_DIR"), None, _env_dir("MASE_DATASETS_DIR")
)


def configure(
    models_dir: Path | None,
    tickets_dir: Path | None,
    runs_dir: Path | None = None,
    datasets_dir: Path | None = None,
) -> None:
    """Set the directories (the web layer calls this once with its settings; the CLI reads the env)."""
    global _places
    _places = Places(models_dir, tickets_dir, runs_dir, datasets_dir)


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


def data_dir(files: DataFiles) -> Path | None:
    """The server's directory of ``files``' names (None: not configured)."""
    if files == MODEL:
        return _places.models_dir
    if files.folder == TICKETS_FOLDER and _places.tickets_dir is not None:
        return _places.tickets_dir
    return _places.datasets_dir / files.folder if _places.datasets_dir is not None else None


def usable(path: Path, files: DataFiles) -> bool:
    """Whether ``path`` is what ``files`` names: a file, or a directory holding the files it needs."""
    if not files.directory:
        return path.is_file()
    return path.is_dir() and all((path / name).is_file() for name in files.holds)


def shipped_names(files: DataFiles) -> tuple[str, ...]:
    """The names of the shipped data a parameter may give: ``data/<folder>/<name>.jsonl`` (or, for a
    directory parameter, the folder's sub-directories that hold what it needs)."""
    if files == MODEL or not (SHIPPED_DATA / files.folder).is_dir():
        return ()
    found = (SHIPPED_DATA / files.folder).iterdir()
    if files.directory:
        return tuple(sorted(p.name for p in found if is_name(p.name) and usable(p, files)))
    return tuple(sorted(p.stem for p in found if p.suffix == ".jsonl" and is_name(p.stem)))


def named_path(value: object, files: DataFiles) -> Path | None:
    """The file or directory a *name* stands for — a shipped one first, then one in the server's
    directory (as given or with ``.jsonl``) — or None. Touches nothing outside those directories."""
    if not is_name(value):
        return None
    name = str(value)
    if files == MODEL:
        found = model_path(name)
        return found if found != Path(name).expanduser() else None
    shipped = SHIPPED_DATA / files.folder / (name if files.directory else f"{name}.jsonl")
    if name in shipped_names(files):
        return shipped
    own = data_dir(files)
    if own is not None:
        for candidate in (own / name,) if files.directory else (own / name, own / f"{name}.jsonl"):
            if usable(candidate, files):
                return candidate
    return None


def data_path(value: str | Path, files: DataFiles) -> Path:
    """The file or directory behind a parameter's value: what a name stands for (`named_path`), else
    the value as a path (a user's own machine; a server has refused it already)."""
    return named_path(value, files) or Path(value)


def shown(path: str | Path) -> str:
    """How a message names a data file: relative to the repository (the shipped data) or to the server's
    directory holding it, never by the server's absolute path; any other path as given."""
    path = Path(path)
    roots = (_places.datasets_dir, _places.tickets_dir, _places.models_dir, _places.runs_dir, REPOSITORY)
    for root in roots:
        if root is not None and path.is_absolute():
            try:
                return str(Path(os.path.abspath(path)).relative_to(os.path.abspath(root)))
            except ValueError:
                continue
    return str(path)


MODEL_MESSAGE = (
    'on this server a model is "default" or the name of a model in the server\'s models directory; '
    "paths are not accepted"
)
TEACHER_MESSAGE = (
    'on this server a teacher checkpoint is one of this project\'s runs, named by its id (e.g. "12"); '
    "paths are not accepted"
)


def refusal(files: DataFiles) -> str:
    """The one message for a value of ``files`` that is not a name, whatever the file system holds."""
    if files == MODEL:
        return MODEL_MESSAGE
    own = f"one in the server's {files.folder} data directory"
    names = shipped_names(files)
    choices = f"a shipped one ({', '.join(names)}) or {own}" if names else own
    return f"on this server a {files.what} is given by name: {choices}; paths are not accepted"


def missing(value: str, files: DataFiles) -> str:
    """The message for a name that stands for nothing (it was looked up only inside those directories)."""
    if files == MODEL:
        return f"no model named {value!r} in the server's models directory"
    where = f"in the server's {files.folder} data directory"
    if shipped_names(files):
        where = f"among the shipped ones or {where}"
    return f"no {files.what} named {value!r} {where}"


def value_problem(value: object, files: DataFiles) -> str | None:
    """What is wrong, on a server, with ``value`` for a parameter naming ``files`` (None: it is a name that
    resolves; wrong types are left to the environment's own checks)."""
    if not isinstance(value, str):
        return None
    if not is_name(value):
        return refusal(files)
    return missing(value, files) if named_path(value, files) is None else None


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
