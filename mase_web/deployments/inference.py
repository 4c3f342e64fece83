"""Run one ticket through a deployed team: the breaker from the row, every decision stored and streamed.

`run_ticket` is what the synchronous API, the browser and the Celery batch job all call. Inside the
deployment's row lock it restores the runtime's breaker from the database, plays the episode (each
decision record is published to the deployment's group the moment it is made, so a browser watches the
agents work step by step), then stores the episode and its steps and saves the breaker back.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from agents.envs.customer_service.tickets import Ticket
from mase_web.deployments import breaker_store, live, runtimes
from mase_web.deployments.models import BatchJob, DecisionStep, Deployment, Episode


@dataclass(frozen=True)
class TicketRequest:
    """One task for the team: the customer's text, and the ground truth when known (batch files)."""

    text: str
    task_id: str = ""
    intents: tuple[str, ...] | None = None

    def as_runtime_input(self, request_id: str) -> Ticket | str:
        if self.intents is None:
            return self.text
        return Ticket(id=self.task_id or request_id, text=self.text, intents=tuple(self.intents))


def search_text(record: dict) -> str:
    """Observation, action, reason and fault of a decision as one plain text (full-text search)."""
    reason = record.get("reason") or {}
    parts = [
        record["agent"],
        record["action"],
        json.dumps(record.get("observation"), ensure_ascii=False),
        " ".join(str(a.get("action")) for a in reason.get("alternatives") or []),
        str(reason.get("rule") or ""),
        str(record.get("fault") or ""),
    ]
    return " ".join(p for p in parts if p)


def step_row(episode: Episode, record: dict) -> DecisionStep:
    observation = record.get("observation")
    return DecisionStep(
        episode=episode,
        step=record["step"],
        agent=record["agent"],
        observation=observation
        if isinstance(observation, str)
        else json.dumps(observation, ensure_ascii=False),
        action=record["action"],
        action_index=record.get("action_index"),
        source=record["source"],
        confidence=record.get("confidence"),
        reason=record.get("reason") or {},
        messages=record.get("messages") or {},
        latency_ms=record.get("latency_ms") or 0.0,
        reward=record.get("reward"),
        breaker_state=record["breaker_state"],
        fault=record.get("fault") or "",
        search_text=search_text(record),
    )


def _summary(result: dict) -> dict[str, Any]:
    """The result as stored on the episode: everything but the per-agent records (those are rows)."""
    return {k: v for k, v in result.items() if k != "decisions"}


def run_ticket(
    deployment: Deployment,
    request: TicketRequest,
    source: str,
    user=None,
    batch: BatchJob | None = None,
) -> tuple[Episode, dict[str, Any]]:
    """Play one ticket; returns the stored episode and the runtime's full result (with its decisions).

    Model faults never fail it (the fallback answers); a runtime that cannot be built raises ValueError.
    """
    runtime = runtimes.runtime_for(deployment)  # outside the lock: the first build takes seconds
    request_id = f"{source}-{uuid.uuid4().hex[:16]}"
    with breaker_store.locked_deployment(deployment.pk) as locked:
        breaker_store.restored_breaker(locked, runtime.breaker)
        episode = Episode.objects.create(
            deployment=locked,
            request_id=request_id,
            task_id=request.task_id,
            task_text=request.text,
            source=source,
            batch=batch,
            breaker_state=runtime.breaker.state,
            created_by=user if user is not None and user.is_authenticated else None,
        )
        live.publish(locked.pk, "episode", episode=_episode_event(episode))

        def on_decision(record: dict) -> None:
            live.publish(locked.pk, "step", episode=episode.pk, request_id=request_id, record=record)

        with runtimes.listening(request_id, on_decision):
            result = runtime.run_ticket(request.as_runtime_input(request_id), request_id=request_id)
        DecisionStep.objects.bulk_create(step_row(episode, r) for r in result["decisions"])
        episode.status = result["status"]
        episode.result = _summary(result)
        episode.reward = result["reward"]
        episode.breaker_state = result["breaker"]
        episode.task_id = request.task_id or str(result.get("task_id") or "")
        episode.save(update_fields=["status", "result", "reward", "breaker_state", "task_id"])
        breaker_store.save_breaker(locked, runtime.breaker)
        transaction.on_commit(lambda: live.publish(locked.pk, "episode", episode=_episode_event(episode)))
    return episode, result


def _episode_event(episode: Episode) -> dict[str, Any]:
    from mase_web.deployments.serializers import EpisodeSerializer

    return EpisodeSerializer(episode).data
