"""In real Chromium: a large-team run's page draws the "allocation" event of an evaluation (a backlog heat map
of agents × tasks, gossip messages against the central controller's, the top winners) as it arrives through the
recorder and the WebSocket, from a summary a real 20-agent episode produced."""

from __future__ import annotations

import math

import pytest
from playwright.sync_api import expect

from agents.envs.large_team import LargeTeamEnv, scaled_groups
from mase_web.runs.tests.test_browser_runs import Feed, make_run, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def episode_summary() -> dict:
    """One central-router episode of 20 agents sharing state by gossip, summarised as the trainer emits it."""
    env = LargeTeamEnv(groups=scaled_groups(20), allocation="central", state_sync="gossip", max_steps=120)
    env.reset(seed=0)
    while env.agents:
        env.step(dict.fromkeys(env.agents, 0))
    return env.allocation_summary()


def test_the_run_page_draws_the_allocation_of_a_large_team(live_services, browser_page):
    summary = episode_summary()
    ratio = math.floor(100 * summary["messages"] / summary["central_messages"] + 0.5)  # as Math.round
    assert 0 < ratio < 100 and len(summary["tasks"]) == 50
    page = browser_page
    page.set_default_timeout(15_000)
    _, project = sign_in(page, live_services.base_url, "allocation_reader")
    run = make_run(project, "large team")
    feed = Feed(run)
    feed.emit("started", resumed_from=None, algorithm="mappo", episodes=8, agents=summary["agents"])
    feed.flush()
    page.goto(f"{live_services.base_url}/runs/{run.pk}/")
    page.get_by_test_id("stream-status").filter(has_text="live").wait_for()
    assert page.get_by_test_id("allocation").count() == 0  # no evaluation yet
    feed.emit("allocation", step=8, split="validation", **summary)
    feed.flush()
    panel = page.get_by_test_id("allocation")
    expect(panel).to_contain_text("20 agents, tasks given by a central router; state kept by gossip")
    expect(panel.get_by_test_id("allocation-messages")).to_contain_text(
        f"Gossip sent {summary['messages']} messages, {ratio}% of the {summary['central_messages']}"
    )
    expect(panel.get_by_test_id("allocation-heatmap").locator("rect")).to_have_count(20 * 50)
    expect(panel.get_by_test_id("allocation-winners")).to_contain_text("Most tasks won:")
    page.reload()  # a page opened afterwards reads it from the stored stream
    expect(page.get_by_test_id("allocation-heatmap").locator("rect")).to_have_count(20 * 50)
