"""Operator review of decision logs: validated filters, full-text search, JSONL export records.

The reply filters (`ReplyFilters`, also part of `DecisionFilters`) narrow by what wrote the episode's reply
and what went wrong: ``backend`` is the reply's generation backend; ``fault`` is ``any`` (some fault),
``none`` (no fault) or one kind of `serving.breaker.FAULT_KINDS` or ``out_of_scope`` (a request the team
cannot do). A decision has a fault when it has one itself or when its episode's reply has one; an episode when one of its decisions or its reply has one. A
reply has every fault kind of its parts (`Reply.fault_kinds`), not only its first faulty part's.

Full-text search uses PostgreSQL's text search (``websearch_to_tsquery`` over an English ``tsvector`` of
each decision's observation, action and reason, GIN-indexed) when the database is PostgreSQL, and on
SQLite a portable fallback: every word of the query must occur in that text (case-insensitive).
"""

from __future__ import annotations

import json
from typing import Any

from django.db import connections
from django.db.models import Exists, OuterRef, Q, QuerySet
from rest_framework import serializers

from mase_web.api_parsers import INT64_MAX
from mase_web.deployments.models import BREAKER_STATES, DecisionStep, Deployment, Episode, Reply
from serving.breaker import FAULT_KINDS as BREAKER_FAULT_KINDS
from serving.generation.base import BACKENDS
from serving.requests import OUT_OF_SCOPE

SEARCH_CONFIG = "english"
FAULT_ANY, FAULT_NONE = "any", "none"
FAULT_KINDS = (*BREAKER_FAULT_KINDS, OUT_OF_SCOPE)  # a request the team cannot do is logged as this kind
FAULT_CHOICES = (FAULT_ANY, FAULT_NONE, *FAULT_KINDS)
BACKEND_HELP = f"the generation backend that wrote the episode's reply: {' | '.join(BACKENDS)}"
FAULT_HELP = (
    f"{FAULT_ANY} (some fault), {FAULT_NONE} (no fault), or one fault kind: {' | '.join(FAULT_KINDS)}; "
    "of the decision or its episode's reply (episodes: of any of its decisions or its reply)"
)


def _id_field() -> serializers.IntegerField:
    # Bounded: SQLite raises OverflowError on an integer beyond 64 bits in a query.
    return serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=INT64_MAX,
        error_messages={"max_value": f"is not an id (ids are at most {INT64_MAX})"},
    )


class ReplyFilters(serializers.Serializer):
    """Reply backend and fault: query parameters of /api/episodes/ (and part of `DecisionFilters`)."""

    backend = serializers.ChoiceField(required=False, choices=BACKENDS, help_text=BACKEND_HELP)
    fault = serializers.ChoiceField(required=False, choices=FAULT_CHOICES, help_text=FAULT_HELP)


class ScopedFilters(ReplyFilters):
    """What /api/decisions/ and /api/episodes/ both filter on, checked against the deployments the caller
    may review (another project's deployment answers like one that does not exist); a bad one is a 400."""

    deployment = _id_field()
    run = _id_field()
    batch = _id_field()
    confidence_min = serializers.FloatField(required=False, min_value=0.0, max_value=1.0)
    confidence_max = serializers.FloatField(required=False, min_value=0.0, max_value=1.0)
    since = serializers.DateTimeField(required=False)
    until = serializers.DateTimeField(required=False)

    def __init__(self, *args, deployments: QuerySet[Deployment], **kwargs):
        super().__init__(*args, **kwargs)
        self.deployments = deployments

    def validate_deployment(self, value: int) -> int:
        if not self.deployments.filter(pk=value).exists():
            raise serializers.ValidationError(f"no deployment {value} among those you may review")
        return value

    def validate_run(self, value: int) -> int:
        if not self.deployments.filter(run_id=value).exists():
            raise serializers.ValidationError(f"no deployment of run {value} among those you may review")
        return value

    def validate(self, data: dict) -> dict:
        low, high = data.get("confidence_min"), data.get("confidence_max")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError({"confidence_min": ["must not be above confidence_max"]})
        if data.get("since") and data.get("until") and data["since"] > data["until"]:
            raise serializers.ValidationError({"since": ["must not be after until"]})
        return data


class DecisionFilters(ScopedFilters):
    """The query parameters of /api/decisions/ and its export."""

    episode = _id_field()
    agent = serializers.CharField(required=False, max_length=100)
    source = serializers.ChoiceField(required=False, choices=DecisionStep.Source.choices)
    breaker_state = serializers.ChoiceField(required=False, choices=BREAKER_STATES)
    review_status = serializers.ChoiceField(required=False, choices=DecisionStep.Review.choices)
    q = serializers.CharField(required=False, max_length=200, trim_whitespace=True)


def filter_decisions(steps: QuerySet[DecisionStep], f: dict[str, Any]) -> QuerySet[DecisionStep]:
    """``steps`` narrowed by validated `DecisionFilters` data."""
    exact = {
        "deployment": "episode__deployment_id",
        "run": "episode__deployment__run_id",
        "episode": "episode_id",
        "batch": "episode__batch_id",
        "agent": "agent",
        "source": "source",
        "breaker_state": "breaker_state",
        "review_status": "review_status",
        "confidence_min": "confidence__gte",
        "confidence_max": "confidence__lte",
        "since": "created_at__gte",
        "until": "created_at__lte",
    }
    steps = steps.filter(**{lookup: f[key] for key, lookup in exact.items() if f.get(key) is not None})
    if f.get("backend"):
        steps = steps.filter(episode__reply__backend=f["backend"])
    if f.get("fault"):
        steps = steps.filter(_fault_condition(f["fault"], of_decision=True, episode=OuterRef("episode_id")))
    return full_text(steps, f["q"]) if f.get("q") else steps


def filter_episodes(episodes: QuerySet[Episode], f: dict[str, Any]) -> QuerySet[Episode]:
    """``episodes`` narrowed by validated `ReplyFilters` data."""
    if f.get("backend"):
        episodes = episodes.filter(reply__backend=f["backend"])
    if f.get("fault"):
        episodes = episodes.filter(_fault_condition(f["fault"], of_decision=False, episode=OuterRef("pk")))
    return episodes


def _fault_condition(fault: str, *, of_decision: bool, episode: OuterRef) -> Q:
    """Rows with fault ``fault`` (see the module docstring): a decision row's own fault or an episode row's
    decisions' faults, or the fault of the reply of ``episode`` (the row's episode)."""
    if fault == FAULT_NONE:
        return ~_fault_condition(FAULT_ANY, of_decision=of_decision, episode=episode)
    kind = ~Q(fault="") if fault == FAULT_ANY else Q(fault=fault)
    # a reply: its first fault, or any of its parts' (a row written without fault_kinds still has its first)
    of_reply = kind | (~Q(fault_kinds="") if fault == FAULT_ANY else Q(fault_kinds__contains=f",{fault},"))
    replies = Q(Exists(Reply.objects.filter(of_reply, episode=episode)))
    if of_decision:
        return kind | replies
    return Q(Exists(DecisionStep.objects.filter(kind, episode=episode))) | replies


def full_text(steps: QuerySet[DecisionStep], query: str) -> QuerySet[DecisionStep]:
    """Decisions whose observation/action/reason text matches ``query`` (see the module docstring)."""
    if connections[steps.db].vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchVector

        vector = SearchVector("search_text", config=SEARCH_CONFIG)
        return steps.annotate(search=vector).filter(
            search=SearchQuery(query, config=SEARCH_CONFIG, search_type="websearch")
        )
    for word in query.split():
        steps = steps.filter(search_text__icontains=word.strip("\"'"))
    return steps


def parsed_observation(text: str) -> Any:
    """The stored observation summary as JSON again (plain text stays text)."""
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def export_record(step: DecisionStep) -> dict[str, Any]:
    """One decision as an export line: the runtime's decision-log record plus where it belongs."""
    episode = step.episode
    return {
        "deployment": episode.deployment_id,
        "run": episode.deployment.run_id,
        "episode": episode.pk,
        "request_id": episode.request_id,
        "task_id": episode.task_id,
        "step": step.step,
        "agent": step.agent,
        "observation": parsed_observation(step.observation),
        "action": step.action,
        "action_index": step.action_index,
        "source": step.source,
        "confidence": step.confidence,
        "reason": step.reason,
        "messages": step.messages,
        "latency_ms": step.latency_ms,
        "reward": step.reward,
        "breaker_state": step.breaker_state,
        "fault": step.fault or None,
        "created_at": step.created_at.isoformat(),
        "review": {
            "status": step.review_status,
            "reason": step.review_reason or None,
            "by": step.reviewed_by.username if step.reviewed_by else None,
            "at": step.reviewed_at.isoformat() if step.reviewed_at else None,
        },
    }
