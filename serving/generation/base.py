"""The one interface every generation backend implements, and the settings that choose a backend.

``generate(system, messages, max_tokens, stop) -> Generation``: ``system`` is the agent's system prompt,
``messages`` the conversation as ``[{"role": "user" | "assistant", "content": str}]``; the answer carries
its text, token usage, wall latency and cost. ``stream(...)`` is the same answer as it is written: text
chunks in order, then the whole `Generation` as the last item (the chunks joined and stripped are its
text). A backend raises `GenerationError` (with a ``kind``) when it
cannot answer; judging an answer that did come back (empty, too long, a refusal) is the guard's job
(`serving.generation.guard`), not the backend's.

Backends are chosen per deployment or project, never per request (`GenerationConfig.backend`). Secrets
never live in a config: the API key comes from the environment variable named by ``api_key_env`` or is
handed to `make_generator` by the caller (the web layer decrypts its stored one), and `redact` scrubs it
from any text that may leave the process (error messages, logs).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

BACKENDS = ("template", "local", "openai_compatible")

ERROR_KINDS = ("timeout", "error_status", "connection", "bad_response", "config")
"""Why a backend could not answer (`GenerationError.kind`)."""


class GenerationError(Exception):
    """A backend could not produce an answer; ``kind`` is one of `ERROR_KINDS`, ``status`` the HTTP status."""

    def __init__(self, kind: str, message: str, status: int | None = None):
        super().__init__(message)
        self.kind, self.status = kind, status


@dataclass
class Generation:
    """One answer: its text, token usage, wall latency (ms), cost (in the configured currency unit)."""

    text: str
    usage: dict[str, int]
    latency_ms: float
    cost: float = 0.0
    backend: str = ""
    model: str = ""
    attempts: int = 1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {"prompt_tokens": int(prompt_tokens), "completion_tokens": int(completion_tokens)}


@dataclass(frozen=True)
class GenerationConfig:
    """A backend choice with its knobs (JSON-safe; holds no secret).

    ``max_chars``: a longer answer is a fault (over-long); ``deadline_s``: the whole reply of one request
    (every agent's part) must be written within this, else the template writer answers.
    """

    backend: str = "template"
    model: str = ""  # local: the model directory (on a server: its name there); openai_compatible: the name
    base_url: str = ""  # openai_compatible: e.g. http://127.0.0.1:8001/v1
    api_key_env: str = ""  # openai_compatible: the environment variable holding the key
    timeout_s: float = 10.0  # one HTTP attempt / one local call
    max_retries: int = 2  # openai_compatible: retries after 5xx, 429, a timeout or a lost connection
    backoff_s: float = 0.25  # first retry waits this long, doubling each time
    max_tokens: int = 160
    max_chars: int = 1200
    deadline_s: float = 20.0
    cooldown_s: float = 30.0  # the writer's breaker: open → one half-open trial after this long
    prompt_price_per_1k: float = 0.0
    completion_price_per_1k: float = 0.0
    stop: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> GenerationConfig:
        """From a stored mapping; raises ValueError listing every problem (`validate_config`)."""
        errors = validate_config(data or {})
        if errors:
            raise ValueError("; ".join(f"{k}: {v}" for k, v in errors.items()))
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in (data or {}).items() if k in known}
        if "stop" in values:
            values["stop"] = tuple(values["stop"])
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["stop"] = list(self.stop)
        return out

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.prompt_price_per_1k + completion_tokens * self.completion_price_per_1k
        ) / 1000


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_NUMBERS = {
    "timeout_s": (0.05, 120.0),
    "backoff_s": (0.0, 60.0),
    "deadline_s": (0.1, 120.0),
    "cooldown_s": (0.0, 3600.0),
    "max_tokens": (1, 8192),
    "max_chars": (1, 100_000),
    "max_retries": (0, 10),
    "prompt_price_per_1k": (0.0, 1000.0),
    "completion_price_per_1k": (0.0, 1000.0),
}


def validate_config(data: Mapping[str, Any]) -> dict[str, str]:
    """Every problem of a generation config, by key (empty when valid)."""
    if not isinstance(data, Mapping):
        return {"generation": "must be an object"}
    errors: dict[str, str] = {}
    known = {f.name for f in fields(GenerationConfig)}
    for key in data:
        if key not in known:
            errors[str(key)] = f"unknown setting; known: {', '.join(sorted(known))}"
    backend = data.get("backend", "template")
    if backend not in BACKENDS:
        errors["backend"] = f"must be one of {', '.join(BACKENDS)}"
    for key, (low, high) in _NUMBERS.items():
        if key in data:
            value = data[key]
            integral = key in ("max_tokens", "max_chars", "max_retries")
            if isinstance(value, bool) or not isinstance(value, int if integral else int | float):
                errors[key] = "must be an integer" if integral else "must be a number"
            elif not low <= value <= high:
                errors[key] = f"must be between {low:g} and {high:g}"
    for key in ("model", "base_url", "api_key_env"):
        if key in data and not isinstance(data[key], str):
            errors[key] = "must be a string"
        elif key in data and ("\x00" in data[key] or len(data[key]) > 1000):
            errors[key] = "must be at most 1000 characters, without NUL"
    stop = data.get("stop", [])
    if (
        not isinstance(stop, list | tuple)
        or len(stop) > 4
        or not all(isinstance(s, str) and s and "\x00" not in s and len(s) <= 100 for s in stop)
    ):
        errors["stop"] = "must be a list of at most 4 non-empty strings (each ≤ 100 characters, no NUL)"
    if backend == "local" and not str(data.get("model") or "").strip():
        errors["model"] = "the local backend needs a model directory"
    if backend == "openai_compatible":
        if not str(data.get("model") or "").strip():
            errors["model"] = "name the model the server serves"
        if not re.match(r"^https?://", str(data.get("base_url") or "")):
            errors["base_url"] = "must be an http(s) URL, e.g. http://127.0.0.1:8001/v1"
    env = data.get("api_key_env")
    if env and isinstance(env, str) and not _ENV_NAME.match(env):
        errors["api_key_env"] = "must be an environment variable name (letters, digits, underscores)"
    return errors


def redact(text: str, secrets: Sequence[str | None]) -> str:
    """``text`` with every secret (of 4 characters or more) replaced by ``[redacted]``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return text


class Generator:
    """A generation backend. Subclasses implement `generate`; `generate_many` answers several requests
    (backends that batch override it); `close` frees what the backend holds."""

    name = "base"
    model = ""

    def generate(
        self,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> Generation:
        raise NotImplementedError

    def stream(
        self,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> Iterator[str | Generation]:
        """Text chunks as they are written, then the `Generation` (last). Default: the whole answer as one
        chunk (a backend that can write incrementally overrides it)."""
        generation = self.generate(system, messages, max_tokens, stop)
        if generation.text:
            yield generation.text
        yield generation

    def generate_many(
        self,
        requests: Sequence[tuple[str, Sequence[Mapping[str, str]]]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> list[Generation | GenerationError]:
        out: list[Generation | GenerationError] = []
        for system, messages in requests:
            try:
                out.append(self.generate(system, messages, max_tokens, stop))
            except GenerationError as exc:
                out.append(exc)
        return out

    def close(self) -> None:
        """Free what the backend holds (threads, HTTP connections); default: nothing."""


def cut_at_stop(text: str, stop: Sequence[str] | None) -> str:
    """``text`` up to the earliest stop string (the stop string itself is not kept)."""
    found = [i for i in (text.find(s) for s in stop or () if s) if i >= 0]
    return text[: min(found)] if found else text


class StopCutter:
    """`cut_at_stop` for text that arrives in chunks: `feed` returns what may be shown now, holding back any
    tail that could still begin a stop string, so no chunk ever shows text past one; ``text`` is all that was
    let through (after `flush`, exactly `cut_at_stop` of the whole text)."""

    def __init__(self, stop: Sequence[str] | None):
        self.stop = tuple(s for s in stop or () if s)
        self.text, self.done = "", False
        self._held = ""
        self._longest = max((len(s) for s in self.stop), default=0)

    def feed(self, chunk: str) -> str:
        if self.done or not chunk:
            return ""
        buffer = self._held + chunk
        found = [i for i in (buffer.find(s) for s in self.stop) if i >= 0]
        pending = next(  # the first place a stop string may begin that the text so far cannot settle
            (j for j in range(max(0, len(buffer) - self._longest + 1), len(buffer))
             if any(len(s) > len(buffer) - j and s.startswith(buffer[j:]) for s in self.stop)),
            len(buffer),
        )  # fmt: skip
        if found and min(found) <= pending:
            out, self._held, self.done = buffer[: min(found)], "", True
        else:
            out, self._held = buffer[:pending], buffer[pending:]
        self.text += out
        return out

    def flush(self) -> str:
        """What was held back, once the text has ended."""
        out, self._held = ("" if self.done else cut_at_stop(self._held, self.stop)), ""
        self.done = True
        self.text += out
        return out
