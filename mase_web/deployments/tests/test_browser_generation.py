"""In real Chromium: an operator tests the deployment's reply writer (an OpenAI-compatible server on
loopback, its key stored encrypted), sends a ticket and reads the reply, each part labelled with the agent
that wrote it; the key appears nowhere on the page."""

from __future__ import annotations

import pytest

from mase_web.deployments.models import Deployment
from mase_web.deployments.tests.conftest import fresh_text, make_deployment, team_spec
from mase_web.deployments.tests.test_browser_deployments import sign_in, warm_up
from mase_web.deployments.writing import encrypt_secret
from tests.serving.generation.conftest import SECRET, chat_server

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

AGENTS = {"shopping guide", "logistics", "dispute mediator", "quality supervisor"}


def test_operator_tests_the_writer_and_reads_the_reply_part_by_part(
    live_services, browser_page, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    page = browser_page
    page.set_default_timeout(30_000)
    base = live_services.base_url
    user, project = sign_in(page, base, "/deployments/")
    with chat_server(tmp_path / "server.log") as url:
        deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir), name="writer")
        settings = {"backend": "openai_compatible", "base_url": url, "model": "tiny", "max_retries": 0}
        Deployment.objects.filter(pk=deployment.pk).update(
            generation=settings, generation_secret=encrypt_secret(SECRET)
        )
        warm_up(base, user, deployment.pk)

        page.goto(f"{base}/deployments/{deployment.pk}/")
        panel = page.get_by_test_id("writer-panel")
        panel.get_by_text("openai_compatible").wait_for()
        panel.get_by_role("button", name="Test the writer").click()
        panel.get_by_test_id("writer-trial").filter(has_text="Answered in").wait_for()

        page.get_by_test_id("stream-status").filter(has_text="live").wait_for()
        page.get_by_label("Customer message").fill(fresh_text("my kettle arrived broken, order #77123"))
        page.get_by_role("button", name="Send to the team").click()
        reply = page.get_by_test_id("ticket-answer").get_by_test_id("reply")
        reply.wait_for()
        parts = reply.get_by_test_id("reply-part")
        assert parts.count() >= 1
        for i in range(parts.count()):
            author = parts.nth(i).locator(".reply-author b").inner_text()
            assert author in AGENTS
            assert "openai_compatible" in parts.nth(i).inner_text()
        assert "Hello," in reply.inner_text() and "Kind regards" in reply.inner_text()
        assert SECRET not in page.content()


def test_the_console_shows_the_reply_as_it_streams_in(
    live_services, browser_page, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    page = browser_page
    page.set_default_timeout(40_000)
    base = live_services.base_url
    user, project = sign_in(page, base, "/deployments/")
    # the server stops half-way through every answer for a while: long enough to watch the first half
    with chat_server(tmp_path / "server.log", faults="stall", slow_s=12.0, key=None) as url:
        deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir), name="stream")
        settings = {"backend": "openai_compatible", "base_url": url, "model": "m", "max_retries": 0,
                    "timeout_s": 30.0, "deadline_s": 40.0}  # fmt: skip
        Deployment.objects.filter(pk=deployment.pk).update(generation=settings)
        warm_up(base, user, deployment.pk)

        page.goto(f"{base}/deployments/{deployment.pk}/")
        page.get_by_test_id("stream-status").filter(has_text="live").wait_for()
        page.get_by_label("Customer message").fill(fresh_text("my kettle arrived broken, order #77123"))
        page.get_by_role("button", name="Send to the team").click()
        writing = page.locator(".ticket-run .reply-streaming").first
        writing.wait_for()  # a part still being written, under the agent writing it
        agent = writing.get_attribute("data-agent")
        assert "writing…" in writing.inner_text()
        partial = writing.locator(".reply-text").inner_text().rstrip("▍").strip()
        assert partial  # half of the part is there before the rest is written
        reply = page.get_by_test_id("ticket-answer").get_by_test_id("reply")
        reply.wait_for(timeout=60_000)
        parts = reply.get_by_test_id("reply-part")
        finals = {parts.nth(i).locator(".reply-author b").inner_text(): parts.nth(i).locator(".reply-text").inner_text()
                  for i in range(parts.count())}  # fmt: skip
        assert finals[agent.replace("_", " ")].startswith(partial)  # what streamed is the start of the part
