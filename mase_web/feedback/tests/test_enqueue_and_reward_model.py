"""Queueing a deployment's logged episodes and steps, and training a reward model on a queue's ratings."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mase_web.feedback.models import FeedbackItem, FeedbackQueue, Rating, RewardModel
from mase_web.feedback.sources import WithRewardModel, project_feedback
from mase_web.feedback.tests.conftest import client_for, make_queue, snapshot


def deployment_with_episodes(project):
    """Three finished episodes: confident (model), unsure (model, 0.3) and one the fallback answered."""
    from mase_web.deployments.models import DecisionStep, Deployment, Episode
    from mase_web.runs.models import Run
    from mase_web.runs.tests.conftest import quick_spec

    run = Run.objects.create(project=project, name="trained", spec=quick_spec(), state=Run.State.SUCCEEDED)
    deployment = Deployment.objects.create(project=project, name="support", run=run, checkpoint="/x", spec={})
    rows = [("where is my parcel", 0.95, "model"), ("refund please", 0.3, "model"), ("??", 0.2, "fallback")]
    for i, (text, confidence, source) in enumerate(rows):
        episode = Episode.objects.create(
            deployment=deployment,
            request_id=f"req-{i}",
            task_text=text,
            status="completed",
            result={"info": {"predicted_intents": ["shipping"]}},
            reward=1.0,
        )
        for step, agent in enumerate(("router", "resolver")):
            DecisionStep.objects.create(
                episode=episode, step=step, agent=agent, observation="{}", action=f"act-{agent}",
                source=source, confidence=confidence if agent == "router" else 0.9,
                messages={"received": [{"from": "router", "weight": 0.7}]},
            )  # fmt: skip
    Episode.objects.create(deployment=deployment, request_id="req-live", task_text="x", status="running")
    return deployment


@pytest.mark.django_db
def test_enqueue_from_a_deployment_by_confidence_and_fallback(people):
    project, users = people
    deployment = deployment_with_episodes(project)
    queue = make_queue(users["pm"], project, overlap=1)
    pm = client_for(users["pm"])
    url = f"/api/feedback/queues/{queue['id']}/enqueue-deployment/"

    low = pm.post(url, {"deployment": deployment.pk, "max_confidence": 0.5}, format="json")
    assert low.status_code == 201 and low.json()["added"] == 2  # the unsure one and the fallback one
    keys = set(FeedbackItem.objects.values_list("episode_key", flat=True))
    assert keys == {f"deployment/{deployment.pk}/req-1", f"deployment/{deployment.pk}/req-2"}
    item = FeedbackItem.objects.get(episode_key=f"deployment/{deployment.pk}/req-1")
    assert item.snapshot["task"] == "refund please" and item.snapshot["answer"] == "shipping"
    assert [(s["agent"], s["action"], s["confidence"]) for s in item.snapshot["steps"]] == [
        ("router", "act-router", 0.3),
        ("resolver", "act-resolver", 0.9),
    ]
    assert item.snapshot["steps"][0]["messages"] == {"received": [{"from": "router", "weight": 0.7}]}
    assert item.episode.request_id == "req-1"

    steps = pm.post(url, {"deployment": deployment.pk, "unit": "step", "fallback_only": True}, format="json")
    assert steps.json()["added"] == 2  # the fallback episode's two steps
    step_item = FeedbackItem.objects.filter(kind="step").order_by("id").first()
    assert step_item.episode_key == f"deployment/{deployment.pk}/req-2#0:router"
    assert [s["agent"] for s in step_item.snapshot["steps"]] == [
        "router"
    ] and step_item.step.agent == "router"
    again = pm.post(url, {"deployment": deployment.pk, "max_confidence": 0.5}, format="json")
    assert again.json()["added"] == 0  # already queued

    errors = pm.post(url, {"deployment": 999, "max_confidence": 2}, format="json").json()["errors"]
    assert "max_confidence" in errors
    assert pm.post(url, {"deployment": 999}, format="json").json()["errors"] == {
        "deployment": ["no such deployment in this queue's project"]
    }
    assert (
        client_for(users["ann1"]).post(url, {"deployment": deployment.pk}, format="json").status_code == 403
    )


def other_deployment(project, checkpoint: str, tasks: list[str], name: str = "other", run=None):
    """A deployment of another (or the same) checkpoint that answered `tasks`, one finished episode each
    (a checkpoint belongs to one run: the same checkpoint is `run`'s, another one a new run's)."""
    from mase_web.deployments.models import Deployment, Episode
    from mase_web.runs.models import Run
    from mase_web.runs.tests.conftest import quick_spec

    if run is None:
        run = Run.objects.create(project=project, name=name, spec=quick_spec(), state=Run.State.SUCCEEDED)
    deployment = Deployment.objects.create(
        project=project, name=name, run=run, checkpoint=checkpoint, spec={}
    )
    for i, text in enumerate(tasks):
        Episode.objects.create(
            deployment=deployment, request_id=f"{name}-{i}", task_text=text, status="completed",
            result={"answer": f"{name} says hello"},
        )  # fmt: skip
    return deployment


@pytest.mark.django_db
@pytest.mark.parametrize(("unit", "added"), [("episode", [2, 1, 0]), ("step", [2, 2, 2, 0])])
def test_queueing_again_with_a_limit_takes_the_next_items_not_the_queued_ones(people, unit, added):
    """'At most N' counts new items: a second press queued the same oldest N again, so 0 were added while
    other finished episodes waited, and only a larger limit reached them."""
    project, users = people
    deployment = deployment_with_episodes(project)
    queue = make_queue(users["pm"], project, overlap=1)
    url = f"/api/feedback/queues/{queue['id']}/enqueue-deployment/"
    pm = client_for(users["pm"])
    body = {"deployment": deployment.pk, "unit": unit, "limit": 2}  # three episodes of two steps each
    assert [pm.post(url, body, format="json").json()["added"] for _ in added] == added


@pytest.mark.django_db
def test_pairwise_queues_pair_a_ticket_across_checkpoints_never_with_a_twin(people):
    from mase_web.deployments.models import Episode

    project, users = people
    deployment = deployment_with_episodes(project)  # checkpoint /x
    # The same ticket answered again by the same deployment: a twin of req-1, never paired with it.
    Episode.objects.create(
        deployment=deployment, request_id="req-9", task_text="refund please", status="completed"
    )
    twin = other_deployment(
        project, "/x", ["refund please", "where is my parcel"], name="same-ckpt", run=deployment.run
    )
    rival = other_deployment(project, "/y", ["refund please", "where is my parcel"], name="newer")
    queue = make_queue(users["pm"], project, kind="pairwise", overlap=1, tags=[])
    pm = client_for(users["pm"])
    url = f"/api/feedback/queues/{queue['id']}/enqueue-deployment/"

    response = pm.post(url, {"deployment": deployment.pk}, format="json")
    assert response.status_code == 201 and response.json()["added"] == 2
    pairs = {
        (p.episode_key.rsplit("/", 1)[1], p.episode_key_b.split("/", 1)[1]): (
            p.snapshot["task"], p.snapshot_b["task"], p.snapshot_b["meta"]["checkpoint"], p.snapshot_b["meta"]["run"]
        )
        for p in FeedbackItem.objects.filter(queue_id=queue["id"])
    }  # fmt: skip
    assert pairs == {
        ("req-0", f"{rival.pk}/newer-1"): ("where is my parcel", "where is my parcel", "y", rival.run_id),
        ("req-1", f"{rival.pk}/newer-0"): ("refund please", "refund please", "y", rival.run_id),
    }  # a checkpoint outside its run's directory is shown by its last part, never by the server's path
    for pair in FeedbackItem.objects.all():
        assert pair.episode_key != pair.episode_key_b and pair.snapshot["meta"]["checkpoint"] == "x"

    # Naming the rival: the same deployment, or one that serves the same checkpoint, is refused.
    for same in (deployment.pk, twin.pk):
        refused = pm.post(url, {"deployment": deployment.pk, "compare_with": same}, format="json")
        assert refused.status_code == 400 and list(refused.json()["errors"]) == ["compare_with"]
        assert "same deployment or checkpoint" in refused.json()["errors"]["compare_with"][0]
    assert pm.post(url, {"deployment": twin.pk, "compare_with": rival.pk}, format="json").json()["added"] == 2
    rating = make_queue(users["pm"], project, overlap=1)
    wrong_kind = pm.post(
        f"/api/feedback/queues/{rating['id']}/enqueue-deployment/",
        {"deployment": deployment.pk, "compare_with": rival.pk},
        format="json",
    )
    assert wrong_kind.status_code == 400 and "compare_with" in wrong_kind.json()["errors"]


@pytest.mark.django_db
def test_enqueue_refuses_a_pair_of_an_episode_with_itself_or_its_twin(people):
    project, users = people
    queue = make_queue(users["pm"], project, kind="pairwise", overlap=1, tags=[])
    pm = client_for(users["pm"])
    url = f"/api/feedback/queues/{queue['id']}/enqueue/"

    def post_pair(key_b: str, snapshot_b: dict, key_a: str = "run/1", snapshot_a: dict | None = None):
        item = {"kind": "pair", "episode_key": key_a, "snapshot": snapshot_a or snapshot("lost parcel"),
                "episode_key_b": key_b, "snapshot_b": snapshot_b}  # fmt: skip
        return pm.post(url, {"items": [item]}, format="json")

    def refused_field(response) -> str:
        assert response.status_code == 400, response.content
        (field,) = response.json()["errors"]
        return field

    same_key = post_pair("run/1", snapshot("lost parcel", answer="other answer"))
    assert refused_field(same_key).endswith("episode_key_b")
    assert "episode B is episode A" in str(same_key.json()["errors"])
    identical = post_pair("run/2", snapshot("lost parcel"))
    assert refused_field(identical).endswith("snapshot_b") and "identical" in str(identical.json()["errors"])
    at = {**snapshot("lost parcel"), "meta": {"deployment": 4, "request_id": "r1"}}
    again = {**snapshot("lost parcel", answer="re-sent"), "meta": {"deployment": 4, "request_id": "r2"}}
    twins = post_pair("deployment/4/r2", again, key_a="deployment/4/r1", snapshot_a=at)
    assert refused_field(twins).endswith("snapshot_b") and "same deployment (4)" in str(
        twins.json()["errors"]
    )
    assert FeedbackItem.objects.count() == 0

    elsewhere = {**again, "meta": {"deployment": 5, "request_id": "r2"}}
    ok = post_pair("deployment/5/r2", elsewhere, key_a="deployment/4/r1", snapshot_a=at)
    assert ok.status_code == 201 and ok.json()["added"] == 1
    assert post_pair("run/3", snapshot("lost parcel", answer="escalated")).json()["added"] == 1

    # Code that queues pairs directly (not through the API) skips twins too.
    from mase_web.feedback.enqueue import add_items, from_payload

    pairwise = FeedbackQueue.objects.get(pk=queue["id"])
    same = {"kind": "pair", "episode_key": "run/9", "snapshot": snapshot("x"), "episode_key_b": "run/9",
            "snapshot_b": snapshot("x", answer="y")}  # fmt: skip
    assert add_items(pairwise, from_payload([same])) == []


GOOD = "Your refund for order {} has been issued and reaches your card in three days."
BAD = "error {} null"


def rated_toy_queue(people, n: int = 12) -> FeedbackQueue:
    """n helpful answers rated 5 and n useless ones rated 1, by ann1."""
    project, users = people
    queue = make_queue(users["pm"], project, overlap=1)
    keys = [f"run/{i}" for i in range(2 * n)]
    items = [
        {
            "episode_key": key,
            "snapshot": snapshot(f"ticket {i}", answer=(GOOD if i % 2 == 0 else BAD).format(i)),
        }
        for i, key in enumerate(keys)
    ]
    response = client_for(users["pm"]).post(
        f"/api/feedback/queues/{queue['id']}/enqueue/", {"items": items}, format="json"
    )
    assert response.status_code == 201
    for item in FeedbackItem.objects.filter(queue_id=queue["id"]):
        value = 5 if int(item.episode_key.split("/")[1]) % 2 == 0 else 1
        annotator = item.assignments.get().annotator
        Rating.objects.create(item=item, annotator=annotator, value=value)
    return FeedbackQueue.objects.get(pk=queue["id"])


@pytest.mark.slow
@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_reward_model_trains_on_a_celery_worker_and_becomes_a_reward_source(people, live_services):
    queue = rated_toy_queue(people)
    pm = client_for(people[1]["pm"])
    started = pm.post(f"/api/feedback/queues/{queue.pk}/reward-models/")
    assert started.status_code == 201 and started.json()["state"] == "queued"
    model_id = started.json()["id"]
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        body = pm.get(f"/api/feedback/reward-models/{model_id}/").json()
        if body["state"] in ("succeeded", "failed"):
            break
        time.sleep(0.5)
    assert body["state"] == "succeeded", body["message"]
    metrics = body["metrics"]
    assert (metrics["n_train"], metrics["n_heldout"]) == (18, 6)
    assert metrics["accuracy"] > metrics["baseline_accuracy"] and metrics["accuracy"] >= 0.8
    assert body["progress"] == 1.0 and "held-out accuracy" in body["message"]
    model = RewardModel.objects.get(pk=model_id)
    assert Path(model.path).read_bytes()[8:9] == b"{"  # safetensors header
    assert client_for(people[1]["ann1"]).get(f"/api/feedback/reward-models/{model_id}/").status_code == 404

    # As a reward term: a queued but unrated episode is scored by the model; rated ones keep their rating.
    unrated = FeedbackItem.objects.create(
        queue=queue,
        kind="episode",
        episode_key="run/new",
        snapshot=snapshot("ticket", answer=GOOD.format(99)),
    )
    source = project_feedback(queue.project_id)
    assert isinstance(source, WithRewardModel)
    assert source.rating("run/0") == 1.0 and source.rating("run/1") == 0.0
    assert source.rating(unrated.episode_key) > 0.5
    assert source.rating("run/never-queued") is None


@pytest.mark.django_db
def test_reward_models_refuse_too_few_ratings_or_judged_pairs(people, monkeypatch):
    from mase_web.feedback import api
    from mase_web.feedback.training_job import train

    project, users = people
    pm = client_for(users["pm"])
    monkeypatch.setattr(api, "dispatch", lambda model: None)  # no worker here: the job runs below
    pairwise = make_queue(users["pm"], project, kind="pairwise", tags=[])
    response = pm.post(f"/api/feedback/queues/{pairwise['id']}/reward-models/")
    assert response.status_code == 201, response.content  # a pairwise queue trains a Bradley–Terry head
    assert train(response.json()["id"]) == "failed"
    assert "at least 4 pairs judged A or B" in RewardModel.objects.get(pk=response.json()["id"]).message
    rating = make_queue(users["pm"], project, overlap=1)
    model = RewardModel.objects.create(queue_id=rating["id"])
    assert train(model.pk) == "failed"
    model.refresh_from_db()
    assert "at least 4 rated items" in model.message and model.finished_at is not None


def stored_reward_model(queue: FeedbackQueue, n_heldout: int) -> RewardModel:
    metrics = {"accuracy": 2 / 3, "mae": 0.8, "baseline_accuracy": 1 / 3, "n_train": 3 * n_heldout,
               "n_heldout": n_heldout, "backbone": "all-MiniLM-L6-v2"}  # fmt: skip
    return RewardModel.objects.create(queue=queue, state="succeeded", progress=1.0, metrics=metrics)


@pytest.mark.django_db
def test_reward_model_api_reports_the_heldout_size_and_warns_below_30(people):
    project, users = people
    queue = FeedbackQueue.objects.get(pk=make_queue(users["pm"], project)["id"])
    small, large = stored_reward_model(queue, 3), stored_reward_model(queue, 30)
    pending = RewardModel.objects.create(queue=queue)
    pm = client_for(users["pm"])

    body = pm.get(f"/api/feedback/reward-models/{small.pk}/").json()
    assert body["metrics"]["n_heldout"] == 3 and body["metrics"]["accuracy"] == pytest.approx(2 / 3)
    assert body["warning"].startswith("only 3 held-out items") and "at least 30 held out" in body["warning"]
    assert pm.get(f"/api/feedback/reward-models/{large.pk}/").json()["warning"] is None
    listed = {m["id"]: m["warning"] for m in pm.get(f"/api/feedback/queues/{queue.pk}/reward-models/").json()}
    assert listed == {small.pk: body["warning"], large.pk: None, pending.pk: None}


@pytest.mark.slow
@pytest.mark.django_db
def test_a_reward_model_trained_on_few_items_says_how_few_and_warns(people):
    from mase_web.feedback.training_job import train

    queue = rated_toy_queue(people, n=6)  # 12 rated items: 3 held out
    model = RewardModel.objects.create(queue=queue)
    assert train(model.pk) == "succeeded"
    model.refresh_from_db()
    assert model.metrics["n_heldout"] == 3
    accuracy = f"{model.metrics['accuracy']:.0%}"
    assert model.message.startswith(f"held-out accuracy {accuracy} on 3 items — only 3 held-out items")
    body = client_for(people[1]["pm"]).get(f"/api/feedback/reward-models/{model.pk}/").json()
    assert "only 3 held-out items" in body["warning"]
