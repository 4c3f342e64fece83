"""In real Chromium, the interactive-support workflow end to end: a product manager launches the shipped
template with its baselines (a small budget), the run page shows the verdict, they deploy the run and hold a
three-turn conversation in the deployment console, where the team asks a clarifying question before it
answers an ambiguous first message; the conversation survives a reload, and the operator's review page shows
it turn by turn (who said what, each turn's decisions).

At this budget (64 episodes) the trained team is unsure of every decision; the uploaded spec's breaker opens
on the first decision below 0.99, so its rule fallback (the best support procedure) holds the conversation
and every turn says so ("rules"). That is the product path a deployment takes when its model is unsure."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from mase_web.accounts.models import Membership, Role
from mase_web.deployments.models import Conversation, Deployment
from mase_web.deployments.tests.conftest import make_deployment
from mase_web.deployments.tests.test_conversations import interactive_checkpoint, interactive_spec  # noqa: F401
from mase_web.runs.models import Run
from mase_web.runs.tests.test_browser_runs import PASSWORD, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[3]
AMBIGUOUS = "Hi, I have a problem with my order"


def quick_spec(tmp_path: Path) -> Path:
    spec = json.loads((ROOT / "examples" / "interactive_support.json").read_text())
    spec["training"].update(
        episodes=64, eval_every=0, eval_episodes=8, checkpoint_every=0, teacher_fade_episodes=64
    )
    spec["training"]["teacher_clone_episodes"] = 0  # random actors trained for a moment: unsure, as the breaker needs
    spec["circuit_breaker"].update(confidence_threshold=0.99, consecutive_low=1)
    path = tmp_path / "interactive_support_quick.json"
    path.write_text(json.dumps(spec))
    return path


def say(page, text: str, turns: int) -> None:
    page.get_by_label(re.compile("Your (first message|reply)")).fill(text)
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.get_by_test_id("conversation-turn")).to_have_count(turns, timeout=60_000)


@pytest.mark.slow  # a real worker trains the team and plays its three arms: minutes
def test_launch_with_baselines_deploy_and_talk_to_the_team(live_services, browser_page, tmp_path):
    page = browser_page
    page.set_default_timeout(20_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "support_lead")

    # Launch the template with its baselines, and read the verdict on the run page.
    form = page.get_by_role("form", name="Launch a run")
    form.locator("input[type=file]").set_input_files(str(quick_spec(tmp_path)))
    expect(form.get_by_label("Compare with baselines")).to_be_checked()
    form.get_by_role("button", name="Launch run").click()
    page.wait_for_url(re.compile(r"/runs/\d+/$"))
    run = Run.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert run.source.get("baselines") is True
    sentence = page.get_by_test_id("verdict-sentence")
    sentence.wait_for(timeout=600_000)
    assert re.search(r"(MARL paid|enough|did not pay)", sentence.inner_text())
    for arm in ("rules", "imitation", "mappo"):
        page.get_by_test_id(f"verdict-arm-{arm}").wait_for()
    page.get_by_test_id("run-state").filter(has_text="succeeded").wait_for(timeout=120_000)

    # Deploy it.
    page.goto(f"{base}/deployments/")
    deploy = page.get_by_role("form", name="Deploy a run")
    deploy.locator(f"option[value='{run.pk}']").wait_for(state="attached")
    deploy.get_by_label("Trained run").select_option(str(run.pk))
    # the form shows the run's own breaker threshold, and no preview request for a team without a dev split
    expect(deploy.locator("output")).to_have_text("0.99")
    expect(page.get_by_test_id("fallback-preview-none")).to_be_visible()
    deploy.get_by_label("Name").fill("support chat")
    deploy.get_by_role("button", name="Deploy").click()
    page.wait_for_url(re.compile(r"/deployments/\d+/$"))
    deployment = Deployment.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert deployment.project_id == project.pk

    # Three turns: the team asks what went wrong, then what the customer wants, then answers.
    console = page.get_by_role("region", name="Conversation with the team")
    say(page, AMBIGUOUS, 1)
    first = console.get_by_test_id("team-said").nth(0)
    expect(first).to_have_attribute("data-event", "question")
    expect(first).to_contain_text("what exactly went wrong?")
    expect(console.get_by_test_id("turn-decisions").nth(0)).to_contain_text("triage: ask problem (rules")
    say(page, "The jacket I got arrived torn", 2)
    expect(console.get_by_test_id("team-said").nth(1)).to_have_attribute("data-event", "question")
    expect(console.get_by_test_id("team-said").nth(1)).to_contain_text("a refund, a replacement")
    say(page, "I'd like a refund please, order 48213", 3)
    answer = console.get_by_test_id("team-said").nth(2)
    expect(answer).to_have_attribute("data-event", "answer")
    expect(answer).to_contain_text("started a refund for order #48213")
    third = console.get_by_test_id("turn-decisions").nth(2)
    for decided in ("triage: route", "knowledge: pick", "resolver: refund", "reviewer: "):
        expect(third).to_contain_text(decided)

    # The conversation lives on the server: a reload shows it, and the customer's word ends it.
    page.reload()
    expect(page.get_by_test_id("conversation-turn")).to_have_count(3)
    expect(page.get_by_test_id("conversation-awaiting")).to_contain_text("word on its answer")
    page.get_by_role("button", name="That solved it").click()
    expect(page.get_by_test_id("conversation-ended")).to_have_text(
        "Conversation resolved: the customer accepted the answer."
    )
    conversation = Conversation.objects.get(deployment=deployment)
    assert conversation.status == "resolved" and conversation.turns == 4

    # The operator's review page shows the conversation turn by turn.
    operator = get_user_model().objects.create_user("support_operator", password=PASSWORD)
    Membership.objects.create(project=project, user=operator, role=Role.OPERATOR)
    page.context.clear_cookies()
    page.goto(f"{base}/review/?deployment={deployment.pk}")
    page.get_by_label("Username").fill("support_operator")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/review/\?deployment="))
    log = page.get_by_test_id(f"conversation-{conversation.pk}")
    log.locator("summary").click()
    expect(log.get_by_test_id("customer-said").nth(0)).to_contain_text(AMBIGUOUS)
    expect(log.get_by_test_id("team-said").nth(0)).to_contain_text("Team (triage): Could you tell me")
    expect(log.get_by_test_id("team-said").nth(2)).to_contain_text("Team (reviewer):")
    page.screenshot(path=str(ROOT / "test-artifacts" / "interactive-conversation.png"), full_page=True)


def test_an_operator_talks_to_a_deployed_team_reloads_and_reviews_the_conversation(
    live_services,
    browser_page,
    interactive_checkpoint,  # noqa: F811 - the fixture imported above
):
    """The console and the review page without the launch (a checkpoint trained in-process): the same three
    turns, the conversation kept across a reload, a rejected answer reopened, then accepted."""
    page = browser_page
    page.set_default_timeout(20_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "support_operator", role=Role.OPERATOR)
    spec = interactive_spec(confidence_threshold=0.99, consecutive_low=1)
    deployment = make_deployment(project, interactive_checkpoint, spec, name="support chat")
    page.goto(f"{base}/deployments/{deployment.pk}/")
    console = page.get_by_role("region", name="Conversation with the team")
    say(page, AMBIGUOUS, 1)
    expect(console.get_by_test_id("team-said").nth(0)).to_have_attribute("data-event", "question")
    say(page, "The jacket I got arrived torn", 2)
    expect(console.get_by_test_id("team-said").nth(1)).to_contain_text("a refund, a replacement")
    page.reload()  # the conversation lives on the server
    expect(page.get_by_test_id("conversation-turn")).to_have_count(2)
    expect(console.get_by_role("link", name="review this turn")).to_have_count(2)  # an operator may review
    say(page, "I'd like a refund please, order 48213", 3)
    expect(console.get_by_test_id("team-said").nth(2)).to_have_attribute("data-event", "answer")
    # a reply box holds no first-message example, and its three buttons stand apart
    assert page.get_by_label("Your reply").get_attribute("placeholder") is None
    boxes = [
        console.get_by_role("button", name=n, exact=True).bounding_box() for n in ("Send", "That solved it")
    ]
    assert boxes[1]["x"] >= boxes[0]["x"] + boxes[0]["width"] + 4
    page.get_by_label("Your reply").fill("No, I wanted a replacement")
    page.get_by_role("button", name="It did not").click()
    expect(page.get_by_test_id("conversation-turn")).to_have_count(4)
    reopened = console.get_by_test_id("team-said").nth(3)
    expect(reopened).to_have_attribute("data-event", "answer")
    expect(reopened).to_contain_text("arranged a replacement for order #48213")
    page.get_by_role("button", name="That solved it").click()
    expect(page.get_by_test_id("conversation-ended")).to_contain_text("resolved")
    conversation = Conversation.objects.get(deployment=deployment)
    assert conversation.state["reopened"] and conversation.state["reason"] == "remedy"

    page.goto(f"{base}/review/?deployment={deployment.pk}")
    log = page.get_by_test_id(f"conversation-{conversation.pk}")
    log.locator("summary").click()
    expect(log.get_by_test_id("conversation-turn")).to_have_count(5)
    expect(log.get_by_test_id("customer-said").nth(3)).to_contain_text("No, I wanted a replacement")
