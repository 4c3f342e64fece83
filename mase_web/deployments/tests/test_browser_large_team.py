"""In real Chromium: a large team (ten agents, trained for seconds) is deployed, sent a stream of tasks from its
page, and an operator takes its busiest specialist offline from the grouped roster; the next stream's allocations
arrive over the deployment's WebSocket and the heat map shows that agent's backlog at zero, offline, winning
nothing, and the tasks won by the others (read from the SVG's data, not its pixels)."""

from __future__ import annotations

import json
import urllib.request

import pytest
from rest_framework.authtoken.models import Token

from mase_web.accounts.models import Role
from mase_web.deployments.models import AgentSwitch
from mase_web.deployments.tests.conftest import make_trained_run
from mase_web.deployments.tests.large_team import large_team_checkpoint, large_team_spec  # noqa: F401 - a fixture
from mase_web.deployments.tests.test_browser_deployments import sign_in

pytestmark = [
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]

HEATMAP = "[data-testid='load-heatmap']"


def deploy(base_url: str, user, run_id: int) -> int:
    """POST /api/deployments/ as the deploy form does; the new deployment's id."""
    request = urllib.request.Request(
        f"{base_url}/api/deployments/",
        data=json.dumps({"run": run_id, "name": "support centre"}).encode(),
        headers={
            "Authorization": f"Token {Token.objects.create(user=user).key}",
            "Content-Type": "application/json",
        },
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 201
        return json.loads(response.read())["id"]


def column(page, col: int) -> dict[str, tuple[float, bool]]:
    """Each agent's (backlog, online) in one column of the heat map."""
    return page.evaluate(
        """(col) => Object.fromEntries([...document.querySelectorAll(`[data-testid='load-heatmap'] rect[data-col='${col}']`)]
            .map((r) => [r.dataset.agent, [Number(r.dataset.backlog), r.dataset.online === '1']]))""",
        col,
    )


def winners(page, cols: range) -> list[str]:
    return page.evaluate(
        """([a, b]) => [...document.querySelectorAll("[data-testid='load-heatmap'] circle[data-winner]")]
            .filter((c) => Number(c.dataset.col) >= a && Number(c.dataset.col) < b).map((c) => c.dataset.winner)""",
        [cols.start, cols.stop],
    )


def send_tasks(page, count: int, columns_after: int) -> None:
    page.get_by_role("spinbutton", name="Tasks in the stream").fill(str(count))
    page.get_by_role("button", name="Send tasks").click()
    page.get_by_test_id("stream-answer").filter(has_text=f"{count} tasks:").wait_for()
    page.wait_for_function(
        f'() => Number(document.querySelector("{HEATMAP}")?.dataset.columns ?? 0) >= {columns_after}'
    )


def test_an_operator_takes_a_busy_agent_offline_and_the_heat_map_re_spreads(
    live_services,
    browser_page,
    large_team_checkpoint,  # noqa: F811 - the fixture imported above
):
    page = browser_page
    page.set_default_timeout(60_000)  # the server loads the team on the first stream
    base = live_services.base_url
    user, project = sign_in(page, base, "/deployments/", role=Role.ADMIN)
    run = make_trained_run(project, large_team_checkpoint, large_team_spec())
    deployment_id = deploy(base, user, run.pk)
    page.goto(f"{base}/deployments/{deployment_id}/")
    page.get_by_test_id("stream-status").filter(has_text="live").wait_for()
    page.get_by_test_id("roster-group-guides").wait_for()
    assert page.get_by_role("button", name="Take offline").count() == 5  # one per group, not one per agent
    for dead_end in ("Batch of tickets", "Proposed intents"):  # a task stream takes no tickets
        assert page.get_by_role("heading", name=dead_end).count() == 0

    send_tasks(page, 30, 30)
    before = column(page, 29)
    assert len(before) == 10 and all(online for _, online in before.values())
    specialists = {a: b for a, (b, _) in before.items() if not a.startswith("generalists")}
    agent = max(specialists, key=specialists.get)
    assert specialists[agent] > 0
    group = agent.rsplit("_", 1)[0]

    row = page.get_by_test_id(f"roster-group-{group}")
    row.get_by_label(f"Agent of {group} to take offline").select_option(agent)
    row.get_by_role("button", name="Take offline").click()
    page.get_by_test_id(f"offline-{agent}").wait_for()
    page.get_by_test_id("roster-switches").filter(
        has_text=f"{agent} taken offline by {Role.ADMIN}"
    ).wait_for()
    assert row.inner_text().count("1 of 2") == 1
    switch = AgentSwitch.objects.get()
    assert (switch.agent, switch.online, switch.actor_id) == (agent, False, user.pk)

    send_tasks(page, 30, 60)
    for col in range(30, 60):
        cells = column(page, col)
        assert cells[agent] == [0, False], (col, cells[agent])  # no backlog, offline
    after = winners(page, range(30, 60))
    # the tasks went to the others… (not all 30: a rule bidder passes a task it would finish late, and the
    # page's stream has a random seed, so a busy stream leaves some unallocated; CI saw 17 of 30 won)
    assert agent not in after and len(after) >= 10
    assert len(set(after)) >= 4  # …spread over several of them
    unbid = page.evaluate(  # under the learned auction every winner bid for its task
        """() => [...document.querySelectorAll("[data-testid='load-heatmap'] circle[data-winner]")].filter((c) =>
            document.querySelector(`rect[data-agent='${c.dataset.winner}'][data-col='${c.dataset.col}']`).dataset.bid === '')
            .length"""
    )
    assert unbid == 0
    busy_others = {a for col in range(30, 60) for a, (b, _) in column(page, col).items() if b > 0}
    assert agent not in busy_others and len(busy_others) >= 4
