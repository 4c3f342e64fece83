"""In real Chromium: the run page of an hcp team shows the protocol panel (byte-ratio curve, latest link
statistics) and a communication storm in the alert feed; a run without the protocol shows no panel."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from mase_web.runs.tests.test_browser_runs import AGENTS, Feed, make_run, sign_in, wait_points

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def protocol_metrics(i: int) -> dict:
    """What `HcpLink.metrics()` reports, as a trainer merges it into its metrics events."""
    return {
        "protocol.byte_ratio": 0.5 - 0.1 * i,
        "protocol.frame_byte_ratio": 0.09,
        "protocol.compression_ratio": 1 / (0.5 - 0.1 * i),
        "protocol.wire_bytes": 1000 * (i + 1),
        "protocol.codebook_size": 64,
        "protocol.codebook_version": 1 + (i >= 3),
        "protocol.reconstruction_error": 0.19,
        "protocol.drift": 0.93,
        "protocol.storms": int(i >= 3),
        "protocol.refits": int(i >= 3),
    }


def test_run_page_shows_the_protocol_panel_and_storm_alerts(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "protocol_pm")
    run = make_run(project, "hcp team")
    plain = make_run(project, "dense team")
    feed = Feed(run)
    feed.emit("started", resumed_from=None, algorithm="reinforce_comm", episodes=1000, agents=AGENTS)
    for i in range(4):
        feed.emit("metrics", step=i + 1, episode=100 * (i + 1), success=0.2 * i, **protocol_metrics(i))
    feed.emit(
        "alert",
        name="communication_storm",
        level="warn",
        source="protocol",
        reason="codebook_drift",
        action="refit the codebook",
        distortion_ratio=1.8,
    )
    feed.flush()
    plain_feed = Feed(plain)
    plain_feed.emit("metrics", step=1, episode=100, success=0.5)
    plain_feed.flush()

    page.goto(f"{base}/runs/{run.pk}/")
    panel = page.get_by_test_id("protocol-panel")
    expect(panel).to_be_visible()
    assert wait_points(page, "protocol-byte-ratio", 8) == 8  # 4 total + 4 frame-only values
    expect(panel.locator("tr[data-key='compression_ratio'] td").nth(1)).to_have_text("5×")
    expect(panel.locator("tr[data-key='codebook_version'] td").nth(1)).to_have_text("2")
    expect(panel.locator("tr[data-key='storms'] td").nth(1)).to_have_text("1")
    expect(page.get_by_text("communication_storm: warn · protocol")).to_be_visible()
    expect(page.get_by_text("codebook_drift")).to_be_visible()

    page.goto(f"{base}/runs/{plain.pk}/")
    page.get_by_test_id("curve-success").wait_for()
    expect(page.get_by_test_id("protocol-panel")).to_have_count(0)
