"""Generation: the text a team writes (docs/design.md#generation).

The learned part of a team decides who acts, who listens to whom and when to stop; this package writes the
answer. One interface (`Generator.generate(system, messages, max_tokens, stop) -> Generation`), three
backends chosen per deployment (`GenerationConfig.backend`): ``template`` (deterministic, the default and
the fallback), ``local`` (a causal LM directory through transformers) and ``openai_compatible`` (any
chat-completions server through the official ``openai`` client). `GuardedWriter` puts a backend under a
breaker; `TicketWriter` turns a played customer-service episode into the reply the customer reads.
"""

from __future__ import annotations

import logging
from pathlib import Path

from agents import places
from serving.generation.base import (
    BACKENDS,
    Generation,
    GenerationConfig,
    GenerationError,
    Generator,
    redact,
    validate_config,
)
from serving.generation.reach import Reach
from serving.generation.template import TemplateGenerator


def make_generator(
    config: GenerationConfig, api_key: str | None = None, device: str = "cpu", reach: Reach | None = None
) -> Generator:
    """The backend ``config`` names. ``api_key``: a stored secret for ``openai_compatible`` (else the
    environment variable ``config.api_key_env`` is read). ``reach``: the hosts and key variables a server
    allows, a local model then being a name in its models directory (None: anything, a user's own machine). Raises `GenerationError` (kind "config") when the backend
    cannot be built or ``reach`` refuses it."""
    if config.backend == "template":
        return TemplateGenerator()
    if config.backend == "local":
        return _local(config, device, reach)
    if config.backend == "openai_compatible":
        from serving.generation.openai_compatible import OpenAICompatible

        return OpenAICompatible(config, api_key=api_key, reach=reach)
    raise GenerationError(
        "config", f"unknown backend {config.backend!r}; expected one of {', '.join(BACKENDS)}"
    )


def _local(config: GenerationConfig, device: str, reach: Reach | None) -> Generator:
    """The local backend. Under a server's ``reach`` the model is a name in its models directory, and a
    failure to load it is told by that name (never the directory's path, never the loader's own words)."""
    from serving.generation.local import LocalCausalLM

    def load(model_dir: str | Path) -> Generator:
        return LocalCausalLM(
            model_dir,
            device=device,
            prompt_price_per_1k=config.prompt_price_per_1k,
            completion_price_per_1k=config.completion_price_per_1k,
        )

    if reach is None:
        return load(config.model)
    refused = reach.problems(config)
    if refused:
        raise GenerationError("config", f"model: {refused['model']}")
    try:
        return load(places.model_path(config.model))
    except GenerationError as exc:
        missing = "config.json missing" in str(exc)
        why = "it holds no config.json" if missing else "it cannot be loaded"
        raise GenerationError(
            "config", f"the model {config.model!r} of the models directory: {why}"
        ) from None
    except Exception as exc:  # the loader's message may hold the server's paths: its words go to the log only
        logging.getLogger(__name__).warning("local model %r cannot be loaded", config.model, exc_info=True)
        raise GenerationError(
            "config",
            f"the model {config.model!r} of the models directory cannot be loaded ({type(exc).__name__})",
        ) from None


__all__ = [
    "BACKENDS",
    "Generation",
    "GenerationConfig",
    "GenerationError",
    "Generator",
    "Reach",
    "TemplateGenerator",
    "make_generator",
    "redact",
    "validate_config",
]
