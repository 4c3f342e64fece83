"""The ``openai_compatible`` backend: any server speaking the OpenAI chat-completions protocol (vLLM,
Ollama, llama.cpp's server, hosted providers) through the official ``openai`` client library.

One HTTP attempt is bounded by ``timeout_s``; a retryable failure (a timeout, a lost connection, HTTP 429
or 5xx) is retried up to ``max_retries`` times with exponential backoff (``backoff_s``, doubling); other
statuses (400, 401, 404 …) fail at once, and so does a redirect: the client follows none, so a server the
operator allowed cannot send the request (and its key) on to a host it did not allow. The client's own retries are off, so the attempts counted and the
time spent are ours. Token usage comes from the server's ``usage`` block (0 when it sends none) and the cost
from the configured prices. `stream` asks the server for server-sent chunks (``stream=True``, with the
usage block at the end): opening the stream is retried as above, a failure once chunks have come is an
error of the answer (what was written cannot be taken back from the reader, so it is not re-asked). The
API key is held by the client only: it is not an attribute of this object,
it is absent from its repr, and `redact` strips it from every error message before it leaves. Given a
`Reach` (a server's), the backend refuses to start for a ``base_url`` or ``api_key_env`` it does not allow.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from serving.generation.base import (
    Generation,
    GenerationConfig,
    GenerationError,
    Generator,
    StopCutter,
    cut_at_stop,
    redact,
    usage,
)
from serving.generation.reach import Reach

RETRYABLE_STATUS = (408, 409, 429, 500, 502, 503, 504)


def resolve_api_key(config: GenerationConfig, stored: str | None = None) -> str:
    """The key: the stored secret if given, else the environment variable ``api_key_env`` names, else a
    placeholder (local servers such as vLLM or llama.cpp accept any key)."""
    if stored:
        return stored
    if config.api_key_env:
        value = os.environ.get(config.api_key_env, "")
        if value:
            return value
    return "not-needed"


class OpenAICompatible(Generator):
    """Chat completions over HTTP with timeouts, bounded retries with backoff, usage and cost per request."""

    name = "openai_compatible"

    def __init__(
        self,
        config: GenerationConfig,
        api_key: str | None = None,
        sleep=time.sleep,
        reach: Reach | None = None,
    ):
        from openai import DefaultHttpxClient, OpenAI

        refused = reach.problems(config) if reach is not None else {}
        if refused:  # before the key is read: a refused variable is never looked at
            raise GenerationError("config", "; ".join(f"{k}: {v}" for k, v in refused.items()))
        self.config = config
        self.model = config.model
        self._sleep = sleep
        key = resolve_api_key(config, api_key)
        self._secrets = (key,) if key != "not-needed" else ()
        self._client = OpenAI(
            api_key=key,
            base_url=config.base_url,
            timeout=config.timeout_s,
            max_retries=0,
            http_client=DefaultHttpxClient(timeout=config.timeout_s, follow_redirects=False),
        )

    def __repr__(self) -> str:
        return f"OpenAICompatible(base_url={self.config.base_url!r}, model={self.model!r})"

    def generate(
        self,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> Generation:
        started = time.perf_counter()
        response, attempts = self._attempt(lambda: self._create(system, messages, max_tokens, stop))
        try:
            text = response.choices[0].message.content or ""
        except (AttributeError, IndexError, TypeError):
            raise self._clean(
                GenerationError("bad_response", "the answer holds no message"), attempts
            ) from None
        used = response.usage
        prompt = int(getattr(used, "prompt_tokens", 0) or 0)
        completion = int(getattr(used, "completion_tokens", 0) or 0)
        return self._generation(cut_at_stop(text, stop).strip(), prompt, completion, started, attempts)

    def stream(
        self,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> Iterator[str | Generation]:
        import openai

        started = time.perf_counter()
        options = {"stream": True, "stream_options": {"include_usage": True}}
        events, attempts = self._attempt(lambda: self._create(system, messages, max_tokens, stop, **options))
        cutter, prompt, completion = StopCutter(stop), 0, 0
        try:
            for event in events:
                if getattr(event, "usage", None):
                    prompt = int(event.usage.prompt_tokens or 0)
                    completion = int(event.usage.completion_tokens or 0)
                for choice in getattr(event, "choices", None) or ():
                    shown = cutter.feed(getattr(choice.delta, "content", None) or "")
                    if shown:
                        yield shown
        except openai.APITimeoutError:  # the client wraps its transport's errors while streaming too
            raise self._clean(
                GenerationError("timeout", f"the stream stalled past {self.config.timeout_s:g} s"), attempts
            ) from None
        except (openai.OpenAIError, ValueError) as exc:  # a cut connection, a chunk that is not JSON
            raise self._clean(
                GenerationError("bad_response", f"the stream broke: {type(exc).__name__}: {exc}"), attempts
            ) from None
        finally:
            events.close()  # also when the reader stops early: the server stops writing
        tail = cutter.flush()
        if tail:
            yield tail
        yield self._generation(cutter.text.strip(), prompt, completion, started, attempts)

    # ---- internals --------------------------------------------------------------------------------
    def _create(self, system, messages, max_tokens, stop, **options) -> Any:
        chat = [{"role": "system", "content": system}, *[dict(m) for m in messages]]
        return self._client.chat.completions.create(
            model=self.model,
            messages=chat,
            max_tokens=int(max_tokens),
            stop=list(stop) if stop else None,
            **options,
        )

    def _attempt(self, call: Callable[[], Any]) -> tuple[Any, int]:
        """``call()``'s result and the attempts it took: a timeout, a lost connection, 429 or 5xx is retried
        up to ``max_retries`` times with doubling backoff; anything else fails at once."""
        import openai

        attempts, wait = 0, self.config.backoff_s
        while True:
            attempts += 1
            try:
                return call(), attempts
            except openai.APITimeoutError:
                error = GenerationError("timeout", f"no answer within {self.config.timeout_s:g} s")
            except openai.APIConnectionError as exc:
                error = GenerationError("connection", f"cannot reach {self.config.base_url}: {exc}")
            except openai.APIStatusError as exc:
                error = GenerationError(
                    "error_status", f"HTTP {exc.status_code}: {exc.message}", exc.status_code
                )
                if exc.status_code not in RETRYABLE_STATUS:
                    raise self._clean(error, attempts) from None
            except openai.OpenAIError as exc:  # e.g. a body that is not a chat completion
                raise self._clean(
                    GenerationError("bad_response", f"{type(exc).__name__}: {exc}"), attempts
                ) from None
            if attempts > self.config.max_retries:
                raise self._clean(error, attempts) from None
            self._sleep(wait)
            wait *= 2

    def _generation(
        self, text: str, prompt: int, completion: int, started: float, attempts: int
    ) -> Generation:
        return Generation(
            text=text,
            usage=usage(prompt, completion),
            latency_ms=(time.perf_counter() - started) * 1000.0,
            cost=self.config.cost(prompt, completion),
            backend=self.name,
            model=self.model,
            attempts=attempts,
        )

    def _clean(self, error: GenerationError, attempts: int) -> GenerationError:
        message = redact(str(error), self._secrets)
        suffix = f" (after {attempts} attempts)" if attempts > 1 else ""
        return GenerationError(error.kind, message + suffix, error.status)

    def close(self) -> None:
        self._client.close()
