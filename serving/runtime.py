"""Inference runtime: run a trained team on one task step by step, with decision logs and a breaker.

`TeamRuntime` plays one episode of a PettingZoo ParallelEnv per request (a customer-service ticket, a
report topic …) with a trained team (`serving.model.TeamModel` over the team's inference policy,
`training.mappo.policy.TeamPolicy`, loaded from a checkpoint or taken from a trainer). Every
step it asks the `CircuitBreaker` who answers — the team, the half-open trial, or the rule fallback —
and writes one decision-log record per agent (`serving.decisions`, docs/design.md#runtime-and-decision-log).
A decision below the breaker's confidence threshold is never executed as it is, even while the breaker stays
closed: the fallback answers it (logged as ``fallback`` with the model's proposal and confidence), and the
breaker counts its ticket towards the low streak (once per ticket, however many decisions were low).

Faults never fail a request: a backbone that raises or exceeds ``timeout_s``, NaN/inf outputs, or an
episode past the breaker's step limit open the breaker, and the fallback answers the step. Everything is
thread-safe: a web server may call `run` / `run_batch` from many threads on one runtime. Steps of
concurrent requests are answered together by one model thread (`StepBatcher`: one backbone call and one
actor forward per batch), which is also what lets a hung backbone time out instead of hanging a request.

The pieces live next door: `serving.model` (`TeamModel`, `resolve_checkpoint`, `RuntimeInputError`),
`serving.batching` (`StepBatcher`), `serving.decisions` (the records, `DecisionLog`) and `serving.cli`
(the command line).

Public API (what the web layer calls):

- `TeamRuntime.from_spec_checkpoint(team_spec, checkpoint_dir, ...)` or `TeamRuntime(model, env_factory,
  breaker, fallback, ...)` (``model``: a `TeamModel`, a `TeamPolicy` or a `MappoTrainer`); `run(options)`,
  `run_ticket(ticket_or_text)`, `run_batch(tasks, concurrency)`, `status()`, `close()` (or use it as a
  context manager);
- `runtime.breaker` (`serving.breaker.CircuitBreaker`): `force_open(who, why)`, `force_closed(who, why)`,
  `snapshot()`, `transitions`, `alerts`; alerts also go out as ``alert`` events (``source="breaker"``);
- `serving.decisions.DecisionLog` — a ready-made ``decision_sink`` (memory + JSONL).
- `runtime.roster` (`serving.roster.Roster`): agents an operator took offline (large teams), applied to the
  episodes in flight before their next step; ``runtime.info_sink(request_id, step, info)`` hears each step's info.

CLI: ``python -m serving.cli SPEC --checkpoint RUN_DIR --ticket "where is my parcel?"`` (``mase run``).
"""

from __future__ import annotations

import concurrent.futures as futures
import itertools
import queue
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.backbone import Backbone
from agents.envs import breaker_step_limit, env_class, make_env, team_kwargs
from agents.envs.routing import environment_interface, routing
from agents.spec.algorithms import is_deployable
from agents.spec.paths import refuse_paths
from serving.batching import StepBatcher
from serving.breaker import (
    HALF_OPEN,
    ROUTE_FALLBACK,
    ROUTE_MODEL,
    ROUTE_TRIAL,
    BreakerConfig,
    CircuitBreaker,
    Fallback,
    choosing_agents,
    low_decisions,
    make_fallback,
)
from serving.decisions import ALLOCATION_INFO, action_names, explain_prompt, plain, step_records
from serving.model import RuntimeInputError, TeamModel
from serving.requests import OUT_OF_SCOPE, RequestMatcher
from serving.roster import Roster
from serving.scope import ScopeGate, handoff_detail
from training.events import EventStream
from training.mappo import load_policy
from training.reply_writer import PLAIN, explored_style, load_writer, style_propensity

__all__ = ["RuntimeConfig", "TeamRuntime"]


@dataclass(frozen=True)
class LabelledTicket:
    """A ticket with its true intents, for a routing team (`TeamRuntime.run_ticket`): a batch file's row."""

    id: str
    text: str
    intents: tuple[str, ...] = ()


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
    scope_gate: bool = False  # routing teams: turn away tickets outside the catalogue (serving.scope)
    style_explore: float = 0.0  # share of replies written in another style, for ratings to contrast (≤ 0.2)

    def __post_init__(self) -> None:
        # refuses a share outside [0, MAX_EXPLORE]
        explored_style(PLAIN, self.style_explore, random.Random(0))


def _not_played(request_id: str, detail: str, breaker_state: str, request: dict[str, Any]) -> dict[str, Any]:
    """The result of a request nothing was played for (out of scope): no step, no decision, one fault."""
    return {
        "request_id": request_id, "task_id": None, "status": OUT_OF_SCOPE, "steps": 0, "reward": None,
        "info": {}, "decisions": [], "sources": {ROUTE_MODEL: 0, ROUTE_TRIAL: 0, ROUTE_FALLBACK: 0},
        "faults": [{"step": 0, "kind": OUT_OF_SCOPE, "detail": detail}], "latency_ms": 0.0,
        "step_latency_ms": [], "breaker": breaker_state, "request": request,
    }  # fmt: skip


class TeamRuntime:
    """Runs tasks through a trained team with a circuit breaker and rule fallback; see the module docstring.

    ``model``: a `TeamModel` (or a `TeamPolicy` / `MappoTrainer`, wrapped). ``env_factory()``: a fresh environment of
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
        # agents an operator took offline (large teams), applied to every episode at once
        self.roster = Roster()
        # called with (request id, step, step info)
        self.info_sink: Callable[[str, int, Mapping[str, Any]], None] | None = None
        self.agents = self.model.agents
        if self.model.link is not None and events is not None:
            self.model.link.events = events  # storm alerts and codebook re-fits go to the runtime's stream
        self._envs: queue.SimpleQueue = queue.SimpleQueue()
        probe = env_factory()
        self.action_names = action_names(probe, self.agents, self.model.n_actions)
        self._envs.put(probe)
        # the writing workflows play one item of their data: a typed request is matched to it
        self.requests = RequestMatcher.for_env(probe, self.model.embed)
        self._scope_lock = threading.Lock()
        self._scope: ScopeGate | None = None  # built by prepare_scope_gate, else on the first gated ticket
        self.scope_dev: Callable[[], list] | None = None  # the dev tickets its floor is chosen on
        self.scope_outside: Callable[[], list] | None = None  # out-of-scope tickets it contrasts with
        self.scope_store: Path | None = None  # where the gate keeps its vectors (the checkpoint directory)
        self.scope_backbone = ""  # the backbone's name in the kept vectors' key
        self._batcher = StepBatcher(self.model, self.config.max_batch) if self.config.timeout_s else None
        self._explains = self.config.explain_tokens > 0 and self.model.can_explain
        self._ids = itertools.count(1)
        self._stats_lock = threading.Lock()
        self.stats = {"requests": 0, "errors": 0, "steps": 0, "model_steps": 0, "fallback_steps": 0}
        self.reply_writer: Any = None  # training.reply_writer, saved beside the checkpoint
        self._style_rng = random.Random()  # the explored share of styles (RuntimeConfig.style_explore)

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
        names_only: bool = False,
    ) -> TeamRuntime:
        """A runtime for a `TeamSpec` trained by `training.mappo.run_spec`, from its checkpoint directory.

        Builds the team exactly as training did (environment, communication links, featurizer), loads
        the weights, and takes the breaker thresholds and fallback from the spec. Raises ValueError
        (`training.mappo.CheckpointError`) naming the problem for a missing or mismatched checkpoint.
        ``names_only`` (a server): a spec that gives its backbone or data as a path rather than a name in
        the directories `agents.places` was configured with is refused (ValueError naming the fields)
        before anything is opened.
        """
        if names_only:
            refuse_paths(team.to_dict())
        if not is_deployable(team.training.algorithm):
            raise RuntimeInputError(
                f"the runtime runs MAPPO/IPPO teams; this spec trains {team.training.algorithm!r}"
            )
        name, params = team.environment.name, dict(team.environment.params)
        if name is None:
            raise RuntimeInputError("the spec names no environment ($.environment.name); nothing to run")
        if backbone is None:
            b = team.backbone
            backbone = Backbone.load(b.model, pooling=b.pooling, max_length=b.max_length)
        # with the checkpoint's calibration, when training fitted one: the breaker reads calibrated confidence
        policy = load_policy(team, checkpoint_dir, backbone)
        drawn = team_kwargs(
            name, team.agents, team.edges
        )  # the drawn roster (and prompts) the team was trained as
        thresholds = BreakerConfig.from_spec(team.circuit_breaker)
        thresholds.step_limit = breaker_step_limit(env_class(name), params, team.circuit_breaker.step_limit)
        breaker = CircuitBreaker(thresholds, events=events, clock=clock, name=team.name)
        runtime = cls(
            TeamModel(policy),
            lambda: make_env(name, params, **drawn),
            breaker=breaker,
            fallback=make_fallback(team.fallback, name, params, team=drawn.get("team")),
            config=config,
            events=events,
            decision_sink=decision_sink,
            step_sink=step_sink,
        )
        runtime.reply_writer = load_writer(checkpoint_dir)  # None: every reply "plain", as before
        interface = routing(name)
        dev = interface.dev_tickets(params) if interface is not None else None
        if dev:  # a routing team's scope floor is chosen on its dev split (serving.scope)
            runtime.scope_dev = lambda: interface.load_tickets(dev, params)
        if hasattr(interface, "out_of_scope_tickets"):  # the generated "none" side of the scope score
            runtime.scope_outside = lambda: interface.out_of_scope_tickets(params)
        if interface is not None:  # the gate's vectors, encoded once per checkpoint (serving.scope)
            b = team.backbone
            runtime.scope_store = Path(checkpoint_dir)
            runtime.scope_backbone = f"{b.model}|{b.pooling}|{b.max_length}"
        return runtime

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
        decisions (per-agent records, when logged), sources (steps per source), held_back (decisions below
        the breaker's threshold that the fallback answered while the model was trusted), faults, latency_ms,
        step_latency_ms (per step), breaker (state at the end)."""
        request_id = request_id or f"req-{next(self._ids)}-{uuid.uuid4().hex[:6]}"
        env = self._acquire_env()
        try:
            return self._episode(env, dict(options or {}), request_id, reward_known, seed)
        finally:
            self._envs.put(env)

    def run_ticket(self, ticket: Any, request_id: str | None = None) -> dict[str, Any]:
        """Run one `Ticket`, or a text typed by a user (reward then unknown). A writing team (report,
        post, code) plays the item of its data that the text asks for (`serving.requests`); its result's
        ``request`` says which, and how sure the match is. A request under the matcher's similarity floor
        is not played: its result has status ``out_of_scope``, no steps and that fault."""

        request_id = request_id or f"req-{next(self._ids)}-{uuid.uuid4().hex[:6]}"
        if isinstance(ticket, str):
            if not ticket.strip():
                raise RuntimeInputError("ticket text is empty; send the customer's message")
            if self.requests is not None:
                match = self.requests.match(ticket)
                if not match["in_scope"]:
                    return self._out_of_scope(request_id, match)
                result = self.run(
                    {self.requests.option: match["item"]}, request_id=request_id, reward_known=False
                )
                result["request"] = match
                result["task_id"] = result.get("task_id") or match["item"]
                return result
            ticket, known = self._routing_ticket(request_id, ticket), False
        elif all(hasattr(ticket, key) for key in ("id", "text", "intents")):  # a labelled routing ticket
            ticket, known = self._routing_ticket(str(ticket.id), ticket.text, tuple(ticket.intents)), True
        else:
            raise RuntimeInputError(f"run_ticket needs a Ticket or a text, got {type(ticket).__name__}")
        verdict = self._scope_check(ticket.text)
        if verdict is not None and not verdict["in_scope"]:
            return self._outside_catalogue(request_id, verdict)
        result = self.run({"ticket": ticket}, request_id=request_id, reward_known=known)
        share = self.config.style_explore  # read once: an operator may change it between tickets
        if self.reply_writer is not None or share > 0:  # the reply's style, logged with it
            chosen = self._reply_style(ticket.text)
            other = explored_style(chosen, share, self._style_rng)
            result["reply_style"] = other or chosen
            # the probability this style was served with, so that ratings can judge another writer (0039)
            result["reply_style_propensity"] = style_propensity(chosen, result["reply_style"], share)
            if other is not None:  # a declared exploration (decision 0035): the reply says so
                result["reply_style_explored"] = True
        return result

    def _reply_style(self, text: str) -> str:
        """The writer's style for a ticket; "plain" without a writer or when the backbone cannot embed it."""
        if self.reply_writer is None:
            return PLAIN
        try:
            embedded = self.model.embed([text])
        except Exception:  # noqa: BLE001 - the decisions were made; the reply is still written, plainly
            embedded = None
        return PLAIN if embedded is None else self.reply_writer.choose_for(embedded, [text])[0]

    def _scope_check(self, text: str) -> dict[str, Any] | None:
        """Whether a routing team's ticket is within its catalogue (`serving.scope`; None: no gate)."""
        gate = self.prepare_scope_gate() if self.config.scope_gate else None
        return None if gate is None else gate.check(text)

    def prepare_scope_gate(self) -> ScopeGate | None:
        """The routing team's scope gate, built now if it is not yet (None: a team without a catalogue).
        Building it encodes its anchors (tens of seconds, unless its store keeps them): a server calls this
        when it loads a gated deployment, so that no ticket waits for it (`mase_web.deployments.runtimes`)."""
        if self.requests is not None:
            return None
        with self._scope_lock:
            if self._scope is None:
                env = self._acquire_env()
                try:
                    self._scope = ScopeGate.for_env(env, self.model.embed, **self._scope_sources())
                finally:
                    self._envs.put(env)
            return self._scope

    def _scope_sources(self) -> dict[str, Any]:
        """What the gate is built from beside the environment: the dev tickets its floor is chosen on (None:
        the labelled tickets left out in turn, also when they cannot be read), labelled out-of-scope tickets
        ([]: distance to the catalogue alone) and where its vectors are kept."""
        try:
            dev = self.scope_dev() if self.scope_dev is not None else None
        except (OSError, ValueError):
            dev = None
        try:
            outside = list(self.scope_outside()) if self.scope_outside is not None else []
        except (OSError, ValueError):
            outside = []
        return dict(dev=dev, outside=outside, store=self.scope_store, backbone_key=self.scope_backbone)

    def _outside_catalogue(self, request_id: str, verdict: dict[str, Any]) -> dict[str, Any]:
        """A routing team's ticket outside its catalogue: nothing played, status ``out_of_scope``, handed
        to a person (the reply says so, `serving.scope.handoff_text`)."""
        with self._stats_lock:
            self.stats["requests"] += 1
        detail = handoff_detail(verdict)
        return _not_played(request_id, detail, self.breaker.state, {**verdict, "handoff": True})

    def _routing_ticket(self, ticket_id: str, text: str, intents: tuple[str, ...] = ()) -> Any:
        """A ticket of this team's routing environment: a text typed by a user (no intents known) or a
        labelled one (a `LabelledTicket`, a ticket file's row)."""
        env = self._acquire_env()
        try:
            interface = environment_interface(env)
        finally:
            self._envs.put(env)
        if interface is None:
            raise RuntimeInputError("this team's environment takes no tickets; send reset options instead")
        return interface.make_ticket(ticket_id, text, intents)

    def _out_of_scope(self, request_id: str, match: dict[str, Any]) -> dict[str, Any]:
        """The result of a request the team cannot do: nothing played (no decision, no breaker step), the
        match and what the team can do instead (``request["offers"]``), and an ``out_of_scope`` fault."""
        detail = (
            f"nearest item {match['item']!r} at similarity {match['score']:.2f}, not above the floor "
            f"{match['floor']:.2f}"
        )
        with self._stats_lock:
            self.stats["requests"] += 1
        request = {**match, "offers": self.requests.offers(), "items": len(self.requests.ids)}
        return _not_played(request_id, detail, self.breaker.state, request)

    def run_batch(
        self, tasks: Iterable[Mapping[str, Any] | Any], concurrency: int = 8, tickets: bool | None = None
    ) -> list[dict[str, Any]]:
        """Run many tasks on ``concurrency`` threads; results in input order.

        A task is a reset-options mapping, or (a routing team) a ticket / ticket text. An unexpected
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
            out["protocol"] = plain(self.model.link.stats())
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
        options, applied = self.roster.start(env, options)
        observations, infos = env.reset(seed=seed, options=options or None)
        info = next(iter(infos.values()), {}) if infos else {}
        task_id = info.get("ticket_id") or info.get("task_id") or options.get("task_id")
        limit = self.breaker.config.step_limit
        decisions: list[dict[str, Any]] = []
        sources = {ROUTE_MODEL: 0, ROUTE_TRIAL: 0, ROUTE_FALLBACK: 0}
        faults: list[dict[str, Any]] = []
        step_ms: list[float] = []
        total_reward: float | None = 0.0 if reward_known else None
        status, step, held_back = "completed", 0, 0
        while env.agents:
            step += 1
            if step > 2 * limit:  # the fallback could not end it either: stop the loop here
                status = "step_limit"
                break
            t0 = time.perf_counter()
            applied, observations = self.roster.catch_up(env, applied, observations)
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
                    chose = [confidences[a] for a in choosing_agents(live)]  # its ticket counts once
                    closed = self.breaker.record_step(chose, trial=route == ROUTE_TRIAL, ticket=request_id)
                    if not closed:  # this step tripped the breaker (or failed the trial): rules answer it
                        route = ROUTE_FALLBACK
            except BaseException:
                if route == ROUTE_TRIAL:  # never leave the half-open trial taken but unanswered
                    self.breaker.cancel_trial()
                raise
            proposed = dict(chosen)  # the model's own actions (none when it was not asked or failed)
            if route == ROUTE_FALLBACK:
                ruled = live
            else:  # closed or a passed trial: a low decision is still the rules' (its ticket counts once)
                ruled = low_decisions(live, confidences, self.breaker.config.confidence_threshold)
                held_back += len(ruled)
            for agent, (action, rule) in self.fallback.actions(ruled).items():
                chosen[agent], rules[agent] = int(action), rule
            logged = ROUTE_TRIAL if trial else route
            sources[logged] += 1
            state = HALF_OPEN if trial else self.breaker.state  # the state the trial was decided in
            next_obs, rewards, terms, truncs, infos = env.step(chosen)
            step_ms.append((time.perf_counter() - t0) * 1000.0)
            step_info = next(iter(infos.values()), {}) if infos else {}
            if self.info_sink is not None:
                self.info_sink(request_id, step, step_info)
            if infos:
                info = step_info
            if reward_known and rewards:
                total_reward += float(np.mean([float(r) for r in rewards.values()]))
            if self.config.log_decisions or self.decision_sink is not None or self.step_sink is not None:
                records = step_records(
                    self.agents, self.action_names, top_k=self.config.top_k,
                    summary_chars=self.config.summary_chars, request_id=request_id, task_id=task_id,
                    step=step, live=live, chosen=chosen, probs=probs, alpha=alpha,
                    confidences=confidences, rules=rules, route=logged, model_ms=model_ms,
                    proposed={a: proposed[a] for a in ruled if a in proposed},
                    rewards=rewards if reward_known else None, state=state, fault=fault,
                    allocation=step_info.get(ALLOCATION_INFO),
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
            "request_id": request_id, "task_id": task_id, "status": status, "steps": len(step_ms),
            "reward": total_reward, "info": plain(info), "decisions": decisions, "sources": sources,
            "held_back": held_back, "faults": faults, "latency_ms": latency, "step_latency_ms": step_ms,
            "breaker": self.breaker.state,
        }  # fmt: skip
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
        prompts = [explain_prompt(r, self.config.summary_chars) for r in records]
        try:
            texts = self.model.explain(prompts, self.config.explain_tokens)
        except Exception as exc:  # noqa: BLE001 - an explanation is optional; the decision stands without it
            for record in records:
                record["reason"]["text_error"] = f"{type(exc).__name__}: {exc}"
            return
        for record, text in zip(records, texts, strict=True):
            record["reason"]["text"] = str(text)
