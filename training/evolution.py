"""Evolution scheduler (docs/design.md#evolution): phases, the plateau rule and per-agent update periods.

A run moves through phases exploration → exploitation → transfer. Each phase has its own reward (see
`training.reward`, preset `phase_rewards`) and a threshold: at the end of an evolution cycle, when the
mean agent score passes the current phase's threshold, the team advances to the next phase.

Plateau rule (docs/design.md#plateau-rule): when `plateau_cycles` (3) consecutive cycles bring no more than
`min_improvement` (2%, relative) over the best mean score so far, the scheduler emits a "plateau" event
recommending that the reward be restructured or external knowledge injected. The counter then restarts,
so a run that stays stuck is reminded every `plateau_cycles` cycles, not every cycle.

Per-agent update periods (docs/design.md#update-periods; e.g. logistics hourly, others daily): agent `a` updates its
parameters on training update `u` only when `u % update_period[a] == 0`.

Every transition is an event on the run's `EventStream` ("phase", "plateau").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from training.events import EventStream

PLATEAU_RECOMMENDATION = (
    "no significant improvement: restructure the reward (reweight terms or switch preset) "
    "or inject external knowledge (teacher demonstrations, offline logs)"
)


@dataclass(frozen=True)
class Phase:
    """One evolution phase: its name (a key of the reward weights) and its advance threshold."""

    name: str
    threshold: float


DEFAULT_PHASES = (Phase("exploration", 0.3), Phase("exploitation", 0.9), Phase("transfer", 1.0))


class EvolutionScheduler:
    """Tracks the evolution phase of a run and decides when to advance, flag a plateau, or update an agent."""

    def __init__(
        self,
        phases: Sequence[Phase | Mapping[str, Any]] = DEFAULT_PHASES,
        plateau_cycles: int = 3,
        min_improvement: float = 0.02,
        update_periods: Mapping[str, int] | None = None,
        events: EventStream | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.phases = [
            p if isinstance(p, Phase) else Phase(str(p["name"]), float(p["threshold"])) for p in phases
        ]
        if not self.phases:
            raise ValueError("evolution: needs at least one phase")
        if plateau_cycles < 1:
            raise ValueError(f"evolution.plateau.cycles must be >= 1, got {plateau_cycles}")
        self.plateau_cycles = plateau_cycles
        self.min_improvement = float(min_improvement)
        self.update_periods = dict(update_periods or {})
        for agent, period in self.update_periods.items():
            if int(period) < 1:
                raise ValueError(f"agent {agent!r}: update_period must be >= 1, got {period}")
        self.events = events
        self.clock = clock
        self.phase_index = 0
        self.cycle = 0
        self.best_score: float | None = None
        self.stale_cycles = 0
        self.history: list[float] = []
        self.phase_started = clock()
        self.phase_durations: list[tuple[str, float]] = []  # (phase, seconds) of completed phases

    @classmethod
    def from_spec(cls, spec: Any, events: EventStream | None = None, **kwargs: Any) -> EvolutionScheduler:
        """Build from a TeamSpec (its `evolution` section and each agent's `update_period`)."""
        evo = spec.evolution
        return cls(
            phases=[Phase(p.name, p.threshold) for p in evo.phases],
            plateau_cycles=evo.plateau.cycles,
            min_improvement=evo.plateau.min_improvement,
            update_periods={a.id: a.update_period for a in spec.agents},
            events=events,
            **kwargs,
        )

    @property
    def phase(self) -> str:
        """The name of the current phase."""
        return self.phases[self.phase_index].name

    @property
    def threshold(self) -> float:
        return self.phases[self.phase_index].threshold

    def phase_elapsed(self) -> float:
        """Seconds (of the scheduler's clock) spent in the current phase."""
        return self.clock() - self.phase_started

    # ---- per-agent update periods -------------------------------------------------------------------
    def update_period(self, agent: str) -> int:
        return int(self.update_periods.get(agent, 1))

    def should_update(self, agent: str, update_index: int) -> bool:
        """Whether `agent` applies its gradient step on training update number `update_index` (from 0)."""
        return update_index % self.update_period(agent) == 0

    def agents_to_update(self, agents: Iterable[str], update_index: int) -> list[str]:
        """The agents that update on `update_index`."""
        return [a for a in agents if self.should_update(a, update_index)]

    # ---- the evolution cycle ------------------------------------------------------------------------
    def end_cycle(self, agent_scores: Mapping[str, float] | Sequence[float]) -> list[tuple[str, dict]]:
        """Close one evolution cycle with each agent's score; returns (event type, payload) transitions.

        Emits the same transitions on the event stream when one is attached.
        """
        scores = list(agent_scores.values()) if isinstance(agent_scores, Mapping) else list(agent_scores)
        if not scores:
            raise ValueError("end_cycle needs at least one agent score")
        mean = float(sum(scores) / len(scores))
        self.cycle += 1
        self.history.append(mean)
        transitions: list[tuple[str, dict]] = []

        if self.best_score is None:
            self.best_score = mean
            self.stale_cycles = 0
        else:
            improvement = (mean - self.best_score) / max(abs(self.best_score), 1e-8)
            if improvement > self.min_improvement:
                self.best_score = mean
                self.stale_cycles = 0
            else:
                self.stale_cycles += 1
                self.best_score = max(self.best_score, mean)
        if self.stale_cycles >= self.plateau_cycles:
            transitions.append(
                (
                    "plateau",
                    {
                        "cycles": self.stale_cycles,
                        "recommendation": PLATEAU_RECOMMENDATION,
                        "phase": self.phase,
                        "cycle": self.cycle,
                        "best_score": self.best_score,
                        "mean_score": mean,
                        "min_improvement": self.min_improvement,
                    },
                )
            )
            self.stale_cycles = 0

        if mean > self.threshold and self.phase_index < len(self.phases) - 1:
            old = self.phase
            self.phase_durations.append((old, self.phase_elapsed()))
            self.phase_index += 1
            self.phase_started = self.clock()
            # A new phase has a new reward: scores are not comparable with the old best.
            self.best_score = None
            self.stale_cycles = 0
            transitions.append(
                (
                    "phase",
                    {
                        "from": old,
                        "to": self.phase,
                        "reason": f"mean agent score {mean:.3f} passed the {old} threshold "
                        f"{self.phases[self.phase_index - 1].threshold:g}",
                        "cycle": self.cycle,
                        "mean_score": mean,
                        "duration_s": self.phase_durations[-1][1],
                    },
                )
            )
        if self.events is not None:
            for kind, payload in transitions:
                self.events.emit(kind, **payload)
        return transitions

    # ---- resume -------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume the schedule (JSON-serialisable)."""
        return {
            "phase_index": self.phase_index,
            "cycle": self.cycle,
            "best_score": self.best_score,
            "stale_cycles": self.stale_cycles,
            "history": list(self.history),
            "phase_elapsed": self.phase_elapsed(),
            "phase_durations": [list(d) for d in self.phase_durations],
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore a schedule saved by `state_dict`."""
        self.phase_index = int(state["phase_index"])
        if not 0 <= self.phase_index < len(self.phases):
            raise ValueError(
                f"checkpoint phase index {self.phase_index} does not fit {len(self.phases)} phases"
            )
        self.cycle = int(state["cycle"])
        self.best_score = state["best_score"]
        self.stale_cycles = int(state["stale_cycles"])
        self.history = [float(x) for x in state["history"]]
        self.phase_started = self.clock() - float(state.get("phase_elapsed", 0.0))
        self.phase_durations = [(str(p), float(d)) for p, d in state.get("phase_durations", [])]
