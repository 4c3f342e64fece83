"""In real Chromium: the designer's learned-communication overlay draws the links a trained run uses
over the designed ones, marks the designed link the team ignores, and never touches the draft."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from mase_web.accounts.models import Membership, Project, Role
from mase_web.runs.models import Run, RunEvent
from mase_web.workflows.models import Workflow

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "test-artifacts"
TEMPLATES = ROOT / "examples"

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

# Rows are listeners, columns speakers, in this order; "critic" is in the run but not in the draft.
AGENTS = ["planner", "writer", "polisher", "critic"]
MATRIX = [
    [0.00, 0.70, 0.25, 0.05],  # planner hears the writer strongly, the polisher a little
    [0.60, 0.00, 0.38, 0.02],  # writer hears the planner and the polisher
    [0.01, 0.90, 0.00, 0.09],  # polisher hears the writer, not the planner: planner → polisher is unused
    [0.30, 0.30, 0.40, 0.00],
]


def sign_in(page, base_url: str) -> Project:
    """A product manager of a fresh project, signed in through a real session cookie."""
    user = get_user_model().objects.create_user("overlay_pm")
    project = Project.objects.create(name="Content team")
    Membership.objects.create(project=project, user=user, role=Role.PRODUCT_MANAGER)
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}]
    )
    return project


def run_of(workflow: Workflow, name: str, matrix: list[list[float]] | None) -> Run:
    """A run launched from `workflow`, with an attention report when `matrix` is given."""
    run = Run.objects.create(
        project=workflow.project,
        name=name,
        spec=workflow.spec,
        source={"kind": "workflow", "workflow": workflow.pk, "version": 1},
        state=Run.State.SUCCEEDED if matrix else Run.State.RUNNING,
    )
    if matrix is not None:
        RunEvent.objects.create(
            run=run, seq=1, type="attention", time=timezone.now(),
            payload={"step": 40, "mode": "eval", "agents": AGENTS, "matrix": matrix},
        )  # fmt: skip
    return run


def learned_labels(page) -> list[str]:
    return sorted(
        page.locator(".react-flow__edge.edge-learned").evaluate_all(
            "els => els.map(e => e.getAttribute('aria-label'))"
        )
    )


def test_learned_overlay_over_designed_links(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    project = sign_in(page, base)
    spec = json.loads((TEMPLATES / "collaborative_writing.json").read_text())
    workflow = Workflow.objects.create(project=project, name="Blog", spec=spec)
    bare = Workflow.objects.create(project=project, name="Untrained", spec=spec)
    flat = [[0.0 if i == j else 1 / 3 for j in range(4)] for i in range(4)]
    older = run_of(workflow, "first try", flat)
    newest = run_of(workflow, "second try", MATRIX)
    run_of(workflow, "still running", None)  # newest of all, but no attention yet: not the default

    # A workflow never trained: the toggle is there but disabled, and says why.
    page.goto(f"{base}/workflows/{bare.pk}/")
    toggle = page.get_by_test_id("overlay-toggle")
    toggle.wait_for()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=overlay-controls] span[title]')?.title.includes('No run')"
    )
    assert toggle.is_disabled()

    page.goto(f"{base}/workflows/{workflow.pk}/")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    designed = page.locator(".react-flow__edge").count()
    # planner, writer and polisher talk both ways in pairs: each pair is drawn as one two-way link.
    assert designed == len(spec["edges"]) - 3 and page.locator(".edge-learned").count() == 0
    toggle = page.get_by_test_id("overlay-toggle")
    page.wait_for_function("() => !document.querySelector('[data-testid=overlay-toggle]').disabled")
    toggle.click()

    # The newest run with attention is picked; learned links ≥ 0.05 between draft agents are drawn.
    page.get_by_test_id("overlay-legend").get_by_text("5 learned links drawn").wait_for()
    assert page.get_by_test_id("overlay-run").input_value() == str(newest.pk)
    assert learned_labels(page) == sorted(
        f"learned communication from {s} to {t}, weight {w}"
        for s, t, w in [
            ("writer", "planner", "0.70"),
            ("polisher", "planner", "0.25"),
            ("planner", "writer", "0.60"),
            ("polisher", "writer", "0.38"),
            ("writer", "polisher", "0.90"),
        ]
    )
    # Overlay edges are view-only: not selectable, and a click selects nothing.
    assert page.locator(".react-flow__edge.edge-learned.selectable").count() == 0
    unused = page.locator(".react-flow__edge.edge-unused")
    assert unused.count() == 1
    assert unused.get_attribute("aria-label") == (
        "communication edge from planner to polisher, unused by the team (weight 0.01)"
    )
    legend = page.get_by_test_id("overlay-legend")
    legend.get_by_text("designed link the team does not use (1)").wait_for()
    assert "critic" in page.get_by_test_id("overlay-ignored").inner_text()

    # Hovering a learned edge shows its weight.
    strongest = page.locator(".react-flow__edge.edge-learned[aria-label*='writer to polisher']")
    label = strongest.locator(".react-flow__edge-textwrapper")
    assert label.evaluate("el => getComputedStyle(el).opacity") == "0"
    label.hover(force=True)  # the label sits on the curve's midpoint, so this is hovering the edge
    page.wait_for_function(
        """() => { const el = document.querySelector(".edge-learned[aria-label*='writer to polisher'] .react-flow__edge-textwrapper");
                   return el && getComputedStyle(el).opacity === '1'; }"""
    )
    assert label.text_content() == "0.90"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "designer-overlay.png"))

    # A higher threshold drops the weaker links and marks polisher → planner (0.25) unused too.
    page.get_by_test_id("overlay-threshold").fill("0.3")
    legend.get_by_text("4 learned links drawn").wait_for()
    assert page.locator(".react-flow__edge.edge-unused").count() == 2

    # The older run's uniform attention (1/3 everywhere) uses every designed link.
    page.get_by_test_id("overlay-run").select_option(str(older.pk))
    legend.get_by_text("designed link the team does not use (0)").wait_for()
    assert all(lbl.endswith("weight 0.33") for lbl in learned_labels(page)) and len(learned_labels(page)) == 6

    # Toggling off removes every overlay edge and mark; the draft was never touched.
    toggle.click()
    legend.wait_for(state="detached")
    assert page.locator(".edge-learned").count() == 0 and page.locator(".edge-unused").count() == 0
    assert page.locator(".react-flow__edge").count() == designed
    assert page.get_by_test_id("save-status").inner_text() == "All changes saved"
    workflow.refresh_from_db()
    assert workflow.spec == spec
