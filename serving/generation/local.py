"""The ``local`` backend: a Hugging Face causal LM directory through transformers, greedy and batched.

Concurrent `generate` calls are answered together: one thread owns the model and takes whatever requests
have queued while it was busy (no waiting window, so a lone request pays nothing), pads them on the left
and decodes them in one ``model.generate`` call. A prompt longer than the model's context keeps its end
(the instructions and the ticket come last). The chat template of the tokenizer is used when it has one,
else a plain ``System: / User: / Assistant:`` layout.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from serving.batching import BatchQueue
from serving.generation.base import Generation, GenerationError, Generator, cut_at_stop, usage


def _failure(exc: BaseException) -> GenerationError:
    """What every caller of a failed batch gets."""
    return GenerationError("error_status", f"local model failed: {type(exc).__name__}: {exc}")


class LocalCausalLM(Generator):
    """Greedy generation from a local causal LM directory (CPU by default; ``device="cuda"`` on a GPU worker)."""

    name = "local"

    def __init__(
        self,
        model_dir: str | Path,
        device: str = "cpu",
        max_batch: int = 8,
        prompt_price_per_1k: float = 0.0,
        completion_price_per_1k: float = 0.0,
    ):
        import torch

        from agents.backbone import transformers_classes

        AutoModelForCausalLM, AutoTokenizer = transformers_classes("AutoModelForCausalLM", "AutoTokenizer")

        path = Path(model_dir)
        if not (path / "config.json").is_file():
            raise GenerationError("config", f"no causal LM in {str(path)!r} (config.json missing)")
        self.model = str(path)
        self.device = device
        self.max_batch = max(1, int(max_batch))
        self.prices = (prompt_price_per_1k, completion_price_per_1k)
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.tokenizer.padding_side = "left"  # new tokens follow the prompt in every row
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token or self.tokenizer.unk_token
        self.lm = AutoModelForCausalLM.from_pretrained(path).to(device).eval()
        self.context = int(getattr(self.lm.config, "max_position_embeddings", 0) or 1024)
        self._torch = torch
        self.batches = 0  # model.generate calls (a benchmark reads how well requests were batched)
        self._worker = BatchQueue(self._answer, self.max_batch, name="mase-local-lm", on_error=_failure)

    # ---- prompts ----------------------------------------------------------------------------------
    def prompt(self, system: str, messages: Sequence[Mapping[str, str]]) -> str:
        chat = [{"role": "system", "content": system}, *[dict(m) for m in messages]]
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        lines = [f"{m['role'].capitalize()}: {m['content']}" for m in chat]
        return "\n\n".join(lines) + "\n\nAssistant:"

    # ---- the interface ----------------------------------------------------------------------------
    def generate(
        self,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> Generation:
        started = time.perf_counter()
        future = self._worker.submit((self.prompt(system, messages), int(max_tokens), tuple(stop or ())))
        result = future.result()
        result.latency_ms = (time.perf_counter() - started) * 1000.0  # with the time spent queued
        return result

    def generate_many(
        self,
        requests: Sequence[tuple[str, Sequence[Mapping[str, str]]]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> list[Generation | GenerationError]:
        pending = []
        for system, messages in requests:
            item = (self.prompt(system, messages), int(max_tokens), tuple(stop or ()))
            pending.append(self._worker.submit(item))
        out: list[Generation | GenerationError] = []
        for future in pending:
            try:
                out.append(future.result())
            except GenerationError as exc:
                out.append(exc)
        return out

    def close(self) -> None:
        self._worker.close()

    # ---- the model thread -------------------------------------------------------------------------
    def _answer(self, batch: list[tuple[str, int, tuple[str, ...]]]) -> list[Generation]:
        return self._decode([b[0] for b in batch], [b[1] for b in batch], [b[2] for b in batch])

    def _decode(
        self, prompts: list[str], max_tokens: list[int], stops: list[tuple[str, ...]]
    ) -> list[Generation]:
        started = time.perf_counter()
        torch, tok = self._torch, self.tokenizer
        new = max(max_tokens)
        room = max(8, self.context - new)  # prompt tokens the context leaves beside the answer
        tok.truncation_side = "left"
        enc = tok(prompts, return_tensors="pt", padding=True, truncation=True, max_length=room)
        enc = {k: v.to(self.device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}
        with torch.no_grad():
            out = self.lm.generate(
                **enc,
                max_new_tokens=new,
                do_sample=False,
                pad_token_id=tok.pad_token_id,
                eos_token_id=tok.eos_token_id,
            )
        self.batches += 1
        width = enc["input_ids"].shape[1]
        latency = (time.perf_counter() - started) * 1000.0
        results = []
        for row, limit, stop in zip(range(len(prompts)), max_tokens, stops, strict=True):
            ids = out[row, width : width + limit].tolist()
            if tok.eos_token_id in ids:  # padding after the end of the answer is not part of it
                ids = ids[: ids.index(tok.eos_token_id)]
            text = cut_at_stop(tok.decode(ids, skip_special_tokens=True), stop)
            prompt_tokens = int(enc["attention_mask"][row].sum())
            cost = (prompt_tokens * self.prices[0] + len(ids) * self.prices[1]) / 1000
            results.append(
                Generation(
                    text=text.strip(),
                    usage=usage(prompt_tokens, len(ids)),
                    latency_ms=latency,
                    cost=cost,
                    backend=self.name,
                    model=Path(self.model).name,
                )
            )
        return results
