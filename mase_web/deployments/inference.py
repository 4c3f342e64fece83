"""Run tickets through a deployed team: the breaker from the row, every decision stored and streamed.

`run_ticket` / `answer_ticket` are what the synchronous API, the browser and the Celery batch job call.
After the team has decided, its agents write the reply (`deployments.writing`, under the writer's own
breaker); its text is streamed as it is written (``reply_chunk`` events, tagged with the part's index and
agent, then one ``reply_part`` per settled part) and the reply is stored beside the decisions.
Concurrent tickets to one deployment in one process are micro-batched: they join an open *group* and the
group's first ticket (its leader) reads the runtime's breaker from the deployment's row once, creates every
episode row, and lets each ticket play in its own thread at the same time (the runtime answers their steps
with batched forwards); the decision records of each step are published to the deployment's group the
moment they are made. Then the leader stores every step (one bulk insert) and episode and saves the breaker
once, in one short transaction under the row lock (`breaker_store.save_played`: if another process saved
meanwhile, what this group's breaker was told is replayed onto the row's state), so several processes
play one deployment's groups at the same time; in one process its groups take turns (they share the
runtime's breaker). A group gathers while the previous one plays (and, when other tickets are in flight,
for up to ``MASE_TICKET_BATCH_WINDOW_S``), so a lone ticket waits for nothing.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction

from mase_web.deployments import breaker_store, live, plain_insert, runtimes, shadow, writing
from mase_web.deployments.models import BatchJob, DecisionStep, Deployment, Episode, Reply
from serving.runtime import LabelledTicket

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TicketRequest:
    """One task for the team: the customer's text, and the ground truth when known (batch files)."""

    text: str
    task_id: str = ""
    intents: tuple[str, ...] | None = None
    # a large team's stream of tasks: the reset options it is played with (no text to match, no reply written)
    options: Mapping[str, Any] | None = None
    seed: int | None = None

    def as_runtime_input(self, request_id: str) -> LabelledTicket | str:
        if self.intents is None:
            return self.text
        return LabelledTicket(id=self.task_id or request_id, text=self.text, intents=tuple(self.intents))


def search_text(record: dict) -> str:
    """Observation, action, reason and fault of a decision as one plain text (full-text search)."""
    reason = record.get("reason") or {}
    parts = [
        record["agent"],
        record["action"],
        json.dumps(record.get("observation"), ensure_ascii=False),
        " ".join(str(a.get("action")) for a in reason.get("alternatives") or []),
        str(reason.get("rule") or ""),
        str(record.get("fault") or ""),
    ]
    return " ".join(p for p in parts if p)


def step_row(episode: Episode, record: dict) -> DecisionStep:
    observation = record.get("observation")
    return DecisionStep(
        episode=episode,
        step=record["step"],
        agent=record["agent"],
        observation=observation
        if isinstance(observation, str)
        else json.dumps(observation, ensure_ascii=False),
        action=record["action"],
        action_index=record.get("action_index"),
        source=record["source"],
        confidence=record.get("confidence"),
        reason=record.get("reason") or {},
        messages=record.get("messages") or {},
        latency_ms=record.get("latency_ms") or 0.0,
        reward=record.get("reward"),
        breaker_state=record["breaker_state"],
        fault=record.get("fault") or "",
        search_text=search_text(record),
    )


def reply_row(episode: Episode, reply: dict) -> Reply:
    """The written reply as stored: text, parts, tokens, latency, cost, backend, its first fault and every
    fault kind of its parts (a reply whose third part faulted is a faulted reply)."""
    faults = reply.get("faults") or []
    kinds = list(dict.fromkeys(str(f["kind"])[:32] for f in faults if f.get("kind")))
    return Reply(
        episode=episode,
        text=reply["text"],
        parts=reply.get("parts") or [],
        backend=str(reply.get("backend") or "template")[:32],
        model=str(reply.get("model") or "")[:200],
        prompt_tokens=int(reply["usage"]["prompt_tokens"]),
        completion_tokens=int(reply["usage"]["completion_tokens"]),
        latency_ms=float(reply.get("latency_ms") or 0.0),
        cost=float(reply.get("cost") or 0.0),
        fault=kinds[0] if kinds else "",
        fault_kinds=f",{','.join(kinds)}," if kinds else "",
        fallback=bool(reply.get("fallback")),
    )


def _summary(result: dict) -> dict[str, Any]:
    """The result as stored on the episode: everything but the per-agent records (those are rows)."""
    return {k: v for k, v in result.items() if k != "decisions"}


@dataclass(eq=False)
class Answer:
    """A played ticket: its stored episode, that episode as the API shows it, and the runtime's result."""

    episode: Episode
    episode_data: dict[str, Any]
    result: dict[str, Any]


@dataclass(eq=False)
class _Ticket:
    """One caller's ticket inside a group, and the hand-offs between its thread and the group's leader."""

    request: TicketRequest
    source: str
    user: Any
    batch: BatchJob | None
    request_id: str
    writer: Any = None  # the deployment's reply writer (deployments.writing)
    episode: Episode | None = None
    answer: Answer | None = None
    result: dict[str, Any] | None = None
    error: BaseException | None = None
    started: threading.Event = field(default_factory=threading.Event)  # leader: its row exists, play it
    played: threading.Event = field(default_factory=threading.Event)  # ticket: result or error is set
    stored: threading.Event = field(default_factory=threading.Event)  # leader: committed (or failed)


@dataclass(eq=False)
class _Group:
    """Tickets of one deployment gathered in this process, played under one row lock."""

    runtime: Any
    tickets: list[_Ticket]
    grew: threading.Condition = field(default_factory=threading.Condition)


_open_groups: dict[int, _Group] = {}
_in_flight: dict[int, int] = {}
_playing: dict[int, threading.Lock] = {}
_groups_guard = threading.Lock()


def _join(deployment_id: int, runtime: Any, ticket: _Ticket, limit: int) -> tuple[_Group, bool]:
    """Add the ticket to the deployment's open group (or open one); True when it leads the group."""
    with _groups_guard:
        _in_flight[deployment_id] = _in_flight.get(deployment_id, 0) + 1
        group = _open_groups.get(deployment_id)
        if group is not None and len(group.tickets) < limit:
            with group.grew:
                group.tickets.append(ticket)
                group.grew.notify()
            return group, False
        group = _Group(runtime, [ticket])
        _open_groups[deployment_id] = group
        return group, True


def _close(deployment_id: int, group: _Group) -> list[_Ticket]:
    """No ticket joins the group any more; its tickets, leader first."""
    with _groups_guard:
        if _open_groups.get(deployment_id) is group:
            del _open_groups[deployment_id]
        return list(group.tickets)


def _leave(deployment_id: int) -> None:
    with _groups_guard:
        _in_flight[deployment_id] -= 1
        if not _in_flight[deployment_id]:
            del _in_flight[deployment_id]


def _play(runtime: Any, ticket: _Ticket) -> None:
    """Play one ticket in this thread, streaming its decisions; the result (or error) goes on the ticket."""
    deployment_id, episode_id = ticket.episode.deployment_id, ticket.episode.pk

    def on_step(records: list[dict]) -> None:
        events = [
            {"kind": "step", "episode": episode_id, "request_id": ticket.request_id, "record": r}
            for r in records
        ]
        live.publish_many(deployment_id, events)

    def on_part(index: int, part: dict) -> None:
        event = {"kind": "reply_part", "episode": episode_id, "request_id": ticket.request_id}
        live.publish_many(deployment_id, [{**event, "index": index, "part": part}])

    def on_chunk(index: int, agent: str, text: str) -> None:
        event = {"kind": "reply_chunk", "episode": episode_id, "request_id": ticket.request_id}
        live.publish_many(deployment_id, [{**event, "index": index, "agent": agent, "text": text}])

    # a batch's tickets are watched as progress, not read as they are written: no chunks for them
    streaming = on_chunk if ticket.batch is None else None

    try:
        if ticket.request.options is not None:  # a large team's stream: its allocations are what is watched
            _play_stream(runtime, ticket)
            return
        with runtimes.listening(ticket.request_id, on_step):
            ticket.result = runtime.run_ticket(
                ticket.request.as_runtime_input(ticket.request_id), request_id=ticket.request_id
            )
        # the team decided; now its agents write (each ticket in its own thread, under the writer's breaker)
        ticket.result["reply"] = writing.reply_for(
            ticket.writer, ticket.request.text, ticket.result, on_part, streaming
        )
    except BaseException as exc:  # noqa: BLE001 - handed to the ticket's caller, the group carries on
        ticket.error = exc
    finally:
        ticket.played.set()


def _play_stream(runtime: Any, ticket: _Ticket) -> None:
    """Play a large team's stream of tasks: each step's allocation (the task, who bid what, who won) and the
    team's load (backlog and online per agent) go out as one ``allocation`` event; the per-agent decision
    records are stored, not streamed (a hundred agents would send a hundred records a task)."""
    deployment_id, episode_id = ticket.episode.deployment_id, ticket.episode.pk

    def on_info(step: int, info: Mapping[str, Any]) -> None:
        if "allocation" in info and "load" in info:
            event = {
                "kind": "allocation",
                "episode": episode_id,
                "request_id": ticket.request_id,
                "step": step,
            }
            live.publish_many(
                deployment_id, [{**event, "allocation": info["allocation"], "load": info["load"]}]
            )

    with runtimes.listening(ticket.request_id, lambda records: None, on_info):
        ticket.result = runtime.run(
            dict(ticket.request.options), request_id=ticket.request_id, seed=ticket.request.seed
        )


def _store(locked: Deployment, runtime: Any, tickets: list[_Ticket], seen: dict[str, Any]) -> None:
    """The played tickets' steps (one bulk insert) and episodes, the breaker once; failed tickets' rows go."""
    from mase_web.deployments.serializers import EpisodeSerializer

    played = [t for t in tickets if t.error is None]
    failed = [t.episode.pk for t in tickets if t.error is not None]
    if failed:  # a ticket that raised leaves no episode behind (as a rolled-back transaction would)
        Episode.objects.filter(pk__in=failed).delete()
    plain_insert.insert_rows([step_row(t.episode, r) for t in played for r in t.result["decisions"]])
    plain_insert.insert_rows([reply_row(t.episode, t.result["reply"]) for t in played if "reply" in t.result])
    for t in played:
        episode, result = t.episode, t.result
        result["group_size"] = len(tickets)  # tickets played together under this lock (micro-batching)
        episode.status = result["status"]
        episode.result = _summary(result)
        episode.reward = result["reward"]
        episode.breaker_state = result["breaker"]
        episode.task_id = t.request.task_id or str(result.get("task_id") or "")
    episodes = [t.episode for t in played]
    for episode in episodes:  # one UPDATE each: Django's bulk_update (CASE per row) costs twice the CPU
        episode.save(update_fields=["status", "result", "reward", "breaker_state", "task_id"])
    breaker_store.save_played(locked, runtime.breaker, seen)
    shown = EpisodeSerializer(episodes, many=True).data  # one serializer for the group: fields built once
    for t, data in zip(played, shown, strict=True):
        t.answer = Answer(t.episode, data, t.result)

    finished = [{"kind": "episode", "episode": data} for data in shown]
    transaction.on_commit(lambda: live.publish_many(locked.pk, finished))


def _playing_turn(deployment_id: int) -> threading.Lock:
    """One group of a deployment plays at a time in a process: they share the runtime's breaker."""
    with _groups_guard:
        return _playing.setdefault(deployment_id, threading.Lock())


def _lead(deployment_id: int, group: _Group, limit: int, window_s: float) -> None:
    """Wait for company, then play the group and store it; every ticket of the group gets its answer or an
    error, and no ticket is still playing when the group is stored. The row is locked only to store: other
    processes play their groups of the deployment meanwhile (`breaker_store.save_played` merges)."""
    from mase_web.deployments.serializers import EpisodeSerializer

    if window_s > 0 and _in_flight.get(deployment_id, 0) > 1:  # others are about: let them catch up
        with group.grew:
            group.grew.wait_for(lambda: len(group.tickets) >= limit, timeout=window_s)
    episodes: list[Episode] = []
    stored = False
    try:
        with _playing_turn(deployment_id):
            tickets = _close(deployment_id, group)
            runtime = group.runtime
            read_at = time.monotonic()
            deployment = Deployment.objects.defer("spec").get(pk=deployment_id)  # the runtime has the spec
            # an operator's word from another process; one heard here after this read stands (`Roster.set`)
            runtime.roster.set(deployment.offline_agents or [], as_of=read_at)
            seen = breaker_store.playing_breaker(deployment, runtime.breaker)
            try:
                episodes = [
                    Episode(
                        deployment=deployment,
                        request_id=t.request_id,
                        task_id=t.request.task_id,
                        task_text=t.request.text,
                        source=t.source,
                        batch=t.batch,
                        breaker_state=runtime.breaker.state,
                        created_by=t.user if t.user is not None and t.user.is_authenticated else None,
                    )
                    for t in tickets
                ]
                with breaker_store.group_turn(deployment_id):
                    if len(episodes) == 1:
                        episodes[0].save(force_insert=True)
                    else:
                        Episode.objects.bulk_create(episodes)
                for t, episode in zip(tickets, episodes, strict=True):
                    t.episode = episode
                shown = EpisodeSerializer(episodes, many=True).data
                live.publish_many(deployment_id, [{"kind": "episode", "episode": data} for data in shown])
                for t in tickets[1:]:
                    t.started.set()
                _play(runtime, tickets[0])
            finally:
                for t in tickets[1:]:
                    if t.started.is_set():
                        t.played.wait()  # the breaker is this group's until every ticket has played
            with breaker_store.locked_deployment(deployment_id, defer=("spec",)) as locked:
                _store(locked, runtime, tickets, seen)
            stored = True
    except BaseException as exc:
        for t in _close(deployment_id, group):  # also those gathered when the lock could not be taken
            if t.answer is None and t.error is None:
                t.error = exc
        if episodes and not stored:  # nothing of a group that failed stays behind, as before it played
            _discard([e.pk for e in episodes if e.pk is not None])
        raise
    finally:
        for t in group.tickets:
            t.started.set()
            t.stored.set()


def _discard(episode_ids: list[int]) -> None:
    try:
        Episode.objects.filter(pk__in=episode_ids).delete()
    except Exception:  # noqa: BLE001 - the group's own error is the one its callers need
        log.warning("could not remove the episodes %s of a failed group", episode_ids, exc_info=True)


def answer_ticket(
    deployment: Deployment,
    request: TicketRequest,
    source: str,
    user=None,
    batch: BatchJob | None = None,
) -> Answer:
    """Play one ticket (micro-batched with concurrent tickets of the deployment in this process); returns
    the stored episode, its API representation and the runtime's full result (with its decisions).

    Model faults never fail it (the fallback answers); a runtime that cannot be built raises ValueError.
    """
    runtime = runtimes.runtime_for(deployment)  # outside the lock: the first build takes seconds
    writer = writing.writer_for(deployment)  # likewise (a local model loads once per process)
    ticket = _Ticket(
        request, source, user, batch, request_id=f"{source}-{uuid.uuid4().hex[:16]}", writer=writer
    )
    limit = max(1, int(getattr(settings, "MASE_TICKET_BATCH_MAX", 32)))
    window_s = float(getattr(settings, "MASE_TICKET_BATCH_WINDOW_S", 0.002))
    group, leads = _join(deployment.pk, runtime, ticket, limit)
    try:
        if leads:
            try:
                _lead(deployment.pk, group, limit, window_s)
            except BaseException:
                if ticket.error is None:
                    raise
        else:
            ticket.started.wait()
            if ticket.error is None:
                _play(group.runtime, ticket)
            ticket.stored.wait()
    finally:
        _leave(deployment.pk)
    if ticket.error is not None:
        raise ticket.error
    if request.options is None:  # a candidate in shadow answers it too, silently, after the champion
        shadow.after_answer(deployment.pk, ticket.answer.episode)
    return ticket.answer


def run_ticket(
    deployment: Deployment,
    request: TicketRequest,
    source: str,
    user=None,
    batch: BatchJob | None = None,
) -> tuple[Episode, dict[str, Any]]:
    """Play one ticket; returns the stored episode and the runtime's full result (see `answer_ticket`)."""
    answer = answer_ticket(deployment, request, source, user, batch)
    return answer.episode, answer.result
