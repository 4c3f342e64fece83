"""The ``local`` backend: a Hugging Face causal LM directory through transformers, greedy and batched.

Concurrent `generate` calls are answered together: one thread owns the model and takes whatever requests
have queued while it was busy (no waiting window, so a lone request pays nothing), pads them on the left
and decodes them in one ``model.generate`` call. A prompt longer than the model's context keeps its end
(the instructions and the ticket come last). The chat template of the tokenizer is used when it has one,
else a plain ``System: / User: / Assistant:`` layout.
"""

from __future__ import annotations

import concurrent.futures as futures
import queue
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from serving.generation.base import Generation, GenerationError, Generator, cut_at_stop, usage


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
        from transformers import AutoModelForCausalLM, AutoTokenizer

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
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="mase-local-lm", daemon=True)
        self._thread.start()
        self.batches = 0  # model.generate calls (a benchmark reads how well requests were batched)

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
        future: futures.Future = futures.Future()
        self._queue.put((future, self.prompt(system, messages), int(max_tokens), tuple(stop or ())))
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
            future: futures.Future = futures.Future()
            self._queue.put((future, self.prompt(system, messages), int(max_tokens), tuple(stop or ())))
            pending.append(future)
        out: list[Generation | GenerationError] = []
        for future in pending:
            try:
                out.append(future.result())
            except GenerationError as exc:
                out.append(exc)
        return out

    def close(self) -> None:
        self._queue.put(None)

    # ---- the model thread -------------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            while len(batch) < self.max_batch:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)
                    break
                batch.append(more)
            live = [b for b in batch if b[0].set_running_or_notify_cancel()]
            if not live:
                continue
            try:
                results = self._decode([b[1] for b in live], [b[2] for b in live], [b[3] for b in live])
            except Exception as exc:  # noqa: BLE001 - every waiting caller gets the failure as a GenerationError
                error = GenerationError("error_status", f"local model failed: {type(exc).__name__}: {exc}")
                for b in live:
                    b[0].set_exception(error)
                continue
            for b, result in zip(live, results, strict=True):
                b[0].set_result(result)

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
