"""Inference runtime: run a trained team on one task step by step, with decision logs and a breaker.

`TeamRuntime` plays one episode of a PettingZoo ParallelEnv per request (a customer-service ticket, a
report topic …) with a trained team (`training.mappo.MappoTrainer`, fresh or from a checkpoint). Every
step it asks the `CircuitBreaker` who answers — the team, the half-open trial, or the rule fallback —
and writes one decision-log record per agent (docs/design.md#runtime-and-decision-log):

    {"request_id", "task_id", "step", "agent", "observation" (summary), "action", "action_index",
     "source": "model" | "trial" | "fallback", "confidence", "reason": {"alternatives": [{"action", "p"}],
     "rule", "text" | "text_error"}, "messages": {"received": [{"from", "weight"}], "sent": [{"to", "weight"}]}, "latency_ms",
     "reward", "breaker_state", "fault"}

``confidence`` is the team's probability of the action it chose — calibrated when the checkpoint carries a
calibration (per-agent temperatures fitted on the dev split after training, `training.mappo.calibration`),
so that 0.6 means "right about 60 % of the time" — (None when the model was not asked or
failed); ``reason.alternatives`` are the top-k actions with their probabilities; ``reason.rule`` says which
rule answered when the fallback did; ``reason.text`` (only when the backbone is a causal LM and
``RuntimeConfig.explain_tokens`` > 0, only on model-answered steps) is the LM's greedy continuation of
"Agent … observed: … It chose: … Because", generated for all agents of a step in one batched call;
``reason.text_error`` replaces it when generation failed (which never fails the request); ``messages`` are the learned-communication attention weights
(α_ij: how much agent i listened to agent j this step). ``reward`` is the environment's reward for the
step (None when the task's ground truth is unknown, e.g. a ticket typed in by a user).

Faults never fail a request: a backbone that raises or exceeds ``timeout_s``, NaN/inf outputs, or an
episode past the breaker's step limit open the breaker, and the fallback answers the step. Everything is
thread-safe: a web server may call `run` / `run_batch` from many threads on one runtime. Steps of
concurrent requests are answered together by one model thread (`StepBatcher`: one backbone call and one
actor forward per batch), which is also what lets a hung backbone time out instead of hanging a request.

Public API (what the web layer calls):

- `TeamRuntime.from_spec_checkpoint(team_spec, checkpoint_dir, ...)` or `TeamRuntime(trainer, env_factory,
  breaker, fallback, ...)`; `run(options)`, `run_ticket(ticket_or_text)`, `run_batch(tasks, concurrency)`,
  `status()`, `close()` (or use it as a context manager);
- `runtime.breaker` (`serving.breaker.CircuitBreaker`): `force_open(who, why)`, `force_closed(who, why)`,
  `snapshot()`, `transitions`, `alerts`; alerts also go out as ``alert`` events (``source="breaker"``);
- `DecisionLog` — a ready-made ``decision_sink`` (memory + JSONL).

CLI: ``python -m serving.runtime SPEC --checkpoint RUN_DIR --ticket "where is my parcel?"`` (`register`
adds it as ``mase run`` once listed in `training.cli.COMMAND_MODULES`).
"""

from __future__ import annotations

import concurrent.futures as futures
import itertools
import json
import math
import queue
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.backbone import Backbone
from agents.envs import make_env, team_kwargs
from agents.envs.customer_service.tickets import Ticket, load_tickets
from agents.protocol.link import raw_message_bytes
from agents.spec import load_spec
from serving.breaker import (
    HALF_OPEN,
    ROUTE_FALLBACK,
    ROUTE_MODEL,
    ROUTE_TRIAL,
    BreakerConfig,
    CircuitBreaker,
    Fallback,
    make_fallback,
)
from training.events import EventStream
from training.mappo import config_from_spec, trained_team
from training.mappo.calibration import load_calibration, temperature_vector


@dataclass
class RuntimeConfig:
    """Knobs of the runtime (the breaker's thresholds live in `BreakerConfig`)."""

    top_k: int = 3  # alternatives listed in each decision's reason
    timeout_s: float | None = 2.0  # a model step slower than this is a fault (None = no limit)
    max_batch: int = 32  # concurrent requests' steps are answered by one batched forward, up to this many
    greedy: bool = True  # act on the most probable action (False: sample, for diversity)
    summary_chars: int = 200  # text fields of an observation are cut to this length in the log
    log_decisions: bool = True  # keep per-agent records in each result (off for load tests)
    protocol_every: int = 20  # requests between "metrics" events of the HCP link's statistics
    explain_tokens: int = 24  # causal LM backbones: tokens of generated "reason" text per decision (0 = off)


class RuntimeInputError(ValueError):
    """Bad input to the runtime (unknown ticket, malformed task); the message says what to change."""


class TeamModel:
    """The trained team as a pure function of one joint observation (read-only; thread-safe).

    Wraps a `MappoTrainer`: features (cached text embeddings through the frozen backbone), then the
    decentralised actors with learned communication. Returns action probabilities and attention.
    """

    def __init__(self, trainer: Any, temperature: torch.Tensor | None = None):
        self.trainer = trainer
        self.agents: list[str] = list(trainer.agents)
        self.n_actions: list[int] = list(trainer.n_actions)
        # per-agent temperatures fitted after training (training.mappo.calibration): confidence = how often
        # such a decision is right; None = the raw policy probabilities
        self.temperature = None if temperature is None else temperature.float().reshape(1, -1, 1)
        self._feature_lock = threading.Lock()  # tokenizers and the embedding caches are not thread-safe

    def forward(self, observations: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(probs [N, A_max] over valid actions, attention α [N, N] or None) for one step."""
        return self.forward_many([observations])[0]

    def forward_many(
        self, batch: Sequence[Mapping[str, Any]]
    ) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        """`forward` for the steps of several requests at once: one backbone call, one actor call."""
        t, n = self.trainer, len(self.agents)
        present = torch.tensor([[a in obs for a in self.agents] for obs in batch])
        with self._feature_lock:
            flat = t.featurize([obs.get(a) for obs in batch for a in self.agents], t.obs_dim)
        valid = torch.stack([t.valid_actions(obs) for obs in batch])
        obs = flat.reshape(len(batch), n, -1)
        heard = self._hear(obs, present, batch)
        with torch.no_grad():
            logits, alpha = t.actor(obs, None, 0.0, present, valid, heard)
            probs = torch.softmax(logits if self.temperature is None else logits / self.temperature, -1)
        return [(probs[i], alpha[i] if alpha is not None else None) for i in range(len(batch))]

    @property
    def backbone(self) -> Any:
        """The backbone the team reads text through (its featurizer's), or None."""
        return getattr(getattr(self.trainer, "featurize", None), "backbone", None)

    @property
    def can_explain(self) -> bool:
        """Whether the team's backbone is a causal LM that can generate text."""
        backbone = self.backbone
        return getattr(backbone, "is_causal", False) is True and callable(getattr(backbone, "generate", None))

    def explain(self, prompts: Sequence[str], max_new_tokens: int) -> list[str]:
        """The backbone's greedy continuations of `prompts` (under the feature lock: one tokenizer/model)."""
        with self._feature_lock:
            return self.backbone.generate(prompts, max_new_tokens)

    @property
    def link(self) -> Any:
        """The team's HCP link (`agents.protocol.link.HcpLink`), or None when messages go uncompressed."""
        return getattr(self.trainer, "link", None)

    def _hear(
        self, obs: torch.Tensor, present: torch.Tensor, batch: Sequence[Mapping[str, Any]]
    ) -> torch.Tensor | None:
        # Under HCP each agent's observation reaches the others as one compressed frame per step batch,
        # decoded with the codebook saved in the checkpoint.
        if self.link is None:
            return None
        send = (present & self.trainer.actor.allowed.any(0)).numpy()
        raw = np.array([[raw_message_bytes(o.get(a)) for a in self.agents] for o in batch])
        return torch.as_tensor(self.link.transmit(obs.numpy(), send, raw))


class StepBatcher:
    """One model thread answering the steps of concurrent requests in batches (dynamic batching).

    Requests `submit` their step and wait on a future (with a timeout, so a hung backbone cannot hang
    them). The thread takes whatever has queued up while the previous batch ran — no waiting window,
    so a lone request pays nothing — and answers up to ``max_batch`` steps with one forward pass.
    """

    def __init__(self, model: TeamModel, max_batch: int = 32):
        self.model, self.max_batch = model, max(1, int(max_batch))
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="mase-model", daemon=True)
        self._thread.start()
        self.batches = 0
        self.steps = 0

    def submit(self, observations: Mapping[str, Any]) -> futures.Future:
        """Queue one step; the future resolves to `TeamModel.forward`'s result or its exception."""
        future: futures.Future = futures.Future()
        self._queue.put((future, observations))
        return future

    def close(self) -> None:
        """Stop the model thread after the queued steps."""
        self._queue.put(None)

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
                    self._queue.put(None)  # finish this batch, then stop
                    break
                batch.append(more)
            live = [(f, obs) for f, obs in batch if f.set_running_or_notify_cancel()]
            if not live:
                continue
            self.batches += 1
            self.steps += len(live)
            try:
                outputs = self.model.forward_many([obs for _, obs in live])
            except BaseException as exc:  # noqa: BLE001 - every waiting request gets the fault
                for f, _ in live:
                    f.set_exception(exc)
                continue
            for (f, _), out in zip(live, outputs, strict=True):
                f.set_result(out)


def _plain(value: Any) -> Any:
    """JSON-safe copy: arrays/tensors to lists, NaN/inf to None, tuples to lists."""
    if isinstance(value, torch.Tensor | np.ndarray):
        value = value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    return repr(value)


def _situation(observation: Any) -> Any:
    """What an agent saw, without its own prompt: the prompt is part of the policy (recorded with the
    checkpoint's roster), and repeating it in every decision would bloat the log and its search."""
    if isinstance(observation, Mapping) and "prompt" in observation:
        return {k: v for k, v in observation.items() if k != "prompt"}
    return observation


def summarise_observation(observation: Any, chars: int = 200) -> Any:
    """A short, JSON-safe view of an observation: texts cut to ``chars``, big arrays as their shape."""
    if isinstance(observation, str):
        return observation if len(observation) <= chars else observation[: chars - 1] + "…"
    if isinstance(observation, Mapping):
        return {str(k): summarise_observation(v, chars) for k, v in observation.items()}
    if isinstance(observation, torch.Tensor | np.ndarray):
        array = np.asarray(
            observation.detach().cpu() if isinstance(observation, torch.Tensor) else observation
        )
        return _plain(array) if array.size <= 32 else {"shape": list(array.shape)}
    return _plain(observation)


def _observation_text(summary: Any, chars: int) -> str:
    """One line of an observation summary for a prompt: its text and number fields, ``key: value``."""
    if isinstance(summary, Mapping):
        parts = [f"{k}: {v}" for k, v in summary.items() if isinstance(v, str | int | float)]
        text = "; ".join(parts)
    else:
        text = str(summary)
    return text[:chars]


def _action_names(env: Any, agents: Sequence[str], n_actions: Sequence[int]) -> dict[str, list[str]]:
    """Action names from the env's ``action_names(agent)`` (a drawn team's), else its module's
    ``ROLE_ACTIONS`` table, else the indices."""
    table = getattr(sys.modules.get(type(env).__module__), "ROLE_ACTIONS", None)
    own = getattr(env, "action_names", None)
    names = {}
    for agent, n in zip(agents, n_actions, strict=True):
        if callable(own):
            given = list(own(agent))
        else:
            given = list(table.get(agent, ())) if isinstance(table, Mapping) else []
        names[agent] = given if len(given) == n else [str(i) for i in range(n)]
    return names


class DecisionLog:
    """A ready-made, thread-safe ``decision_sink``: the last ``maxlen`` records in memory, optionally
    appended to a JSONL file (one record per line) as they arrive."""

    def __init__(self, maxlen: int = 100_000, path: str | Path | None = None):
        self._records: deque[dict[str, Any]] = deque(maxlen=maxlen)
        self._lock = threading.Lock()
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)

    def append(self, record: Mapping[str, Any]) -> None:
        """Keep one decision record (and write it to the JSONL file, when one is set)."""
        record = dict(record)
        with self._lock:
            self._records.append(record)
            if self.path is not None:
                with self.path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(record, ensure_ascii=False) + "\n")

    def records(self, request_id: str | None = None, agent: str | None = None) -> list[dict[str, Any]]:
        """Kept records, oldest first, optionally only one request's and/or one agent's."""
        with self._lock:
            items = list(self._records)
        return [
            r
            for r in items
            if (request_id is None or r["request_id"] == request_id)
            and (agent is None or r["agent"] == agent)
        ]

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)


class TeamRuntime:
    """Runs tasks through a trained team with a circuit breaker and rule fallback; see the module docstring.

    ``model``: a `TeamModel` (or a `MappoTrainer`, wrapped). ``env_factory()``: a fresh environment of
    the kind the team was trained in (instances are pooled and reused, one per concurrent request).
    ``breaker``: a `CircuitBreaker` (default: thresholds from `BreakerConfig`). ``fallback``: a
    `Fallback` (default: no-op actions). ``decision_sink(record)``: called with every decision record
    as it is made; ``step_sink(records)``: called once per step with all of its records (the agents of a
    step decide together; the web layer streams them as one message); ``events``: an `EventStream` for
    "log" / "alert" events.
    """

    def __init__(
        self,
        model: TeamModel | Any,
        env_factory: Callable[[], Any],
        breaker: CircuitBreaker | None = None,
        fallback: Fallback | None = None,
        config: RuntimeConfig | None = None,
        events: EventStream | None = None,
        decision_sink: Callable[[dict[str, Any]], None] | None = None,
        step_sink: Callable[[list[dict[str, Any]]], None] | None = None,
    ):
        self.model = model if isinstance(model, TeamModel) else TeamModel(model)
        self.env_factory = env_factory
        self.config = config or RuntimeConfig()
        self.events = events
        self.breaker = breaker if breaker is not None else CircuitBreaker(events=events)
        self.fallback = fallback if fallback is not None else Fallback()
        self.decision_sink = decision_sink
        self.step_sink = step_sink
        self.agents = self.model.agents
        if self.model.link is not None and events is not None:
            self.model.link.events = events  # storm alerts and codebook re-fits go to the runtime's stream
        self._envs: queue.SimpleQueue = queue.SimpleQueue()
        probe = env_factory()
        self.action_names = _action_names(probe, self.agents, self.model.n_actions)
        self._envs.put(probe)
        self._batcher = StepBatcher(self.model, self.config.max_batch) if self.config.timeout_s else None
        self._explains = self.config.explain_tokens > 0 and self.model.can_explain
        self._ids = itertools.count(1)
        self._stats_lock = threading.Lock()
        self.stats = {"requests": 0, "errors": 0, "steps": 0, "model_steps": 0, "fallback_steps": 0}

    # ---- construction ----------------------------------------------------------------------------
    @classmethod
    def from_spec_checkpoint(
        cls,
        team: Any,
        checkpoint_dir: str | Path,
        backbone: Any | None = None,
        events: EventStream | None = None,
        config: RuntimeConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
        decision_sink: Callable[[dict[str, Any]], None] | None = None,
        step_sink: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> TeamRuntime:
        """A runtime for a `TeamSpec` trained by `training.mappo.run_spec`, from its checkpoint directory.

        Builds the team exactly as training did (environment, communication links, featurizer), loads
        the weights, and takes the breaker thresholds and fallback from the spec. Raises ValueError
        (`training.mappo.CheckpointError`) naming the problem for a missing or mismatched checkpoint.
        """

        if team.training.algorithm not in ("mappo", "ippo"):
            raise RuntimeInputError(
                f"the runtime runs MAPPO/IPPO teams; this spec trains {team.training.algorithm!r}"
            )
        name, params = team.environment.name, dict(team.environment.params)
        if name is None:
            raise RuntimeInputError("the spec names no environment ($.environment.name); nothing to run")
        if backbone is None:
            b = team.backbone
            backbone = Backbone.load(b.model, pooling=b.pooling, max_length=b.max_length)
        trainer = trained_team(team, config_from_spec(team), checkpoint_dir, backbone)
        # the checkpoint's calibration, when training fitted one: the breaker then reads calibrated confidence
        temperature = temperature_vector(load_calibration(checkpoint_dir), trainer.agents)
        drawn = team_kwargs(name, team.agents)  # the drawn roster (and prompts) the team was trained as
        breaker = CircuitBreaker(
            BreakerConfig.from_spec(team.circuit_breaker), events=events, clock=clock, name=team.name
        )
        return cls(
            TeamModel(trainer, temperature),
            lambda: make_env(name, params, **drawn),
            breaker=breaker,
            fallback=make_fallback(team.fallback, name, params, team=drawn.get("team")),
            config=config,
            events=events,
            decision_sink=decision_sink,
            step_sink=step_sink,
        )

    def close(self) -> None:
        """Stop the model thread (a runtime is usable until then; also ``with TeamRuntime(...) as rt``)."""
        if self._batcher is not None:
            self._batcher.close()

    def __enter__(self) -> TeamRuntime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- running ---------------------------------------------------------------------------------
    def run(
        self,
        options: Mapping[str, Any] | None = None,
        request_id: str | None = None,
        reward_known: bool = True,
        seed: int | None = None,
    ) -> dict[str, Any]:
        """Play one task (``env.reset(options=...)``) to the end; returns the result dict (never raises
        for model faults: the fallback answers). Keys: request_id, task_id, status ("completed" |
        "truncated" | "step_limit"), steps, reward (sum; None if unknown), info (the env's last info),
        decisions (per-agent records, when logged), sources (steps per source), faults, latency_ms,
        step_latency_ms (per step), breaker (state at the end)."""
        request_id = request_id or f"req-{next(self._ids)}-{uuid.uuid4().hex[:6]}"
        env = self._acquire_env()
        try:
            return self._episode(env, dict(options or {}), request_id, reward_known, seed)
        finally:
            self._envs.put(env)

    def run_ticket(self, ticket: Any, request_id: str | None = None) -> dict[str, Any]:
        """Customer service: run one `Ticket`, or a ticket text typed by a user (reward then unknown)."""

        request_id = request_id or f"req-{next(self._ids)}-{uuid.uuid4().hex[:6]}"
        if isinstance(ticket, str):
            if not ticket.strip():
                raise RuntimeInputError("ticket text is empty; send the customer's message")
            ticket, known = Ticket(id=request_id, text=ticket, intents=()), False
        elif isinstance(ticket, Ticket):
            known = True
        else:
            raise RuntimeInputError(f"run_ticket needs a Ticket or a text, got {type(ticket).__name__}")
        return self.run({"ticket": ticket}, request_id=request_id, reward_known=known)

    def run_batch(
        self, tasks: Iterable[Mapping[str, Any] | Any], concurrency: int = 8, tickets: bool | None = None
    ) -> list[dict[str, Any]]:
        """Run many tasks on ``concurrency`` threads; results in input order.

        A task is a reset-options mapping, or (customer service) a `Ticket` / ticket text. An unexpected
        error in one task gives ``{"status": "error", "error": message}`` for it, never a failed batch.
        """
        tasks = list(tasks)

        def one(task: Any) -> dict[str, Any]:
            try:
                if tickets or (tickets is None and not isinstance(task, Mapping)):
                    return self.run_ticket(task)
                return self.run(task)
            except Exception as exc:  # noqa: BLE001 - one bad task must not fail the batch
                with self._stats_lock:
                    self.stats["errors"] += 1
                return {"status": "error", "error": f"{type(exc).__name__}: {exc}"}

        if concurrency <= 1:
            return [one(t) for t in tasks]
        with futures.ThreadPoolExecutor(concurrency, thread_name_prefix="mase-request") as pool:
            return list(pool.map(one, tasks))

    def status(self) -> dict[str, Any]:
        """Breaker snapshot plus request counters (plain JSON)."""
        with self._stats_lock:
            stats = dict(self.stats)
        if self._batcher is not None:
            stats["forward_passes"] = self._batcher.batches
            stats["batched_steps"] = self._batcher.steps
        out = {"breaker": self.breaker.snapshot(), "fallback": self.fallback.kind, "stats": stats}
        out["calibrated"] = self.model.temperature is not None
        if self.model.link is not None:
            out["protocol"] = _plain(self.model.link.stats())
        return out

    # ---- internals -------------------------------------------------------------------------------
    def _acquire_env(self) -> Any:
        try:
            return self._envs.get_nowait()
        except queue.Empty:
            return self.env_factory()

    def _model_step(self, observations: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor | None]:
        if self._batcher is None:
            return self.model.forward(observations)
        future = self._batcher.submit(observations)
        try:
            return future.result(timeout=self.config.timeout_s)
        except futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"model step took longer than {self.config.timeout_s:g} s") from None

    def _episode(
        self, env: Any, options: dict, request_id: str, reward_known: bool, seed: int | None
    ) -> dict[str, Any]:
        started = time.perf_counter()
        observations, infos = env.reset(seed=seed, options=options or None)
        info = next(iter(infos.values()), {}) if infos else {}
        task_id = info.get("ticket_id") or info.get("task_id") or options.get("task_id")
        limit = self.breaker.config.step_limit
        decisions: list[dict[str, Any]] = []
        sources = {ROUTE_MODEL: 0, ROUTE_TRIAL: 0, ROUTE_FALLBACK: 0}
        faults: list[dict[str, Any]] = []
        step_ms: list[float] = []
        total_reward: float | None = 0.0 if reward_known else None
        status, step = "completed", 0
        while env.agents:
            step += 1
            if step > 2 * limit:  # the fallback could not end it either: stop the loop here
                status = "step_limit"
                break
            t0 = time.perf_counter()
            live = {a: observations[a] for a in env.agents if a in observations}
            if step == limit + 1:
                faults.append({"step": step, "kind": "step_limit", "detail": f"past {limit} steps"})
                self.breaker.record_fault("step_limit", f"{request_id}: episode passed {limit} steps")
            route = ROUTE_FALLBACK if step > limit else self.breaker.route()
            # A trial that fails is still the trial: its decisions are logged as "trial" though rules answer them.
            trial = route == ROUTE_TRIAL
            try:
                probs = alpha = None
                fault = None
                if route != ROUTE_FALLBACK:
                    try:
                        probs, alpha = self._model_step(live)
                        if not bool(torch.isfinite(probs).all()):
                            raise FloatingPointError("the team's action probabilities are NaN or infinite")
                    except TimeoutError as exc:
                        fault = ("timeout", str(exc))
                    except FloatingPointError as exc:
                        fault = ("non_finite", str(exc))
                    except Exception as exc:  # noqa: BLE001 - any backbone/model failure is a fault, not a crash
                        fault = ("backbone_error", f"{type(exc).__name__}: {exc}")
                    if fault is not None:
                        faults.append({"step": step, "kind": fault[0], "detail": fault[1]})
                        self.breaker.record_fault(
                            fault[0], f"{request_id}: {fault[1]}", trial=route == ROUTE_TRIAL
                        )
                        probs, alpha, route = None, None, ROUTE_FALLBACK
                model_ms = (time.perf_counter() - t0) * 1000.0
                chosen: dict[str, int] = {}
                confidences: dict[str, float] = {}
                rules: dict[str, str] = {}
                if probs is not None:
                    index = {a: i for i, a in enumerate(self.agents)}
                    rows = probs.tolist()
                    for agent in live:
                        row = rows[index[agent]]
                        if self.config.greedy:
                            action = max(range(len(row)), key=row.__getitem__)
                        else:
                            action = int(torch.multinomial(probs[index[agent]], 1))
                        chosen[agent], confidences[agent] = action, float(row[action])
                    closed = self.breaker.record_step(
                        [confidences[a] for a in live], trial=route == ROUTE_TRIAL
                    )
                    if not closed:  # this step tripped the breaker (or failed the trial): rules answer it
                        route = ROUTE_FALLBACK
            except BaseException:
                if route == ROUTE_TRIAL:  # never leave the half-open trial taken but unanswered
                    self.breaker.cancel_trial()
                raise
            if route == ROUTE_FALLBACK:
                for agent, (action, rule) in self.fallback.actions(live).items():
                    chosen[agent], rules[agent] = int(action), rule
            logged = ROUTE_TRIAL if trial else route
            sources[logged] += 1
            state = HALF_OPEN if trial else self.breaker.state  # the state the trial was decided in
            next_obs, rewards, terms, truncs, infos = env.step(chosen)
            step_ms.append((time.perf_counter() - t0) * 1000.0)
            if infos:
                info = next(iter(infos.values()))
            if reward_known and rewards:
                total_reward += float(np.mean([float(r) for r in rewards.values()]))
            if self.config.log_decisions or self.decision_sink is not None or self.step_sink is not None:
                records = self._records(
                    request_id, task_id, step, live, chosen, probs, alpha, confidences, rules, logged,
                    model_ms, rewards if reward_known else None, state, fault,
                )  # fmt: skip
                if self._explains and route != ROUTE_FALLBACK:
                    self._explain(records)
                if self.config.log_decisions:
                    decisions += records
                if self.decision_sink is not None:
                    for record in records:
                        self.decision_sink(record)
                if self.step_sink is not None:
                    self.step_sink(records)
            observations = next_obs
            if any(truncs.values()) and not any(terms.values()):
                status = "truncated"
        latency = (time.perf_counter() - started) * 1000.0
        with self._stats_lock:
            self.stats["requests"] += 1
            self.stats["steps"] += step
            self.stats["model_steps"] += sources[ROUTE_MODEL] + sources[ROUTE_TRIAL]
            self.stats["fallback_steps"] += sources[ROUTE_FALLBACK]
            requests = self.stats["requests"]
        link = self.model.link
        if (
            link is not None
            and self.events is not None
            and requests % max(1, self.config.protocol_every) == 0
        ):
            self.events.emit("metrics", step=requests, **link.metrics())
        result = {
            "request_id": request_id,
            "task_id": task_id,
            "status": status,
            "steps": len(step_ms),
            "reward": total_reward,
            "info": _plain(info),
            "decisions": decisions,
            "sources": sources,
            "faults": faults,
            "latency_ms": latency,
            "step_latency_ms": step_ms,
            "breaker": self.breaker.state,
        }
        if self.events is not None:
            self.events.emit(
                "log",
                message=f"{request_id}: {status} in {len(step_ms)} steps, {latency:.1f} ms "
                f"(model {sources[ROUTE_MODEL] + sources[ROUTE_TRIAL]}, fallback {sources[ROUTE_FALLBACK]})",
                request_id=request_id,
                task_id=task_id,
                status=status,
                latency_ms=latency,
                sources=sources,
                faults=[f["kind"] for f in faults],
            )
        return result

    def _explain(self, records: list[dict[str, Any]]) -> None:
        """Add the LM's generated ``reason.text`` to one step's records (``text_error`` if it fails)."""
        prompts = [
            f"Agent {r['agent']} observed: {_observation_text(r['observation'], self.config.summary_chars)}\n"
            f"It chose: {r['action']}\nBecause"
            for r in records
        ]
        try:
            texts = self.model.explain(prompts, self.config.explain_tokens)
        except Exception as exc:  # noqa: BLE001 - an explanation is optional; the decision stands without it
            for record in records:
                record["reason"]["text_error"] = f"{type(exc).__name__}: {exc}"
            return
        for record, text in zip(records, texts, strict=True):
            record["reason"]["text"] = str(text)

    def _records(
        self,
        request_id: str,
        task_id: Any,
        step: int,
        live: Mapping[str, Any],
        chosen: Mapping[str, int],
        probs: torch.Tensor | None,
        alpha: torch.Tensor | None,
        confidences: Mapping[str, float],
        rules: Mapping[str, str],
        route: str,
        model_ms: float,
        rewards: Mapping[str, float] | None,
        state: str,
        fault: tuple[str, str] | None,
    ) -> list[dict[str, Any]]:
        index = {a: i for i, a in enumerate(self.agents)}
        # plain lists once per step: per-element tensor indexing costs microseconds each
        p_rows = probs.tolist() if probs is not None else None
        a_rows = alpha.tolist() if alpha is not None else None
        k = self.config.top_k
        out = []
        for agent, observation in live.items():
            i, names = index[agent], self.action_names[agent]
            alternatives = []
            if p_rows is not None:
                row = p_rows[i][: len(names)]
                top = sorted(range(len(row)), key=row.__getitem__, reverse=True)[:k]
                alternatives = [{"action": names[j], "p": round(row[j], 4)} for j in top]
            messages: dict[str, list] = {"received": [], "sent": []}
            if a_rows is not None:
                for j, other in enumerate(self.agents):
                    if j != i and other in live:
                        if a_rows[i][j] > 0:
                            messages["received"].append({"from": other, "weight": round(a_rows[i][j], 4)})
                        if a_rows[j][i] > 0:
                            messages["sent"].append({"to": other, "weight": round(a_rows[j][i], 4)})
            action = chosen[agent]
            out.append(
                {
                    "request_id": request_id,
                    "task_id": task_id,
                    "step": step,
                    "agent": agent,
                    "observation": summarise_observation(_situation(observation), self.config.summary_chars),
                    "action": names[action] if 0 <= action < len(names) else str(action),
                    "action_index": action,
                    "source": route,
                    "confidence": confidences.get(agent),
                    "reason": {"alternatives": alternatives, "rule": rules.get(agent)},
                    "messages": messages,
                    "latency_ms": round(model_ms, 3),
                    "reward": float(rewards[agent]) if rewards and agent in rewards else None,
                    "breaker_state": state,
                    "fault": fault[0] if fault else None,
                }
            )
        return out


# ---------------------------------------------------------------------------------------------------------
# Command line: `python -m serving.runtime SPEC --checkpoint DIR --ticket "..."` (or `mase run` once
# "serving.runtime" is listed in training.cli.COMMAND_MODULES)
# ---------------------------------------------------------------------------------------------------------
def resolve_checkpoint(path: str | Path) -> Path:
    """A checkpoint directory from a run's output directory (``best``, else ``last``) or the directory itself."""
    path = Path(path)
    for candidate in (path / "checkpoints" / "mappo" / "best", path / "checkpoints" / "mappo" / "last", path):
        if (candidate / "state.json").is_file():
            return candidate
    raise RuntimeInputError(
        f"no checkpoint in {str(path)!r}: expected state.json there or under checkpoints/mappo/"
    )


def add_arguments(parser: Any) -> None:
    """The `run` command's arguments."""
    parser.add_argument("spec", help="team spec JSON file the team was trained from")
    parser.add_argument("--checkpoint", required=True, help="run output directory or checkpoint directory")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--ticket", action="append", help="a customer message to run (repeatable)")
    group.add_argument("--tickets", help="customer service: a split name or JSONL file of tickets")
    parser.add_argument("--limit", type=int, default=20, help="run at most this many tickets from --tickets")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--decisions", help="append every decision record to this JSONL file")
    parser.add_argument("--json", action="store_true", help="print each result as one JSON line")


def cmd_run(args: Any) -> int:
    """Run tickets through a trained team; print one line per ticket and the breaker's state."""

    try:
        team = load_spec(args.spec, require_environment=True)
        log = DecisionLog(path=args.decisions) if args.decisions else None
        runtime = TeamRuntime.from_spec_checkpoint(
            team, resolve_checkpoint(args.checkpoint), decision_sink=log.append if log is not None else None
        )
        if args.tickets:
            tasks: list[Any] = load_tickets(args.tickets)[: args.limit]
        else:
            tasks = list(args.ticket)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with runtime:
        results = runtime.run_batch(tasks, concurrency=args.concurrency, tickets=True)
    for result in results:
        if args.json:
            print(json.dumps({k: v for k, v in result.items() if k != "decisions"}, default=str))
        elif result["status"] == "error":
            print(f"error: {result['error']}")
        else:
            info = result["info"]
            print(
                f"{result['task_id']}: {result['status']} in {result['steps']} steps, "
                f"{result['latency_ms']:.1f} ms, answered {info.get('predicted_intents')}, "
                f"sources {result['sources']}"
                + (f", faults {[f['kind'] for f in result['faults']]}" if result["faults"] else "")
            )
    print(f"breaker: {json.dumps(runtime.status()['breaker'], default=str)}", file=sys.stderr)
    return 0 if all(r["status"] != "error" for r in results) else 1


def register(subparsers: Any) -> None:
    """Add `run` to the `mase` command line (see training.cli.COMMAND_MODULES)."""
    parser = subparsers.add_parser(
        "run", help="run tickets/tasks through a trained team (breaker + fallback)"
    )
    add_arguments(parser)
    parser.set_defaults(func=cmd_run)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m serving.runtime SPEC --checkpoint DIR --ticket TEXT`."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m serving.runtime", description=cmd_run.__doc__)
    add_arguments(parser)
    return cmd_run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
