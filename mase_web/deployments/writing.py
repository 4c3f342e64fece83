"""Each deployment's reply writer, built once per process, and the encrypted API key of its backend: a
research-report, collaborative-writing or code-generation team writes its text section by section
(`serving.generation.sections`), every other team the reply to a ticket (`serving.generation.tickets`).

The key a product manager types in is stored only encrypted (Fernet, with a key derived from Django's
SECRET_KEY), is decrypted only here, when the writer is built, and never leaves through the API: a
serializer reports only whether one is stored. Changing the backend drops the cached writer.

What a writer may reach is the server operator's choice, checked when settings are saved and again whenever
a writer is built (`server_problems`): an ``openai_compatible`` backend only the hosts and key variables of
``settings.GENERATION_REACH``, a ``local`` one only a model named in the models directory (`agents.places`),
never a path; no message names the models directory's path.
"""

from __future__ import annotations

import base64
import hashlib
import threading
import time
from collections.abc import Mapping
from typing import Any

from django.conf import settings

from agents import places
from agents.spec.prompts import filled_prompts
from mase_web.deployments.models import Deployment
from serving.generation import GenerationConfig, GenerationError, redact
from serving.generation.sections import CodeWriter, PostWriter, ReportWriter, SectionWriter
from serving.generation.template import ticket_context
from serving.generation.tickets import TicketWriter

# the writing workflows write section by section (the environment's data param: where its texts live)
SECTION_WRITERS = {
    "research_report": (ReportWriter, "corpus"),
    "collaborative_writing": (PostWriter, "briefs"),
    "code_generation": (CodeWriter, "tasks"),
}
_writers: dict[tuple, TicketWriter | SectionWriter] = {}
_lock = threading.Lock()


def _fernet():
    from cryptography.fernet import Fernet

    digest = hashlib.sha256(f"mase-generation-secret:{settings.SECRET_KEY}".encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def encrypt_secret(value: str) -> str:
    return _fernet().encrypt(value.encode()).decode() if value else ""


def decrypt_secret(token: str) -> str:
    """The stored key ("" when none, or when SECRET_KEY changed since it was stored)."""
    if not token:
        return ""
    from cryptography.fernet import InvalidToken

    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        return ""


def config_of(deployment: Deployment) -> GenerationConfig:
    """The deployment's generation settings (the template writer when it names none)."""
    return GenerationConfig.from_mapping(deployment.generation or {})


def server_problems(generation: Mapping[str, Any]) -> dict[str, str]:
    """By setting, why generation settings (valid ones, `validate_config`) may not be used on this server: a
    host or key variable the operator did not allow, a local model that is not a name in the models
    directory (`Reach.problems`)."""
    return settings.GENERATION_REACH.problems(generation)


def shown_settings(generation: Mapping[str, Any]) -> dict[str, Any]:
    """Settings as the API shows them: a local model stored as a path (before paths were refused) is not
    echoed, so no server path leaves through the API."""
    if generation.get("backend") == "local" and not places.is_name(generation.get("model")):
        return {**generation, "model": ""}
    return dict(generation)


def _build(
    deployment: Deployment, config: GenerationConfig, api_key: str | None = None, name: str = "writer"
):
    """The writer the deployment's workflow needs, for ``config``'s backend; its replies are signed with
    the deployed team's name (the spec's ``name``)."""
    agents = deployment.spec.get("agents") or []
    team = str(deployment.spec.get("name") or deployment.name)
    environment = deployment.spec.get("environment") or {}
    if environment.get("name") in SECTION_WRITERS:
        kind, data = SECTION_WRITERS[environment["name"]]
        data = (environment.get("params") or {}).get(data)
        return kind.build(
            config, agents, api_key=api_key, name=name, data=data, team=team, reach=settings.GENERATION_REACH
        )
    # an agent that names no prompt writes under the one the loader gives it (under intents of the team's
    # own: the intents it owns, in words), not a generic one
    filled = filled_prompts(deployment.spec)
    agents = [
        {**a, "prompt": filled[a["id"]]} if isinstance(a, dict) and a.get("id") in filled else a
        for a in agents
    ]
    return TicketWriter.build(
        config, agents, api_key=api_key, name=name, team=team, reach=settings.GENERATION_REACH
    )


def writer_for(deployment: Deployment) -> TicketWriter | SectionWriter:
    """The deployment's writer in this process. A backend that cannot start (a missing model directory)
    gives a template writer whose ``startup_error`` says why; every reply then carries that fault."""
    key = (
        deployment.pk,
        deployment.created_at.isoformat(),
        repr(sorted((deployment.generation or {}).items())),
        deployment.generation_secret,
        settings.GENERATION_REACH,  # what the server allows now: a narrower list rebuilds (and refuses)
        places.places().models_dir,
    )
    with _lock:
        writer = _writers.get(key)
        if writer is None:
            for old in [k for k in _writers if k[0] == deployment.pk]:
                _writers.pop(old).close()
            secret = decrypt_secret(deployment.generation_secret)
            try:
                writer = _build(
                    deployment,
                    config_of(deployment),
                    api_key=secret or None,
                    name=f"{deployment.name}.writer",
                )
            except GenerationError as exc:  # tickets are still answered: by the template, with the reason
                writer = _build(deployment, GenerationConfig())
                writer.startup_error = f"the {config_of(deployment).backend} writer cannot start: " + redact(
                    str(exc), [secret]
                )
            _writers[key] = writer
        return writer


def forget(deployment_id: int) -> None:
    with _lock:
        for key in [k for k in _writers if k[0] == deployment_id]:
            _writers.pop(key).close()


def forget_all() -> None:
    with _lock:
        for writer in _writers.values():
            writer.close()
        _writers.clear()


def try_backend(deployment: Deployment) -> dict[str, Any]:
    """One call to the deployment's backend, past the breaker: the answer, or the error in words."""
    started = time.perf_counter()
    try:
        writer = writer_for(deployment)
        if getattr(writer, "startup_error", ""):
            raise ValueError(writer.startup_error)
        generator, config = writer.writer.generator, writer.writer.config
        answer = generator.generate(
            "You are a customer-service agent.",
            [{"role": "user", "content": ticket_context("where is my parcel?", ["order_tracking"])}],
            config.max_tokens,
            config.stop,
        )
    except (GenerationError, ValueError) as exc:
        secret = decrypt_secret(deployment.generation_secret)
        return {"ok": False, "error": redact(str(exc), [secret]), "latency_ms": _ms(started)}
    return {
        "ok": True,
        "text": answer.text,
        "usage": answer.usage,
        "cost": answer.cost,
        "latency_ms": _ms(started),
    }


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000.0, 1)


def reply_for(
    writer: TicketWriter | SectionWriter, text: str, result: dict[str, Any], on_part=None, on_chunk=None
) -> dict[str, Any]:
    """The reply to a played ticket, or the report of a played topic (streamed to ``on_part`` /
    ``on_chunk``, see `TicketWriter.answer` / `SectionWriter.answer`); a writer that could not start is
    reported as the reply's first fault."""
    reply = writer.answer(text, result, on_part=on_part, on_chunk=on_chunk)
    problem = getattr(writer, "startup_error", "")
    if problem:
        reply["faults"].insert(0, {"agent": None, "kind": "generation_error", "detail": problem})
        reply["fallback"] = True
    return reply


def batch_writing(batch) -> dict[str, Any] | None:
    """What writing a batch's replies cost: replies, total cost and tokens, latency p50/p95, fallback share,
    replies with each fault kind (in any part; null before any reply is stored)."""
    from mase_web.deployments.models import Reply

    rows = list(
        Reply.objects.filter(episode__batch=batch).values_list(
            "latency_ms", "cost", "prompt_tokens", "completion_tokens", "fallback", "fault_kinds", "backend"
        )
    )
    if not rows:
        return None
    latencies = sorted(r[0] for r in rows)
    faults: dict[str, int] = {}
    for row in rows:  # every kind among a reply's parts counts once for that reply
        for kind in filter(None, row[5].split(",")):
            faults[kind] = faults.get(kind, 0) + 1

    def pct(q: float) -> float:
        return round(latencies[min(len(latencies) - 1, round(q * (len(latencies) - 1)))], 2)

    return {
        "replies": len(rows),
        "backends": sorted({r[6] for r in rows}),
        "cost": round(sum(r[1] for r in rows), 8),
        "tokens": sum(r[2] + r[3] for r in rows),
        "latency_ms": {"p50": pct(0.5), "p95": pct(0.95)},
        "fallback_share": round(sum(r[4] for r in rows) / len(rows), 4),
        "faults": faults,
    }
