"""Pages follow the roles the API enforces: the navigation lists only the sections a user's roles open,
pages a user may not see answer with the site's own 403/404 pages (never Django's debug pages, whatever
DEBUG says), and the favicon is served."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from django.views.defaults import server_error

from mase_web.accounts.models import Membership, Project, Role
from mase_web.core import launcher
from mase_web.core.navigation import open_sections
from mase_web.deployments.models import Deployment
from mase_web.runs.models import Run
from mase_web.workflows.models import Workflow

pytestmark = pytest.mark.django_db

SPEC = {"agents": [{"id": "a", "role": "custom", "prompt": "p"}]}


def client_as(username: str, *roles: str, superuser: bool = False) -> tuple[Client, list[Project]]:
    """A signed-in client whose user has `roles`, one project each."""
    user = get_user_model().objects.create_user(username, is_superuser=superuser, is_staff=superuser)
    projects = []
    for role in roles:
        project = Project.objects.create(name=f"{username} {role}")
        Membership.objects.create(project=project, user=user, role=role)
        projects.append(project)
    client = Client()
    client.force_login(user)
    return client, projects


def nav_labels(html: str) -> list[str]:
    nav = re.search(r'<nav aria-label="Sections"[^>]*>(.*?)</nav>', html, re.S)
    assert nav, "the page has no section navigation"
    return re.findall(r"<a [^>]*>([^<]+)</a>", nav.group(1))


@pytest.mark.parametrize(
    ("roles", "superuser", "expected"),
    [
        ((Role.ANNOTATOR,), False, ["Datasets", "Annotate"]),
        ((Role.OPERATOR,), False, ["Workflows", "Runs", "Deployments", "Datasets", "Review", "API"]),
        ((Role.PRODUCT_MANAGER,), False, ["Workflows", "Runs", "Deployments", "Datasets", "Feedback", "API"]),
        (
            (Role.ADMIN,),
            False,
            [
                "Workflows",
                "Runs",
                "Deployments",
                "Datasets",
                "Review",
                "Annotate",
                "Feedback",
                "Members",
                "API",
            ],
        ),
        (
            (),
            True,
            [
                "Workflows",
                "Runs",
                "Deployments",
                "Datasets",
                "Review",
                "Annotate",
                "Feedback",
                "Members",
                "API",
                "Admin",
            ],
        ),
        ((), False, []),
        # Roles in different projects add up.
        (
            (Role.ANNOTATOR, Role.OPERATOR),
            False,
            ["Workflows", "Runs", "Deployments", "Datasets", "Review", "Annotate", "API"],
        ),
    ],
)
def test_navigation_lists_the_sections_the_roles_open(roles, superuser, expected):
    client, _ = client_as("someone", *roles, superuser=superuser)
    response = client.get("/")
    assert response.status_code == 200
    assert nav_labels(response.content.decode()) == expected


def test_sections_are_computed_once_per_request(django_assert_num_queries):
    client, _ = client_as("annie", Role.ANNOTATOR)
    request = RequestFactory().get("/")
    request.user = Membership.objects.get().user
    with django_assert_num_queries(1):
        assert open_sections(request) == {"datasets", "annotate"}
        assert open_sections(request) == {"datasets", "annotate"}
    # The current section is marked in the navigation.
    html = client.get("/annotate/").content.decode()
    assert '<a href="/annotate/" aria-current="page">Annotate</a>' in html


def test_signed_out_pages_have_no_navigation():
    html = Client().get("/login/").content.decode()
    assert 'aria-label="Sections"' not in html


@pytest.mark.parametrize("debug", [False, True])
def test_a_section_the_roles_do_not_open_answers_the_403_page(settings, debug):
    settings.DEBUG = debug
    annotator, _ = client_as("annie", Role.ANNOTATOR)
    operator, _ = client_as("otto", Role.OPERATOR)
    for client, path in [
        (annotator, "/workflows/"),
        (annotator, "/runs/"),
        (annotator, "/runs/compare/"),
        (annotator, "/deployments/"),
        (annotator, "/review/"),
        (annotator, "/feedback/"),
        (annotator, "/members/"),
        (operator, "/annotate/"),
        (operator, "/feedback/"),
    ]:
        response = client.get(path)
        assert response.status_code == 403, path
        html = response.content.decode()
        assert "You do not have access to this page" in html
        assert "is not part of your role in any of your projects" in html
        assert '<a class="button" href="/">' in html
        assert 'id="root"' not in html  # the React bundle does not mount: nothing to load and fail
    assert operator.get("/review/").status_code == 200
    assert annotator.get("/annotate/").status_code == 200


@pytest.mark.parametrize("debug", [False, True])
def test_objects_the_user_may_not_see_answer_the_404_page(settings, debug):
    settings.DEBUG = debug
    annotator, (own,) = client_as("annie", Role.ANNOTATOR)
    operator, (ops,) = client_as("otto", Role.OPERATOR)
    workflow = Workflow.objects.create(project=own, name="W", spec=SPEC)
    visible_run = Run.objects.create(project=ops, name="mine", spec=SPEC, state=Run.State.SUCCEEDED)
    other_run = Run.objects.create(project=own, name="theirs", spec=SPEC, state=Run.State.SUCCEEDED)
    other_deployment = Deployment.objects.create(
        project=own, name="D", run=other_run, checkpoint="x", spec=SPEC, status=Deployment.Status.STOPPED
    )
    for client, path in [
        (annotator, f"/workflows/{workflow.pk}/"),  # in the annotator's own project: the role does not see it
        (annotator, "/workflows/999999/"),
        (annotator, f"/runs/{other_run.pk}/"),
        (operator, f"/runs/{other_run.pk}/"),  # another project's run
        (operator, "/runs/999999/"),
        (operator, f"/deployments/{other_deployment.pk}/"),
        (operator, "/deployments/999999/"),
    ]:
        response = client.get(path)
        assert response.status_code == 404, path
        html = response.content.decode()
        assert "Page not found" in html and "or it belongs to a project you are not part of" in html
        assert "URLconf" not in html and "DEBUG = True" not in html
        assert 'id="root"' not in html and "page-data" not in html  # no panels, no socket
    page = operator.get(f"/runs/{visible_run.pk}/")
    assert page.status_code == 200 and 'data-page="run"' in page.content.decode()


def test_unknown_urls_get_the_404_page_unless_debug_is_asked_for(settings):
    client, _ = client_as("annie", Role.ANNOTATOR)
    settings.DEBUG = False
    html = client.get("/no-such-page/").content.decode()
    assert "Page not found" in html and "URLconf" not in html
    assert nav_labels(html) == ["Datasets", "Annotate"]  # the page keeps the user's navigation
    settings.DEBUG = True  # asked for: Django's debug page, as DEBUG=1 promises
    assert "URLconf" in client.get("/no-such-page/").content.decode()


def test_server_error_page_renders_without_a_request_context():
    response = server_error(RequestFactory().get("/"))
    html = response.content.decode()
    assert response.status_code == 500
    assert "Something went wrong on our side" in html and '<a class="button" href="/">' in html


def test_the_launcher_leaves_debug_as_the_environment_sets_it(monkeypatch):
    monkeypatch.delenv("DEBUG", raising=False)
    assert "DEBUG" not in launcher.service_env("redis://x")
    monkeypatch.setenv("DEBUG", "1")
    assert launcher.service_env("redis://x")["DEBUG"] == "1"


def test_favicon_is_served_and_linked():
    response = Client().get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert b"".join(response.streaming_content)[:4] == b"\x00\x00\x01\x00"  # an ICO header
    html = Client().get("/login/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in html
