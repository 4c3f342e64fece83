"""Launching a gallery template by its slug records the template in the run's source (the run page
names it); a slug the gallery does not hold is a 400 on `template`, and nothing is saved."""

import pytest

from mase_web.accounts.models import Role
from mase_web.runs.models import Run
from mase_web.runs.tests.conftest import client_for, quick_spec

pytestmark = pytest.mark.django_db


def test_a_run_launched_from_a_template_names_it(team):
    project, users = team
    client = client_for(users[Role.PRODUCT_MANAGER])
    body = {
        "project": project.pk, "name": "cs", "template": "customer_service", "overrides": {"episodes": 32},
        "baselines": False,
    }  # fmt: skip
    launched = client.post("/api/runs/", body, format="json")
    assert launched.status_code == 201, launched.content
    run = client.get(f"/api/runs/{launched.json()['id']}/").json()
    assert run["source"] == {
        "kind": "template",
        "template": "customer_service",
        "template_name": "Customer service",
        "overrides": {"episodes": 32},
    }
    assert run["spec"]["name"] == "Customer service" and run["spec"]["training"]["episodes"] == 32
    listed = client.get("/api/runs/").json()["results"]
    assert listed[0]["source"]["template_name"] == "Customer service"


@pytest.mark.parametrize("slug", ["no_such_template", "../examples/customer_service", "Customer service"])
def test_an_unknown_template_is_a_400_on_the_field(team, slug):
    project, users = team
    body = {"project": project.pk, "name": "x", "template": slug}
    response = client_for(users[Role.PRODUCT_MANAGER]).post("/api/runs/", body, format="json")
    assert response.status_code == 400
    [message] = response.json()["errors"]["template"]
    assert "choose one of:" in message and "customer_service" in message
    assert "/examples" not in message.replace(slug, "")  # the gallery's slugs, never the server's path
    assert Run.objects.count() == 0


def test_a_template_and_a_spec_together_are_refused(team):
    project, users = team
    body = {"project": project.pk, "name": "x", "template": "customer_service", "spec": quick_spec()}
    response = client_for(users[Role.PRODUCT_MANAGER]).post("/api/runs/", body, format="json")
    assert response.status_code == 400 and "spec" in response.json()["errors"]
    assert Run.objects.count() == 0
