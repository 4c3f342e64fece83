"""Circuit breaker and rule fallbacks for a running team (docs/design.md#circuit-breaker).

When a trained team keeps deciding with low confidence, or the model misbehaves (NaN/inf outputs, the
backbone raising or timing out, an episode looping past the step limit), the runtime stops trusting it:
the breaker *opens* and the team spec's rule-based fallback answers instead, and an alert goes out.
The low-confidence streak counts *tickets* (requests), not decisions: a ticket on which at least one decision
fell below the threshold counts once, however many of its agents or steps were unsure, and a ticket whose
step was confident ends the streak; K such tickets in a row open the breaker. (Counting decisions let one
ambiguous ticket with three unsure specialists open it for a whole cool-down.) A single decision below the
threshold is not executed either: the runtime has the fallback answer that decision while the breaker,
still closed, counts its ticket towards the streak.
After a cool-down the breaker lets one *half-open trial* through to the model; a confident, fault-free
trial closes it again, anything else re-opens it.

States and transitions::

    closed ──(K consecutive tickets with a decision below the threshold | a fault)──▶ open
    open ──(cooldown_s elapsed, next request)──▶ half_open
    half_open ──(trial step: every decision confident, no fault)──▶ closed
    half_open ──(trial step low or faulty)──▶ open
    any ──(operator force_open)──▶ open (stays open: no trial until an operator closes it)
    any ──(operator force_closed)──▶ closed (counters reset; normal rules apply again)

Every transition is a plain-dict record kept in `CircuitBreaker.transitions` and `CircuitBreaker.alerts`
and emitted as an ``alert`` event (``source="breaker"``) on the optional `EventStream`. Time comes from an
injectable clock, so tests drive cool-downs without sleeping. All methods are thread-safe: one breaker
guards a team that a web server calls from many threads at once.

Fallbacks (`make_fallback`): ``scripted`` is the environment's rule-scripted team; ``keyword_router``
routes the ticket to roles by the spec's keyword rules, and the routed roles act by rules; ``none`` means
nothing safe to switch to, so agents take their no-op action (index 0: pass / continue).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.envs import UNMEASURED_STEP_LIMIT
from agents.envs.routing import ROUTING_ENVIRONMENTS, routing
from agents.envs.scripted import scripted_team
from training.events import EventStream

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"
STATES = (CLOSED, OPEN, HALF_OPEN)

GENERATION_FAULT_KINDS = (
    "generation_timeout",
    "generation_error",
    "empty_answer",
    "overlong_answer",
    "refusal",
    "garbage",
)
"""Faults of a reply writer (`serving.generation.guard`); its own breaker opens on them."""

FAULT_KINDS = ("non_finite", "backbone_error", "timeout", "step_limit", *GENERATION_FAULT_KINDS)
"""Abnormal states that open the breaker at once (`CircuitBreaker.record_fault`)."""

ROUTE_MODEL, ROUTE_TRIAL, ROUTE_FALLBACK = "model", "trial", "fallback"


@dataclass
class BreakerConfig:
    """Thresholds of one breaker (the team spec's ``circuit_breaker`` section, plus runtime knobs)."""

    confidence_threshold: float = 0.5  # a decision below this probability counts as low-confidence
    consecutive_low: int = 3  # K: this many tickets in a row with a low decision open the breaker
    cooldown_s: float = 30.0  # open → half-open after this long
    step_limit: int = UNMEASURED_STEP_LIMIT  # past this many steps: a loop (the runtime derives it)
    history: int = 500  # transitions / alerts kept in memory

    @classmethod
    def from_spec(cls, spec: Any) -> BreakerConfig:
        """From an `agents.spec.CircuitBreakerSpec` (or any object / mapping with the same fields)."""
        get = spec.get if isinstance(spec, Mapping) else lambda k, d: getattr(spec, k, d)
        return cls(
            confidence_threshold=float(get("confidence_threshold", cls.confidence_threshold)),
            consecutive_low=int(get("consecutive_low", cls.consecutive_low)),
            cooldown_s=float(get("cooldown_s", cls.cooldown_s)),
            # an unset limit is the environment's (`agents.envs.breaker_step_limit`, applied by the runtime)
            step_limit=int(get("step_limit", None) or cls.step_limit),
        )


class CircuitBreaker:
    """Closed → open → half-open breaker over a team's decisions; see the module docstring.

    Call `route()` before each step: ``"model"`` (closed: use the team), ``"trial"`` (half-open: this
    step is the one trial; report it with ``trial=True``), or ``"fallback"``. Report model steps with
    `record_step(confidences, trial=..., ticket=...)` and faults with `record_fault(kind, detail, trial=...)`.
    """

    def __init__(
        self,
        config: BreakerConfig | Any | None = None,
        events: EventStream | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        name: str = "team",
    ):
        if config is None:
            config = BreakerConfig()
        elif not isinstance(config, BreakerConfig):
            config = BreakerConfig.from_spec(config)
        if not 0.0 <= config.confidence_threshold <= 1.0:
            raise ValueError("circuit_breaker.confidence_threshold must be between 0 and 1")
        if config.consecutive_low < 1 or config.step_limit < 1 or config.cooldown_s < 0:
            raise ValueError(
                "circuit_breaker: consecutive_low and step_limit must be >= 1 and cooldown_s >= 0"
            )
        self.config = config
        self.events = events
        self.clock, self.wall_clock = clock, wall_clock
        self.name = name
        self._lock = threading.RLock()
        self.state = CLOSED
        self.forced = False  # an operator holds it open
        self.consecutive_low = 0  # tickets in a row with a low decision
        self.low_tickets: list[str] = []  # the named ones among them (a ticket counts once per streak)
        self.opened_at: float | None = None
        self._trial_in_flight = False
        self.transitions: deque[dict[str, Any]] = deque(maxlen=config.history)
        self.alerts: deque[dict[str, Any]] = deque(maxlen=config.history)
        self.counts = {"decisions": 0, "low": 0, "faults": 0, "opened": 0, "trials": 0}
        # when a list: what the team reported (trials taken, steps, faults), for `replay` onto another state
        self.journal: list[tuple] | None = None

    # ---- routing ---------------------------------------------------------------------------------
    def route(self) -> str:
        """Who answers the next step: "model", "trial" (the half-open trial) or "fallback"."""
        with self._lock:
            if self.state == CLOSED:
                return ROUTE_MODEL
            if self.state == OPEN and not self.forced and self.opened_at is not None:
                if self.clock() - self.opened_at >= self.config.cooldown_s:
                    self._move(HALF_OPEN, "cooldown elapsed; trying the model once")
            if self.state == HALF_OPEN and not self._trial_in_flight:
                self._trial_in_flight = True
                self.counts["trials"] += 1
                self._note("trial")
                return ROUTE_TRIAL
            return ROUTE_FALLBACK

    def cancel_trial(self) -> None:
        """Give the half-open trial back unused (the caller could not run it); the next request retries."""
        with self._lock:
            self._trial_in_flight = False
            self._note("cancel_trial")

    # ---- outcomes --------------------------------------------------------------------------------
    def record_step(
        self, confidences: Sequence[float], trial: bool = False, ticket: str | None = None
    ) -> bool:
        """Feed one model step of ``ticket`` (per-agent confidences); True when the breaker is closed after it.

        Closed: a step with a decision below the threshold counts its ticket towards the low streak, once
        per streak (``ticket=None``: the step counts as a ticket of its own); a confident step of a ticket
        not counted yet resets the streak; K counted tickets open the breaker. Trial: closes when every
        decision is confident.
        """
        threshold = self.config.confidence_threshold
        with self._lock:
            self._note("step", [float(c) for c in confidences], trial, ticket)
            lows = [c < threshold for c in confidences]
            self.counts["decisions"] += len(lows)
            self.counts["low"] += sum(lows)
            if trial:
                self._trial_in_flight = False
                if self.state != HALF_OPEN:
                    return self.state == CLOSED  # an operator moved it meanwhile: their word stands
                if any(lows):
                    worst = min(confidences)
                    self._open("low_confidence", f"half-open trial decided with confidence {worst:.3f}")
                else:
                    self._move(CLOSED, "half-open trial was confident")
                return self.state == CLOSED
            if self.state != CLOSED:
                return False
            if ticket is not None and str(ticket) in self.low_tickets:
                return True  # this ticket already counts in the streak, whatever this step decided
            if not any(lows):
                self.consecutive_low, self.low_tickets = 0, []
                return True
            self.consecutive_low += 1
            if ticket is not None:
                self.low_tickets.append(str(ticket))
            if self.consecutive_low >= self.config.consecutive_low:
                self._open(
                    "low_confidence",
                    f"{self.consecutive_low} consecutive tickets with a decision below {threshold:g} "
                    f"(last {min(confidences):.3f})",
                )
            return self.state == CLOSED

    def record_fault(self, kind: str, detail: str = "", trial: bool = False) -> None:
        """An abnormal state (`FAULT_KINDS`): open at once (also fails a half-open trial)."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; expected one of {', '.join(FAULT_KINDS)}")
        with self._lock:
            self._note("fault", kind, detail, trial)
            self.counts["faults"] += 1
            if trial:
                self._trial_in_flight = False
            if self.state == OPEN:
                self._alert(kind, detail, level="warning")  # already open: still worth an alert
                return
            self._open(kind, detail)

    # ---- operators -------------------------------------------------------------------------------
    def force_open(self, who: str, why: str) -> dict[str, Any]:
        """An operator opens the breaker and holds it open (no trials) until `force_closed`."""
        self._check_operator(who, why)
        with self._lock:
            self.forced = True
            self.opened_at = self.clock()
            self._trial_in_flight = False
            return self._move(OPEN, why, reason="operator", who=who, force=True)

    def force_closed(self, who: str, why: str) -> dict[str, Any]:
        """An operator closes the breaker (streak reset, hold released); normal rules apply again."""
        self._check_operator(who, why)
        with self._lock:
            self.forced = False
            self.consecutive_low = 0
            self.opened_at = None
            self._trial_in_flight = False
            return self._move(CLOSED, why, reason="operator", who=who, force=True)

    @staticmethod
    def _check_operator(who: str, why: str) -> None:
        if not isinstance(who, str) or not who.strip() or not isinstance(why, str) or not why.strip():
            raise ValueError("forcing the circuit breaker needs who (the operator) and why (a reason)")

    # ---- reading ---------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """Plain-JSON state for a dashboard: state, hold, streak, cool-down left, counters, thresholds."""
        with self._lock:
            left = None
            if self.state == OPEN and not self.forced and self.opened_at is not None:
                left = max(0.0, self.config.cooldown_s - (self.clock() - self.opened_at))
            return {
                "name": self.name,
                "state": self.state,
                "forced": self.forced,
                "consecutive_low": self.consecutive_low,
                "cooldown_left_s": left,
                "counts": dict(self.counts),
                "config": {
                    "confidence_threshold": self.config.confidence_threshold,
                    "consecutive_low": self.config.consecutive_low,
                    "cooldown_s": self.config.cooldown_s,
                    "step_limit": self.config.step_limit,
                },
                "last_transition": self.transitions[-1] if self.transitions else None,
            }

    # ---- persistence (several processes sharing one breaker through a database row) ---------------
    def export_state(self) -> dict[str, Any]:
        """What another process needs to continue this breaker (`restore`): plain JSON, wall-clock times."""
        with self._lock:
            opened = None
            if self.opened_at is not None:  # monotonic clocks differ between processes; wall time does not
                opened = self.wall_clock() - (self.clock() - self.opened_at)
            return {
                "state": self.state,
                "forced": self.forced,
                "consecutive_low": self.consecutive_low,
                "low_tickets": list(self.low_tickets),
                "opened_at": opened,
                "counts": dict(self.counts),
            }

    def restore(self, saved: Mapping[str, Any]) -> None:
        """Continue from `export_state()` output; an empty mapping means a fresh, closed breaker.

        A half-open trial taken elsewhere is not carried over: the next `route()` here may take one.
        """
        state = saved.get("state", CLOSED)
        if state not in STATES:
            raise ValueError(f"breaker state must be one of {', '.join(STATES)}, got {state!r}")
        opened = saved.get("opened_at")
        with self._lock:
            self.state = state
            self.forced = bool(saved.get("forced", False))
            self.consecutive_low = int(saved.get("consecutive_low", 0))
            self.low_tickets = [str(t) for t in saved.get("low_tickets") or ()]
            self.opened_at = (
                None if opened is None else self.clock() - max(0.0, self.wall_clock() - float(opened))
            )
            self._trial_in_flight = False
            for key, value in dict(saved.get("counts") or {}).items():
                if key in self.counts:
                    self.counts[key] = int(value)

    def replay(self, journal: Sequence[tuple]) -> None:
        """Apply what another copy of this breaker was told (its ``journal``) to this one's state, in order:
        the outcomes a team reported while its copy started from a state that has since moved (another
        process saved first). A trial its copy took is tried here too: if this state does not take one (it
        is closed, or held open), the trial's step counts but moves nothing, as when an operator moved it."""
        for entry in journal:
            kind, args = entry[0], entry[1:]
            if kind == "trial":
                if self.route() != ROUTE_TRIAL:
                    continue
            elif kind == "cancel_trial":
                self.cancel_trial()
            elif kind == "step":
                self.record_step(*args)
            elif kind == "fault":
                self.record_fault(*args)
            else:
                raise ValueError(f"unknown breaker journal entry {kind!r}")

    # ---- internals (call with the lock held) -----------------------------------------------------
    def _note(self, *entry: Any) -> None:
        if self.journal is not None:
            self.journal.append(entry)

    def _open(self, reason: str, detail: str) -> None:
        self.opened_at = self.clock()
        self.counts["opened"] += 1
        self._move(OPEN, detail, reason=reason)

    def _move(
        self, to: str, detail: str, reason: str | None = None, who: str | None = None, force: bool = False
    ) -> dict[str, Any]:
        record = {
            "breaker": self.name,
            "from": self.state,
            "to": to,
            "reason": reason or ("cooldown" if to == HALF_OPEN else "trial_passed"),
            "detail": detail,
            "who": who,
            "forced": force,
            "consecutive_low": self.consecutive_low,
            "at": self.wall_clock(),
        }
        self.state = to
        self.consecutive_low, self.low_tickets = 0, []  # a streak belongs to one closed period
        self.transitions.append(record)
        level = {OPEN: "critical", HALF_OPEN: "warning", CLOSED: "info"}[to]
        self._alert(to, detail, level=level, transition=record)
        return record

    def _alert(self, name: str, detail: str, level: str, transition: dict | None = None) -> None:
        alert = {
            "name": f"circuit_breaker.{name}",
            "level": level,
            "source": "breaker",
            "breaker": self.name,
            "state": self.state,
            "message": detail,
            "at": self.wall_clock(),
        }
        if transition is not None:
            alert["transition"] = dict(transition)
        self.alerts.append(alert)
        if self.events is not None:
            self.events.emit("alert", **alert)


def fallback_preview(
    tickets: Sequence[Sequence[Sequence[float]]], config: BreakerConfig | Any | None = None
) -> dict[str, Any]:
    """How often a breaker with `config` would hand a team's decisions to the fallback, replayed on the
    confidences the team gave on some tickets (`tickets`: per ticket, per step, the acting agents'
    confidences in team order — what `training.mappo.calibration` stores with a checkpoint).

    The tickets go in order through one real `CircuitBreaker`, routed step by step as the runtime routes
    them; they are assumed to arrive further apart than the cool-down, so the ticket after an opening is
    the half-open trial. A step the breaker does not give the model (open, a failed trial, the step that
    opens it) is the fallback's, as is every decision below the threshold (the runtime never executes one).
    Returns the share of tickets the fallback answered at least in part because of the breaker
    (`fallback_ticket_share`), the share of decisions the model still makes (`model_decision_share`) and
    the share of decisions below the threshold (`low_decision_share`), with the counts behind them.
    """
    now = [0.0]
    breaker = CircuitBreaker(config, clock=lambda: now[0], wall_clock=lambda: 0.0, name="preview")
    threshold = breaker.config.confidence_threshold
    tripped = model = total = low = 0
    for number, steps in enumerate(tickets):
        now[0] = number * (breaker.config.cooldown_s + 1.0)
        fell_back = False
        for confidences in steps:
            total += len(confidences)
            low += sum(c < threshold for c in confidences)
            route = breaker.route()
            if route != ROUTE_FALLBACK and breaker.record_step(
                [float(c) for c in confidences], trial=route == ROUTE_TRIAL, ticket=str(number)
            ):
                model += sum(c >= threshold for c in confidences)  # a low decision is the fallback's
            else:
                fell_back = True
        tripped += fell_back
    n = len(tickets)
    return {
        "confidence_threshold": threshold,
        "consecutive_low": breaker.config.consecutive_low,
        "tickets": n,
        "decisions": total,
        "fallback_tickets": tripped,
        "fallback_ticket_share": tripped / n if n else 0.0,
        "model_decision_share": model / total if total else 0.0,
        "low_decision_share": low / total if total else 0.0,
    }


# ---------------------------------------------------------------------------------------------------------
# Rule fallbacks
# ---------------------------------------------------------------------------------------------------------
class Fallback:
    """What answers while the breaker is open: ``act(agent, observation) -> (action index, reason)``."""

    kind = "none"

    def act(self, agent: str, observation: Any) -> tuple[int, str]:
        """No safe rule: the no-op action (index 0 — pass / continue)."""
        return 0, "no fallback configured: no-op action"

    def actions(self, observations: Mapping[str, Any]) -> dict[str, tuple[int, str]]:
        """(action, reason) for every agent that has an observation."""
        return {agent: self.act(agent, obs) for agent, obs in observations.items()}


class ScriptedFallback(Fallback):
    """The environment's rule-scripted team (`agents.envs.scripted.scripted_team`)."""

    kind = "scripted"

    def __init__(self, team: Any):
        self.team = team
        self._lock = threading.Lock()  # scripted teams memoise per text; keep that cache consistent

    def act(self, agent: str, observation: Any) -> tuple[int, str]:
        """The scripted team's action for this agent."""
        with self._lock:
            return int(self.team.act(agent, observation)), "rule-scripted team"


class KeywordRouterFallback(Fallback):
    """A routing team's keyword rules: the spec's rules route a ticket to agents, routed agents act by rule.

    ``team`` is what the environment makes of the spec's rules (its routing interface's
    ``keyword_fallback``: for customer service, `KeywordRoutedTeam` over the drawn roster and the spec's
    intent catalogue); its ``router`` (tuned on first use) may be shared by the process (`router`).
    """

    kind = "keyword_router"

    def __init__(self, team: Any):
        self.team = team

    @property
    def router(self) -> Any | None:
        """The team's tuned intent router (None until first used or shared)."""
        return self.team.router

    @router.setter
    def router(self, router: Any) -> None:
        self.team.router = router

    def routed_roles(self, text: str) -> list[str]:
        """Agents whose keywords occur in ``text``, in rule order, without repeats."""
        return self.team.routed_roles(text)

    def intents_for(self, text: str) -> tuple[str, ...]:
        """The intents the routed agents will handle for this ticket."""
        return self.team.intents_for(text)

    def act(self, agent: str, observation: Any) -> tuple[int, str]:
        """Rule action for ``agent`` on the routing environment's observation, and why."""
        return self.team.act(agent, observation)


def _field(rule: Any, key: str) -> Any:
    return rule[key] if isinstance(rule, Mapping) else getattr(rule, key)


def make_fallback(
    spec: Any | None,
    environment: str | None,
    params: Mapping[str, Any] | None = None,
    team: Sequence[Any] | None = None,
) -> Fallback:
    """The fallback a team spec's ``fallback`` section asks for, on environment ``environment`` with
    ``params`` and, for an environment that takes its team from the spec, ``team`` (the spec's agents:
    the rules follow the drawn roster; None = the environment's shipped team).

    ``spec`` is an `agents.spec.FallbackSpec` or a mapping ``{"kind": ..., "rules": [...]}``; None or
    kind "none" gives the no-op `Fallback`. Raises ValueError naming what to change when the kind is not
    available for the environment.
    """
    kind = "none" if spec is None else str(_field(spec, "kind") if not isinstance(spec, str) else spec)
    if kind == "none":
        return Fallback()
    if kind == "scripted":
        return ScriptedFallback(scripted_team(str(environment), params, team=team))
    if kind == "keyword_router":
        interface = routing(environment) if isinstance(environment, str) else None
        if interface is None:
            raise ValueError(
                f"fallback.kind 'keyword_router' needs a routing environment ({', '.join(ROUTING_ENVIRONMENTS)}), "
                f"not {environment!r}; use 'scripted' or 'none'"
            )
        rules = _field(spec, "rules") if not isinstance(spec, str) else ()
        return KeywordRouterFallback(interface.keyword_fallback(rules or (), params, team))
    raise ValueError(f"fallback.kind must be 'none', 'keyword_router' or 'scripted', got {kind!r}")


def choosing_agents(live: Mapping[str, Any]) -> list[str]:
    """The agents of a step that had a choice: an agent whose action mask leaves one action (a turn-taking
    team's idle agents, who can only wait) decides nothing, and its certain "wait" must not reset the
    breaker's low-confidence streak. All of them when none had a choice or observations carry no mask."""

    def choices(observation: Any) -> int:
        mask = observation.get("action_mask") if isinstance(observation, Mapping) else None
        return 2 if mask is None else int(np.asarray(mask).sum())

    choosing = [a for a, observation in live.items() if choices(observation) > 1]
    return choosing or list(live)


def low_decisions(live: Mapping[str, Any], confidences: Mapping[str, float], threshold: float) -> dict[str, Any]:
    """The observations of a model step's decisions below the breaker's threshold (of agents that chose):
    such a decision is never executed as it is, the rule fallback answers it, whatever the breaker's streak."""
    return {a: live[a] for a in choosing_agents(live) if a in confidences and confidences[a] < threshold}
