"""Open streams lose access with their user's membership.

A stream (a run's, a deployment's) checks access on connect, and also joins its user's access group
for the project it shows. When a membership is changed or removed, that group is told once the change
is committed; every stream in it re-checks access and closes with code 4403 if it is gone. Deactivating
a user (or deleting one) tells their personal notification socket and every stream of theirs the same
way. The stream's heartbeat re-checks too: the second line, should the channel layer drop the message (or
a bulk update send no signal).
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from mase_web.accounts.facade import Membership, can
from mase_web.realtime.publisher import publisher, user_group

REVOKED = 4403  # the code a stream closes with, as when access is refused on connect


def access_group(user_id: int, project_id: int) -> str:
    """The channel-layer group of one user's streams in one project."""
    return f"access.{user_id}.{project_id}"


@database_sync_to_async
def still_active(user) -> bool:
    """Is the socket's user still an active account (as stored now)?"""
    return get_user_model().objects.filter(pk=user.pk, is_active=True).exists()


@database_sync_to_async
def may(user, action: str, project_id: int) -> bool:
    """`can` for consumers, on the user as stored now: one deactivated, or no longer a superuser, since
    the socket opened is judged as they are now."""
    fresh = get_user_model().objects.filter(pk=user.pk, is_active=True).first()
    return fresh is not None and can(fresh, action, project_id)


def _tell_streams(user_id: int, project_id: int) -> None:
    publisher().send(access_group(user_id, project_id), {"type": "access.changed"})


@receiver(post_save, sender=Membership, dispatch_uid="realtime.recheck_on_role_change")
def recheck_on_role_change(sender, instance: Membership, created: bool, raw: bool = False, **kwargs) -> None:
    if raw or created:  # a new membership only grants access (one per user and project)
        return
    transaction.on_commit(lambda: _tell_streams(instance.user_id, instance.project_id))


@receiver(post_delete, sender=Membership, dispatch_uid="realtime.recheck_on_removal")
def recheck_on_removal(sender, instance: Membership, **kwargs) -> None:
    transaction.on_commit(lambda: _tell_streams(instance.user_id, instance.project_id))


def _tell_all_sockets(user_id: int, project_ids: list[int]) -> None:
    publisher().send(user_group(user_id), {"type": "access.changed"})
    for project_id in project_ids:
        _tell_streams(user_id, project_id)


@receiver(post_save, sender=get_user_model(), dispatch_uid="realtime.close_on_deactivation")
def close_on_deactivation(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    if raw or created or instance.is_active:
        return
    projects = list(Membership.objects.filter(user_id=instance.pk).values_list("project_id", flat=True))
    transaction.on_commit(lambda: _tell_all_sockets(instance.pk, projects))


@receiver(post_delete, sender=get_user_model(), dispatch_uid="realtime.close_on_user_deletion")
def close_on_user_deletion(sender, instance, **kwargs) -> None:
    user_id = instance.pk  # the memberships went with the user: their own signals tell the streams
    transaction.on_commit(lambda: _tell_all_sockets(user_id, []))
