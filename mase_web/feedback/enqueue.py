"""Putting items in a queue: from snapshot payloads, or from a deployment's logged episodes and steps."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from mase_web.feedback.assignment import assign
from mase_web.feedback.models import FeedbackItem, FeedbackQueue
from mase_web.feedback.snapshots import (
    deployment_episode_key,
    episode_snapshot,
    single_step_snapshot,
    step_key,
)


@transaction.atomic
def add_items(queue: FeedbackQueue, items: Iterable[FeedbackItem]) -> list[FeedbackItem]:
    """Save new items (skipping keys the queue already holds) and assign them; returns those saved."""
    held = set(queue.items.values_list("episode_key", "episode_key_b"))
    fresh, seen = [], set(held)
    for item in items:
        key = (item.episode_key, item.episode_key_b)
        if key not in seen:
            item.queue = queue
            fresh.append(item)
            seen.add(key)
    saved = FeedbackItem.objects.bulk_create(fresh)
    if not all(item.pk for item in saved):  # backends without RETURNING: read the ids back
        saved = list(queue.items.order_by("-id")[: len(saved)])[::-1]
    assign(queue, saved)
    return saved


def from_payload(items: list[dict]) -> list[FeedbackItem]:
    return [
        FeedbackItem(
            kind=item["kind"],
            episode_key=item["episode_key"],
            snapshot=item["snapshot"],
            episode_key_b=item.get("episode_key_b", ""),
            snapshot_b=item.get("snapshot_b"),
        )
        for item in items
    ]


def _deployment_episodes(deployment, max_confidence, fallback_only):
    from mase_web.deployments.models import DecisionStep

    episodes = deployment.episodes.exclude(status="running").order_by("created_at", "id")
    if max_confidence is not None:
        episodes = episodes.filter(steps__confidence__lt=max_confidence)
    if fallback_only:
        episodes = episodes.filter(steps__source=DecisionStep.Source.FALLBACK)
    return episodes.distinct().prefetch_related("steps")


def from_deployment(
    queue: FeedbackQueue, deployment, unit: str, max_confidence: float | None, fallback_only: bool, limit: int
) -> list[FeedbackItem]:
    """Items for a deployment's finished episodes (or their steps) that match the filters, oldest first.

    Pairwise queues get pairs of episodes that handled the same task text.
    """
    episodes = list(_deployment_episodes(deployment, max_confidence, fallback_only))
    if queue.kind == FeedbackQueue.Kind.PAIRWISE:
        return _pairs(episodes)[:limit]
    if unit == "episode":
        return [
            FeedbackItem(
                kind=FeedbackItem.Kind.EPISODE,
                episode_key=deployment_episode_key(e),
                snapshot=episode_snapshot(e),
                episode=e,
            )
            for e in episodes[:limit]
        ]
    items = []
    for episode in episodes:
        for step in episode.steps.all():
            confident = max_confidence is not None and (
                step.confidence is None or step.confidence >= max_confidence
            )
            if confident or (fallback_only and step.source != "fallback"):
                continue
            key = step_key(deployment_episode_key(episode), step)
            snapshot = single_step_snapshot(episode, step)
            items.append(
                FeedbackItem(
                    kind=FeedbackItem.Kind.STEP,
                    episode_key=key,
                    snapshot=snapshot,
                    episode=episode,
                    step=step,
                )
            )
    return items[:limit]


def _pairs(episodes) -> list[FeedbackItem]:
    by_task: dict[str, list] = {}
    for episode in episodes:
        by_task.setdefault(episode.task_text, []).append(episode)
    pairs = []
    for group in by_task.values():
        for a, b in zip(group[::2], group[1::2], strict=False):
            pairs.append(
                FeedbackItem(
                    kind=FeedbackItem.Kind.PAIR,
                    episode_key=deployment_episode_key(a),
                    snapshot=episode_snapshot(a),
                    episode_key_b=deployment_episode_key(b),
                    snapshot_b=episode_snapshot(b),
                    episode=a,
                )
            )
    return pairs
