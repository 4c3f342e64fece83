"""In real Chromium: launch a run from the Runs page and watch it live; replay, controls, alerts,
golden ranges and compare on a run fed event by event through the real recorder and WebSocket."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from mase_web.accounts.models import Membership, Project, Role
from mase_web.realtime.publisher import publisher
from mase_web.runs.models import Run, RunEvent
from mase_web.runs.recorder import RunEventRecorder, run_group
from mase_web.runs.tests.conftest import quick_spec
from mase_web.workflows.models import Workflow, WorkflowVersion
from training.events import Event

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "a-long-password-1"
# Long enough that the browser sees the curves grow while the run trains (~20 s on a busy 2-core box);
# the spec's own 640-episode budget trains in under a second after start-up.
LIVE_EPISODES = 24_000


def sign_in(page, base_url: str, username: str, role: str = Role.PRODUCT_MANAGER, next_path: str = "/runs/"):
    """A user in a fresh project, signed in through the login page."""
    user = get_user_model().objects.create_user(username, password=PASSWORD)
    project = Project.objects.create(name=f"{username}'s team")
    Membership.objects.create(project=project, user=user, role=role)
    page.goto(f"{base_url}{next_path}")
    assert "/login/" in page.url
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(re.escape(next_path) + r"$"))
    return user, project


def points(page, test_id: str) -> int:
    """How many values the Plotly figure `test_id` has drawn (0 before its first draw)."""
    value = page.get_by_test_id(test_id).get_attribute("data-rendered-points")
    return int(value or 0)


def wait_points(page, test_id: str, at_least: int, timeout: float = 30_000) -> int:
    page.wait_for_function(
        "([id, n]) => Number(document.querySelector(`[data-testid='${id}']`)?.dataset.renderedPoints ?? 0) >= n",
        arg=[test_id, at_least],
        timeout=timeout,
    )
    return points(page, test_id)


def test_launch_from_the_browser_and_watch_it_train_live(live_services, browser_page, tmp_path):
    page = browser_page
    page.set_default_timeout(20_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "launcher")

    spec_file = tmp_path / "number_guess_quick.json"
    spec = quick_spec(episodes=640)
    spec_file.write_text(json.dumps(spec))
    page.get_by_text("No runs yet").wait_for()
    form = page.get_by_role("form", name="Launch a run")
    form.locator("input[type=file]").set_input_files(str(spec_file))
    # The name is taken from the spec; the episode budget is overridden in the form.
    expect(form.get_by_label("Run name")).to_have_value(spec["name"])  # read asynchronously
    form.get_by_label("Run name").fill("live number guessing")
    form.get_by_label("Episodes (optional)").fill(str(LIVE_EPISODES))
    form.get_by_role("button", name="Launch run").click()

    page.wait_for_url(re.compile(r"/runs/\d+/$"))
    run_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    run = Run.objects.get(pk=run_id)
    assert (run.project_id, run.name, run.spec["training"]["episodes"]) == (
        project.pk,
        "live number guessing",
        LIVE_EPISODES,
    )
    assert run.source == {"kind": "spec", "overrides": {"episodes": LIVE_EPISODES}}  # recorded as such
    page.get_by_test_id("stream-status").filter(has_text="live").wait_for()

    # While it trains: the curve gains points, and the heat map and network appear.
    first = wait_points(page, "curve-success", 1, timeout=60_000)
    grown = wait_points(page, "curve-success", first + 3, timeout=30_000)
    page.get_by_test_id("run-state").filter(has_text="running").wait_for(timeout=5_000)
    assert Run.objects.get(pk=run_id).state == Run.State.RUNNING, "the run ended before the page saw it grow"
    assert grown > first
    wait_points(page, "attention-heatmap", 49, timeout=30_000)  # 7 agents × 7
    network = page.get_by_test_id("communication-network")
    assert network.locator(".node").count() == 7
    page.get_by_test_id("run-worker").filter(has_text=":").wait_for()  # host:pid of the Celery worker
    # Where it is: the stage it is in, its episodes done of the budget and about how long is left.
    budget = f"/ {LIVE_EPISODES:,} episodes"
    page.get_by_test_id("current-stage").filter(has_text="Training").filter(has_text=budget).wait_for()

    page.get_by_test_id("run-state").filter(has_text="succeeded").wait_for(timeout=90_000)
    stages = page.get_by_test_id("run-progress").locator("li")
    stages.filter(has_text="Training").filter(has_text=f"{LIVE_EPISODES:,} {budget}").wait_for()
    assert "done in" in stages.filter(has_text="Training").inner_text()
    # docs/run-page.png is a copy of this picture.
    page.screenshot(path=str(ROOT / "test-artifacts" / "run-page-live.png"), full_page=True)
    # Every training window is drawn exactly once: the stream neither lost nor repeated an event.
    metrics = RunEvent.objects.filter(run_id=run_id, type="metrics")
    drawn = (
        metrics.filter(payload__has_key="success").count()
        + metrics.filter(payload__has_key="eval_success").count()
    )
    wait_points(page, "curve-success", drawn)
    assert points(page, "curve-success") == drawn
    last_seq = RunEvent.objects.filter(run_id=run_id).count()
    page.get_by_test_id("event-count").filter(has_text=str(last_seq)).wait_for()
    page.get_by_test_id("checkpoints").locator("tbody tr").first.wait_for()


# --------------------------------------------------------------------------------------------------
# A run fed through the real recorder (database first, then the channel layer), event by event.
# --------------------------------------------------------------------------------------------------

AGENTS = ["scout", "analyst", "writer"]

# Keeps every WebSocket the page opens in window.__sockets, so a test can see the URLs it
# (re)connected to and hand the page frames as if the server had sent them.
SOCKET_SPY = """
window.__sockets = [];
window.WebSocket = class extends window.WebSocket {
  constructor(...args) { super(...args); window.__sockets.push(this); }
};
"""
DELIVER = """(events) => window.__sockets.at(-1).onmessage(
  new MessageEvent("message", {data: JSON.stringify({type: "events", events})}))"""


class Feed:
    """Emits events for a run the way a worker does: numbered, recorded, published in batches."""

    def __init__(self, run: Run):
        self.recorder = RunEventRecorder(run.pk)
        self.seq = RunEvent.objects.filter(run=run).count()

    def emit(self, type: str, **payload) -> None:
        self.seq += 1
        self.recorder(Event(self.seq, type, payload))

    def flush(self) -> None:
        self.recorder.flush()


def attention(strength: float) -> list[list[float]]:
    """The writer listens more and more to the analyst as `strength` grows."""
    rest = (1 - strength) / 2
    return [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [rest, strength + rest, 0.0]]


def make_run(project, name: str, state=Run.State.RUNNING) -> Run:
    now = timezone.now()
    return Run.objects.create(
        project=project,
        name=name,
        spec=quick_spec(),
        state=state,
        worker="test-host:4242",
        deliveries=1,
        started_at=now,
        # A lease far in the future: the worker's orphan recovery must leave this run alone.
        heartbeat_at=now + timedelta(days=1),
    )


def test_run_page_follows_replays_and_controls_a_recorded_run(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "operator_pm")
    run = make_run(project, "recorded team")
    feed = Feed(run)
    feed.emit("started", resumed_from=None, algorithm="reinforce_comm", episodes=1000, agents=AGENTS)
    for i, episode in enumerate((100, 200, 300, 400, 500)):
        feed.emit(
            "metrics",
            step=i + 1,
            episode=episode,
            phase="exploration",
            success=0.1 * i,
            reward=0.05 * i,
            messages=3 - 0.2 * i,
        )
    for strength in (0.2, 0.5, 0.8):
        feed.emit("attention", step=5, agents=AGENTS, matrix=attention(strength), mode="train")
    feed.emit(
        "phase", **{"from": "exploration", "to": "exploitation", "reason": "mean agent score 0.4 passed 0.3"}
    )
    feed.emit("plateau", cycles=3, recommendation="restructure the reward: no 2% gain in 3 cycles")
    feed.emit(
        "metrics",
        step=5,
        episode=500,
        **{
            "golden.inter_agent_latency_ms": 120.0,
            "golden.policy_update_interval_h": 0.2,
            "golden.agent_diversity_index": 0.5,
        },
        golden_levels={
            "inter_agent_latency_ms": "ok",
            "policy_update_interval_h": "alert",
            "agent_diversity_index": "warn",
        },
    )
    feed.emit(
        "alert",
        name="policy_update_interval_h",
        level="alert",
        previous="ok",
        value=0.2,
        unit="h",
        golden=[2.0, 4.0],
        alert_below=0.5,
        alert_above=None,
        source="golden_range",
    )
    feed.emit(
        "alert",
        name="guesser",
        level="alert",
        source="breaker",
        state="open",
        reason="5 low-confidence decisions in a row",
    )
    feed.emit("metrics", system={"cpu_percent": 42.0, "memory_percent": 61.5, "process_rss_mb": 812.3})
    feed.emit(
        "checkpoint", step=5, episode=500, path="/data/runs/1/checkpoints/step_5", metrics={"success": 0.4}
    )
    feed.flush()

    page.add_init_script(SOCKET_SPY)
    page.goto(f"{base}/runs/{run.pk}/")
    page.get_by_test_id("run-state").filter(has_text="running").wait_for()
    assert wait_points(page, "curve-success", 5) == 5
    assert points(page, "curve-reward") == 5 and points(page, "curve-messages") == 5
    assert wait_points(page, "attention-heatmap", 9) == 9
    page.get_by_test_id("attention-frame").filter(has_text="3 / 3").wait_for()
    network = page.get_by_test_id("communication-network")
    assert network.locator(".node").count() == 3
    assert network.get_attribute("data-edges") == "6"  # every off-diagonal weight is above the 0.05 cut
    golden = page.get_by_test_id("golden-panel")
    levels = {
        row.locator("td").first.inner_text(): row.get_attribute("data-level")
        for row in golden.locator("tbody tr").all()
    }
    assert levels == {
        "Inter-agent latency": "ok",
        "Policy update interval": "alert",
        "Replay buffer": "none",
        "Phase duration": "none",
        "Agent diversity index": "warn",
    }
    alerts = page.get_by_test_id("alert-feed")
    alerts.get_by_text("Circuit breaker open (guesser)").wait_for()
    alerts.get_by_text("policy_update_interval_h: alert · golden range").wait_for()
    ticks = page.get_by_test_id("timeline-marks")  # their own lane, under the phase labels
    assert ticks.locator(".mark-plateau").count() == 1 and ticks.locator(".mark-phase").count() == 1
    page.get_by_test_id("plateau-groups").get_by_text("1 plateau warning").wait_for()
    page.get_by_test_id("system-panel").get_by_text("42 %").wait_for()
    page.get_by_test_id("checkpoints").get_by_text("step_5").wait_for()

    # The client itself refuses what it already holds and what lies past a gap: replayed frames
    # change nothing, and a gap makes it reconnect with ?after=<last event it holds>.
    held = feed.seq
    assert page.evaluate("window.__sockets.map(s => s.url)")[-1].endswith("?after=0")
    page.get_by_test_id("event-count").filter(has_text=str(held)).wait_for()
    stored = [e.as_message() for e in RunEvent.objects.filter(run=run).order_by("seq")]
    page.evaluate(DELIVER, stored[-4:])
    past_gap = {**stored[1], "seq": held + 2, "payload": {"episode": 900, "success": 1.0}}
    page.evaluate(DELIVER, [past_gap])
    page.wait_for_function("() => window.__sockets.length === 2")
    assert page.evaluate("window.__sockets[1].url").endswith(f"?after={held}")
    page.get_by_test_id("stream-status").filter(has_text="live").wait_for()
    assert points(page, "curve-success") == 5
    assert page.get_by_test_id("event-count").inner_text() == str(held)

    # Replay: go back to the first attention report; new reports do not move the view.
    slider = page.get_by_role("slider", name="Replay attention over time")
    slider.focus()
    slider.press("Home")
    page.get_by_test_id("attention-frame").filter(has_text="1 / 3").wait_for()
    assert not page.get_by_label("Follow live").is_checked()
    feed.emit("attention", step=6, agents=AGENTS, matrix=attention(0.95), mode="train")
    for i, episode in enumerate((600, 700)):
        feed.emit(
            "metrics",
            step=6 + i,
            episode=episode,
            phase="exploitation",
            success=0.6 + 0.1 * i,
            reward=0.3,
            messages=1.5,
        )
    feed.flush()
    assert wait_points(page, "curve-success", 7) == 7
    page.get_by_test_id("attention-frame").filter(has_text="1 / 4").wait_for()
    # The same events again on the channel layer (as a redelivery would send them): nothing doubles.
    old = [e.as_message() for e in RunEvent.objects.filter(run=run).order_by("seq")]
    publisher().send(run_group(run.pk), {"type": "run.events", "events": old[-3:]})
    slider.press("End")
    page.get_by_test_id("attention-frame").filter(has_text="4 / 4").wait_for()
    assert page.get_by_label("Follow live").is_checked()
    page.get_by_test_id("event-count").filter(has_text=str(feed.seq)).wait_for()
    assert points(page, "curve-success") == 7

    # Metric picker: add a metric, drop one.
    page.get_by_role("group", name="Metrics to plot").get_by_label("golden.agent_diversity_index").check()
    assert wait_points(page, "curve-golden.agent_diversity_index", 1) == 1
    page.get_by_role("group", name="Metrics to plot").get_by_label("reward", exact=True).uncheck()
    page.get_by_test_id("curve-reward").wait_for(state="detached")

    # A resumed delivery trains again from its checkpoint (episode 600): the curve continues from
    # there instead of doubling back (100..600, then 700 and 800 once: 8 points, not 9).
    feed.emit("started", resumed_from=600, algorithm="reinforce_comm", episodes=1000, agents=AGENTS)
    for step, episode in ((7, 700), (8, 800)):
        feed.emit(
            "metrics",
            step=step,
            episode=episode,
            phase="exploitation",
            success=0.75,
            reward=0.3,
            messages=1.4,
        )
    feed.flush()
    page.get_by_test_id("event-count").filter(has_text=str(feed.seq)).wait_for()
    assert wait_points(page, "curve-success", 8) == 8

    # Cancel asks the worker to stop; a live run shows "cancelling" until the worker does.
    page.get_by_role("button", name="Cancel run").click()
    page.get_by_test_id("run-state").filter(has_text="cancelling").wait_for()
    assert Run.objects.get(pk=run.pk).cancel_requested
    Run.objects.filter(pk=run.pk).update(state=Run.State.CANCELLED, finished_at=timezone.now())
    feed.emit("finished", status="cancelled", metrics={"success": 0.7})
    feed.flush()
    page.get_by_test_id("run-state").filter(has_text="cancelled").wait_for()
    assert page.get_by_role("button", name="Resume from last checkpoint").is_visible()
    assert page.get_by_role("button", name="Cancel run").count() == 0


def test_runs_list_filters_compares_and_explains_launch_errors(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "comparer")
    finished = make_run(project, "baseline team", state=Run.State.SUCCEEDED)
    running = make_run(project, "tuned team")
    for run, slope in ((finished, 0.1), (running, 0.2)):
        feed = Feed(run)
        for i in range(4):
            feed.emit("metrics", step=i, episode=100 * (i + 1), success=slope * i, reward=slope)
        feed.flush()

    page.reload()
    rows = page.get_by_test_id("run-list").locator("tbody tr")
    rows.filter(has_text="baseline team").wait_for()
    assert rows.count() == 2
    page.get_by_label("Filter by state").select_option("succeeded")
    page.get_by_test_id("run-list").locator("tbody tr").filter(has_text="tuned team").wait_for(
        state="detached"
    )
    assert rows.count() == 1
    page.get_by_label("Filter by state").select_option("")
    rows.filter(has_text="tuned team").wait_for()

    compare = page.get_by_role("button", name=re.compile(r"Compare selected"))
    page.get_by_label("Select run baseline team").check()
    assert compare.is_disabled()
    page.get_by_label("Select run tuned team").check()
    compare.click()
    page.wait_for_url(re.compile(r"/runs/compare/\?ids="))
    assert wait_points(page, "compare-chart", 8) == 8
    page.get_by_label("Metric to compare").select_option("reward")
    page.get_by_role("link", name=re.compile("tuned team")).first.wait_for()

    # A launch the server refuses: every field error is listed with its path.
    page.goto(f"{base}/runs/")
    form = page.get_by_role("form", name="Launch a run")
    bad = quick_spec()
    bad["training"]["episodes"] = -5
    bad["agents"][0]["lora"]["r"] = "big"
    form.get_by_label("Spec (JSON)").fill(json.dumps(bad))
    form.get_by_label("Run name").fill("broken")
    form.get_by_role("button", name="Launch run").click()
    errors = page.get_by_test_id("launch-errors")
    errors.get_by_text("spec.$.training.episodes").wait_for()
    errors.get_by_text("spec.$.agents[0].lora.r").wait_for()
    assert "between 1 and" in errors.inner_text()
    form.get_by_label("Spec (JSON)").fill("{not json")
    form.get_by_role("button", name="Launch run").click()
    errors.get_by_text("is not valid JSON").wait_for()
    assert Run.objects.filter(name="broken").count() == 0

    # Launch a published workflow version by reference: the run records where its team came from.
    workflow = Workflow.objects.create(project=project, name="Guessers", spec=quick_spec())
    for number in (1, 2):
        WorkflowVersion.objects.create(
            workflow=workflow, number=number, spec=quick_spec(episodes=64 * number), note=f"budget {number}"
        )
    form.get_by_role("radio", name="Published workflow").check()
    form.get_by_role("combobox", name="Workflow").select_option(label="Guessers")
    form.get_by_role("combobox", name="Version").select_option(label="v1 — budget 1")
    page.wait_for_function("() => document.querySelector('textarea').value.includes('\"episodes\": 64')")
    form.get_by_label("Run name").fill("from the designer")
    form.get_by_role("button", name="Launch run").click()
    page.wait_for_url(re.compile(r"/runs/\d+/$"))
    launched = Run.objects.get(name="from the designer")
    assert launched.source == {
        "kind": "workflow",
        "workflow": workflow.pk,
        "workflow_name": "Guessers",
        "version": 1,
    }
    assert launched.spec["training"]["episodes"] == 64
    page.get_by_role("link", name="Guessers").wait_for()
    page.get_by_test_id("run-state").filter(has_text="succeeded").wait_for(timeout=90_000)
