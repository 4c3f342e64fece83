import pytest
from django.contrib.auth import get_user_model

from mase_web.accounts.models import Membership, Project, Role
from mase_web.accounts.permissions import ALLOWED_ROLES, can, projects_where, role_allows, role_column

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    User = get_user_model()
    mine, other = Project.objects.create(name="mine"), Project.objects.create(name="other")
    users = {role: User.objects.create_user(f"u_{role}") for role in Role.values}
    for role, user in users.items():
        Membership.objects.create(project=mine, user=user, role=role)
    return mine, other, users


def test_roles_grant_exactly_their_actions(world):
    mine, other, users = world
    for action, roles in ALLOWED_ROLES.items():
        for role, user in users.items():
            assert can(user, action, mine) == (role in roles), (action, role)
            assert not can(user, action, other), (action, role)  # never outside one's projects


def test_annotators_only_give_feedback_and_read_datasets(world):
    mine, _, users = world
    allowed = {a for a in ALLOWED_ROLES if can(users[Role.ANNOTATOR], a, mine)}
    assert allowed == {"view_project", "give_feedback", "view_dataset"}


def test_anonymous_and_superuser(world):
    from django.contrib.auth.models import AnonymousUser

    mine, other, _ = world
    root = get_user_model().objects.create_superuser("root")
    assert not can(AnonymousUser(), "view_run", mine)
    assert can(root, "launch_run", other)
    assert set(projects_where(root, "view_run")) == {mine, other}


def test_projects_where_filters_by_role(world):
    mine, _, users = world
    assert list(projects_where(users[Role.OPERATOR], "control_breaker")) == [mine]
    assert list(projects_where(users[Role.ANNOTATOR], "view_run")) == []


def test_unknown_action_is_a_bug():
    with pytest.raises(KeyError):
        can(get_user_model()(), "fly", 1)


def test_a_role_read_with_the_row_answers_like_can(world):
    from django.contrib.auth.models import AnonymousUser

    mine, other, users = world
    root = get_user_model().objects.create_superuser("root")
    for user in [*users.values(), root]:
        rows = Project.objects.annotate(caller_role=role_column(user, "pk")).order_by("pk")
        for project in rows:
            assert project.caller_role == (None if user is root or project == other else user.username[2:])
            for action in ALLOWED_ROLES:
                assert role_allows(user, action, project.caller_role) == can(user, action, project), action
    assert not role_allows(AnonymousUser(), "view_project", Role.ADMIN)
    with pytest.raises(KeyError):
        role_allows(root, "fly", Role.ADMIN)
