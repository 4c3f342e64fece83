"""The ``local`` backend: a Hugging Face causal LM directory through transformers, greedy and batched.

Concurrent `generate` calls are answered together: one thread owns the model and takes whatever requests
have queued while it was busy (no waiting window, so a lone request pays nothing), pads them on the left
and decodes them in one ``model.generate`` call. A prompt longer than the model's context keeps its end
(the instructions and the ticket come last). The chat template of the tokenizer is used when it has one,
else a plain ``System: / User: / Assistant:`` layout. `stream` rides in the same batches: a streamer on
the ``generate`` call hands each row's new token to that row's reader as soon as it is decoded.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from serving.batching import BatchQueue
from serving.generation.base import Generation, GenerationError, Generator, StopCutter, cut_at_stop, usage


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
        future = self._worker.submit(
            (self.prompt(system, messages), int(max_tokens), tuple(stop or ()), None)
        )
        result = future.result()
        result.latency_ms = (time.perf_counter() - started) * 1000.0  # with the time spent queued
        return result

    def stream(
        self,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> Iterator[str | Generation]:
        started = time.perf_counter()
        pieces: queue.SimpleQueue = queue.SimpleQueue()
        item = (self.prompt(system, messages), int(max_tokens), tuple(stop or ()), pieces.put)
        future = self._worker.submit(item)
        future.add_done_callback(lambda _: pieces.put(None))  # the end of the text (or its failure)
        cutter = StopCutter(stop)
        while (piece := pieces.get()) is not None:
            shown = cutter.feed(piece)
            if shown:
                yield shown
        result = future.result()  # the batch's GenerationError, if it failed
        tail = cutter.flush()
        if tail:
            yield tail
        shown = cutter.text.lstrip()
        if result.text.startswith(shown) and len(result.text) > len(shown):
            yield result.text[len(shown) :]  # decoding the whole answer may settle what a prefix could not
        result.latency_ms = (time.perf_counter() - started) * 1000.0
        yield result

    def generate_many(
        self,
        requests: Sequence[tuple[str, Sequence[Mapping[str, str]]]],
        max_tokens: int = 160,
        stop: Sequence[str] | None = None,
    ) -> list[Generation | GenerationError]:
        pending = []
        for system, messages in requests:
            item = (self.prompt(system, messages), int(max_tokens), tuple(stop or ()), None)
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
    def _answer(self, batch: list[tuple[str, int, tuple[str, ...], Callable | None]]) -> list[Generation]:
        return self._decode(*(list(column) for column in zip(*batch, strict=True)))

    def _decode(
        self,
        prompts: list[str],
        max_tokens: list[int],
        stops: list[tuple[str, ...]],
        sinks: list[Callable[[str], None] | None] | None = None,
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
                streamer=_RowStreamer(tok, sinks, max_tokens) if any(sinks or ()) else None,
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


class _RowStreamer:
    """A ``generate`` streamer for a batch: each step's new token of row i goes to ``sinks[i]`` as text (the
    decoded answer so far, less what was sent; held while it ends in a partial character), until the row's
    end-of-text or its own token limit."""

    def __init__(self, tokenizer, sinks: list, limits: list[int]):
        self.tok, self.sinks, self.limits = tokenizer, sinks, limits
        self.ids: list[list[int]] = [[] for _ in sinks]
        self.sent = ["" for _ in sinks]
        self.ended = [sink is None for sink in sinks]
        self.prompt_seen = False

    def put(self, value) -> None:
        if not self.prompt_seen:  # the first call hands over the prompts
            self.prompt_seen = True
            return
        for row, token in enumerate(value.reshape(-1).tolist()):
            if self.ended[row]:
                continue
            if token == self.tok.eos_token_id:
                self.ended[row] = True
                continue
            self.ids[row].append(token)
            self.ended[row] = len(self.ids[row]) >= self.limits[row]
            text = self.tok.decode(self.ids[row], skip_special_tokens=True)
            if (
                text.startswith(self.sent[row])
                and not text.endswith("\ufffd")
                and len(text) > len(self.sent[row])
            ):
                self.sinks[row](text[len(self.sent[row]) :])
                self.sent[row] = text

    def end(self) -> None:
        pass  # the reader learns of the end from the finished batch
