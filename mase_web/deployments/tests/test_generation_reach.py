"""What a deployment's writer may reach is the server operator's choice (settings.GENERATION_REACH, the models
directory), never a project member's: real HTTP servers on loopback record every request they receive, so
"refused" means nothing was sent, the key included."""

from __future__ import annotations

import shutil
import uuid

import pytest

from agents import places
from mase_web.accounts.models import Role
from mase_web.deployments import writing
from mase_web.deployments.models import Deployment
from mase_web.deployments.tests.conftest import client_for, fresh_text, make_trained_run, team_spec
from serving.generation import Reach
from serving.generation.reach import LOCAL_MODEL_MESSAGE
from tests.serving.generation.conftest import SECRET, recording_server

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_writers():
    writing.forget_all()
    yield
    writing.forget_all()


@pytest.fixture
def deployment_id(team, trained_checkpoint, tiny_backbone_dir):
    project, users = team
    run = make_trained_run(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    response = client_for(users[Role.PRODUCT_MANAGER]).post(
        "/api/deployments/", {"run": run.pk}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def remote(url: str, **extra) -> dict:
    return {"backend": "openai_compatible", "model": "m", "base_url": url, "max_retries": 0, **extra}


def set_writer(user, deployment_id: int, generation: dict, api_key: str | None = None):
    body = {"settings": generation, **({"api_key": api_key} if api_key is not None else {})}
    return client_for(user).post(f"/api/deployments/{deployment_id}/generation/", body, format="json")


def reply_to(user, deployment_id: int) -> dict:
    answered = client_for(user).post(
        f"/api/deployments/{deployment_id}/tickets/",
        {"text": fresh_text("where is my parcel?")},
        format="json",
    )
    assert answered.status_code == 201, answered.content
    return answered.json()["result"]["reply"]


def port_of(url: str) -> int:
    return int(url.split(":")[2].split("/")[0])


def test_a_host_the_operator_did_not_list_is_refused_alike_and_never_contacted(
    team, deployment_id, trained_checkpoint, tiny_backbone_dir, settings
):
    project, users = team
    pm = users[Role.PRODUCT_MANAGER]
    with recording_server() as (url, seen):
        settings.GENERATION_REACH = Reach.parse([f"127.0.0.1:{port_of(url) + 1}"])
        answers = [
            set_writer(pm, deployment_id, remote(target), api_key=SECRET)
            for target in (url, "http://no-such-host.invalid/v1", "http://169.254.169.254/v1", "http://127.0.0.1:6379/v1")
        ]  # fmt: skip
        run = make_trained_run(project, trained_checkpoint, team_spec(tiny_backbone_dir))
        deploy = client_for(pm).post(
            "/api/deployments/",
            {"run": run.pk, "generation": {"settings": remote(url), "api_key": SECRET}},
            format="json",
        )
    assert [a.status_code for a in answers] == [400] * 4 and deploy.status_code == 400
    [message] = {a.content for a in answers}  # one answer, whether the host exists, answers or is closed
    errors = answers[0].json()["errors"]
    assert list(errors) == ["settings"] and errors["settings"][0].startswith("base_url: ")
    assert f"127.0.0.1:{port_of(url) + 1}" in errors["settings"][0]
    assert deploy.json()["errors"]["generation.settings"] == errors["settings"]
    assert seen == [] and SECRET.encode() not in message
    stored = Deployment.objects.get(pk=deployment_id)
    assert stored.generation == {} and stored.generation_secret == ""


@pytest.mark.parametrize("variable", ["SECRET_KEY", "DATABASE_URL", "REDIS_URL", "HOME"])
def test_a_key_variable_the_operator_did_not_set_aside_is_refused(team, deployment_id, variable):
    _, users = team
    with recording_server() as (url, seen):
        answer = set_writer(users[Role.PRODUCT_MANAGER], deployment_id, remote(url, api_key_env=variable))
        assert answer.status_code == 400, answer.content
        assert answer.json()["errors"]["settings"][0].startswith("api_key_env: ")
        assert reply_to(users[Role.OPERATOR], deployment_id)["backend"] == "template"
    assert seen == []


def test_a_key_variable_the_operator_listed_is_sent_to_an_allowed_host(
    team, deployment_id, settings, monkeypatch
):
    _, users = team
    monkeypatch.setenv("MASE_TEST_LLM_ACCOUNT_KEY", SECRET)
    settings.GENERATION_REACH = Reach.parse(["127.0.0.1:*"], ["MASE_TEST_LLM_ACCOUNT_KEY"])
    with recording_server() as (url, seen):
        assert (
            set_writer(
                users[Role.PRODUCT_MANAGER],
                deployment_id,
                remote(url, api_key_env="MASE_TEST_LLM_ACCOUNT_KEY"),
            ).status_code
            == 200
        )
        reply = reply_to(users[Role.OPERATOR], deployment_id)
    assert reply["backend"] == "openai_compatible" and reply["faults"] == []
    assert seen and {r["authorization"] for r in seen} == {f"Bearer {SECRET}"}


def test_a_redirect_off_the_allowed_hosts_is_not_followed_and_the_template_answers(
    team, deployment_id, settings
):
    _, users = team
    with recording_server() as (elsewhere, received), recording_server(redirect_to=elsewhere) as (url, seen):
        settings.GENERATION_REACH = Reach.parse([f"127.0.0.1:{port_of(url)}"])
        saved = set_writer(users[Role.PRODUCT_MANAGER], deployment_id, remote(url), api_key=SECRET)
        assert saved.status_code == 200, saved.content
        reply = reply_to(users[Role.OPERATOR], deployment_id)
    assert seen and received == []  # the allowed server was asked; the host it pointed to never was
    assert reply["text"] and reply["fallback"] is True
    assert reply["faults"][0]["kind"] == "generation_error" and "HTTP 302" in reply["faults"][0]["detail"]


def test_settings_stored_before_the_operator_narrowed_the_list_never_connect(team, deployment_id, settings):
    _, users = team
    pm, operator = users[Role.PRODUCT_MANAGER], users[Role.OPERATOR]
    with recording_server() as (url, seen):
        assert set_writer(pm, deployment_id, remote(url), api_key=SECRET).status_code == 200
        assert reply_to(operator, deployment_id)["backend"] == "openai_compatible"
        asked = len(seen)
        settings.GENERATION_REACH = Reach.parse(["127.0.0.1:1"])  # the operator narrows the list
        reply = reply_to(operator, deployment_id)
        tried = client_for(pm).post(f"/api/deployments/{deployment_id}/generation/test/").json()
        # a row written before key variables were checked (or by hand) is refused the same way
        Deployment.objects.filter(pk=deployment_id).update(
            generation=remote(url, api_key_env="SECRET_KEY"), generation_secret=""
        )
        settings.GENERATION_REACH = Reach.parse(["127.0.0.1:*"])
        secret_key_reply = reply_to(operator, deployment_id)
    assert asked > 0 and len(seen) == asked  # nothing more reached the server
    assert reply["fallback"] is True and "base_url" in reply["faults"][0]["detail"]
    assert tried["ok"] is False and "base_url" in tried["error"]
    assert secret_key_reply["fallback"] is True and "api_key_env" in secret_key_reply["faults"][0]["detail"]
    assert reply_to(operator, deployment_id)["fallback"] is True


@pytest.fixture
def model_named(tiny_backbone_dir):
    """A model in the server's models directory, by name (a copy of the tiny backbone)."""
    root = places.places().models_dir
    name = f"writer-{uuid.uuid4().hex[:8]}"
    shutil.copytree(tiny_backbone_dir, root / name)
    yield name
    shutil.rmtree(root / name)


def test_the_local_writer_names_a_model_in_the_models_directory_never_a_path(
    team, deployment_id, model_named, tiny_backbone_dir
):
    _, users = team
    pm, operator = users[Role.PRODUCT_MANAGER], users[Role.OPERATOR]
    root = str(places.places().models_dir)
    refused = [
        set_writer(pm, deployment_id, {"backend": "local", "model": model})
        for model in ("/etc", str(tiny_backbone_dir), "../models", f"{model_named}/../{model_named}", "~")
    ]
    assert [r.status_code for r in refused] == [400] * 5
    assert len({r.content for r in refused}) == 1  # one message, whatever the path and whether it exists
    assert refused[0].json()["errors"]["settings"] == [f"model: {LOCAL_MODEL_MESSAGE}"]
    missing = set_writer(pm, deployment_id, {"backend": "local", "model": "no-such-model"})
    assert missing.status_code == 400 and "no model named 'no-such-model'" in missing.content.decode()
    accepted = set_writer(pm, deployment_id, {"backend": "local", "model": model_named})
    assert accepted.status_code == 200 and accepted.json()["generation"]["model"] == model_named
    reply = reply_to(operator, deployment_id)
    assert reply["text"] and root not in str(reply)
    tried = client_for(pm).post(f"/api/deployments/{deployment_id}/generation/test/")
    assert root not in tried.content.decode()


def test_a_local_path_stored_before_paths_were_refused_is_neither_shown_nor_loaded(team, deployment_id):
    _, users = team
    Deployment.objects.filter(pk=deployment_id).update(generation={"backend": "local", "model": "/etc"})
    shown = client_for(users[Role.ADMIN]).get(f"/api/deployments/{deployment_id}/")
    assert shown.status_code == 200 and shown.json()["generation"]["model"] == ""
    assert (
        "/etc"
        not in client_for(users[Role.ADMIN])
        .get(f"/api/deployments/{deployment_id}/generation/")
        .content.decode()
    )
    reply = reply_to(users[Role.OPERATOR], deployment_id)
    assert reply["fallback"] is True and "paths are not accepted" in reply["faults"][0]["detail"]
    assert "/etc" not in str(reply)
