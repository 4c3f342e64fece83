"""A deployment's rated replies as what its team's writer learns from (decisions 0029 and 0035).

A rating judges a reply to a ticket, written in the style the writer served (`reply.style` of the episode;
"plain" when it records none). The writer's reward model (`training.style_reward`) is fitted on these
(ticket, style, stars) triples, crossing the ticket's features with the style: a model of the snapshot text
alone scored a style nearly the same way for every ticket (decision 0029's measurement).
"""

from __future__ import annotations

from dataclasses import dataclass

from mase_web.feedback.models import FeedbackItem, FeedbackQueue


@dataclass(frozen=True)
class RatedReply:
    """One rated reply of a deployment: its ticket's text, the style it was written in, its mean stars."""

    ticket: str
    style: str
    stars: float
    explored: bool  # served as a declared exploration of another style (serving.runtime's style_explore)
    propensity: float | None = None  # the probability the style was served with (None: logged before 0039)


def deployment_rated_replies(deployment_id: int) -> list[RatedReply]:
    """Every rated episode of this deployment in a rating queue, with a written reply."""
    items = (
        FeedbackItem.objects.filter(
            episode_key__startswith=f"deployment/{deployment_id}/",
            queue__kind=FeedbackQueue.Kind.RATING,
            episode__isnull=False,
        )
        .select_related("episode")
        .prefetch_related("ratings")
    )
    out = []
    for item in items:
        values = [r.value for r in item.ratings.all()]
        reply = (item.episode.result or {}).get("reply") or {}
        if values and item.episode.task_text and reply.get("parts"):
            out.append(
                RatedReply(
                    ticket=item.episode.task_text,
                    style=str(reply.get("style") or "plain"),
                    stars=sum(values) / len(values),
                    explored=bool(reply.get("explored")),
                    propensity=_propensity(reply.get("propensity")),
                )
            )
    return out


def _propensity(value) -> float | None:
    """A logged propensity in (0, 1], or None (a reply served before they were logged, or a broken value:
    the reward model then assumes the style's share among the ratings, as before decision 0039)."""
    try:
        p = float(value)
    except (TypeError, ValueError):
        return None
    return p if 0.0 < p <= 1.0 else None
