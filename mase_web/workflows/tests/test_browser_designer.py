"""In real Chromium: open a template, drag in an agent, connect it, edit reward weights, watch
validation errors appear and disappear, publish, reload, and restore an older version."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from mase_web.accounts.models import Membership, Project, Role
from mase_web.workflows.models import Workflow

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "test-artifacts"
TEMPLATES = ROOT / "examples"

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def sign_in(page, base_url: str, role: str = Role.PRODUCT_MANAGER):
    user = get_user_model().objects.create_user(f"designer_{role}")
    project = Project.objects.create(name="Content team")
    Membership.objects.create(project=project, user=user, role=role)
    client = Client()
    client.force_login(user)  # a real session row in the shared test database
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}]
    )
    return user, project


def open_template(page, base_url: str, template: str, name: str) -> Workflow:
    """Sign in, save `template` as a new workflow and open it in the designer, valid."""
    _, project = sign_in(page, base_url)
    spec = json.loads((TEMPLATES / f"{template}.json").read_text())
    workflow = Workflow.objects.create(project=project, name=name, spec=spec)
    page.goto(f"{base_url}/workflows/{workflow.pk}/")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    return workflow


def test_design_publish_reload_restore(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    sign_in(page, base)

    page.goto(f"{base}/workflows/")
    page.get_by_text("No workflows yet").wait_for()
    page.get_by_role("button", name="Use Customer service").click()
    page.wait_for_url(re.compile(r"/workflows/\d+/$"))
    workflow_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    for agent in ("shopping_guide", "logistics", "dispute_mediator", "quality_supervisor"):
        page.get_by_test_id(f"agent-node-{agent}").wait_for()
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    edges_before = page.locator(".react-flow__edge").count()

    # Drag a custom agent from the palette: its prompt is empty, so a validation error appears on it.
    canvas = page.get_by_test_id("canvas")
    box = canvas.bounding_box()
    page.get_by_test_id("palette-custom").drag_to(
        canvas, target_position={"x": box["width"] * 0.5, "y": box["height"] * 0.8}
    )
    node = page.get_by_test_id("agent-node-custom_agent")
    node.wait_for()
    node.get_by_test_id("node-problem-badge").wait_for()
    page.get_by_test_id("problems").get_by_text("The agent custom_agent's prompt").wait_for()

    # Connect it to the supervisor: from its bottom dot, a communication link.
    node.locator(".react-flow__handle-bottom").drag_to(
        page.get_by_test_id("agent-node-quality_supervisor").locator(".react-flow__handle-top")
    )
    page.wait_for_function(
        "(n) => document.querySelectorAll('.react-flow__edge').length === n", arg=edges_before + 1
    )

    # A new specialist owns what it is given: it takes the address changes too.
    node.click()
    page.get_by_test_id("intent-address_change").check()
    # Writing the prompt clears the error.
    node.click()
    page.get_by_test_id("agent-prompt").fill(
        "You change delivery addresses of orders that have not shipped yet."
    )
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    expect_no_badge = node.get_by_test_id("node-problem-badge")
    expect_no_badge.wait_for(state="detached")

    # Reward weights: an out-of-range weight is an error until it is fixed; the chart follows.
    page.get_by_role("tab", name="Reward").click()
    weight = page.get_by_test_id("weight-task-exploration")
    weight.fill("50")
    page.get_by_test_id("problems").get_by_text(
        'The weight of the reward term "task" in the exploration phase'
    ).wait_for()
    weight.fill("0.45")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.locator('[data-testid=mixture-chart] rect[data-term="task"][data-weight="0.45"]').first.wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "designer.png"))

    # Publish version 1 with a note.
    page.get_by_role("tab", name="History").click()
    page.get_by_test_id("publish-note").fill("Added an address desk")
    page.get_by_role("button", name="Publish version").click()
    page.get_by_text("Published version 1.").wait_for()

    # Reload: agent, edge, weight and version are all still there.
    page.reload()
    page.get_by_test_id("agent-node-custom_agent").wait_for()
    assert page.locator(".react-flow__edge").count() == edges_before + 1
    page.get_by_role("tab", name="Reward").click()
    assert page.get_by_test_id("weight-task-exploration").input_value() == "0.45"
    page.get_by_role("tab", name="History").click()
    page.get_by_test_id("version-1").get_by_text("Added an address desk").wait_for()

    # Delete the agent, publish version 2, then restore version 1.
    page.get_by_test_id("agent-node-custom_agent").click()
    page.keyboard.press("Delete")
    page.get_by_test_id("agent-node-custom_agent").wait_for(state="detached")
    page.get_by_role("tab", name="History").click()
    page.get_by_test_id("publish-note").fill("Without the address desk")
    page.get_by_role("button", name="Publish version").click()
    page.get_by_text("Published version 2.").wait_for()
    page.get_by_test_id("version-1").get_by_role("button", name="Compare with draft").click()
    page.get_by_test_id("diff-view").get_by_text("− custom_agent", exact=True).wait_for()
    page.get_by_test_id("version-1").get_by_role("button", name="Restore").click()
    page.get_by_test_id("agent-node-custom_agent").wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()

    page.reload()
    page.get_by_test_id("agent-node-custom_agent").wait_for()
    workflow = Workflow.objects.get(pk=workflow_id)
    assert [a["id"] for a in workflow.spec["agents"]][-1] == "custom_agent"
    assert {
        "source": "custom_agent",
        "target": "quality_supervisor",
        "kind": "communication",
    } in workflow.spec["edges"]
    assert workflow.spec["agents"][-1]["intents"] == ["address_change"]
    assert list(workflow.versions.order_by("number").values_list("note", flat=True)) == [
        "Added an address desk",
        "Without the address desk",
    ]


def test_hostile_import_is_refused_and_strings_stay_text(live_services, browser_page, tmp_path):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    sign_in(page, base)

    # A valid spec whose strings carry markup: imported, and shown as literal text.
    spec = json.loads((TEMPLATES / "collaborative_writing.json").read_text())
    spec["name"] = "<img src=x onerror=alert(1)>"
    spec["agents"][0]["prompt"] = "<script>alert('owned')</script>"
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(spec))
    page.goto(f"{base}/workflows/")
    page.get_by_test_id("import-new").set_input_files(str(hostile))
    page.wait_for_url(re.compile(r"/workflows/\d+/$"))
    assert page.get_by_label("Workflow name").input_value() == "<img src=x onerror=alert(1)>"
    page.get_by_test_id("agent-node-planner").click()
    assert page.get_by_test_id("agent-prompt").input_value() == "<script>alert('owned')</script>"

    # A malformed file and an invalid spec are refused with their reasons; the draft is unchanged.
    broken = tmp_path / "broken.json"
    broken.write_text('{"agents": [')
    page.get_by_test_id("import-file").set_input_files(str(broken))
    page.get_by_test_id("import-errors").get_by_text("is not valid JSON").wait_for()
    spec["agents"][1]["lora"] = {"r": "many"}
    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps(spec))
    page.get_by_test_id("import-file").set_input_files(str(invalid))
    page.get_by_test_id("import-errors").get_by_text("$.agents[1].lora.r").wait_for()
    page.get_by_test_id("import-errors").get_by_text("nothing was saved").wait_for()
    workflow = Workflow.objects.get()
    assert workflow.spec["agents"][1]["lora"]["r"] == 4
    assert dialogs == []  # no markup ever ran


def test_operator_sees_a_read_only_designer(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    _, project = sign_in(page, base, role=Role.OPERATOR)
    spec = json.loads((TEMPLATES / "research_report.json").read_text())
    workflow = Workflow.objects.create(project=project, name="Reports", spec=spec)
    page.goto(f"{base}/workflows/")
    page.get_by_text("can view workflows but not create them").wait_for()
    assert page.get_by_role("button", name="New blank workflow").is_disabled()
    page.get_by_role("link", name="Reports").click()
    page.get_by_text("read only").wait_for()
    page.get_by_test_id("agent-node-researcher").click()
    assert page.get_by_test_id("agent-prompt").is_disabled()
    assert page.get_by_role("button", name="Delete", exact=True).is_disabled()
    page.get_by_role("tab", name="Advisor").click()
    page.get_by_test_id("recommendation").wait_for()
    workflow.refresh_from_db()
    assert workflow.spec == spec


def test_cycle_undo_redo_copy_paste_and_layout(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    workflow = open_template(page, base, "collaborative_writing", "Blog")
    spec = json.loads((TEMPLATES / "collaborative_writing.json").read_text())
    problems = page.get_by_test_id("problems")

    # A dependency edge (from the right dot) back to the start closes a cycle: the edge turns red and the error is listed.
    page.get_by_test_id("agent-node-polisher").locator(".react-flow__handle-right").drag_to(
        page.get_by_test_id("agent-node-planner").locator(".react-flow__handle-left")
    )
    problems.get_by_text("dependency edges form a cycle").wait_for()
    page.locator(".react-flow__edge.edge-problem").wait_for(state="attached")
    page.locator(".react-flow__pane").click(position={"x": 20, "y": 20})
    page.keyboard.press("Control+z")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.get_by_role("button", name="Redo").click()
    problems.get_by_text("dependency edges form a cycle").wait_for()
    page.get_by_role("button", name="Undo").click()
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()

    # Copy and paste an agent, then delete the copy.
    page.get_by_test_id("agent-node-writer").click()
    page.keyboard.press("Control+c")
    page.keyboard.press("Control+v")
    page.get_by_test_id("agent-node-writer_2").wait_for()
    page.get_by_role("button", name="Delete", exact=True).click()
    page.get_by_test_id("agent-node-writer_2").wait_for(state="detached")

    # Schedule and safety editors write their sections of the spec.
    page.get_by_role("tab", name="Schedule").click()
    page.get_by_label("Threshold that ends the exploration phase").fill("0.25")
    page.get_by_role("tab", name="Safety").click()
    page.get_by_label("Consecutive low tickets").fill("5")
    page.get_by_label("Fallback", exact=True).select_option("keyword_router")
    page.get_by_role("button", name="Add rule").click()
    page.get_by_label("Keywords").fill("refund, return")
    page.get_by_label("Route to").select_option("writer")

    # Auto-layout places every agent; the positions are autosaved beside the spec.
    page.get_by_role("button", name="Auto-layout").click()
    page.get_by_role("button", name="Zoom to fit").click()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    workflow.refresh_from_db()
    assert set(workflow.layout) == {"planner", "writer", "polisher"}
    xs = [workflow.layout[a]["x"] for a in ("planner", "writer", "polisher")]
    assert xs == sorted(xs) and len(set(xs)) == 3  # left to right along the dependencies
    assert [a["id"] for a in workflow.spec["agents"]] == ["planner", "writer", "polisher"]
    assert len(workflow.spec["edges"]) == len(spec["edges"])
    assert workflow.spec["evolution"]["phases"][0] == {"name": "exploration", "threshold": 0.25}
    assert workflow.spec["circuit_breaker"]["consecutive_low"] == 5
    assert workflow.spec["fallback"] == {
        "kind": "keyword_router",
        "rules": [{"keywords": ["refund", "return"], "route_to": "writer"}],
    }


def test_training_tab_sets_the_ppo_options_a_run_reads(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    workflow = open_template(page, base, "customer_service", "Support desk")
    page.get_by_role("tab", name="Training").click()

    page.get_by_label("Policy sharing").select_option("independent")
    page.get_by_label("Counterfactual baseline").check()
    # A trained run as teacher needs its directory: the validator asks for it until another teacher is chosen.
    page.get_by_label("Teacher", exact=True).select_option("checkpoint")
    page.get_by_label("Teacher checkpoint").fill("runs/nowhere")
    page.get_by_test_id("problems").get_by_text('The training setting "teacher checkpoint"').wait_for()
    page.get_by_label("Teacher", exact=True).select_option("expert")
    page.get_by_label("Teacher checkpoint").wait_for(state="detached")
    page.get_by_label("Teacher weight").fill("0.5")
    page.get_by_label("Teacher fade-out episodes").fill("800")
    page.get_by_label("Self-imitation weight").fill("1")
    # the server's validator speaks through the problems list: no budget is an error until fixed
    page.get_by_label("Episodes", exact=True).fill("0")
    page.get_by_test_id("problems").get_by_text('The training setting "episodes"').wait_for()
    page.get_by_label("Episodes", exact=True).fill("4000")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "designer-training.png"))
    workflow.refresh_from_db()
    training = workflow.spec["training"]
    assert {k: training[k] for k in ("algorithm", "episodes", "policy_sharing", "counterfactual")} == {
        "algorithm": "mappo",
        "episodes": 4000,
        "policy_sharing": "independent",
        "counterfactual": True,
    }
    assert (training["teacher"], training["teacher_coef"], training["self_imitation"]) == ("expert", 0.5, 1)
    assert training["teacher_fade_episodes"] == 800
    assert "teacher_checkpoint" not in training

    # Independent PPO has no centralised critic: its counterfactual option goes, and the saved spec stays valid.
    page.get_by_label("Algorithm").select_option("ippo")
    page.get_by_label("Counterfactual baseline").wait_for(state="detached")
    page.get_by_role("status").filter(has_text="removed: counterfactual baseline").wait_for()  # and says so
    page.get_by_label("Policy sharing").wait_for()
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    workflow.refresh_from_db()
    assert (
        workflow.spec["training"]["algorithm"] == "ippo" and "counterfactual" not in workflow.spec["training"]
    )
    assert workflow.spec["training"]["teacher"] == "expert"

    # no teacher, nothing to fade: the fade goes with it, so the spec stays valid
    page.get_by_label("Teacher", exact=True).select_option("none")
    page.get_by_label("Teacher fade-out episodes").wait_for(state="detached")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    workflow.refresh_from_db()
    assert "teacher_fade_episodes" not in workflow.spec["training"]


def test_environment_tab_edits_the_environments_own_parameters(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    workflow = open_template(page, live_services.base_url, "customer_service", "Support desk")
    page.get_by_role("tab", name="Environment").click()
    page.get_by_role("heading", name="Environment: customer_service").wait_for()

    page.get_by_label("Delayed reward").check()
    page.get_by_label("Supervisor view").select_option(label="draft")
    page.get_by_label("Role view").select_option(label="triage")
    # what each setting does is written under it, not only on hover
    page.get_by_text("What the three specialists see").wait_for()
    # the environment's own validator speaks through the problems list
    page.get_by_label("Max steps").fill("1")
    page.get_by_test_id("problems").get_by_text('The environment setting "max steps"').wait_for()
    page.get_by_label("Max steps").fill("8")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.get_by_label("Role view").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "designer-environment.png"))
    workflow.refresh_from_db()
    params = workflow.spec["environment"]["params"]
    assert params == {
        "tickets": "train",
        "max_steps": 8,
        "message_cost": 0.1,  # the template's own settings, kept
        "deal_roles": True,
        "reader": "clause_keywords",  # the warm start's settings are the environment's too
        "reader_epochs": 300,
        "warm_start_episodes": 1200,
        "warm_start_epochs": 16,
        "actor_evidence": "reader_plain_answers",
        "delayed_reward": True,
        "supervisor_view": "draft",
        "role_view": "triage",
    }

    # a setting put back to its default leaves the spec; "Reset to defaults" clears them all
    page.get_by_label("Delayed reward").uncheck()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    workflow.refresh_from_db()
    assert "delayed_reward" not in workflow.spec["environment"]["params"]
    page.get_by_role("button", name="Reset to defaults").click()
    page.get_by_label("Max steps").and_(page.locator("[value='6']")).wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    workflow.refresh_from_db()
    assert workflow.spec["environment"] == {"name": "customer_service"}


def test_an_informant_node_names_its_clue_kind(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    workflow = open_template(page, live_services.base_url, "number_guessing", "Guessers")

    # every digit of 16 may be a bit or a range: the team stays valid whatever each node holds
    page.get_by_test_id("agent-node-clue_0").click()
    page.get_by_test_id("agent-clue").select_option("range")
    page.get_by_test_id("agent-node-clue_3").click()
    page.get_by_test_id("agent-clue").select_option("range")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    workflow.refresh_from_db()
    assert [a.get("clue") for a in workflow.spec["agents"][:4]] == ["range", None, None, "range"]

    # a number range the drawn digits cannot split is said at the clue too, and fixing it clears it
    page.get_by_role("tab", name="Environment").click()
    page.get_by_label("N", exact=True).fill("10")
    page.get_by_test_id("problems").get_by_text("2 bit and 2 range informants").wait_for()
    page.get_by_test_id("agent-node-clue_3").click()
    page.get_by_test_id("clue-size-problem").filter(has_text="n must be one of 16, 36, 64").wait_for()
    page.get_by_test_id("agent-clue").select_option("")  # back to the environment's bit clues
    page.get_by_test_id("clue-size-problem").filter(has_text="n must be one of 16, 24, 32").wait_for()
    page.get_by_role("tab", name="Environment").click()
    page.get_by_label("N", exact=True).fill("16")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    workflow.refresh_from_db()
    assert [a.get("clue") for a in workflow.spec["agents"][:4]] == ["range", None, None, None]
