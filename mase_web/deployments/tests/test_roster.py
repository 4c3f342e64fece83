"""An operator takes an agent of a deployed large team offline and brings it back (`deployments.roster`), and
the team's task stream (`deployments.task_stream`): who may (operators and admins; product managers 403, other
projects 404), what a bad agent gets (400 on ``agent``), what is recorded, and that streams in flight when the
agent goes offline are all answered, their tasks handed over and none given to it afterwards."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from mase_web.accounts.models import Membership, Project, Role
from mase_web.deployments import inference, runtimes
from mase_web.deployments.inference import TicketRequest, answer_ticket
from mase_web.deployments.models import AgentSwitch, DecisionStep
from mase_web.deployments.tests.conftest import client_for, make_deployment
from mase_web.deployments.tests.large_team import large_team_checkpoint, large_team_spec  # noqa: F401 - a fixture
from mase_web.deployments.tests.test_micro_batching import wait_until

pytestmark = pytest.mark.django_db(transaction=True)  # the streams' threads commit on their own connections


def member(project, role: str, name: str):
    user = get_user_model().objects.create_user(name)
    Membership.objects.create(project=project, user=user, role=role)
    return user


@pytest.fixture
def deployed(large_team_checkpoint):  # noqa: F811 - the fixture imported above
    project = Project.objects.create(name="support centre")
    deployment = make_deployment(project, large_team_checkpoint, large_team_spec(), name="centre")
    return project, deployment


def roster_url(deployment) -> str:
    return f"/api/deployments/{deployment.pk}/roster/"


def test_operators_switch_agents_others_may_not_and_bad_names_are_named(deployed):
    project, deployment = deployed
    operator = member(project, Role.OPERATOR, "op")
    client = client_for(operator)
    shown = client.get(roster_url(deployment)).json()
    assert [g["id"] for g in shown["groups"]] == [
        "guides",
        "couriers",
        "mediators",
        "inspectors",
        "generalists",
    ]
    assert shown["groups"][0]["members"] == ["guides_0", "guides_1"] and shown["offline"] == []

    answer = client.post(
        roster_url(deployment), {"agent": "couriers_1", "online": False, "reason": "on a break"}
    )
    assert answer.status_code == 200 and answer.json()["offline"] == ["couriers_1"]
    switch = AgentSwitch.objects.get()
    assert (switch.agent, switch.online, switch.actor, switch.reason) == (
        "couriers_1",
        False,
        operator,
        "on a break",
    )
    assert answer.json()["switches"][0]["actor"] == "op" and answer.json()["switches"][0]["created_at"]
    deployment.refresh_from_db()
    assert deployment.offline_agents == ["couriers_1"]
    back = client.post(roster_url(deployment), {"agent": "couriers_1", "online": True}, format="json")
    assert back.json()["offline"] == [] and AgentSwitch.objects.count() == 2

    bad = client.post(roster_url(deployment), {"agent": "couriers_9", "online": False}, format="json")
    assert bad.status_code == 400 and "no agent 'couriers_9' in this team" in bad.json()["errors"]["agent"][0]
    missing = client.post(roster_url(deployment), {"online": False}, format="json")
    assert missing.status_code == 400 and "agent" in missing.json()["errors"]

    pm = client_for(member(project, Role.PRODUCT_MANAGER, "pm"))
    annotator = client_for(member(project, Role.ANNOTATOR, "annotator"))
    # an annotator does not see deployments at all: the same 404 as every deployment route gives them
    assert annotator.post(roster_url(deployment), {"agent": "guides_0", "online": False}).status_code == 404
    assert pm.get(roster_url(deployment)).status_code == 200
    refused = pm.post(roster_url(deployment), {"agent": "couriers_9", "online": False}, format="json")
    assert (
        refused.status_code == 403 and "agent" not in refused.json()["errors"]
    )  # 403 before any word about the body
    elsewhere = Project.objects.create(name="another shop")
    stranger = client_for(member(elsewhere, Role.OPERATOR, "stranger"))
    assert stranger.get(roster_url(deployment)).status_code == 404
    assert stranger.post(roster_url(deployment), {"agent": "guides_0", "online": False}).status_code == 404
    assert AgentSwitch.objects.count() == 2


def test_the_last_agent_stays_online_and_other_teams_have_no_roster(deployed, tmp_path):
    project, deployment = deployed
    client = client_for(member(project, Role.ADMIN, "admin"))
    members = [m for g in client.get(roster_url(deployment)).json()["groups"] for m in g["members"]]
    for name in members[:-1]:
        assert client.post(roster_url(deployment), {"agent": name, "online": False}).status_code == 200
    last = client.post(roster_url(deployment), {"agent": members[-1], "online": False})
    assert last.status_code == 400 and last.json()["errors"]["agent"] == ["keep at least one agent online"]

    other = make_deployment(
        project, tmp_path, {"agents": [{"id": "a"}], "environment": {"name": "customer_service"}}
    )
    answer = client.post(roster_url(other), {"agent": "a", "online": False})
    assert (
        answer.status_code == 400
        and "no agents an operator can take offline" in answer.json()["errors"]["agent"][0]
    )
    tasks = client.post(f"/api/deployments/{other.pk}/tasks/", {"count": 5})
    assert tasks.status_code == 400 and "not a stream of tasks" in tasks.json()["errors"]["count"][0]


def test_a_stream_of_tasks_is_allocated_and_each_decision_carries_the_bids(deployed):
    project, deployment = deployed
    client = client_for(member(project, Role.OPERATOR, "op"))
    client.post(roster_url(deployment), {"agent": "guides_0", "online": False})
    answer = client.post(f"/api/deployments/{deployment.pk}/tasks/", {"count": 30, "seed": 4})
    assert answer.status_code == 201, answer.json()
    result = answer.json()["result"]
    assert result["steps"] == 30 and "decisions" not in result and result["info"]["lost"] == 0
    steps = DecisionStep.objects.filter(episode_id=answer.json()["episode"]["id"])
    assert steps.count() == 30 * 9 and not steps.filter(agent="guides_0").exists()
    allocations = {s.step: s.reason["allocation"] for s in steps}
    assert sorted(allocations) == list(range(1, 31))
    assert all(a["winner"] != "guides_0" and "guides_0" not in a["bids"] for a in allocations.values())
    assert any(a["bids"] for a in allocations.values())
    too_many = client.post(f"/api/deployments/{deployment.pk}/tasks/", {"count": 61})
    assert too_many.status_code == 400 and "at most 60 tasks" in too_many.json()["errors"]["count"][0]
    pm = client_for(member(project, Role.PRODUCT_MANAGER, "pm"))
    assert pm.post(f"/api/deployments/{deployment.pk}/tasks/", {"count": 61}).status_code == 400  # may send
    annotator = client_for(member(project, Role.ANNOTATOR, "annotator"))
    assert annotator.post(f"/api/deployments/{deployment.pk}/tasks/", {"count": 5}).status_code == 404


def test_streams_in_flight_when_an_agent_goes_offline_are_all_answered(deployed):
    project, deployment = deployed
    operator = member(project, Role.OPERATOR, "op")
    runtime = runtimes.runtime_for(deployment)
    at_ten: list[dict] = []
    gate = threading.Event()
    heard = runtime.info_sink

    def gated(request_id, step, info):  # every stream waits at its tenth task until the agent is offline
        if step == 10:
            at_ten.append(info["load"])
            gate.wait(60)
        heard(request_id, step, info)

    runtime.info_sink = gated
    answers: list = [None] * 3
    errors: list[BaseException] = []

    def one(i: int) -> None:
        try:
            answers[i] = answer_ticket(
                deployment, TicketRequest("stream", options={"tasks": 60}, seed=10 + i), "api", operator
            )
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
    with inference._playing_turn(deployment.pk):  # the three streams gather in one group and play together
        for t in threads:
            t.start()
        wait_until(
            lambda: len(getattr(inference._open_groups.get(deployment.pk), "tickets", [])) == 3, "a group"
        )
    wait_until(lambda: len(at_ten) == 3, "three streams at their tenth task")
    backlog = at_ten[0]["backlog"]
    agents = runtime.agents
    busiest = max(
        (i for i, a in enumerate(agents) if not a.startswith("generalists")), key=backlog.__getitem__
    )
    agent = agents[busiest]
    assert backlog[busiest] > 0
    taken = client_for(operator).post(roster_url(deployment), {"agent": agent, "online": False})
    assert taken.status_code == 200
    gate.set()
    for t in threads:
        t.join(120)
    assert not errors and all(a is not None for a in answers)
    for answer in answers:
        result = answer.result
        assert result["status"] == "truncated" and result["steps"] == 60 and result["info"]["lost"] == 0
        by_step = {d["step"]: d["reason"]["allocation"] for d in result["decisions"]}
        assert any(d["agent"] == agent for d in result["decisions"] if d["step"] <= 10)
        assert not any(d["agent"] == agent for d in result["decisions"] if d["step"] > 10)
        assert all(by_step[s]["winner"] != agent for s in range(11, 61))
    handed = [a.result["info"]["load"]["handed_over"] for a in answers]
    assert sum(handed) > 0  # the busiest agent held work in some stream, and it was handed over


def test_a_ticket_sent_to_a_task_stream_team_is_refused_on_its_text_with_where_to_send_tasks(deployed):
    project, deployment = deployed
    answer = client_for(member(project, Role.OPERATOR, "op")).post(
        f"/api/deployments/{deployment.pk}/tickets/", {"text": "where is my parcel?"}, format="json"
    )
    assert answer.status_code == 400
    refusal = f"this team plays streams of tasks, not tickets: POST /api/deployments/{deployment.pk}/tasks/"
    assert answer.json()["errors"]["text"] == [refusal]
    batch = client_for(member(project, Role.PRODUCT_MANAGER, "pm")).post(
        f"/api/deployments/{deployment.pk}/batches/", {"jsonl": '{"id": "1", "text": "hi"}'}, format="json"
    )
    assert batch.status_code == 400 and batch.json()["errors"]["file"] == [refusal]
