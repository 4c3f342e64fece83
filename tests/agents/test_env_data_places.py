"""Every environment parameter that names data (briefs, tasks, corpus) is a name on a server: a shipped
file or one in the datasets directory's folder of that environment. A path is refused with one message
whether or not it exists; the command line still takes paths; messages never show an absolute path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agents import places
from agents.envs import REGISTRY, env_class, make_env, register_env
from agents.envs.code_generation.tasks import TASK_FILES, TaskError, load_tasks
from agents.envs.collaborative_writing.briefs import BRIEF_FILES, BriefError, load_briefs
from agents.envs.params import describe_params
from agents.envs.research_report.corpus import CORPUS
from agents.spec import validate_spec
from agents.spec.paths import data_params, path_problems

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SHIPPED = places.SHIPPED_DATA
# (environment, parameter, declaration, a shipped value, the shipped data an own copy is made of)
DATA = [
    (
        "collaborative_writing",
        "briefs",
        BRIEF_FILES,
        "briefs",
        SHIPPED / "collaborative_writing" / "briefs.jsonl",
    ),
    ("code_generation", "tasks", TASK_FILES, "tasks", SHIPPED / "code_generation" / "tasks.jsonl"),
    ("research_report", "corpus", CORPUS, None, SHIPPED / "research_report"),
]
PATHS = ["/etc/passwd", "/etc", "/definitely/not/here.jsonl", "../../etc/hosts", "~/x", "./tasks", ".hidden"]


@pytest.fixture
def datasets(tmp_path):
    """A server's datasets directory holding one own copy of each environment's data, named "spring"."""
    root = tmp_path / "datasets"
    for environment, _, files, _, source in DATA:
        folder = root / environment
        folder.mkdir(parents=True)
        if files.directory:
            (folder / "spring").mkdir()
            for name in files.holds:
                shutil.copy(source / name, folder / "spring" / name)
        else:
            shutil.copy(source, folder / "spring.jsonl")
    before = places.places()
    places.configure(None, None, None, root)
    yield root
    places.configure(before.models_dir, before.tickets_dir, before.runs_dir, before.datasets_dir)


def spec_with(environment: str, **params) -> dict:
    spec = json.loads((EXAMPLES / f"{environment}.json").read_text())
    spec["environment"]["params"] = {**spec["environment"].get("params", {}), **params}
    return spec


def confined_errors(spec) -> dict[str, str]:
    return {e.path: e.message for e in validate_spec(spec, confined=True)}


def test_the_environments_declare_the_parameters_that_name_data():
    assert data_params("collaborative_writing") == {"briefs": BRIEF_FILES}
    assert data_params("code_generation") == {"tasks": TASK_FILES}
    assert data_params("research_report") == {"corpus": CORPUS, "writer_model": places.MODEL}
    assert set(data_params("customer_service")) == {"tickets"}
    assert data_params("number_guess") == {} and data_params("no_such_env") == {}


@pytest.mark.parametrize(("environment", "key", "files", "_", "__"), DATA)
@pytest.mark.parametrize("path", PATHS)
def test_a_path_gets_one_message_whether_or_not_it_exists(datasets, environment, key, files, _, __, path):
    assert confined_errors(spec_with(environment, **{key: path})) == {
        f"$.environment.params.{key}": places.refusal(files)
    }
    assert "paths are not accepted" in places.refusal(files)


@pytest.mark.parametrize(("environment", "key", "files", "shipped", "_"), DATA)
def test_names_resolve_in_the_shipped_data_and_the_datasets_directory(
    datasets, environment, key, files, shipped, _
):
    assert confined_errors(spec_with(environment, **{key: "spring"})) == {}
    own = datasets / environment / ("spring" if files.directory else "spring.jsonl")
    assert places.data_path("spring", files) == own
    if shipped is not None:
        assert confined_errors(spec_with(environment, **{key: shipped})) == {}
    assert confined_errors(spec_with(environment, **{key: None})) == {}
    assert confined_errors(spec_with(environment, **{key: "autumn"})) == {
        f"$.environment.params.{key}": places.missing("autumn", files)
    }
    env = make_env(environment, {key: "spring", "split": "train"})  # the worker reads the named copy
    assert env.reset(seed=0)


def test_without_a_datasets_directory_only_shipped_names_resolve():
    before = places.places()
    places.configure(None, None)
    try:
        assert confined_errors(spec_with("code_generation", tasks="tasks")) == {}
        assert confined_errors(spec_with("code_generation", tasks="spring")) == {
            "$.environment.params.tasks": "no task file named 'spring' among the shipped ones or in the "
            "server's code_generation data directory"
        }
    finally:
        places.configure(before.models_dir, before.tickets_dir, before.runs_dir, before.datasets_dir)


@pytest.mark.parametrize(("environment", "key", "files", "_", "source"), DATA)
def test_the_command_line_still_takes_paths(tmp_path, environment, key, files, _, source):
    """On a user's own machine (no confinement) a path works as before, and a wrong one says so."""
    mine = tmp_path / "mine"
    if files.directory:
        shutil.copytree(source, mine)
    else:
        shutil.copy(source, mine)
    assert validate_spec(spec_with(environment, **{key: str(mine)})) == []
    assert make_env(environment, {key: str(mine), "split": "train"}).reset(seed=0)
    errors = validate_spec(spec_with(environment, **{key: str(tmp_path / "absent")}))
    assert [e.path for e in errors] == [f"$.environment.params.{key}"]


def test_a_broken_file_is_named_without_the_servers_absolute_path(datasets):
    (datasets / "collaborative_writing" / "broken.jsonl").write_text("{}\n")
    (datasets / "code_generation" / "broken.jsonl").write_text("not json\n")
    with pytest.raises(BriefError) as brief:
        load_briefs("broken")
    with pytest.raises(TaskError) as task:
        load_tasks("broken")
    assert str(brief.value).startswith("collaborative_writing/broken.jsonl:1: not a brief")
    assert str(task.value).startswith("code_generation/broken.jsonl:1: not a task")
    assert str(datasets) not in str(brief.value) + str(task.value)
    assert places.shown(SHIPPED / "code_generation" / "tasks.jsonl") == "data/code_generation/tasks.jsonl"


class _FileReadingEnv:
    """A user environment with one data parameter: declaring it is all it takes to be confined."""

    parameters = describe_params(
        {"recipes": None},
        {"recipes": "A recipe file."},
        data={"recipes": places.DataFiles("cooking", "recipe file")},
    )


def test_a_new_environment_is_confined_by_declaring_its_data(datasets):
    register_env("cooking_test", _FileReadingEnv)
    try:
        doc = {"environment": {"name": "cooking_test", "params": {"recipes": "/etc/passwd"}}}
        assert path_problems(doc) == [
            ("$.environment.params.recipes", places.refusal(places.DataFiles("cooking", "recipe file")))
        ]
        (datasets / "cooking").mkdir()
        (datasets / "cooking" / "soup.jsonl").write_text("{}\n")
        assert path_problems({"environment": {"name": "cooking_test", "params": {"recipes": "soup"}}}) == []
    finally:
        REGISTRY.pop("cooking_test")


def test_declarations_name_known_parameters():
    with pytest.raises(ValueError, match="data parameters"):
        describe_params({"a": None}, {"a": "the a"}, data={"b": BRIEF_FILES})
    assert env_class("research_report").parameters  # the declarations are part of the described set
