"""What a new product manager meets in the designer (issue 23), in real Chromium at 1440×900: the page
fits the window, the canvas fits its agents, problems are named in words and lead to the field at fault,
the Reward tab lists every term that counts, a phase can be added back, and a published version can be
launched (with an overridden budget that keeps the workflow link)."""

from __future__ import annotations

import json

import pytest

from mase_web.runs.models import Run
from mase_web.workflows.models import Workflow, WorkflowVersion
from mase_web.workflows.tests.test_browser_designer import TEMPLATES, open_template, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

WIDE = {"width": 1440, "height": 900}


def inside(inner: dict, outer: dict, slack: float = 1.0) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


def test_the_designer_fits_the_window_and_zoom_to_fit_shows_every_agent(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    page.set_viewport_size(WIDE)
    open_template(page, live_services.base_url, "number_guessing", "Guessers")
    assert page.evaluate("() => document.documentElement.scrollHeight") <= WIDE["height"]
    page.get_by_role("button", name="Zoom to fit").click()
    page.wait_for_timeout(600)  # the fit animates for 300 ms
    canvas = page.get_by_test_id("canvas").bounding_box()
    blockers = [page.locator(sel).bounding_box() for sel in (".react-flow__controls", ".react-flow__minimap")]
    for agent in json.loads((TEMPLATES / "number_guessing.json").read_text())["agents"]:
        box = page.get_by_test_id(f"agent-node-{agent['id']}").bounding_box()
        assert inside(box, canvas), agent["id"]
        for blocker in blockers:  # not hidden under the zoom buttons or the minimap
            overlap_x = min(box["x"] + box["width"], blocker["x"] + blocker["width"]) - max(
                box["x"], blocker["x"]
            )
            overlap_y = min(box["y"] + box["height"], blocker["y"] + blocker["height"]) - max(
                box["y"], blocker["y"]
            )
            assert overlap_x <= 0 or overlap_y <= 0, agent["id"]

    # Every side-panel tab fits: nothing wider than the panel, the page still no taller than the window.
    panel = page.locator(".side-panel").bounding_box()
    assert panel["x"] + panel["width"] <= WIDE["width"]
    for tab in ("Reward", "Schedule", "Training", "Environment", "Safety"):
        page.get_by_role("tab", name=tab).click()
        body = page.locator(".tab-body")
        assert body.evaluate("el => el.scrollWidth <= el.clientWidth"), tab
        for control in body.locator("input, select").all():
            if control.is_visible():
                box = control.bounding_box()
                assert box["x"] + box["width"] <= panel["x"] + panel["width"], tab
        assert page.evaluate("() => document.documentElement.scrollHeight") <= WIDE["height"], tab


LINKS_CLEAR_OF_AGENTS = """() => {
  const boxes = {};
  for (const node of document.querySelectorAll('[data-testid^="agent-node-"]')) {
    boxes[node.dataset.testid.slice('agent-node-'.length)] = node.getBoundingClientRect();
  }
  const crossings = [];
  for (const edge of document.querySelectorAll('.react-flow__edge.edge-communication')) {
    const m = /from (\\w+) to (\\w+)/.exec(edge.getAttribute('aria-label'));
    const path = edge.querySelector('path.react-flow__edge-path');
    const total = path.getTotalLength();
    for (let i = 1; i < 20; i++) {
      const p = path.getPointAtLength((total * i) / 20);
      const q = new DOMPoint(p.x, p.y).matrixTransform(path.getScreenCTM());
      for (const [id, b] of Object.entries(boxes)) {
        if (id !== m[1] && id !== m[2] && q.x > b.left && q.x < b.right && q.y > b.top && q.y < b.bottom) {
          crossings.push(`${m[1]}->${m[2]} crosses ${id}`);
        }
      }
    }
  }
  return [...new Set(crossings)];
}"""


def test_customer_service_links_go_round_the_agents(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    page.set_viewport_size(WIDE)
    open_template(page, live_services.base_url, "customer_service", "Support desk")
    page.get_by_role("button", name="Auto-layout").click()
    page.wait_for_timeout(700)
    spec = json.loads((TEMPLATES / "customer_service.json").read_text())
    links = [e for e in spec["edges"] if e.get("kind", "communication") == "communication"]
    drawn = page.locator(".react-flow__edge.edge-communication")
    two_way = page.locator('.react-flow__edge.edge-communication[aria-label$=" and back"]')
    assert drawn.count() + two_way.count() == len(links)  # a two-way link draws both directions
    assert page.evaluate(LINKS_CLEAR_OF_AGENTS) == []
    # The Safety tab's keyword rules (a route select each) fit the panel.
    page.get_by_role("tab", name="Safety").click()
    panel = page.locator(".side-panel").bounding_box()
    selects = page.locator(".tab-body select")
    assert selects.count() >= 2
    for select in selects.all():
        select.scroll_into_view_if_needed()
        box = select.bounding_box()
        assert box["x"] >= panel["x"] and box["x"] + box["width"] <= panel["x"] + panel["width"]
    assert page.locator(".tab-body").evaluate("el => el.scrollWidth <= el.clientWidth")


def test_problems_in_words_lead_to_the_field_and_the_reward_table_lists_every_term(
    live_services, browser_page
):
    page = browser_page
    page.set_default_timeout(15_000)
    page.set_viewport_size(WIDE)
    _, project = sign_in(page, live_services.base_url)
    spec = json.loads((TEMPLATES / "customer_service.json").read_text())
    spec["edges"].append({"source": "logistics", "target": "quality_supervisor", "kind": "communication"})
    workflow = Workflow.objects.create(project=project, name="Desk", spec=spec)
    page.goto(f"{live_services.base_url}/workflows/{workflow.pk}/")
    problems = page.get_by_test_id("problems")
    duplicate = problems.get_by_text("The communication link from logistics to quality_supervisor")
    duplicate.wait_for()
    assert "edges[" not in problems.inner_text() and "$." not in problems.inner_text()
    duplicate.click()
    page.get_by_role("tab", name="Inspector", selected=True).wait_for()
    page.locator(".react-flow__edge.selected.edge-problem").wait_for(state="attached")
    page.keyboard.press("Delete")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()

    # The Reward tab lists the preset's terms beside the explicit one; a weight out of range is named
    # in words, marked on its field, and a click on the problem puts the cursor in that field.
    page.get_by_role("tab", name="Reward").click()
    for term in ("task", "coherence_penalty", "collaboration_bonus", "human_feedback"):
        page.get_by_test_id(f"term-{term}").wait_for()
    page.get_by_test_id("weight-human_feedback-exploration").fill("11")
    problem = problems.get_by_text('The weight of the reward term "human feedback" in the exploration phase')
    problem.wait_for()
    page.locator(".field.has-problem [data-testid='weight-human_feedback-exploration']").wait_for()
    page.get_by_role("tab", name="Schedule").click()
    problem.click()
    page.get_by_role("tab", name="Reward", selected=True).wait_for()
    page.wait_for_function(
        "() => document.activeElement?.dataset.testid === 'weight-human_feedback-exploration'"
    )
    page.get_by_test_id("weight-human_feedback-exploration").fill("0.5")
    # Editing a preset term's weight overrides the preset for that term.
    page.get_by_test_id("weight-task-exploration").fill("2")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()

    # The Schedule tab removes a phase (its weights go with it) and adds it back in its place.
    page.get_by_role("tab", name="Schedule").click()
    page.get_by_title("Remove the transfer phase (and its reward weights)").click()
    page.get_by_test_id("phase-transfer").wait_for(state="detached")
    page.get_by_role("button", name="+ Add transfer phase").click()
    page.get_by_test_id("phase-transfer").wait_for()
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    workflow.refresh_from_db()
    terms = {t["term"]: t["weights"] for t in workflow.spec["reward"]["terms"]}
    assert terms["task"]["exploration"] == 2 and terms["human_feedback"]["exploration"] == 0.5
    assert [p["name"] for p in workflow.spec["evolution"]["phases"]] == [
        "exploration",
        "exploitation",
        "transfer",
    ]


def test_launch_a_published_version_with_another_budget(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(20_000)
    page.set_viewport_size(WIDE)
    workflow = open_template(page, live_services.base_url, "number_guessing", "Guessers")
    spec = json.loads((TEMPLATES / "number_guessing.json").read_text())
    WorkflowVersion.objects.create(workflow=workflow, number=1, spec=spec, note="first")
    page.get_by_role("tab", name="History").click()
    version = page.get_by_test_id("version-1")
    version.get_by_role("button", name="Launch run").click()
    version.get_by_label("Episodes (optional)").fill("64")
    version.get_by_role("button", name="Launch v1").click()
    page.wait_for_url("**/runs/*/")
    run = Run.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert run.source == {
        "kind": "workflow", "workflow": workflow.pk, "workflow_name": "Guessers", "version": 1,
        "overrides": {"episodes": 64},
    }  # fmt: skip
    assert run.spec["training"]["episodes"] == 64


def test_template_cards_read_whole_and_in_plain_words(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    page.set_viewport_size(WIDE)
    sign_in(page, live_services.base_url)
    page.goto(f"{live_services.base_url}/workflows/")
    cards = page.get_by_test_id("template-gallery").locator(".template-card")
    cards.first.wait_for()
    assert cards.count() == len(list(TEMPLATES.glob("*.json")))
    for card in cards.all():
        description = card.locator(".description")
        assert description.evaluate("el => el.scrollHeight <= el.clientHeight + 1")  # nothing cut off
        text = description.inner_text()
        assert "§" not in text and "docs/" not in text and ".py" not in text, text
