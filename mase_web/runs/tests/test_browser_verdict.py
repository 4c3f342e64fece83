"""In real Chromium: the run page shows a run's verdict (learned vs rules vs imitation with intervals and
the sentence) as it arrives through the recorder and the WebSocket; and (slow) a code-generation team
launched from the Runs page with its baselines box left checked ends with the verdict on its page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from mase_web.runs.models import Run
from mase_web.runs.tests.test_browser_runs import Feed, make_run, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[3]

VERDICT = {
    "learned": "mappo",
    "baseline": "rules",
    "difference": 0.26,
    "low": 0.17,
    "high": 0.34,
    "outcome": "marl_paid",
    "sentence": "MAPPO scores 26 points more judge score than the best rules (CI 17 to 34) at the same or lower "
    "cost: MARL paid",
    "level": 0.95,
    "arms": [
        {"name": "rules", "mean": 0.64, "low": 0.57, "high": 0.71, "episodes": 200, "cost": 9.9},
        {"name": "imitation", "mean": 0.6, "low": 0.53, "high": 0.67, "episodes": 200, "cost": 10.2},
        {"name": "mappo", "mean": 0.9, "low": 0.86, "high": 0.94, "episodes": 200, "cost": 4.0},
    ],
    "episodes": 200,
    "split": "test",
}


def test_the_run_page_shows_the_verdict_when_it_arrives(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    _, project = sign_in(page, live_services.base_url, "verdict_reader")
    run = make_run(project, "judged team")
    feed = Feed(run)
    feed.emit("started", resumed_from=None, algorithm="mappo", episodes=640, agents=["a", "b"])
    feed.flush()
    page.goto(f"{live_services.base_url}/runs/{run.pk}/")
    page.get_by_test_id("stream-status").filter(has_text="live").wait_for()
    assert page.get_by_test_id("verdict").count() == 0  # nothing to judge yet
    feed.emit("verdict", **VERDICT)
    feed.emit("finished", status="succeeded", metrics={"success": 0.9})
    feed.flush()
    panel = page.get_by_test_id("verdict")
    expect(panel.get_by_test_id("verdict-sentence")).to_have_text(VERDICT["sentence"])
    expect(panel.get_by_test_id("verdict-arm-rules")).to_contain_text("64.0")
    expect(panel.get_by_test_id("verdict-arm-rules")).to_contain_text("57.0 – 71.0")
    expect(panel.get_by_test_id("verdict-arm-imitation")).to_contain_text("Imitation")
    expect(panel.get_by_test_id("verdict-arm-mappo")).to_contain_text("90.0")
    expect(panel).to_contain_text("+26 points (95% CI +17 to +34)")
    # a page opened afterwards reads the same verdict from the stored stream
    page.reload()
    expect(page.get_by_test_id("verdict-sentence")).to_have_text(VERDICT["sentence"])


@pytest.mark.slow  # a real worker trains the team, clones its rules and plays three arms: minutes
def test_launch_a_template_with_baselines_and_read_its_verdict(live_services, browser_page, tmp_path):
    page = browser_page
    page.set_default_timeout(20_000)
    _, project = sign_in(page, live_services.base_url, "verdict_launcher")
    spec = json.loads((ROOT / "examples" / "code_generation.json").read_text())
    spec["training"].update(episodes=64, eval_every=0, eval_episodes=8, checkpoint_every=0)
    spec_file = tmp_path / "code_generation_quick.json"
    spec_file.write_text(json.dumps(spec))
    form = page.get_by_role("form", name="Launch a run")
    form.locator("input[type=file]").set_input_files(str(spec_file))
    expect(form.get_by_label("Run name")).to_have_value(spec["name"])
    expect(form.get_by_label("Compare with baselines")).to_be_checked()  # on by default
    form.get_by_role("button", name="Launch run").click()
    page.wait_for_url(re.compile(r"/runs/\d+/$"))
    run = Run.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert run.source == {"kind": "spec", "baselines": True}
    sentence = page.get_by_test_id("verdict-sentence")
    sentence.wait_for(timeout=420_000)
    assert re.search(r"(MARL paid|enough|did not pay)", sentence.inner_text())
    for arm in ("rules", "imitation", "mappo"):
        page.get_by_test_id(f"verdict-arm-{arm}").wait_for()
    page.get_by_test_id("run-state").filter(has_text="succeeded").wait_for(timeout=60_000)
    page.screenshot(path=str(ROOT / "test-artifacts" / "run-page-verdict.png"), full_page=True)
