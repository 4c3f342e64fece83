"""Per-agent skill adapters: one named PEFT LoRA adapter per agent on the one shared backbone.

An agent's LoRA adapter is its "skill DNA" (docs/design.md#backbone-and-adapters): every agent reads
text through the same frozen transformer, and only its small adapter (on the attention key/value
projections by default) is its own.

Two PEFT 0.21 behaviours shape this module:
- `set_adapter(name)` switches `requires_grad` off for every other adapter. A per-agent forward pass
  followed by one joint backward would then silently drop the gradients of all but the last agent, so
  `active()` re-enables gradients on every adapter that is meant to train after each switch.
- Mixed-adapter batches (`adapter_names=` in forward) are inference-only in PEFT, so training encodes
  agent by agent; only frozen adapters may share a batch.
"""

from __future__ import annotations

import contextlib
import json
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import torch

from agents.backbone import Backbone


class AdapterError(ValueError):
    """An adapter that cannot be created or loaded (bad settings, missing or corrupted files)."""


@dataclass(frozen=True)
class LoraSettings:
    """LoRA hyper-parameters of one agent's adapter (the spec's `agents[].lora`)."""

    r: int = 4
    alpha: float = 8.0
    dropout: float = 0.0
    target_modules: tuple[str, ...] | None = None  # None = the backbone's key/value projections

    @classmethod
    def from_spec(cls, lora) -> LoraSettings:
        """Build from a spec `lora` object or dict (attribute names equal JSON keys)."""
        get = lora.get if isinstance(lora, Mapping) else lambda k, d=None: getattr(lora, k, d)
        targets = get("target_modules", None)
        return cls(
            r=int(get("r", 4)),
            alpha=float(get("alpha", 8)),
            dropout=float(get("dropout", 0.0)),
            target_modules=tuple(targets) if targets else None,
        )


class TeamAdapters:
    """A named LoRA adapter per agent, injected into `backbone.model` (the base stays frozen).

    `backbone.encode(texts, adapter=agent_id)` then runs through that agent's adapter.
    """

    def __init__(self, backbone: Backbone, settings: Mapping[str, LoraSettings]):
        from peft import LoraConfig, get_peft_model

        if not settings:
            raise AdapterError("TeamAdapters needs at least one agent")
        if backbone.adapters is not None:
            raise AdapterError("this backbone already has adapters attached; load a fresh Backbone")
        self.backbone = backbone
        self.settings = dict(settings)
        self.names = list(self.settings)
        self._trainable = dict.fromkeys(self.names, True)
        module_names = backbone.module_names()
        self.peft_model = None
        for name, lora in self.settings.items():
            if lora.r < 1:
                raise AdapterError(f"agent {name!r}: lora.r must be >= 1, got {lora.r}")
            targets = list(lora.target_modules) if lora.target_modules else backbone.default_lora_targets()
            for target in targets:
                if not any(m == target or m.endswith("." + target) for m in module_names):
                    raise AdapterError(
                        f"agent {name!r}: lora.target_modules entry {target!r} matches no module of backbone "
                        f"{backbone.name!r}; use e.g. {backbone.default_lora_targets()}"
                    )
            config = LoraConfig(
                r=lora.r,
                lora_alpha=lora.alpha,
                lora_dropout=lora.dropout,
                target_modules=targets,
                bias="none",
                inference_mode=False,
            )
            with warnings.catch_warnings():
                # PEFT warns about short adapter names that occur inside "lora_" and about a
                # transformers deprecation; neither applies to how adapters are used here.
                warnings.simplefilter("ignore", UserWarning)
                warnings.simplefilter("ignore", FutureWarning)
                if self.peft_model is None:
                    self.peft_model = get_peft_model(backbone.model, config, adapter_name=name)
                else:
                    self.peft_model.add_adapter(name, config)
        # The PEFT wrapper modified backbone.model in place (LoRA layers injected); backbone keeps
        # calling its own module and switches adapters through us.
        backbone.adapters = self
        self._enable_grads()

    # ------------------------------------------------------------------ parameters
    def parameters(self, agent: str) -> list[torch.nn.Parameter]:
        """The LoRA parameters of one agent's adapter."""
        self._check(agent)
        marker = f".{agent}."
        return [p for n, p in self.peft_model.named_parameters() if "lora_" in n and marker in n + "."]

    def named_parameters(self, agent: str) -> list[tuple[str, torch.nn.Parameter]]:
        """(name, parameter) pairs of one agent's adapter."""
        self._check(agent)
        marker = f".{agent}."
        return [(n, p) for n, p in self.peft_model.named_parameters() if "lora_" in n and marker in n + "."]

    def set_trainable(self, agent: str, trainable: bool) -> None:
        """Freeze or unfreeze one agent's adapter; a frozen adapter's embeddings may be cached."""
        self._check(agent)
        self._trainable[agent] = bool(trainable)
        self._enable_grads()

    def is_trainable(self, agent: str) -> bool:
        return self._trainable.get(agent, False)

    def _check(self, agent: str) -> None:
        if agent not in self.settings:
            raise AdapterError(f"no adapter named {agent!r}; known: {self.names}")

    def _enable_grads(self) -> None:
        # Undo set_adapter's freezing of the inactive adapters (see the module docstring).
        for agent in self.names:
            for parameter in self.parameters(agent):
                parameter.requires_grad_(self._trainable[agent])

    # ------------------------------------------------------------------ switching
    @contextlib.contextmanager
    def active(self, agent: str | None) -> Iterator[None]:
        """Run the enclosed forward pass through `agent`'s adapter, or the bare model when None."""
        if agent is None:
            with self.peft_model.disable_adapter():
                yield
            return
        self._check(agent)
        self.peft_model.base_model.set_adapter(agent)
        self._enable_grads()
        yield

    # ------------------------------------------------------------------ persistence
    def save(self, directory: str | Path) -> list[Path]:
        """Write one PEFT adapter folder per agent (`directory/<agent>/`), loadable on its own with
        `PeftModel.from_pretrained(base_model, directory/<agent>)`; safetensors only, never pickle."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.peft_model.save_pretrained(str(directory), selected_adapters=self.names, safe_serialization=True)
        paths = []
        for agent in self.names:
            folder = directory / agent
            if not (folder / "adapter_model.safetensors").is_file():  # pragma: no cover - PEFT layout change
                raise AdapterError(f"PEFT did not write {folder}/adapter_model.safetensors")
            paths.append(folder)
        self._enable_grads()
        return paths

    def load(self, directory: str | Path) -> None:
        """Load every agent's adapter weights from `save()`'s folders (shapes must match the settings)."""
        from peft.utils import set_peft_model_state_dict
        from safetensors.torch import load_file

        directory = Path(directory)
        for agent in self.names:
            path = directory / agent / "adapter_model.safetensors"
            if not path.is_file():
                raise AdapterError(f"checkpoint has no adapter for agent {agent!r}: {path} is missing")
            try:
                state = load_file(str(path))
                config = json.loads((directory / agent / "adapter_config.json").read_text())
            except Exception as exc:  # safetensors raises its own error types for truncated files
                raise AdapterError(f"adapter file {path} is corrupted or unreadable: {exc}") from exc
            if int(config.get("r", -1)) != self.settings[agent].r:
                raise AdapterError(
                    f"adapter {agent!r} in {path.parent} has r={config.get('r')}, the spec says "
                    f"r={self.settings[agent].r}"
                )
            result = set_peft_model_state_dict(self.peft_model, state, adapter_name=agent)
            unexpected = getattr(result, "unexpected_keys", None) or []
            if unexpected:
                raise AdapterError(f"adapter {agent!r} in {path.parent} does not fit this backbone")
        self._enable_grads()
        self.backbone.clear_cache(self.names)


def attach_adapters(backbone: Backbone, agents) -> TeamAdapters:
    """Create one adapter per spec agent (objects or dicts with `id` and `lora`)."""
    settings = {}
    for agent in agents:
        get = agent.get if isinstance(agent, Mapping) else lambda k, d=None, a=agent: getattr(a, k, d)
        settings[get("id")] = LoraSettings.from_spec(get("lora", {}) or {})
    return TeamAdapters(backbone, settings)
