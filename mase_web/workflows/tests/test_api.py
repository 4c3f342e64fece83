"""The workflow API end to end: drafts, validation, publishing, versions, diff, restore, import/export."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from mase_web.accounts.models import Role
from mase_web.workflows.models import ImmutableVersionError, Workflow, WorkflowVersion
from mase_web.workflows.tests.conftest import template_spec

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_create_from_template_edit_publish_diff_restore(team):
    project, _, users, _ = team
    pm = client_for(users[Role.PRODUCT_MANAGER])
    r = pm.post(
        "/api/workflows/",
        {"project": project.pk, "name": "Blog", "template": "collaborative_writing"},
        format="json",
    )
    assert r.status_code == 201, r.json()
    wid = r.json()["id"]
    assert r.json()["spec"]["name"] == "Collaborative writing" and r.json()["latest_version"] is None

    # An invalid draft is stored (work in progress) but cannot be published.
    spec = r.json()["spec"]
    spec["agents"][0]["prompt"] = ""
    assert pm.patch(f"/api/workflows/{wid}/", {"spec": spec}, format="json").status_code == 200
    report = pm.post(f"/api/workflows/{wid}/validate/", {}, format="json").json()
    assert not report["valid"] and report["advice"] is None
    assert any(e["path"] == "$.agents[0].prompt" for e in report["errors"])
    r = pm.post(f"/api/workflows/{wid}/publish/", {"note": "broken"}, format="json")
    assert r.status_code == 400 and "$.agents[0].prompt" in r.json()["errors"]
    assert not WorkflowVersion.objects.filter(workflow_id=wid).exists()

    spec["agents"][0]["prompt"] = "Share your clue."
    pm.patch(
        f"/api/workflows/{wid}/", {"spec": spec, "layout": {"planner": {"x": 10, "y": 20.5}}}, format="json"
    )
    report = pm.post(f"/api/workflows/{wid}/validate/", {}, format="json").json()
    assert report["valid"] and report["advice"]["recommendation"] in ("rules", "marl")
    assert report["warnings"] == []  # every shipped template trains as shipped, without warnings
    r = pm.post(f"/api/workflows/{wid}/publish/", {"note": "first cut"}, format="json")
    assert r.status_code == 201 and r.json()["number"] == 1 and r.json()["author"] == "u_product_manager"
    assert r.json()["layout"] == {"planner": {"x": 10, "y": 20.5}}

    # Version 2: the writer's adapter grows and the polisher's link back to the planner goes.
    dropped = [e for e in spec["edges"] if e["source"] == "polisher" and e["target"] == "planner"]
    assert dropped, "the template has a feedback link from the polisher to the planner"
    spec["edges"] = [e for e in spec["edges"] if e not in dropped]
    spec["agents"][1]["lora"]["r"] = 8
    pm.patch(f"/api/workflows/{wid}/", {"spec": spec}, format="json")
    r = pm.post(f"/api/workflows/{wid}/publish/", {"note": "no feedback link"}, format="json")
    assert r.status_code == 201, r.json()

    diff = pm.get(f"/api/workflows/{wid}/diff/?base=1&target=2").json()
    assert diff["agents"] == {"added": [], "removed": [], "changed": ["writer"]}
    assert {"path": "$.agents[writer].lora.r", "kind": "changed", "before": 4, "after": 8} in diff["changes"]
    assert len(diff["edges"]["removed"]) == len(dropped)
    assert pm.get(f"/api/workflows/{wid}/diff/?base=1").json()["agents"]["changed"] == ["writer"]  # vs draft

    versions = pm.get(f"/api/workflows/{wid}/versions/").json()
    assert [v["number"] for v in versions["results"]] == [2, 1] and versions["count"] == 2
    assert versions["results"][0]["note"] == "no feedback link"

    r = pm.post(f"/api/workflows/{wid}/versions/1/restore/", format="json")
    assert r.status_code == 200 and len(r.json()["spec"]["agents"]) == 3
    assert r.json()["layout"] == {"planner": {"x": 10, "y": 20.5}}
    assert Workflow.objects.get(pk=wid).spec == WorkflowVersion.objects.get(workflow_id=wid, number=1).spec
    assert WorkflowVersion.objects.filter(workflow_id=wid).count() == 2  # restoring publishes nothing


def test_published_versions_are_immutable(team):
    *_, workflow = team
    version = workflow.versions.get()
    version.note = "rewritten history"
    with pytest.raises(ImmutableVersionError):
        version.save()


def test_export_then_import_round_trips(team):
    project, _, users, workflow = team
    pm = client_for(users[Role.PRODUCT_MANAGER])
    r = pm.get(f"/api/workflows/{workflow.pk}/export/")
    assert r.status_code == 200 and "attachment" in r["Content-Disposition"]
    assert r.json() == workflow.spec
    assert pm.get(f"/api/workflows/{workflow.pk}/export/?version=1").json() == workflow.versions.get().spec
    r = pm.post("/api/workflows/import/", {"project": project.pk, "spec": r.json()}, format="json")
    assert r.status_code == 201 and r.json()["name"] == workflow.spec["name"]
    assert Workflow.objects.get(pk=r.json()["id"]).spec == workflow.spec


def test_list_filters_searches_and_paginates(team):
    project, other, users, workflow = team
    Workflow.objects.create(project=project, name="Code review bot", spec={})
    Workflow.objects.create(project=other, name="Hidden", spec={})
    pm = client_for(users[Role.PRODUCT_MANAGER])
    body = pm.get("/api/workflows/").json()
    assert body["count"] == 2 and {"next", "previous", "results"} <= set(body)
    assert [w["name"] for w in pm.get("/api/workflows/?search=code").json()["results"]] == ["Code review bot"]
    assert pm.get(f"/api/workflows/?project={other.pk}").json()["count"] == 0  # not theirs
    assert pm.get("/api/workflows/?project=99999").json()["count"] == 0  # as another project's: no oracle
    assert pm.get("/api/workflows/?project=abc").status_code == 400
    names = [w["name"] for w in pm.get("/api/workflows/?ordering=name").json()["results"]]
    assert names == ["Code review bot", "Writing"]
    listed = pm.get(f"/api/workflows/?project={project.pk}&ordering=-name").json()["results"][0]
    assert listed["latest_version"] == 1 and listed["agents"] == 3


def test_template_gallery_and_catalogue(team):
    *_, users, _ = team
    c = client_for(users[Role.OPERATOR])
    gallery = c.get("/api/workflows/templates/").json()
    assert [t["slug"] for t in gallery] == [
        "number_guessing",
        "customer_service",
        "research_report",
        "collaborative_writing",
        "code_generation",
        "interactive_support",
        "large_team",
        "number_guess_n64",
    ]
    large = next(t for t in gallery if t["slug"] == "large_team")  # its groups' members, not the group boxes
    groups = c.get("/api/workflows/templates/large_team/").json()["spec"]["environment"]["params"]["groups"]
    assert large["agents"] == sum(int(line.split(":")[0].split("*")[1]) for line in groups) > 5
    detail = c.get("/api/workflows/templates/research_report/").json()
    assert detail["spec"]["name"] == "Research report" and detail["agents"] == 4
    r = c.get("/api/workflows/templates/nope/")
    assert r.status_code == 404 and r.json()["detail"]
    catalogue = c.get("/api/workflows/catalogue/").json()
    assert "custom" in {r["name"] for r in catalogue["roles"]}
    assert catalogue["presets"]["hierarchical"]["coherence_penalty"]["exploitation"] == -0.3
    assert catalogue["phases"] == ["exploration", "exploitation", "transfer"]
    service = {p["name"]: p for p in catalogue["environments"]["customer_service"]}
    assert service["delayed_reward"]["kind"] == "bool" and service["delayed_reward"]["default"] is False
    assert (
        service["supervisor_view"]["choices"] == ["ticket", "draft"]
        and service["max_steps"]["kind"] == "integer"
    )
    # only customer service's policy reads prompts (and routes work by them with deal_roles on)
    assert catalogue["prompt_routing"] == {"customer_service": "deal_roles"} and "deal_roles" in service
    clues = {p["name"]: p for p in catalogue["environments"]["number_guess"]}["clue_kinds"]
    assert clues["kind"] == "choice" and clues["default"] in clues["choices"]
    algorithms = {a["name"]: a for a in catalogue["algorithms"]}  # the designer's Training tab reads these
    assert set(algorithms) == {"reinforce_comm", "mappo", "ippo"}
    assert algorithms["mappo"]["centralised_critic"] and not algorithms["ippo"]["centralised_critic"]
    assert algorithms["ippo"]["deployable"] and not algorithms["reinforce_comm"]["deployable"]


def test_catalogue_serves_each_declared_option_with_its_rules(team):
    *_, users, _ = team
    schema = client_for(users[Role.OPERATOR]).get("/api/workflows/catalogue/").json()["schema"]
    assert set(schema["properties"]) == {
        "agents",
        "backbone",
        "communication",
        "edges",
        "fallback",
        "training",
        "resources",
        "circuit_breaker",
        "curriculum",
        "evolution",
    }
    union = schema["$defs"]["TrainingSpec"]  # one branch per algorithm, chosen by `algorithm`
    assert union["discriminator"]["propertyName"] == "algorithm"
    assert list(union["discriminator"]["mapping"]) == ["ippo", "mappo", "reinforce_comm"]
    training = schema["$defs"]["MappoTraining"]["properties"]
    assert training["algorithm"]["const"] == "mappo" and "baseline" not in training
    assert training["lr"]["exclusiveMinimum"] == 0 and training["lr"]["maximum"] == 1
    entropy = training["entropy_coef"]  # null = the algorithm's own default, said in its description
    assert entropy["default"] is None and "mappo/ippo 0.01" in entropy["description"]
    assert {"type": "null"} in entropy["anyOf"]
    assert schema["$defs"]["ResourcesSpec"]["additionalProperties"] is False
    assert schema["$defs"]["PlateauSpec"]["properties"]["cycles"]["minimum"] == 1


def test_token_auth_for_scripts(team):
    *_, users, workflow = team
    token = Token.objects.create(user=users[Role.OPERATOR])
    client = APIClient()
    assert client.get(f"/api/workflows/{workflow.pk}/").status_code in (401, 403)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.get(f"/api/workflows/{workflow.pk}/").json()["name"] == "Writing"


def test_openapi_schema_documents_the_workflow_api(team):
    *_, users, _ = team
    schema = client_for(users[Role.OPERATOR]).get("/api/schema/?format=json").json()
    for path in (
        "/api/workflows/",
        "/api/workflows/{id}/publish/",
        "/api/workflows/{id}/versions/{number}/restore/",
        "/api/workflows/{id}/diff/",
        "/api/workflows/import/",
        "/api/workflows/templates/",
    ):
        assert path in schema["paths"], path


def test_workflow_cannot_move_between_projects(team):
    _, other, users, workflow = team
    r = client_for(users["superuser"]).patch(
        f"/api/workflows/{workflow.pk}/", {"project": other.pk}, format="json"
    )
    assert r.status_code == 400 and "project" in r.json()["errors"]


def test_script_in_strings_is_stored_verbatim(team):
    project, _, users, _ = team
    spec = template_spec()
    spec["agents"][0]["prompt"] = "<script>alert('x')</script> plan the outline"
    spec["name"] = '<img src=x onerror="alert(1)">'
    pm = client_for(users[Role.PRODUCT_MANAGER])
    r = pm.post("/api/workflows/import/", {"project": project.pk, "spec": spec}, format="json")
    assert r.status_code == 201
    stored = Workflow.objects.get(pk=r.json()["id"])
    assert stored.spec["agents"][0]["prompt"].startswith("<script>")  # data stays data; the UI escapes it
    assert r["Content-Type"] == "application/json"
