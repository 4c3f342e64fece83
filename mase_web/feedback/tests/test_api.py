"""Feedback API: who sees what, balanced assignment, validation of ratings, agreement and export."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from mase_web.feedback.models import Assignment, PairwiseJudgement, Rating
from mase_web.feedback.tests.conftest import client_for, enqueue, make_queue, snapshot

pytestmark = pytest.mark.django_db


def my_item_ids(user, **query) -> list[int]:
    response = client_for(user).get("/api/feedback/my-items/", query)
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


def rate(user, item: int, value, tags=(), comment=""):
    body = {"item": item, "value": value, "tags": list(tags), "comment": comment}
    return client_for(user).post("/api/feedback/ratings/", body, format="json")


# A stranger is told the project is not among theirs, exactly as for a project that does not exist.
@pytest.mark.parametrize(("who", "status"), [("pm", 201), ("ann1", 403), ("op", 403), ("stranger", 400)])
def test_only_managers_create_queues(people, who, status):
    project, users = people
    body = {"project": project.pk, "name": "q", "overlap": 1}
    assert client_for(users[who]).post("/api/feedback/queues/", body, format="json").status_code == status


def test_assignment_is_balanced_deterministic_and_annotators_see_only_their_items(people):
    project, users = people
    queue = make_queue(users["pm"], project, overlap=2)
    items = enqueue(users["pm"], queue["id"], [f"run/{i}" for i in range(6)])
    per_item = Counter(Assignment.objects.values_list("item_id", flat=True))
    assert all(per_item[i] == 2 for i in items)  # overlap: two distinct annotators per item
    load = Counter(Assignment.objects.values_list("annotator__username", flat=True))
    assert load == {"ann1": 4, "ann2": 4, "ann3": 4}  # 12 assignments over 3 annotators
    # Deterministic: least-loaded first, ties by user id.
    assert my_item_ids(users["ann1"]) == [items[0], items[1], items[3], items[4]]
    for name in ("ann1", "ann2", "ann3"):
        mine = set(my_item_ids(users[name]))
        assigned = set(Assignment.objects.filter(annotator=users[name]).values_list("item_id", flat=True))
        assert mine == assigned and len(mine) == 4
    # Nobody else has assigned items, and the manager's item list is refused to annotators.
    for name in ("pm", "op", "stranger"):
        assert my_item_ids(users[name]) == []
    assert client_for(users["ann1"]).get(f"/api/feedback/queues/{queue['id']}/items/").status_code == 403
    assert client_for(users["pm"]).get(f"/api/feedback/queues/{queue['id']}/items/").json()["count"] == 6


def test_strangers_and_operators_see_no_queue(people):
    project, users = people
    queue = make_queue(users["pm"], project)
    for name in ("stranger", "op"):
        client = client_for(users[name])
        assert client.get("/api/feedback/queues/").json()["results"] == []
        assert client.get(f"/api/feedback/queues/{queue['id']}/").status_code == 404
    annotator_view = client_for(users["ann1"]).get(f"/api/feedback/queues/{queue['id']}/").json()
    assert annotator_view["guidelines"] == "Rate helpfulness." and "progress" not in annotator_view
    assert client_for(None).get("/api/feedback/queues/").status_code == 403


def test_annotators_cannot_launch_runs_or_deploy(people):
    from mase_web.deployments.models import Deployment
    from mase_web.runs.models import Run
    from mase_web.runs.tests.conftest import quick_spec

    project, users = people
    annotator = client_for(users["ann1"])
    launch = {"project": project.pk, "name": "x", "spec": quick_spec()}
    assert annotator.post("/api/runs/", launch, format="json").status_code == 403
    assert Run.objects.count() == 0
    run = Run.objects.create(project=project, name="trained", spec=quick_spec(), state=Run.State.SUCCEEDED)
    response = annotator.post("/api/deployments/", {"name": "x", "run": run.pk}, format="json")
    assert response.status_code == 403, response.content
    assert Deployment.objects.count() == 0


def test_rating_validation_and_update(people):
    project, users = people
    queue = make_queue(users["pm"], project, overlap=1)
    first, second, third = enqueue(users["pm"], queue["id"], ["a", "b", "c"])
    ann1 = users["ann1"]
    assert my_item_ids(ann1) == [first]
    for bad in (0, 6, "five", None):
        response = rate(ann1, first, bad)
        assert response.status_code == 400 and "value" in response.json()["errors"], response.content
    response = rate(ann1, first, 4, tags=["sarcastic"])
    assert response.status_code == 400 and "unknown tag" in response.json()["errors"]["tags"][0]
    response = rate(ann1, second, 4)  # assigned to ann2
    assert response.status_code == 400
    assert response.json()["errors"]["item"] == [f"no item {second} is assigned to you"]
    missing = rate(ann1, 999_999, 4)  # answers as an item of someone else's: no existence oracle
    assert missing.status_code == 400
    assert missing.json()["errors"]["item"] == ["no item 999999 is assigned to you"]
    assert Rating.objects.count() == 0

    created = rate(ann1, first, 4, tags=["great"], comment="clear answer")
    assert created.status_code == 201, created.content
    updated = rate(ann1, first, 2, tags=["wrong intent"], comment="on second thought")
    assert updated.status_code == 200
    stored = Rating.objects.get()
    assert (stored.value, stored.tags, stored.comment) == (2, ["wrong intent"], "on second thought")
    assert my_item_ids(ann1, pending=1) == []
    assert rate(users["pm"], first, 3).status_code == 403  # managers do not rate
    # The pairwise endpoint refuses a rating item.
    response = client_for(ann1).post(
        "/api/feedback/judgements/", {"item": first, "choice": "A"}, format="json"
    )
    assert response.status_code == 400 and "not compared" in str(response.json()["errors"])


def test_queue_validation_is_field_level(people):
    project, users = people
    client = client_for(users["pm"])
    body = {"project": project.pk, "name": "q", "overlap": 0, "tags": ["a", "a"], "kind": "vote"}
    errors = client.post("/api/feedback/queues/", body, format="json").json()["errors"]
    assert {"overlap", "tags", "kind"} <= set(errors)
    queue = make_queue(users["pm"], project, kind="rating")
    bad_items = {"items": [{"episode_key": "x", "snapshot": {"answer": "no task"}}]}
    response = client.post(f"/api/feedback/queues/{queue['id']}/enqueue/", bad_items, format="json")
    assert response.status_code == 400 and "items.0.snapshot.task" in response.json()["errors"]
    pair = {"items": [{"kind": "pair", "episode_key": "a", "snapshot": snapshot("t"), "episode_key_b": "b",
                       "snapshot_b": snapshot("t", answer="escalated")}]}  # fmt: skip
    response = client.post(f"/api/feedback/queues/{queue['id']}/enqueue/", pair, format="json")
    assert response.status_code == 400 and "takes episodes or steps" in str(response.json()["errors"])


def test_pairwise_judgements_agreement_and_export(people):
    project, users = people
    queue = make_queue(users["pm"], project, kind="pairwise", overlap=3, tags=[])
    pairs = [
        {"kind": "pair", "episode_key": f"run/{i}", "snapshot": snapshot(f"ticket {i}"),
         "episode_key_b": f"run/{i + 10}", "snapshot_b": snapshot(f"ticket {i}", answer="escalated")}
        for i in range(2)
    ]  # fmt: skip
    pm = client_for(users["pm"])
    items = pm.post(f"/api/feedback/queues/{queue['id']}/enqueue/", {"items": pairs}, format="json").json()[
        "items"
    ]
    choices = {items[0]: ["A", "A", "A"], items[1]: ["A", "B", "tie"]}
    for item, picks in choices.items():
        for name, choice in zip(("ann1", "ann2", "ann3"), picks, strict=True):
            body = {"item": item, "choice": choice, "comment": f"{name} picked {choice}"}
            response = client_for(users[name]).post("/api/feedback/judgements/", body, format="json")
            assert response.status_code == 201, response.content
    bad = client_for(users["ann1"]).post(
        "/api/feedback/judgements/", {"item": items[0], "choice": "C"}, format="json"
    )
    assert bad.status_code == 400 and "choice" in bad.json()["errors"]
    assert PairwiseJudgement.objects.count() == 6

    report = pm.get(f"/api/feedback/queues/{queue['id']}/agreement/").json()
    # Hand check: values A,A,A | A,B,tie; o_AA = 6/2 + 0 = 3... computed in training.agreement's tests.
    assert report["metric"] == "nominal" and report["units"] == 2 and report["alpha"] < 0.5
    assert [row["item"] for row in report["disagreements"]] == [items[1]]
    assert report["disagreements"][0]["spread"] == pytest.approx(2 / 3)

    response = pm.get(f"/api/feedback/queues/{queue['id']}/export/")
    assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"
    records = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    assert len(records) == 6
    assert records[3] == {**records[3], "type": "pairwise", "item": items[1], "annotator": "ann1", "choice": "A",
                          "episode_key": "run/1", "episode_key_b": "run/11", "comment": "ann1 picked A"}  # fmt: skip
    assert client_for(users["ann1"]).get(f"/api/feedback/queues/{queue['id']}/export/").status_code == 403


def test_ratings_agreement_disagreements_and_progress(people):
    project, users = people
    queue = make_queue(users["pm"], project, overlap=3)
    items = enqueue(users["pm"], queue["id"], ["e1", "e2", "e3"])
    given = {items[0]: (5, 5, 4), items[1]: (1, 2, 1), items[2]: (1, 5, 3)}
    for item, values in given.items():
        for name, value in zip(("ann1", "ann2", "ann3"), values, strict=True):
            assert rate(users[name], item, value).status_code == 201
    pm = client_for(users["pm"])
    report = pm.get(f"/api/feedback/queues/{queue['id']}/agreement/").json()
    assert report["metric"] == "ordinal" and report["units"] == 3 and report["values"] == 9
    assert -1 < report["alpha"] < 1 and report["interval_alpha"] is not None
    assert [(row["item"], row["spread"]) for row in report["disagreements"]] == [(items[2], 4)]
    detail = pm.get(f"/api/feedback/queues/{queue['id']}/").json()
    assert detail["progress"] == {"items": 3, "assignments": 9, "done": 9}
    assert client_for(users["ann1"]).get(f"/api/feedback/queues/{queue['id']}/").json()["my_progress"] == {
        "assigned": 3,
        "done": 3,
    }


def test_raising_overlap_and_new_annotators_top_up_assignments(people):
    from mase_web.accounts.models import Membership, Role

    project, users = people
    queue = make_queue(users["pm"], project, overlap=1)
    enqueue(users["pm"], queue["id"], ["x", "y", "z"])
    assert Assignment.objects.count() == 3
    pm = client_for(users["pm"])
    assert pm.patch(f"/api/feedback/queues/{queue['id']}/", {"overlap": 2}, format="json").status_code == 200
    assert Assignment.objects.count() == 6
    Membership.objects.create(project=project, user=users["stranger"], role=Role.ANNOTATOR)
    assert pm.patch(f"/api/feedback/queues/{queue['id']}/", {"overlap": 3}, format="json").status_code == 200
    assert Counter(Assignment.objects.values_list("item_id", flat=True)) == Counter(
        {i: 3 for i in Assignment.objects.values_list("item_id", flat=True)}
    )
    assert enqueue(users["pm"], queue["id"], ["x"]) == []  # a key already queued is not queued twice


def test_openapi_schema_documents_the_feedback_api(people):
    _, users = people
    schema = client_for(users["pm"]).get("/api/schema/?format=json").json()
    for path in (
        "/api/feedback/queues/",
        "/api/feedback/queues/{id}/enqueue/",
        "/api/feedback/queues/{id}/enqueue-deployment/",
        "/api/feedback/queues/{id}/agreement/",
        "/api/feedback/queues/{id}/export/",
        "/api/feedback/queues/{id}/reward-models/",
        "/api/feedback/reward-models/{id}/",
        "/api/feedback/my-items/",
        "/api/feedback/ratings/",
        "/api/feedback/judgements/",
    ):
        assert path in schema["paths"], path
    parameters = {p["name"] for p in schema["paths"]["/api/feedback/my-items/"]["get"]["parameters"]}
    assert {"queue", "pending", "page_size"} <= parameters
