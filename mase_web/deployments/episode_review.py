"""Operator review by ticket: one row per episode with who decided, how sure the team was, and a review that
marks the deciding decisions.

Every environment gives each agent an idle action at index 0 (``pass``, ``wait``, ``continue``): an agent that
takes it holds back this step. The *deciding* decisions of an episode are the others (``action_index != 0``),
in step order: they are what the team did about the ticket. An episode's

- ``decided_by`` is its deciding decisions (agent, action, source, confidence);
- ``confidence`` is the lowest confidence among them: the answer is only as sure as its least sure decision
  (a rule fallback's decisions carry no confidence and do not count);
- ``review_status`` is the strongest review among all its decisions: wrong, else escalated, else ok, else
  unreviewed. Reviewing an episode reviews its deciding decisions (all its decisions when none decided), so
  the per-decision review and its annotation queue stay the one store of reviews;
- ``review_reason`` is the reason given with that review (the newest of its decisions with that status that
  gave one; "" when none did), so a review list says why a ticket was marked wrong without opening its steps.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import (
    Case,
    Count,
    Exists,
    IntegerField,
    Min,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from rest_framework import serializers

from mase_web.deployments.decision_review import record_review
from mase_web.deployments.models import DecisionStep, Episode
from mase_web.deployments.review import ScopedFilters, full_text

IDLE_ACTION_INDEX = 0
REVIEW = DecisionStep.Review
# strongest first: an episode shows the first of these that any of its decisions has
REVIEW_ORDER = (REVIEW.WRONG, REVIEW.ESCALATED, REVIEW.OK)
HALF_OPEN = "half_open"


def deciding(steps: QuerySet[DecisionStep]) -> QuerySet[DecisionStep]:
    """The decisions that were not an agent's idle action (see the module docstring)."""
    return steps.exclude(action_index=IDLE_ACTION_INDEX)


class EpisodeFilters(ScopedFilters):
    """Query parameters of /api/episodes/ beyond the episode's own fields."""

    agent = serializers.CharField(
        required=False, max_length=100, help_text="an agent that decided (took a non-idle action)"
    )
    decision_source = serializers.ChoiceField(
        required=False,
        choices=DecisionStep.Source.choices,
        help_text="some decision of the episode came from this source (trial: a half-open breaker's trial)",
    )
    review_status = serializers.ChoiceField(
        required=False, choices=REVIEW.choices, help_text="the episode's review (see review_status)"
    )
    q = serializers.CharField(
        required=False,
        max_length=200,
        trim_whitespace=True,
        help_text="words of the ticket or the reply, or a full-text match of one of its decisions",
    )


def _of_episode(**lookups) -> Exists:
    return Exists(DecisionStep.objects.filter(episode=OuterRef("pk"), **lookups))


def _strongest_reasoned(field: str) -> Subquery:
    """``field`` of the episode's decision with the strongest review that gave a reason (newest first)."""
    strength = Case(
        *(When(review_status=status, then=Value(rank)) for rank, status in enumerate(REVIEW_ORDER)),
        output_field=IntegerField(),
    )
    reasoned = DecisionStep.objects.filter(episode=OuterRef("pk"), review_status__in=REVIEW_ORDER).exclude(
        review_reason=""
    )
    return Subquery(reasoned.order_by(strength, "-reviewed_at", "-id").values(field)[:1])


def with_review_fields(episodes: QuerySet[Episode]) -> QuerySet[Episode]:
    """``episodes`` with what a review row shows: decision and step counts, confidence, review flags and reason, deciding
    decisions."""
    return episodes.annotate(
        reasoned_status=_strongest_reasoned("review_status"),
        reasoned_text=_strongest_reasoned("review_reason"),
        decision_count=Count("steps"),
        step_count=Count("steps__step", distinct=True),
        confidence=Min("steps__confidence", filter=~Q(steps__action_index=IDLE_ACTION_INDEX)),
        has_wrong=_of_episode(review_status=REVIEW.WRONG),
        has_escalated=_of_episode(review_status=REVIEW.ESCALATED),
        has_ok=_of_episode(review_status=REVIEW.OK),
    ).prefetch_related(
        Prefetch(
            "steps",
            queryset=deciding(DecisionStep.objects.all()).order_by("step", "id"),
            to_attr="deciding_steps",
        )
    )


def _review_condition(status: str) -> Q:
    flags = {REVIEW.WRONG: "has_wrong", REVIEW.ESCALATED: "has_escalated", REVIEW.OK: "has_ok"}
    stronger = REVIEW_ORDER[: REVIEW_ORDER.index(status)] if status in flags else REVIEW_ORDER
    condition = Q(**{flags[status]: True}) if status in flags else Q()
    for other in stronger:
        condition &= Q(**{flags[other]: False})
    return condition


def filter_review_episodes(episodes: QuerySet[Episode], f: dict[str, Any]) -> QuerySet[Episode]:
    """``episodes`` (already `with_review_fields`) narrowed by validated `EpisodeFilters` data."""
    exact = {"deployment": "deployment_id", "run": "deployment__run_id", "batch": "batch_id"}
    episodes = episodes.filter(**{lookup: f[key] for key, lookup in exact.items() if f.get(key) is not None})
    if f.get("agent"):
        episodes = episodes.filter(
            Exists(deciding(DecisionStep.objects.filter(episode=OuterRef("pk"), agent=f["agent"])))
        )
    if f.get("decision_source"):
        episodes = episodes.filter(_of_episode(source=f["decision_source"]))
    if f.get("review_status"):
        episodes = episodes.filter(_review_condition(f["review_status"]))
    if f.get("confidence_min") is not None:
        episodes = episodes.filter(confidence__gte=f["confidence_min"])
    if f.get("confidence_max") is not None:
        episodes = episodes.filter(confidence__lte=f["confidence_max"])
    if f.get("since"):
        episodes = episodes.filter(created_at__gte=f["since"])
    if f.get("until"):
        episodes = episodes.filter(created_at__lte=f["until"])
    if f.get("q"):
        episodes = episodes.filter(_text_condition(f["q"]))
    return episodes


def _text_condition(query: str) -> Q:
    """Every word in the ticket or the reply, or one decision matching the query (`review.full_text`)."""
    words = Q()
    for word in query.split():
        word = word.strip("\"'")
        words &= Q(task_text__icontains=word) | Q(reply__text__icontains=word)
    matching = full_text(DecisionStep.objects.filter(episode=OuterRef("pk")), query)
    return words | Q(Exists(matching))


def review_status_of(episode: Episode) -> str:
    """The episode's review from the flags `with_review_fields` annotates (see the module docstring)."""
    flags = {
        REVIEW.WRONG: episode.has_wrong,
        REVIEW.ESCALATED: episode.has_escalated,
        REVIEW.OK: episode.has_ok,
    }
    return next((status for status in REVIEW_ORDER if flags[status]), REVIEW.UNREVIEWED)


def review_reason_of(episode: Episode) -> str:
    """Why the episode got its review (`with_review_fields`): "" when unreviewed or when no decision with
    that review gave a reason (a weaker review's reason is not this one's)."""
    status = review_status_of(episode)
    return episode.reasoned_text if episode.reasoned_text and episode.reasoned_status == status else ""


def decided_source(steps: list[DecisionStep]) -> str | None:
    """How the deciding decisions were made: fallback when any came from the rules, else half_open when any
    was a half-open breaker's trial, else model (None: nobody decided)."""
    if not steps:
        return None
    sources = {s.source for s in steps}
    if DecisionStep.Source.FALLBACK in sources:
        return DecisionStep.Source.FALLBACK
    return HALF_OPEN if DecisionStep.Source.TRIAL in sources else DecisionStep.Source.MODEL


@transaction.atomic
def review_episode(episode: Episode, user, data: dict) -> int:
    """Stores a `ReviewSerializer`'s review on the episode's deciding decisions (all of them when none
    decided); returns how many decisions it marked."""
    steps = list(deciding(episode.steps.all())) or list(episode.steps.all())
    for step in steps:
        record_review(step, user, data)
    return len(steps)
