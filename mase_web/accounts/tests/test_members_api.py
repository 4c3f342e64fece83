"""Project members over the API: every endpoint × every role, and the rules a change must keep.

Expected outcomes come from `mase_web.accounts.permissions.ALLOWED_ROLES`: every member may read the
team (view_project); only the project's admins (manage_members) add, change or remove members.
Outsiders do not see the project at all (404); anonymous callers are refused.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from mase_web.accounts.models import Membership, Project, Role

pytestmark = pytest.mark.django_db

ROLES = [
    "anonymous",
    "outsider",
    Role.ANNOTATOR,
    Role.OPERATOR,
    Role.PRODUCT_MANAGER,
    Role.ADMIN,
    "superuser",
]
MEMBERS = {Role.ANNOTATOR, Role.OPERATOR, Role.PRODUCT_MANAGER, Role.ADMIN, "superuser"}
ADMINS = {Role.ADMIN, "superuser"}

# name: (method, url template, body, success status, kind) — kind: "read" | "write"
ENDPOINTS = {
    "list": ("get", "/api/projects/{p}/members/", None, 200, "read"),
    "invite": (
        "post",
        "/api/projects/{p}/members/",
        {"user": "newcomer", "role": Role.ANNOTATOR},
        201,
        "write",
    ),
    "retrieve": ("get", "/api/projects/{p}/members/{m}/", None, 200, "read"),
    "change_role": ("patch", "/api/projects/{p}/members/{m}/", {"role": Role.PRODUCT_MANAGER}, 200, "write"),
    "remove": ("delete", "/api/projects/{p}/members/{m}/", None, 204, "write"),
}


@pytest.fixture
def team():
    User = get_user_model()
    project, other = Project.objects.create(name="Support team"), Project.objects.create(name="Elsewhere")
    users = {role: User.objects.create_user(f"u_{role}", email=f"{role}@example.org") for role in Role.values}
    for role, user in users.items():
        Membership.objects.create(project=project, user=user, role=role)
    users["outsider"] = User.objects.create_user("outsider")
    Membership.objects.create(project=other, user=users["outsider"], role=Role.ADMIN)
    users["superuser"] = User.objects.create_superuser("root")
    User.objects.create_user("newcomer", email="New.Comer@example.org")
    target = Membership.objects.get(project=project, user=users[Role.OPERATOR])
    return project, other, users, target


def client_as(users: dict, role: str) -> APIClient:
    client = APIClient()
    if role != "anonymous":
        client.force_login(users[role])
    return client


def expected_status(kind: str, role: str, success: int) -> int:
    if role == "anonymous":
        return 403
    if role not in MEMBERS:
        return 404  # the project is invisible to outsiders
    if kind == "write" and role not in ADMINS:
        return 403
    return success


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_endpoint_role_matrix(team, endpoint, role):
    project, _, users, target = team
    method, url, body, success, kind = ENDPOINTS[endpoint]
    before = sorted(Membership.objects.values_list("project_id", "user_id", "role"))
    kwargs = {"data": body, "format": "json"} if body is not None else {}
    response = getattr(client_as(users, role), method)(url.format(p=project.pk, m=target.pk), **kwargs)
    want = expected_status(kind, role, success)
    assert response.status_code == want, (endpoint, role, response.status_code, response.content[:300])
    after = sorted(Membership.objects.values_list("project_id", "user_id", "role"))
    if response.status_code >= 400:
        assert set(response.json()) == {"detail", "errors"}  # one error shape everywhere
        assert after == before  # a refused request changes nothing
    else:
        assert (after != before) == (kind == "write")
    if endpoint == "list" and response.status_code == 200:
        assert [m["username"] for m in response.json()] == sorted(f"u_{r}" for r in Role.values)


def test_another_projects_member_is_not_reached_through_ones_own_project(team):
    project, other, users, _ = team
    foreign = Membership.objects.get(project=other)
    client = client_as(users, Role.ADMIN)
    for method in ("get", "patch", "delete"):
        response = getattr(client, method)(
            f"/api/projects/{project.pk}/members/{foreign.pk}/", data={"role": Role.ANNOTATOR}, format="json"
        )
        assert response.status_code == 404, method
    assert Membership.objects.get(pk=foreign.pk).role == Role.ADMIN


def test_invite_by_email_then_change_role_then_remove(team):
    project, _, users, _ = team
    client = client_as(users, Role.ADMIN)
    url = f"/api/projects/{project.pk}/members/"
    response = client.post(url, {"user": "new.comer@EXAMPLE.org", "role": Role.OPERATOR}, format="json")
    assert response.status_code == 201, response.content
    member = response.json()
    assert (member["username"], member["role"], member["role_label"]) == ("newcomer", "operator", "Operator")
    response = client.patch(f"{url}{member['id']}/", {"role": Role.ADMIN}, format="json")
    assert response.status_code == 200 and response.json()["role_label"] == "Project admin"
    assert client.delete(f"{url}{member['id']}/").status_code == 204
    assert not Membership.objects.filter(project=project, user__username="newcomer").exists()


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"user": "nobody", "role": Role.ANNOTATOR}, "user", "No user has the username or email 'nobody'"),
        ({"user": "u_operator", "role": Role.ANNOTATOR}, "user", "u_operator is already a member (Operator)"),
        ({"user": "newcomer", "role": "owner"}, "role", '"owner" is not a valid choice.'),
        ({"role": Role.ANNOTATOR}, "user", "This field is required."),
        ({"user": ["newcomer"], "role": Role.ANNOTATOR}, "user", "Not a valid string."),
    ],
)
def test_bad_invitations_get_field_errors(team, body, field, message):
    project, _, users, _ = team
    count = Membership.objects.count()
    response = client_as(users, Role.ADMIN).post(f"/api/projects/{project.pk}/members/", body, format="json")
    assert response.status_code == 400, response.content
    assert any(message in text for text in response.json()["errors"][field]), response.json()
    assert Membership.objects.count() == count


def test_an_email_shared_by_two_users_asks_for_the_username(team):
    project, _, users, _ = team
    get_user_model().objects.create_user("twin", email="new.comer@example.org")
    response = client_as(users, Role.ADMIN).post(
        f"/api/projects/{project.pk}/members/",
        {"user": "new.comer@example.org", "role": Role.OPERATOR},
        format="json",
    )
    assert response.status_code == 400
    assert "give the username" in response.json()["errors"]["user"][0]


def test_the_last_admin_can_be_neither_demoted_nor_removed(team):
    project, _, users, _ = team
    admin = Membership.objects.get(project=project, role=Role.ADMIN)
    client = client_as(users, "superuser")
    url = f"/api/projects/{project.pk}/members/{admin.pk}/"
    response = client.patch(url, {"role": Role.OPERATOR}, format="json")
    assert response.status_code == 400
    assert "last admin" in response.json()["errors"]["role"][0]
    response = client.delete(url)
    assert response.status_code == 400
    assert "last admin" in response.json()["errors"]["member"][0]
    assert Membership.objects.get(pk=admin.pk).role == Role.ADMIN
    # With a second admin, the first may step down, and then the second is the last one.
    second = Membership.objects.get(project=project, role=Role.PRODUCT_MANAGER)
    assert (
        client.patch(
            f"/api/projects/{project.pk}/members/{second.pk}/", {"role": Role.ADMIN}, format="json"
        ).status_code
        == 200
    )
    assert client_as(users, Role.ADMIN).delete(url).status_code == 204  # an admin may leave
    assert client.delete(f"/api/projects/{project.pk}/members/{second.pk}/").status_code == 400


def test_a_missing_project_and_someone_elses_answer_the_same(team):
    _, other, users, _ = team
    client = client_as(users, Role.ADMIN)
    theirs = client.get(f"/api/projects/{other.pk}/members/")
    missing = client.get("/api/projects/987654/members/")
    assert theirs.status_code == missing.status_code == 404
    assert theirs.json()["detail"].replace(str(other.pk), "N") == missing.json()["detail"].replace(
        "987654", "N"
    )
