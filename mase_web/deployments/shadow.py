"""A candidate generation in **shadow**: it answers the deployment's live tickets silently beside the
champion, and the deployment page shows how often they agree and the tickets where they do not.

What the customer gets is the champion's answer, always: the shadow plays each ticket after the champion's
episode is stored, on its own runtime (no step sink, no live events, its own breaker), and only a
`ShadowAnswer` row records what it said. It answers on one background thread per process, so a slow shadow
never delays a reply (a backlog past ``MAX_BACKLOG`` tickets is skipped and counted, not queued without
end); ``MASE_SHADOW_INLINE`` answers in the caller's thread instead (tests, a single-threaded script).
One generation of a deployment is in shadow at a time; promoting it ends its shadow (it serves then).
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.db import IntegrityError, close_old_connections, transaction

from mase_web.deployments import breaker_store
from mase_web.deployments.evolution import EvolutionRefused
from mase_web.deployments.models import Deployment, Episode, Generation, ShadowAnswer

log = logging.getLogger(__name__)

MAX_BACKLOG = 200
_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shadow")
_runtimes: dict[tuple[int, str], Any] = {}
_lock = threading.Lock()
_backlog = 0
skipped = 0  # tickets a full backlog left unanswered in shadow, in this process


def shadow_of(deployment_id: int) -> Generation | None:
    return Generation.objects.filter(deployment_id=deployment_id, status=Generation.Status.SHADOW).first()


def start(generation: Generation) -> Generation:
    """Put a trained candidate in shadow (the deployment's earlier shadow goes back to candidate)."""
    if generation.phase != Generation.Phase.READY or not generation.checkpoint:
        raise EvolutionRefused(
            f"generation {generation.number} has no trained checkpoint yet ({generation.phase})"
        )
    if generation.status == Generation.Status.CHAMPION:
        raise EvolutionRefused(f"generation {generation.number} serves already: the champion has no shadow")
    with breaker_store.locked_deployment(generation.deployment_id) as deployment:
        deployment.generations.filter(status=Generation.Status.SHADOW).update(
            status=Generation.Status.CANDIDATE
        )
        generation.status = Generation.Status.SHADOW
        generation.save(update_fields=["status"])
    return generation


def stop(deployment: Deployment) -> Generation | None:
    """End the deployment's shadow (its generation is a candidate again); None when none ran."""
    generation = shadow_of(deployment.pk)
    if generation is not None:
        Generation.objects.filter(pk=generation.pk).update(status=Generation.Status.CANDIDATE)
        forget(generation.pk)
    return generation


def forget(generation_id: int) -> None:
    with _lock:
        for key in [k for k in _runtimes if k[0] == generation_id]:
            _runtimes.pop(key).close()


def _runtime(generation: Generation) -> Any:
    from agents.spec import load_spec
    from mase_web.deployments.runtimes import backbone_for
    from serving.runtime import RuntimeConfig, TeamRuntime

    key = (generation.pk, generation.checkpoint)
    with _lock:
        if key not in _runtimes:
            team = load_spec(generation.spec, require_environment=True)
            timeout = getattr(settings, "MASE_INFERENCE_STEP_TIMEOUT_S", 2.0)
            _runtimes[key] = TeamRuntime.from_spec_checkpoint(
                team, generation.checkpoint, backbone=backbone_for(team),
                config=RuntimeConfig(timeout_s=timeout), names_only=True,
            )  # fmt: skip
        return _runtimes[key]


def predicted(result: dict[str, Any]) -> list[str]:
    return sorted((result.get("info") or {}).get("predicted_intents") or [])


def answer(episode_id: int, generation_id: int) -> ShadowAnswer | None:
    """Play a stored ticket on the shadow generation and record what it said (None when the shadow ended
    meanwhile, or it answered this ticket already)."""
    generation = (
        Generation.objects.filter(pk=generation_id, status=Generation.Status.SHADOW)
        .select_related("deployment")
        .first()
    )
    episode = Episode.objects.filter(pk=episode_id).only("pk", "task_text", "result").first()
    if generation is None or episode is None:
        return None
    began = time.perf_counter()
    runtime = _runtime(generation)
    # the deployment's choice now, as the champion's runtime takes it: a ticket the champion hands to a
    # person is no disagreement
    runtime.config.scope_gate = generation.deployment.scope_gate
    said = predicted(runtime.run_ticket(episode.task_text))
    champion = predicted(episode.result or {})
    try:
        return ShadowAnswer.objects.create(
            episode=episode, generation=generation, intents=said, champion_intents=champion,
            agrees=said == champion, latency_ms=1000.0 * (time.perf_counter() - began),
        )  # fmt: skip
    except IntegrityError:
        return None


def _answer_in_background(episode_id: int, generation_id: int) -> None:
    global _backlog
    try:
        answer(episode_id, generation_id)
    except Exception:  # noqa: BLE001 - a failing shadow must never touch the champion's traffic
        log.warning("shadow answer for episode %s failed", episode_id, exc_info=True)
    finally:
        close_old_connections()
        with _lock:
            _backlog -= 1


def after_answer(deployment_id: int, episode: Episode) -> None:
    """Called once the champion's episode is stored: the shadow, if any, answers it too (see the module)."""
    global _backlog, skipped
    generation_id = (
        Generation.objects.filter(deployment_id=deployment_id, status=Generation.Status.SHADOW)
        .values_list("pk", flat=True)
        .first()
    )
    if generation_id is None or not episode.task_text:
        return
    if getattr(settings, "MASE_SHADOW_INLINE", False):
        answer(episode.pk, generation_id)
        return
    with _lock:
        if _backlog >= MAX_BACKLOG:
            skipped += 1
            return
        _backlog += 1
    transaction.on_commit(lambda: _executor.submit(_answer_in_background, episode.pk, generation_id))


def summary(deployment: Deployment, limit: int = 50) -> dict[str, Any]:
    """{generation, tickets, agreed, agreement, disagreements: newest ``limit``} of the current shadow."""
    generation = shadow_of(deployment.pk)
    if generation is None:
        return {"generation": None, "tickets": 0, "agreed": 0, "agreement": None, "disagreements": []}
    answers = ShadowAnswer.objects.filter(generation=generation)
    tickets, agreed = answers.count(), answers.filter(agrees=True).count()
    differing = answers.filter(agrees=False).select_related("episode")[:limit]
    return {
        "generation": generation.number,
        "tickets": tickets,
        "agreed": agreed,
        "agreement": agreed / tickets if tickets else None,
        "disagreements": [
            {
                "episode": a.episode_id,
                "text": a.episode.task_text,
                "champion": a.champion_intents,
                "shadow": a.intents,
                "at": a.created_at,
            }
            for a in differing
        ],  # fmt: skip
    }
