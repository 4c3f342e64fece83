"""Putting items in a queue: from snapshot payloads, or from a deployment's logged episodes and steps.

A pair never compares an episode with itself or with its twin (`twin_reason`): the same episode key, the
same content, or the same ticket text answered by the same deployment or checkpoint (the same team gives
the same answer, so there is nothing to choose between), or the same reply text (`same_reply`: equal once case
and spacing are ignored; an annotator cannot prefer one of two identical texts). Pairs built from a
deployment skip such rivals and count the episodes left unpaired by them (`Picked.skipped_identical`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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
        twin = item.kind == FeedbackItem.Kind.PAIR and twin_reason(
            item.episode_key, item.snapshot, item.episode_key_b, item.snapshot_b or {}
        )
        if key not in seen and not twin:
            item.queue = queue
            fresh.append(item)
            seen.add(key)
    saved = FeedbackItem.objects.bulk_create(fresh)
    if not all(item.pk for item in saved):  # backends without RETURNING: read the ids back
        saved = list(queue.items.order_by("-id")[: len(saved)])[::-1]
    assign(queue, saved)
    return saved


def _answered_by(snapshot: dict) -> tuple[str, object] | None:
    """Who answered a snapshot's episode: its checkpoint when known, else its deployment (None: unknown).
    A checkpoint is named relative to its run, so the run is part of its name."""
    meta = snapshot.get("meta") or {}
    if meta.get("checkpoint") not in (None, ""):
        run = meta.get("run")
        return "checkpoint", meta["checkpoint"] if run in (None, "") else f"{meta['checkpoint']} of run {run}"
    if meta.get("deployment") not in (None, ""):
        return "deployment", meta["deployment"]
    return None


def _reply_words(snapshot: dict) -> str:
    reply = snapshot.get("reply")
    text = reply.get("text") if isinstance(reply, dict) else None
    return " ".join(str(text).split()).casefold() if text else ""


def same_reply(snapshot_a: dict, snapshot_b: dict) -> bool:
    """Whether both snapshots hold a reply and the two texts are equal once case and spacing are ignored."""
    words = _reply_words(snapshot_a)
    return bool(words) and words == _reply_words(snapshot_b)


def twin_reason(key_a: str, snapshot_a: dict, key_b: str, snapshot_b: dict) -> tuple[str, str] | None:
    """(field, message) when episode B is episode A or its twin, else None."""
    if key_a == key_b:
        return "episode_key_b", f"episode B is episode A ({key_a!r}); a pair compares two different episodes"
    if same_reply(snapshot_a, snapshot_b):
        return "snapshot_b", (
            "A and B reply with the same text (ignoring case and spacing): there is nothing to choose "
            "between; pair two different replies"
        )
    if snapshot_a.get("task") == snapshot_b.get("task"):
        a, b = _answered_by(snapshot_a), _answered_by(snapshot_b)
        if a is not None and a == b:
            return "snapshot_b", (
                f"A and B answer the same ticket with the same {a[0]} ({a[1]}): they are twins; "
                "pair answers from different deployments or checkpoints"
            )
    same = ("task", "answer", "steps", "reply")  # two backends' replies to one decision are a fair pair
    if all(snapshot_a.get(f) == snapshot_b.get(f) for f in same):
        return "snapshot_b", "A and B are identical (same task, answer, steps and reply)"
    return None


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
    from mase_web.deployments.facade import DecisionStep

    episodes = (
        deployment.episodes.exclude(status="running")
        .select_related("deployment")
        .order_by("created_at", "id")
    )
    if max_confidence is not None:
        episodes = episodes.filter(steps__confidence__lt=max_confidence)
    if fallback_only:
        episodes = episodes.filter(steps__source=DecisionStep.Source.FALLBACK)
    return episodes.distinct().prefetch_related("steps")


def _rivals(deployment, compare_with, tasks: set[str]):
    """Finished episodes of `tasks` that another team answered: `compare_with`, or the project's others."""
    from mase_web.deployments.facade import Episode

    others = (
        Episode.objects.filter(deployment__project_id=deployment.project_id, task_text__in=tasks)
        .exclude(deployment=deployment)
        .exclude(status="running")
        .select_related("deployment")
        .prefetch_related("steps")
        .order_by("created_at", "id")
    )
    return others.filter(deployment=compare_with) if compare_with is not None else others


@dataclass(frozen=True)
class Picked:
    """The items `from_deployment` picked, and how many episodes found only rivals with the same reply."""

    items: list[FeedbackItem]
    skipped_identical: int = 0


def from_deployment(
    queue: FeedbackQueue,
    deployment,
    unit: str,
    max_confidence: float | None,
    fallback_only: bool,
    limit: int,
    compare_with=None,
) -> Picked:
    """Items for a deployment's finished episodes (or their steps) that match the filters, oldest first.

    Pairwise queues get pairs: each matching episode (A) with an episode of the same task text answered
    by another deployment (B: `compare_with`, or any other of the project), never by the same checkpoint
    and never with the same reply text.
    """
    episodes = list(_deployment_episodes(deployment, max_confidence, fallback_only))
    # `limit` counts new items: those the queue holds already are left out before it is applied
    held = set(queue.items.values_list("episode_key", "episode_key_b"))
    if queue.kind == FeedbackQueue.Kind.PAIRWISE:
        rivals = _rivals(deployment, compare_with, {e.task_text for e in episodes})
        pairs, skipped = _pairs(episodes, list(rivals))
        fresh = [p for p in pairs if (p.episode_key, p.episode_key_b) not in held]
        return Picked(fresh[:limit], skipped)
    singles = {key for key, other in held if not other}
    return Picked(_singles(episodes, unit, max_confidence, fallback_only, limit, singles))


def _singles(
    episodes: list, unit: str, max_confidence, fallback_only, limit: int, held: set[str]
) -> list[FeedbackItem]:
    """Rating items not in ``held`` (keys queued already): one per episode, or one per step that matches
    the filters."""
    if unit == "episode":
        fresh = [e for e in episodes if deployment_episode_key(e) not in held]
        return [
            FeedbackItem(
                kind=FeedbackItem.Kind.EPISODE,
                episode_key=deployment_episode_key(e),
                snapshot=episode_snapshot(e),
                episode=e,
            )
            for e in fresh[:limit]
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
            if key in held:
                continue
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


def _pairs(episodes: list, rivals: list) -> tuple[list[FeedbackItem], int]:
    """Each episode with the first unused rival of the same task text whose pair is not a twin; and how many
    episodes stayed unpaired because their only rivals replied with the same text."""
    by_task: dict[str, list] = {}
    for rival in rivals:
        by_task.setdefault(rival.task_text, []).append(rival)
    pairs, skipped_identical = [], 0
    for a in episodes:
        snapshot_a, key_a = episode_snapshot(a), deployment_episode_key(a)
        candidates = by_task.get(a.task_text, [])
        saw_same_reply = False
        for b in candidates:
            snapshot_b, key_b = episode_snapshot(b), deployment_episode_key(b)
            saw_same_reply = saw_same_reply or same_reply(snapshot_a, snapshot_b)
            if twin_reason(key_a, snapshot_a, key_b, snapshot_b) is None:
                candidates.remove(b)
                pairs.append(
                    FeedbackItem(
                        kind=FeedbackItem.Kind.PAIR,
                        episode_key=key_a,
                        snapshot=snapshot_a,
                        episode_key_b=key_b,
                        snapshot_b=snapshot_b,
                        episode=a,
                    )
                )
                break
        else:
            skipped_identical += saw_same_reply
    return pairs, skipped_identical
