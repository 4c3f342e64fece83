"""Generation under the breaker (docs/design.md#circuit-breaker): every request gets a reply in time.

`GuardedWriter.write` asks the configured backend for every part of one reply at once (parts run side by
side on a small thread pool) and waits at most ``deadline_s`` for all of them. A part is a *fault* when
the backend raises (an error status, a lost connection: ``generation_error``), misses the deadline
(``generation_timeout``), or answers with an empty text (``empty_answer``), more than ``max_chars``
characters (``overlong_answer``), a refusal (``refusal``) or text that is mostly not words (``garbage``).
A faulty part is written by the template writer instead, the fault is kept on the part, and the writer's
own `CircuitBreaker` opens: while it is open the template writes every part without asking the backend
(a dead server costs no waiting), and after its cool-down one request is the half-open trial. Any faulty
part counts, not only the first: the breaker hears one fault per reply whose detail names every faulty
part, and the reply's ``faults`` list every faulty part.

Streaming (``on_chunk``): each part is read from the backend's `stream` and its chunks are handed on as
they come, tagged with the part's index and agent, while the deadline and the checks still hold: an
answer that grows past ``max_chars`` is cut off there, and a part whose deadline passes stops being heard
at once. No chunk of a part follows its settled part (``on_part``), which says what the reader must show
instead when it faulted mid-stream: the template's text, with the fault.

The writer's breaker is separate from the team's: a flaky language model must not take the learned
decisions away from the team, only the writing.
"""

from __future__ import annotations

import concurrent.futures as futures
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from serving.breaker import ROUTE_FALLBACK, ROUTE_TRIAL, BreakerConfig, CircuitBreaker
from serving.generation.base import Generation, GenerationConfig, GenerationError, Generator, redact, usage
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
        template: TemplateGenerator | None = None,
    ):
        self.generator = generator
        self.config = config or GenerationConfig()
        self.breaker = breaker or CircuitBreaker(
            BreakerConfig(cooldown_s=self.config.cooldown_s), name="writer"
        )
        # the fallback writer: the customer-service template unless a workflow brings its own
        if template is None:
            template = generator if isinstance(generator, TemplateGenerator) else TemplateGenerator()
        self.template = template
        self._pool = (
            None
            if generator is self.template
            else futures.ThreadPoolExecutor(max(1, workers), thread_name_prefix="mase-writer")
        )
        self._secrets = tuple(s for s in secrets if s)

    def write(self, parts: Sequence[PartRequest], on_part=None, on_chunk=None) -> list[WrittenPart]:
        """Every part written (by the backend or the template), within ``deadline_s`` plus the template's
        microseconds; the breaker hears one outcome per call (a fault when any part faulted, naming every
        faulty part, else a success). ``on_part(index, WrittenPart)`` is called as each part is settled,
        in order. ``on_chunk(index, agent, text)``: the parts' text as the backend writes it (called from
        the writer's threads, in order within a part; parts interleave; none while the breaker is open)."""
        if not parts:
            return []
        hear = on_part or (lambda i, part: None)
        route = self.breaker.route()
        if route == ROUTE_FALLBACK:
            written = [self._template(p, None, "the writer's breaker is open") for p in parts]
            for i, part in enumerate(written):
                hear(i, part)
            return written
        gates = [_Gate(i, p.agent, on_chunk) for i, p in enumerate(parts)]
        if self._pool is None:  # the template backend: nothing to wait for, nothing to fault
            written = []
            for i, (part, gate) in enumerate(zip(parts, gates, strict=True)):
                written.append(self._accept(part, self._call(part, gate, limit=None), route))
                gate.close()
                hear(i, written[-1])
            self.breaker.record_step([1.0], trial=route == ROUTE_TRIAL)
            return written
        deadline = time.monotonic() + self.config.deadline_s
        limit = self.config.max_chars
        pending = [self._pool.submit(self._call, p, g, limit) for p, g in zip(parts, gates, strict=True)]
        written: list[WrittenPart] = []
        for part, future, gate in zip(parts, pending, gates, strict=True):
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
            finally:
                gate.close()  # settled: the reader hears no more of this part's stream
            if fault is None:
                written.append(self._accept(part, generation, route))
            else:
                fault = (fault[0], redact(fault[1], self._secrets)[:500])
                written.append(self._template(part, fault, ""))
            hear(len(written) - 1, written[-1])
        self._report(written, trial=route == ROUTE_TRIAL)
        return written

    def _report(self, written: Sequence[WrittenPart], trial: bool) -> None:
        """What the breaker hears of one reply: one fault when any part faulted (its kind: the first faulty
        part's; its detail: every faulty part, by position and agent), else one confident step."""
        faulty = [(i, p) for i, p in enumerate(written) if p.fault]
        if not faulty:
            self.breaker.record_step([1.0], trial=trial)  # a good answer: a confident step
            return
        detail = "; ".join(f"part {i + 1} ({p.agent}): {p.fault}: {p.fault_detail}" for i, p in faulty)
        self.breaker.record_fault(faulty[0][1].fault, detail[:2000], trial=trial)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self.generator.close()

    # ---- internals --------------------------------------------------------------------------------
    def _call(self, part: PartRequest, gate: _Gate, limit: int | None) -> Generation:
        """The backend's answer to one part; streamed through ``gate`` when someone listens, and then cut
        off past ``limit`` characters (None: never, for the template, whose answers are not judged)."""
        config = self.config
        if gate.forward is None:
            return self.generator.generate(part.system, part.messages, config.max_tokens, config.stop)
        chunks = self.generator.stream(part.system, part.messages, config.max_tokens, config.stop)
        so_far = ""
        try:
            for item in chunks:
                if isinstance(item, Generation):
                    return item
                so_far += item
                # past the limit, or settled without it (the deadline): stop reading, the judge decides
                if (limit is not None and len(so_far.strip()) > limit) or not gate.send(item):
                    return Generation(so_far, usage(0, 0), 0.0, backend=self.generator.name)
        finally:
            chunks.close()  # a backend streaming over HTTP closes its connection
        raise GenerationError("bad_response", "the stream ended without its answer")

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


class _Gate:
    """One part's way to the reader (``forward(index, agent, text)``): open until the part is settled, so no
    chunk ever follows the settled part. A reader that fails stops hearing; the part is still written."""

    def __init__(self, index: int, agent: str, forward=None):
        self.index, self.agent, self.forward = index, agent, forward
        self._lock = threading.Lock()
        self._settled = self._deaf = False

    def send(self, text: str) -> bool:
        """Hand ``text`` on; False once the part is settled (its writer may stop reading)."""
        with self._lock:
            if self._settled:
                return False
            if not self._deaf:
                try:
                    self.forward(self.index, self.agent, text)
                except Exception:  # noqa: BLE001 - the reader's trouble must not fault the writing
                    self._deaf = True
            return True

    def close(self) -> None:
        with self._lock:
            self._settled = True


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
