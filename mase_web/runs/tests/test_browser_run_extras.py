"""In real Chromium: a long run stays about one screen (grouped plateaus, paged checkpoints, ticks off the
phase labels, legends clear of plotly's toolbar), labels that say what they count, a MAPPO run's missing
communication said as such, no "resume from checkpoint" without one, the GPU queue with no GPU worker,
tags, the HTML report, the compare summary and config diff, and the home page."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from conftest import ARTIFACTS
from mase_web.runs.models import Run
from mase_web.runs.tests.conftest import quick_spec
from mase_web.runs.tests.test_browser_runs import Feed, make_run, sign_in, wait_points

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

AGENTS = ["scout", "analyst", "writer"]


def boxes_overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def feed_long_run(run: Run) -> None:
    """A long run's history: many windows, 60 plateau warnings of two kinds, 25 checkpoints (MAPPO-style:
    `step` counts updates, the episode is in the metrics)."""
    feed = Feed(run)
    feed.emit("started", resumed_from=None, algorithm="reinforce_comm", episodes=200_000, agents=AGENTS)
    for i in range(1, 61):
        episode = i * 3000
        feed.emit("metrics", step=i, episode=episode, phase="exploration" if i < 30 else "exploitation",
                  success=i / 60, reward=i / 100, messages=2.0)  # fmt: skip
        feed.emit("metrics", step=i, episode=episode, eval_success=i / 61)
        if i == 30:
            feed.emit("phase", **{"from": "exploration", "to": "exploitation", "reason": "score passed 0.3"})
        feed.emit(
            "plateau", cycles=3 + i % 4, recommendation="raise the lr" if i % 3 else "restructure the reward"
        )
        if i <= 25:
            feed.emit("checkpoint", step=i, path=f"/data/runs/{run.pk}/checkpoints/mappo/last_{i}",
                      metrics={"step": i, "episode": i * 8000, "success": i / 25})  # fmt: skip
    feed.emit("finished", status="succeeded", metrics={"success": 0.93, "episodes": 200})
    feed.flush()


def test_a_long_run_page_stays_about_one_screen_and_says_what_it_counts(
    live_services, browser_page, tmp_path
):
    page = browser_page
    page.set_default_timeout(20_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "long_runner")
    run = make_run(project, "long run", state=Run.State.SUCCEEDED)
    spec = quick_spec(episodes=200_000)
    Run.objects.filter(pk=run.pk).update(
        spec=spec, metrics={"success": 0.93, "episodes": 200}, finished_at=timezone.now()
    )
    feed_long_run(run)

    page.goto(f"{base}/runs/{run.pk}/")
    wait_points(page, "curve-success", 120)  # 60 training + 60 evaluation points
    groups = page.get_by_test_id("plateau-groups")
    groups.get_by_text("60 plateau warnings").wait_for()
    assert not groups.locator("table").is_visible()  # collapsed until asked
    groups.locator("summary").click()
    assert groups.locator("tbody tr").count() == 2  # grouped by recommendation
    groups.locator("tbody tr").filter(has_text="raise the lr").get_by_text("40×").wait_for()
    groups.locator("summary").click()

    checkpoints = page.get_by_test_id("checkpoints")
    assert checkpoints.locator("tbody tr").count() == 10
    first = checkpoints.locator("tbody tr").first
    assert first.locator("td").first.inner_text() == "200,000"  # the episode, not update 25
    page.get_by_role("button", name="Older").click()
    checkpoints.locator("tbody tr").first.locator("td").first.filter(has_text="120,000").wait_for()

    # Phase and plateau ticks sit in their own lane, under the phase labels.
    label = page.get_by_test_id("phase-timeline").locator(".timeline-segment").first.bounding_box()
    for tick in page.get_by_test_id("timeline-marks").locator(".timeline-tick").all()[:10]:
        assert not boxes_overlap(label, tick.bounding_box())

    # Bigger charts, and the legend (training vs evaluation) clear of plotly's toolbar.
    chart = page.get_by_test_id("curve-success")
    assert chart.bounding_box()["height"] >= 300
    chart.hover()
    modebar = chart.locator(".modebar").bounding_box()
    legend = chart.locator(".legend").bounding_box()
    assert modebar and legend and not boxes_overlap(modebar, legend)

    final = page.get_by_test_id("final-metrics")
    final.get_by_text("on 200 evaluation episodes").wait_for()
    assert "training budget 200,000 episodes" in final.inner_text()
    assert "episodes 200" not in final.inner_text()

    # The page stays about one screen of what matters: no list grows with the run's length.
    height = page.evaluate("() => document.documentElement.scrollHeight")
    assert height < 4200, height

    # Tags, edited on the page.
    page.get_by_role("button", name="Edit tags").click()
    page.get_by_label("Tags, comma-separated").fill("Baseline, long")
    page.get_by_role("button", name="Save tags").click()
    page.get_by_test_id("run-tags").get_by_text("baseline").wait_for()
    assert sorted(run.tag_rows.values_list("name", flat=True)) == ["baseline", "long"]

    # The standalone report, with its figures.
    with page.expect_download() as download:
        page.get_by_role("link", name="Export report").click()
    saved = tmp_path / "report.html"
    download.value.save_as(saved)
    html = saved.read_text()
    assert "long run" in html and html.count("Plotly.newPlot") >= 3


def test_mappo_runs_gpu_queue_and_early_cancel(live_services, browser_page, gpu_queue):
    page = browser_page
    page.set_default_timeout(20_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "mappo_pm")

    # An IPPO run reports no attention (the catalogue says its agents send no messages): the page says
    # the run has none, and lists the designed links.
    ippo = make_run(project, "customer service")
    spec = quick_spec()
    spec["edges"] = [{"source": "shopping_guide", "target": "logistics", "kind": "communication"}]
    Run.objects.filter(pk=ippo.pk).update(spec=spec)
    feed = Feed(ippo)
    feed.emit("started", resumed_from=None, algorithm="ippo", agents=["shopping_guide", "logistics"])
    feed.emit("metrics", step=1, episode=32, messages_per_episode=0, success=0.2)
    feed.flush()
    page.goto(f"{base}/runs/{ippo.pk}/")
    none = page.get_by_test_id("communication-none")
    none.get_by_text("This run reports no learned communication").wait_for()
    assert "IPPO" in none.inner_text()
    none.locator("summary").click()
    none.get_by_text("shopping_guide → logistics").wait_for()
    assert page.get_by_text("appears with the first").count() == 0

    # Cancelled before any checkpoint: no "Resume from last checkpoint", but "run again from the start".
    early = make_run(project, "stopped early", state=Run.State.CANCELLED)
    Run.objects.filter(pk=early.pk).update(device=Run.Device.GPU, metrics={"success": 0.5, "episodes": 64})
    page.goto(f"{base}/runs/{early.pk}/")
    page.get_by_test_id("final-metrics").get_by_text("on 64 evaluation episodes").wait_for()
    assert page.get_by_role("button", name="Resume from last checkpoint").count() == 0
    page.get_by_role("button", name="Run again from the start").click()
    # Queued again, the old final metrics are gone; it waits on the GPU queue, which no worker
    # consumes here (the test's worker takes CPU runs): the page says so and offers the CPU.
    page.get_by_test_id("run-state").filter(has_text="queued").wait_for()
    assert page.get_by_test_id("final-metrics").count() == 0
    notice = page.get_by_test_id("no-worker")
    notice.get_by_text("No GPU worker is connected").wait_for()
    assert "A CPU worker is connected" in notice.inner_text()
    notice.get_by_role("button", name="Move this run to the CPU queue").click()
    page.get_by_text(f"#{early.pk} · training on cpu").wait_for()
    Run.objects.filter(pk=early.pk).update(cancel_requested=True)  # the CPU worker need not train it

    # The launch form says so before launching, and offers the CPU worker.
    page.goto(f"{base}/runs/")
    form = page.get_by_role("form", name="Launch a run")
    form.get_by_label("Device").select_option("gpu")
    form.get_by_test_id("no-worker").get_by_text("No GPU worker is connected").wait_for()
    form.get_by_role("button", name="Use the CPU worker").click()
    assert form.get_by_label("Device").input_value() == "cpu"
    assert form.get_by_test_id("no-worker").count() == 0


def test_tags_filter_compare_summary_and_the_home_page(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(20_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "comparer_home")
    started = timezone.now() - timedelta(minutes=5)
    a = make_run(project, "seed twin a", state=Run.State.SUCCEEDED)
    b = make_run(project, "seed twin b", state=Run.State.SUCCEEDED)
    other = quick_spec()
    other["training"]["lr"] = 0.01
    Run.objects.filter(pk=a.pk).update(
        started_at=started, finished_at=started + timedelta(seconds=80), metrics={"success": 0.8}
    )
    Run.objects.filter(pk=b.pk).update(
        spec=other, started_at=started, finished_at=started + timedelta(seconds=200), metrics={"success": 0.6}
    )
    a.tag_rows.create(name="baseline")
    for run in (a, b):
        feed = Feed(run)
        for i in range(3):
            feed.emit("metrics", step=i, episode=100 * (i + 1), success=0.3 * i)
        feed.flush()

    page.goto(f"{base}/runs/")
    rows = page.get_by_test_id("run-list").locator("tbody tr")
    rows.filter(has_text="seed twin b").wait_for()
    page.get_by_label("Filter by tag").select_option("baseline")
    rows.filter(has_text="seed twin b").wait_for(state="detached")
    assert rows.count() == 1
    page.get_by_label("Filter by tag").select_option("")
    rows.filter(has_text="seed twin b").wait_for()
    page.get_by_label("group by tag").check()
    page.get_by_test_id("run-list").locator(".run-group-head").filter(has_text="baseline (1)").wait_for()
    page.get_by_test_id("run-list").locator(".run-group-head").filter(has_text="untagged (1)").wait_for()

    page.goto(f"{base}/runs/compare/?ids={a.pk},{b.pk}")
    wait_points(page, "compare-chart", 6)
    # Same seed: each curve keeps its own dash, and the legend names the seed.
    dashes = page.evaluate(
        "() => [...document.querySelectorAll(\"[data-testid='compare-chart'] .scatterlayer .js-line\")]"
        ".map(p => p.style.strokeDasharray || 'solid')"
    )
    assert len(set(dashes)) == 2, dashes
    page.get_by_test_id("compare-chart").locator(".legend").get_by_text("(seed 0)").first.wait_for()
    page.get_by_test_id("shared-seed").get_by_text(f"Runs #{a.pk} and #{b.pk} share seed 0").wait_for()
    summary = page.get_by_test_id("compare-summary")
    row_a = summary.locator("tbody tr").filter(has_text="seed twin a")
    assert "80 s" in row_a.inner_text() and "0.8" in row_a.inner_text() and "256" in row_a.inner_text()
    assert "3 min" in summary.locator("tbody tr").filter(has_text="seed twin b").inner_text()
    diff = page.get_by_test_id("config-diff")
    diff.locator("tr").filter(has_text="training.lr").wait_for()
    assert diff.locator("tbody tr").count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "compare_page.png"), full_page=True)

    # Home: where a new user starts.
    page.goto(f"{base}/")
    page.get_by_test_id("home-runs").get_by_role("link", name=re.compile("seed twin b")).wait_for()
    page.get_by_test_id("home-deployments").get_by_text("Nothing deployed yet").wait_for()
    queues = page.get_by_test_id("worker-queues")
    queues.locator("li").filter(has_text="CPU").get_by_text("1 worker connected").wait_for()
    queues.locator("li").filter(has_text="GPU").get_by_text("no worker connected").wait_for()
    gallery = page.get_by_test_id("home-gallery")
    gallery.get_by_role("button").first.wait_for()
    page.screenshot(path=str(ARTIFACTS / "home_page.png"), full_page=True)
    gallery.get_by_role("button", name=re.compile("Open .* in the designer")).first.click()
    page.wait_for_url(re.compile(r"/workflows/\d+/$"))
