"""One `serving.runtime.TeamRuntime` per deployment per process, built on first use and reused.

Building one loads the backbone and the checkpoint (seconds); running a ticket then takes milliseconds.
Backbones are shared between deployments that use the same model. The runtime's step sink hands the
records of each step (one per agent) to whoever is listening for their request id (`listening`).

A routing deployment with its scope gate on also needs the gate, whose first build encodes thousands of
texts (~1 min on a 2-core CPU; later processes read its vectors beside the checkpoint, `serving.scope`).
`warm_soon` builds both in the background when the gate is turned on, on deploy and on resume, so that
no ticket waits for them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings

from agents.spec import load_spec
from agents.spec.paths import refuse_paths
from mase_web.deployments.models import Deployment
from serving.breaker import KeywordRouterFallback
from serving.runtime import RuntimeConfig, TeamRuntime

_runtimes: dict[tuple[int, str, str], TeamRuntime] = {}
_backbones: dict[tuple[str, str, int], Any] = {}
_listeners: dict[str, Callable[[list[dict]], None]] = {}
_info_listeners: dict[str, Callable[[int, Mapping[str, Any]], None]] = {}  # request id → (step, step info)
_build_lock = threading.Lock()
_tuned_routers: dict[Any, Any] = {}  # one tuned router per intent catalogue (and its tickets)
_warming = ThreadPoolExecutor(max_workers=1, thread_name_prefix="warm-runtime")
log = logging.getLogger(__name__)


def backbone_for(team: Any) -> Any:
    """The team's frozen backbone, loaded once per process per (model, pooling, max length)."""
    from agents.backbone import Backbone

    b = team.backbone
    key = (str(b.model), str(b.pooling), int(b.max_length))
    if key not in _backbones:
        _backbones[key] = Backbone.load(b.model, pooling=b.pooling, max_length=b.max_length)
    return _backbones[key]


def _share_tuned_router(runtime: TeamRuntime) -> None:
    """Keyword-router fallbacks get one router tuned per process and intent catalogue, now: tuning takes
    seconds, and the first ticket the fallback answers (a breaker that just opened) should not wait for it."""
    fallback = runtime.fallback
    if isinstance(fallback, KeywordRouterFallback) and fallback.router is None:
        team = fallback.team
        key = getattr(team, "catalogue_key", None)
        if key not in _tuned_routers:
            _tuned_routers[key] = team.tune()
        fallback.router = _tuned_routers[key]  # read-only once tuned: safe to share


def _dispatch(records: list[dict]) -> None:
    listener = _listeners.get(records[0]["request_id"]) if records else None
    if listener is not None:
        listener(records)


def _dispatch_info(request_id: str, step: int, info: Mapping[str, Any]) -> None:
    listener = _info_listeners.get(request_id)
    if listener is not None:
        listener(step, info)


def _limit_torch_threads() -> None:
    """Serving forwards are small batches: torch's intra-op threads (one per core by default) only spin
    against the request threads. On the loaded 2-core machine, with two the spare one burned a third of a
    core and a one-client ticket cost up to 300 ms of server CPU; with one, ~40 ms (bench/web_tickets.py)."""
    import torch

    wanted = int(getattr(settings, "MASE_INFERENCE_TORCH_THREADS", 1))
    if torch.get_num_threads() != wanted:
        torch.set_num_threads(wanted)


def runtime_for(deployment: Deployment) -> TeamRuntime:
    """The deployment's runtime in this process (raises ValueError naming the problem if it cannot load),
    with the choices stored now: a product manager may change them between tickets."""
    runtime = _built(deployment)
    runtime.config.style_explore = deployment.style_explore
    runtime.config.scope_gate = deployment.scope_gate
    return runtime


def _built(deployment: Deployment) -> TeamRuntime:
    """The deployment's runtime in this process, built on first use."""
    # created_at too: a database restored from a backup (or a test database) may reuse an id
    key = (deployment.pk, deployment.checkpoint, deployment.created_at.isoformat())
    with _build_lock:
        runtime = _runtimes.get(key)
        if runtime is None:
            _limit_torch_threads()
            # a spec stored before paths were refused is refused here, before validating it opens the path
            refuse_paths(deployment.spec)
            team = load_spec(deployment.spec, require_environment=True)
            timeout = getattr(settings, "MASE_INFERENCE_STEP_TIMEOUT_S", 2.0)
            runtime = TeamRuntime.from_spec_checkpoint(
                team,
                deployment.checkpoint,
                backbone=backbone_for(team),
                # routing teams: turn away tickets outside the catalogue (the deployment's choice: scope_gate)
                config=RuntimeConfig(
                    timeout_s=timeout,
                    scope_gate=deployment.scope_gate,
                    style_explore=deployment.style_explore,
                ),
                step_sink=_dispatch,
                names_only=True,
            )
            runtime.info_sink = _dispatch_info
            runtime.roster.set(deployment.offline_agents or [])
            _share_tuned_router(runtime)
            _runtimes[key] = runtime
        return runtime


def warm(deployment: Deployment) -> TeamRuntime:
    """The deployment's runtime, loaded now, and with its scope gate on the gate built (or read from its
    store) now too: what the first ticket would otherwise wait for."""
    runtime = _built(deployment)  # the choices are the next ticket's to set: this copy may be out of date
    if deployment.scope_gate:
        runtime.prepare_scope_gate()
    return runtime


def warm_soon(deployment: Deployment) -> Future | None:
    """`warm` a gated routing deployment on a background thread of this process (None: nothing to warm, as
    for a deployment without the gate or without a trained checkpoint). Other processes read the gate's
    vectors from the store this one writes."""
    if not (deployment.scope_gate and deployment.routes_tickets):
        return None
    if not (Path(deployment.checkpoint) / "state.json").is_file():
        return None
    return _warming.submit(_warm_quietly, deployment)


def _warm_quietly(deployment: Deployment) -> None:
    try:
        warm(deployment)
    except Exception:  # noqa: BLE001 - the first ticket builds it instead, and reports what is wrong
        log.warning("deployment %s: runtime not warmed", deployment.pk, exc_info=True)


def cached_runtime(deployment_id: int) -> TeamRuntime | None:
    """The runtime this process built for the deployment, if any (tests reach its backbone through it)."""
    return next((r for (pk, *_), r in _runtimes.items() if pk == deployment_id), None)


def forget(deployment_id: int) -> None:
    """Close and drop the deployment's cached runtime in this process (a stopped deployment frees its memory)."""
    with _build_lock:
        for key in [key for key in _runtimes if key[0] == deployment_id]:
            _runtimes.pop(key).close()


@contextmanager
def listening(
    request_id: str,
    listener: Callable[[list[dict]], None],
    info_listener: Callable[[int, Mapping[str, Any]], None] | None = None,
) -> Iterator[None]:
    """Hand the decision records of each step of ``request_id`` to ``listener`` (and the step's number and
    environment info to ``info_listener``) while the block runs."""
    _listeners[request_id] = listener
    if info_listener is not None:
        _info_listeners[request_id] = info_listener
    try:
        yield
    finally:
        _listeners.pop(request_id, None)
        _info_listeners.pop(request_id, None)


def forget_all() -> None:
    """Close and drop every cached runtime (tests; a deployment whose checkpoint changed)."""
    with _build_lock:
        for runtime in _runtimes.values():
            runtime.close()
        _runtimes.clear()
