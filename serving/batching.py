"""Dynamic batching: one worker thread answers the requests that queued up while it was busy, together.

`BatchQueue` is the loop shared by the team runtime's model thread (`StepBatcher`: one backbone call and
one actor forward per batch of concurrent requests' steps) and the local causal LM
(`serving.generation.local`: one ``generate`` call per batch of prompts). There is no waiting window, so
a lone request pays nothing; each caller waits on a `concurrent.futures.Future` (with a timeout where a
hung model must not hang it).
"""

from __future__ import annotations

import concurrent.futures as futures
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any


class BatchQueue:
    """A worker thread that calls ``answer(items)`` on up to ``max_batch`` queued items at a time.

    ``answer`` returns one result per item, in order; an exception it raises is handed to every caller of
    that batch (through ``on_error(exc)`` first, when given, to turn it into the error callers expect).
    Cancelled futures are skipped. ``batches`` / ``items`` count the calls and the items answered.
    """

    def __init__(
        self,
        answer: Callable[[list[Any]], Sequence[Any]],
        max_batch: int = 32,
        name: str = "mase-batch",
        on_error: Callable[[BaseException], BaseException] | None = None,
    ):
        self.answer, self.max_batch, self.on_error = answer, max(1, int(max_batch)), on_error
        self.batches = 0
        self.items = 0
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, item: Any) -> futures.Future:
        """Queue one item; the future resolves to its result or to the batch's exception."""
        future: futures.Future = futures.Future()
        self._queue.put((future, item))
        return future

    def close(self) -> None:
        """Stop the worker thread after the queued items."""
        self._queue.put(None)

    def _next_batch(self) -> list[tuple[futures.Future, Any]] | None:
        item = self._queue.get()
        if item is None:
            return None
        batch = [item]
        while len(batch) < self.max_batch:
            try:
                more = self._queue.get_nowait()
            except queue.Empty:
                break
            if more is None:
                self._queue.put(None)  # finish this batch, then stop
                break
            batch.append(more)
        return batch

    def _loop(self) -> None:
        while (batch := self._next_batch()) is not None:
            live = [(f, item) for f, item in batch if f.set_running_or_notify_cancel()]
            if not live:
                continue
            self.batches += 1
            self.items += len(live)
            try:
                outputs = self.answer([item for _, item in live])
            except BaseException as exc:  # noqa: BLE001 - every waiting caller gets the failure
                error = self.on_error(exc) if self.on_error is not None else exc
                for f, _ in live:
                    f.set_exception(error)
                continue
            for (f, _), out in zip(live, outputs, strict=True):
                f.set_result(out)


class StepBatcher(BatchQueue):
    """The team runtime's model thread: concurrent requests' steps answered by one `TeamModel.forward_many`.

    Requests `submit` their step's observations (the future resolves to `TeamModel.forward`'s result) and
    wait on it with a timeout, so a hung backbone cannot hang them; ``steps`` counts the steps answered, ``batches`` the forward passes.
    """

    def __init__(self, model: Any, max_batch: int = 32):
        self.model = model
        # looked up at each batch, not bound once: a model whose forward is swapped (fault injection) is honoured
        super().__init__(lambda steps: self.model.forward_many(steps), max_batch, name="mase-model")

    @property
    def steps(self) -> int:
        """Steps answered so far."""
        return self.items
