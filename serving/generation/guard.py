"""Generation under the breaker (docs/design.md#circuit-breaker): every request gets a reply in time.

`GuardedWriter.write` asks the configured backend for every part of one reply at once (parts run side by
side on a small thread pool) and waits at most ``deadline_s`` for all of them. A part is a *fault* when
the backend raises (an error status, a lost connection: ``generation_error``), misses the deadline
(``generation_timeout``), or answers with an empty text (``empty_answer``), more than ``max_chars``
characters (``overlong_answer``), a refusal (``refusal``) or text that is mostly not words (``garbage``).
A faulty part is written by the template writer instead, the fault is kept on the part, and the writer's
own `CircuitBreaker` opens: while it is open the template writes every part without asking the backend
(a dead server costs no waiting), and after its cool-down one request is the half-open trial.

The writer's breaker is separate from the team's: a flaky language model must not take the learned
decisions away from the team, only the writing.
"""

from __future__ import annotations

import concurrent.futures as futures
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from serving.breaker import ROUTE_FALLBACK, ROUTE_TRIAL, BreakerConfig, CircuitBreaker
from serving.generation.base import Generation, GenerationConfig, GenerationError, Generator, redact
from serving.generation.template import TemplateGenerator

REFUSAL = re.compile(
    r"\b(?:i(?:'m| am) sorry,? but i (?:can(?:not|'t)|am unable|won't)"
    r"|i (?:can(?:not|'t)|am unable to|won't) (?:help|assist|comply|provide)"
    r"|as an ai(?: language model)?\b|i'm not able to (?:help|assist))",
    re.I,
)


def judge(text: str, max_chars: int) -> tuple[str, str] | None:
    """(fault kind, detail) when an answer must not reach the customer, else None."""
    stripped = text.strip()
    if not stripped:
        return "empty_answer", "the backend answered with no text"
    if len(stripped) > max_chars:
        return "overlong_answer", f"{len(stripped)} characters (limit {max_chars})"
    if REFUSAL.search(stripped):
        return "refusal", f"refusal pattern: {REFUSAL.search(stripped).group(0)!r}"
    visible = [c for c in stripped if not c.isspace()]
    letters = sum(c.isalpha() for c in visible)
    odd = sum(c == "\ufffd" or (not c.isprintable()) for c in stripped if c not in "\n\t")
    words = re.findall(r"[A-Za-z]{2,}", stripped)
    if letters < 0.6 * len(visible) or odd > 0 or not words:
        return "garbage", f"{letters} letters in {len(visible)} visible characters, {odd} unprintable"
    return None


@dataclass
class PartRequest:
    """One agent's part of a reply: who writes it, what it handles, and what it is given to read."""

    agent: str
    intents: tuple[str, ...]
    system: str
    messages: list[dict[str, str]]


@dataclass
class WrittenPart:
    """One agent's written part and how it came about (the decision log keeps all of it)."""

    agent: str
    intents: list[str]
    text: str
    source: str  # "model" (the backend), "trial" (the half-open trial) or "fallback" (the template writer)
    backend: str
    model: str
    usage: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0})
    latency_ms: float = 0.0
    cost: float = 0.0
    attempts: int = 0
    fault: str | None = None
    fault_detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class GuardedWriter:
    """A backend behind a deadline, answer checks and a breaker, with the template writer as fallback."""

    def __init__(
        self,
        generator: Generator,
        config: GenerationConfig | None = None,
        breaker: CircuitBreaker | None = None,
        workers: int = 8,
        secrets: Sequence[str] = (),
    ):
        self.generator = generator
        self.config = config or GenerationConfig()
        self.breaker = breaker or CircuitBreaker(
            BreakerConfig(cooldown_s=self.config.cooldown_s), name="writer"
        )
        self.template = generator if isinstance(generator, TemplateGenerator) else TemplateGenerator()
        self._pool = (
            None
            if generator is self.template
            else futures.ThreadPoolExecutor(max(1, workers), thread_name_prefix="mase-writer")
        )
        self._secrets = tuple(s for s in secrets if s)

    def write(self, parts: Sequence[PartRequest], on_part=None) -> list[WrittenPart]:
        """Every part written (by the backend or the template), within ``deadline_s`` plus the template's
        microseconds; the breaker hears one outcome per call (the first fault, else a success).
        ``on_part(index, WrittenPart)`` is called as each part is settled, in order."""
        if not parts:
            return []
        hear = on_part or (lambda i, part: None)
        route = self.breaker.route()
        if route == ROUTE_FALLBACK:
            written = [self._template(p, None, "the writer's breaker is open") for p in parts]
            for i, part in enumerate(written):
                hear(i, part)
            return written
        if self._pool is None:  # the template backend: nothing to wait for, nothing to fault
            written = [self._accept(p, self._call(p), route) for p in parts]
            for i, part in enumerate(written):
                hear(i, part)
            self.breaker.record_step([1.0], trial=route == ROUTE_TRIAL)
            return written
        deadline = time.monotonic() + self.config.deadline_s
        pending = [self._pool.submit(self._call, p) for p in parts]
        written: list[WrittenPart] = []
        first_fault: tuple[str, str] | None = None
        for part, future in zip(parts, pending, strict=True):
            fault: tuple[str, str] | None = None
            try:
                generation = future.result(timeout=max(0.0, deadline - time.monotonic()))
            except futures.TimeoutError:
                future.cancel()  # still queued: never started; running: its answer is dropped
                fault = ("generation_timeout", f"no answer within the {self.config.deadline_s:g} s deadline")
            except GenerationError as exc:
                fault = ("generation_error", f"{exc.kind}: {exc}")
            except Exception as exc:  # noqa: BLE001 - any backend failure is a fault the template absorbs
                fault = ("generation_error", f"{type(exc).__name__}: {exc}")
            else:
                fault = judge(generation.text, self.config.max_chars)
            if fault is None:
                written.append(self._accept(part, generation, route))
            else:
                fault = (fault[0], redact(fault[1], self._secrets)[:500])
                first_fault = first_fault or fault
                written.append(self._template(part, fault, ""))
            hear(len(written) - 1, written[-1])
        if first_fault is not None:
            self.breaker.record_fault(first_fault[0], first_fault[1], trial=route == ROUTE_TRIAL)
        else:
            self.breaker.record_step([1.0], trial=route == ROUTE_TRIAL)  # a good answer: a confident step
        return written

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self.generator.close()

    # ---- internals --------------------------------------------------------------------------------
    def _call(self, part: PartRequest) -> Generation:
        return self.generator.generate(part.system, part.messages, self.config.max_tokens, self.config.stop)

    def _accept(self, part: PartRequest, generation: Generation, route: str) -> WrittenPart:
        return WrittenPart(
            agent=part.agent,
            intents=list(part.intents),
            text=generation.text.strip(),
            source="trial" if route == ROUTE_TRIAL else "model",
            backend=generation.backend,
            model=generation.model,
            usage=dict(generation.usage),
            latency_ms=round(generation.latency_ms, 3),
            cost=generation.cost,
            attempts=generation.attempts,
        )

    def _template(self, part: PartRequest, fault: tuple[str, str] | None, why: str) -> WrittenPart:
        started = time.perf_counter()
        generation = self.template.generate(part.system, part.messages, self.config.max_tokens)
        return WrittenPart(
            agent=part.agent,
            intents=list(part.intents),
            text=generation.text,
            source="fallback",
            backend=self.template.name,
            model=self.template.model,
            usage=dict(generation.usage),
            latency_ms=round((time.perf_counter() - started) * 1000.0, 3),
            fault=fault[0] if fault else None,
            fault_detail=fault[1] if fault else why,
        )


def summarise(parts: Sequence[WrittenPart], backend: str, model: str) -> dict[str, Any]:
    """Totals of one reply's parts: tokens, cost, faults, whether the template wrote any of it."""
    return {
        "backend": backend,
        "model": model,
        "usage": {
            "prompt_tokens": sum(p.usage.get("prompt_tokens", 0) for p in parts),
            "completion_tokens": sum(p.usage.get("completion_tokens", 0) for p in parts),
        },
        "cost": round(sum(p.cost for p in parts), 8),
        "faults": [{"agent": p.agent, "kind": p.fault, "detail": p.fault_detail} for p in parts if p.fault],
        "fallback": any(p.source == "fallback" for p in parts),
    }
