"""In real Chromium: a template opens in the designer with every agent inside the canvas (the view fits
them once they are drawn, without "zoom to fit"), and every shipped team's links neither cross each
other, nor run through an agent they do not join, nor share a stretch of path (communication links both
ways between two agents are drawn as one two-way link)."""

from __future__ import annotations

import json

import pytest

from conftest import ARTIFACTS
from mase_web.workflows.tests.test_browser_designer import TEMPLATES, open_template

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

# Every agent's box against the canvas's, in screen pixels.
OUTSIDE = """() => {
  const canvas = document.querySelector('[data-testid=canvas] .react-flow').getBoundingClientRect();
  return [...document.querySelectorAll('.react-flow__node')].filter((node) => {
    const box = node.getBoundingClientRect();
    return box.left < canvas.left || box.top < canvas.top || box.right > canvas.right || box.bottom > canvas.bottom;
  }).map((node) => node.dataset.id);
}"""

# The viewport's pan and zoom: [x, y, zoom × 100].
VIEW = """() => {
  const m = new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform);
  return [m.e, m.f, m.a * 100];
}"""

# Each designed link's path sampled into short segments (screen pixels): which pairs of links cross, and
# which links pass through an agent's box that is neither of their ends.
TANGLES = """() => {
  const nodes = [...document.querySelectorAll('.react-flow__node')].map((n) => ({id: n.dataset.id, box: n.getBoundingClientRect()}));
  const links = [...document.querySelectorAll('.react-flow__edge')].filter((e) => !e.classList.contains('learned'))
    .map((edge) => {
      const path = edge.querySelector('path.react-flow__edge-path');
      const matrix = path.getScreenCTM();
      const total = path.getTotalLength();
      const points = [];
      for (let i = 0; i <= 40; i++) {
        const p = path.getPointAtLength(total * i / 40);
        points.push({x: matrix.a * p.x + matrix.c * p.y + matrix.e, y: matrix.b * p.x + matrix.d * p.y + matrix.f});
      }
      const [, source, target] = edge.getAttribute('aria-label').match(/from (\\S+) to (\\S+)/) ?? [];
      return {name: edge.getAttribute('aria-label'), source, target, points};
    });
  const cross = (p, q, r, s) => {
    const d = (q.x - p.x) * (s.y - r.y) - (q.y - p.y) * (s.x - r.x);
    if (Math.abs(d) < 1e-9) return false;
    const t = ((r.x - p.x) * (s.y - r.y) - (r.y - p.y) * (s.x - r.x)) / d;
    const u = ((r.x - p.x) * (q.y - p.y) - (r.y - p.y) * (q.x - p.x)) / d;
    return t > 0.02 && t < 0.98 && u > 0.02 && u < 0.98;
  };
  const crossings = [];
  for (let a = 0; a < links.length; a++) for (let b = a + 1; b < links.length; b++) {
    const A = links[a], B = links[b];
    const shareEnd = [A.source, A.target].some((x) => x === B.source || x === B.target);
    if (shareEnd) continue;  // links of one agent meet at its box by design
    let found = false;
    for (let i = 0; i < 40 && !found; i++) for (let j = 0; j < 40 && !found; j++)
      found = cross(A.points[i], A.points[i + 1], B.points[j], B.points[j + 1]);
    if (found) crossings.push(`${A.name} × ${B.name}`);
  }
  const through = [];
  for (const link of links) for (const node of nodes) {
    if (node.id === link.source || node.id === link.target) continue;
    const b = node.box;
    if (link.points.some((p) => p.x > b.left && p.x < b.right && p.y > b.top && p.y < b.bottom)) through.push(`${link.name} through ${node.id}`);
  }
  return {crossings, through};
}"""


@pytest.mark.parametrize("template", ["number_guessing", "customer_service", "research_report"])
def test_a_template_opens_with_every_agent_in_view(live_services, browser_page, template):
    page = browser_page
    page.set_default_timeout(15_000)
    open_template(page, live_services.base_url, template, template)
    page.locator(".react-flow__node").first.wait_for()
    page.wait_for_timeout(800)  # the side panels settle; the view must still hold every agent
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"canvas_{template}.png"))
    assert page.evaluate(OUTSIDE) == []
    # The view it opens with is the fitted one: "Zoom to fit" has nothing left to do.
    opened = page.evaluate(VIEW)
    page.get_by_role("button", name="Zoom to fit").click()
    page.wait_for_timeout(600)  # its 300 ms animation
    fitted = page.evaluate(VIEW)
    assert opened == pytest.approx(fitted, abs=2), (opened, fitted)


# For each communication link against every other designed link (either kind), and back, how much of one
# runs on top of the other: the share of its length, between its first and last tenth, that lies within
# 4 px of the other's path. Links that meet at an agent may touch there, but not share a stretch of line.
# (Dependencies into one agent meet at its one dot by design, so two dependencies are not compared.)
SHARED = """() => {
  const links = [...document.querySelectorAll('.react-flow__edge')].filter((e) => !e.classList.contains('learned'))
    .map((edge) => {
      const path = edge.querySelector('path.react-flow__edge-path');
      const m = path.getScreenCTM();
      const total = path.getTotalLength();
      const points = [];
      for (let i = 0; i <= 200; i++) {
        const p = path.getPointAtLength(total * i / 200);
        points.push({x: m.a * p.x + m.c * p.y + m.e, y: m.b * p.x + m.d * p.y + m.f});
      }
      return {name: edge.getAttribute('aria-label'), points};
    });
  const shared = [];
  for (const A of links) for (const B of links) {
    if (A === B || (A.name.startsWith('dependency') && B.name.startsWith('dependency'))) continue;
    const inner = A.points.slice(20, 181);
    const near = inner.filter((p) => B.points.some((q) => Math.hypot(p.x - q.x, p.y - q.y) < 4)).length;
    if (near / inner.length > 0.1) shared.push(`${A.name} on ${B.name} (${Math.round(100 * near / inner.length)}%)`);
  }
  return shared;
}"""

SHIPPED = sorted(path.stem for path in TEMPLATES.glob("*.json"))


@pytest.mark.parametrize("template", SHIPPED)
def test_no_two_links_share_a_stretch_of_path(live_services, browser_page, template):
    page = browser_page
    page.set_default_timeout(15_000)
    open_template(page, live_services.base_url, template, template)
    page.locator(".react-flow__node").first.wait_for()
    page.wait_for_timeout(800)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"canvas_links_{template}.png"))
    assert page.evaluate(OUTSIDE) == []
    assert page.evaluate(SHARED) == []
    assert page.evaluate(TANGLES) == {"crossings": [], "through": []}


def test_the_customer_service_links_do_not_tangle(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    open_template(page, live_services.base_url, "customer_service", "Support desk")
    page.locator(".react-flow__edge").first.wait_for()
    page.wait_for_timeout(800)
    assert page.evaluate(TANGLES) == {"crossings": [], "through": []}


def drag_link(page, handle, onto) -> None:
    """Press on `handle`, move in steps to the middle of the agent `onto` (none of its dots), release."""
    start, box = handle.bounding_box(), onto.bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.4, box["y"] + box["height"] * 0.55, steps=12)
    page.wait_for_timeout(150)  # the agent has become a drop target
    page.mouse.up()


def test_a_link_dropped_anywhere_on_an_agent_connects_to_it(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    workflow = open_template(page, live_services.base_url, "customer_service", "Support desk")
    page.locator(".react-flow__edge").first.wait_for()
    edges = page.locator(".react-flow__edge")
    before = edges.count()

    logistics = page.get_by_test_id("agent-node-logistics")
    drag_link(
        page,
        logistics.locator(".react-flow__handle-bottom"),
        page.get_by_test_id("agent-node-shopping_guide"),
    )
    # shopping_guide already talks to logistics: the new link back is drawn with it, as one two-way link.
    page.locator(
        '.react-flow__edge[aria-label="communication edge from shopping_guide to logistics and back"]'
    ).wait_for()
    # The right dot makes a dependency, wherever on the agent it is dropped.
    drag_link(
        page,
        logistics.locator(".react-flow__handle-right"),
        page.get_by_test_id("agent-node-dispute_mediator"),
    )
    page.locator(
        '.react-flow__edge[aria-label="dependency edge from logistics to dispute_mediator"]'
    ).wait_for()
    assert edges.count() == before + 1
    # Selected, the two-way link offers both directions, each to delete on its own.
    page.locator('.react-flow__edge[aria-label$="to logistics and back"]').dispatch_event("click")
    inspector = page.get_by_test_id("edge-inspector")
    inspector.get_by_text("(two links)").wait_for()
    assert inspector.get_by_role("button", name="Delete the link logistics → shopping_guide").count() == 1
    assert inspector.get_by_role("button", name="Delete the link shopping_guide → logistics").count() == 1
    # No whole-agent drop target is left behind: a press on an agent selects it again.
    assert page.locator(".handle-whole-node").count() == 0
    logistics.click()
    page.get_by_test_id("agent-inspector").wait_for()

    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    workflow.refresh_from_db()
    template = json.loads((TEMPLATES / "customer_service.json").read_text())
    added = [e for e in workflow.spec["edges"] if e not in template["edges"]]
    assert added == [
        {"source": "logistics", "target": "shopping_guide", "kind": "communication"},
        {"source": "logistics", "target": "dispute_mediator", "kind": "dependency"},
    ]


# For each select of the Training tab, its options whose text does not fit the closed select.
CUT_OPTIONS = """() => {
  const ctx = document.createElement('canvas').getContext('2d');
  return [...document.querySelectorAll('.training-editor select')].flatMap((select) => {
    const style = getComputedStyle(select);
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;  // the arrow
    return [...select.options].filter((o) => ctx.measureText(o.text).width > room)
      .map((o) => `${select.getAttribute('aria-label')}: ${o.text}`);
  });
}"""


def test_the_training_tabs_choices_are_shown_whole(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    open_template(page, live_services.base_url, "customer_service", "Support desk")
    page.get_by_role("tab", name="Training").click()
    page.get_by_label("Policy sharing").wait_for()
    page.get_by_label("Teacher", exact=True).select_option("checkpoint")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "training_tab.png"))
    assert page.evaluate(CUT_OPTIONS) == []
