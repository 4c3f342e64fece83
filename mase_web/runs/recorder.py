"""The bridge from the library's event stream to the database and the browser.

`RunEventRecorder` is an `EventStream` sink. Events are buffered and flushed in small batches
(every `flush_interval` seconds, when `max_batch` are waiting, or at once for rare, important
types): each batch is written to the database first and then published as ONE channel-layer message
to the run's group. Batching keeps a worker emitting thousands of events per second cheap, and
because the database is written before the browser hears of an event, a client that reconnects
can always fetch what it missed. A background thread also flushes, renews the run's heartbeat and
reports the worker's system metrics.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from datetime import UTC, datetime

import psutil
from django.db import DatabaseError, IntegrityError, close_old_connections, connection, transaction
from django.utils import timezone

from agents.graph import communication_graph
from mase_web.realtime.facade import publisher
from mase_web.runs.models import Checkpoint, Run, RunEvent
from training.events import Event, EventStream

log = logging.getLogger(__name__)

FLUSH_AT_ONCE = frozenset({"started", "checkpoint", "phase", "plateau", "alert", "error", "finished"})


def run_group(run_id: int) -> str:
    return f"run.{run_id}"


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def system_metrics() -> dict:
    """CPU, memory and (when present) GPU use of this worker process."""
    proc = psutil.Process()
    metrics = {
        "cpu_percent": psutil.cpu_percent(interval=None),
        "memory_percent": psutil.virtual_memory().percent,
        "process_rss_mb": round(proc.memory_info().rss / 2**20, 1),
    }
    try:
        import torch

        if torch.cuda.is_available():
            metrics["gpu_memory_mb"] = round(torch.cuda.memory_allocated() / 2**20, 1)
            metrics["gpu_name"] = torch.cuda.get_device_name()
    except ImportError:
        pass
    return metrics


def enrich(event: Event) -> dict:
    """The stored payload: attention events also carry the graph drawn from them."""
    payload = dict(event.payload)
    if event.type == "attention" and "agents" in payload and "matrix" in payload:
        try:
            payload["graph"] = communication_graph(payload["agents"], payload["matrix"])
        except ValueError as exc:  # a malformed matrix is stored as is, with the reason
            payload["graph_error"] = str(exc)
    return payload


def append_ending(run_id: int, status: str, error: str = "") -> None:
    """Close a run's event stream when it ends outside its trainer (a queued run cancelled, a run given
    up on): an `error` event with the reason, if any, then one `finished` event, so followers stop.

    Call it inside the transaction that moves the run to its terminal state; the events are published
    once it commits. Nothing is added when the stream already ends with `finished` of this status.
    """
    status = str(status)  # a plain string, not the model's enum, goes into the payload
    last = RunEvent.objects.filter(run_id=run_id).order_by("-seq").first()
    if last is not None and last.type == "finished" and last.payload.get("status") == status:
        return
    seq, now = last.seq if last else 0, timezone.now()
    rows = [RunEvent(run_id=run_id, type="error", payload={"message": error}, time=now)] if error else []
    rows.append(RunEvent(run_id=run_id, type="finished", payload={"status": status, "metrics": {}}, time=now))
    for row in rows:
        seq += 1
        row.seq = seq
    RunEvent.objects.bulk_create(rows)

    def publish() -> None:
        try:
            message = {"type": "run.events", "events": [e.as_message() for e in rows]}
            publisher().send(run_group(run_id), message)
        except Exception:  # stored: a live viewer's next reconnect or gap fill reads them
            log.exception("could not publish the end of run %s", run_id)

    transaction.on_commit(publish)


def ending_state(status: object) -> str:
    """The run state a trainer's `finished` status stands for (anything unknown is a failure)."""
    return {"succeeded": Run.State.SUCCEEDED, "cancelled": Run.State.CANCELLED}.get(
        str(status), Run.State.FAILED
    )


def checkpoint_episode(payload: dict) -> int:
    """Episodes played when a checkpoint was written. REINFORCE checkpoints say it as `episode`; MAPPO
    ones carry it in their metrics, beside `step`, which counts updates, not episodes."""
    metrics = payload.get("metrics") if isinstance(payload.get("metrics"), dict) else {}
    for value in (payload.get("episode"), metrics.get("episode"), payload.get("step")):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return max(0, int(value))
    return 0


class RunEventRecorder:
    def __init__(
        self,
        run_id: int,
        flush_interval: float = 0.02,
        max_batch: int = 200,
        heartbeat_every: float = 2.0,
        system_every: float = 5.0,
    ):
        self.run_id = run_id
        self.flush_interval = flush_interval
        self.max_batch = max_batch
        self.heartbeat_every = heartbeat_every
        self.system_every = system_every
        self._buffer: list[RunEvent] = []
        self.gone = False  # the run was deleted while recording: later events are dropped
        self._lock = threading.Lock()  # guards the buffer
        self._write_lock = threading.Lock()  # one batch at a time, in order
        self._stop = threading.Event()
        self._started = threading.Event()  # system metrics only after the trainer's "started"
        self._thread = threading.Thread(target=self._background, name=f"run-{run_id}-recorder", daemon=True)

    def attach(self, stream: EventStream) -> RunEventRecorder:
        self.stream = stream
        stream.add_sink(self)
        self._thread.start()
        return self

    def __call__(self, event: Event) -> None:
        row = RunEvent(
            run_id=self.run_id,
            seq=event.seq,
            type=event.type,
            payload=enrich(event),
            time=datetime.fromtimestamp(event.time, tz=UTC),
        )
        if event.type == "started":
            self._started.set()
        elif event.type == "finished":  # no system metrics after the end: `finished` stays the last event
            self._started.clear()
        with self._lock:
            self._buffer.append(row)
            full = len(self._buffer) >= self.max_batch
        if full or event.type in FLUSH_AT_ONCE:
            self.flush()

    def flush(self) -> int:
        with self._write_lock:
            with self._lock:
                batch, self._buffer = self._buffer, []
            if not batch:
                return 0
            if self.gone:
                return 0
            try:
                self._write(batch)
            except DatabaseError as exc:
                if isinstance(exc, IntegrityError) and not Run.objects.filter(pk=self.run_id).exists():
                    # The run was deleted while it ran: its events have nowhere to go. Retrying would
                    # fail forever (and hold locks a database flush or migration waits for).
                    self.gone = True
                    log.warning("run %s was deleted; dropping its events", self.run_id)
                    return 0
                with self._lock:  # put the batch back so the next flush writes it in order
                    self._buffer[:0] = batch
                raise
            try:
                publisher().send(
                    run_group(self.run_id), {"type": "run.events", "events": [e.as_message() for e in batch]}
                )
            except Exception:  # the database has the events; live viewers will backfill from it
                log.exception("could not publish %d events of run %s", len(batch), self.run_id)
            return len(batch)

    def _write(self, batch: list[RunEvent]) -> None:
        with transaction.atomic():
            RunEvent.objects.bulk_create(batch)
            ending = next((e for e in reversed(batch) if e.type == "finished"), None)
            if ending is not None:
                # The end is stored with the state it implies: a worker killed between the two would
                # otherwise leave a "running" run whose stream has ended, and its next delivery would
                # train again and end it twice.
                metrics = ending.payload.get("metrics")
                Run.objects.filter(pk=self.run_id).update(
                    state=ending_state(ending.payload.get("status")),
                    finished_at=timezone.now(),
                    **({"metrics": metrics} if isinstance(metrics, dict) else {}),
                )
            Checkpoint.objects.bulk_create(
                Checkpoint(
                    run_id=self.run_id,
                    step=checkpoint_episode(e.payload),
                    path=str(e.payload.get("path", "")),
                    metrics=e.payload.get("metrics", {}),
                )
                for e in batch
                if e.type == "checkpoint"
            )

    def heartbeat(self) -> None:
        Run.objects.filter(pk=self.run_id).update(heartbeat_at=timezone.now())

    def _background(self) -> None:
        last_beat = last_system = 0.0
        try:
            while not self._stop.wait(self.flush_interval):
                try:
                    self.flush()
                    now = time.monotonic()
                    if now - last_beat >= self.heartbeat_every:
                        self.heartbeat()
                        last_beat = now
                    if self._started.is_set() and now - last_system >= self.system_every:
                        self.stream.emit("metrics", system=system_metrics())
                        last_system = now
                except DatabaseError:  # a busy or briefly unreachable database: keep the batch, retry
                    log.warning("run %s: recorder could not write; retrying", self.run_id, exc_info=True)
        finally:
            connection.close()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self.flush()
        close_old_connections()
