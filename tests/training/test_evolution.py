"""Evolution scheduler: phase transitions on thresholds, the plateau rule, per-agent update periods."""

import pytest

from training.events import EventStream
from training.evolution import EvolutionScheduler, Phase


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def make(events=None, clock=None, **kw):
    return EvolutionScheduler(events=events, clock=clock or FakeClock(), **kw)


def test_phases_advance_only_when_mean_score_passes_threshold():
    got = []
    sched = make(events=EventStream([got.append]))
    assert sched.phase == "exploration"
    sched.end_cycle({"a": 0.2, "b": 0.3})  # mean 0.25 < 0.3
    assert sched.phase == "exploration"
    sched.end_cycle({"a": 0.3, "b": 0.5})  # mean 0.4 > 0.3
    assert sched.phase == "exploitation"
    sched.end_cycle([0.95, 0.95])
    assert sched.phase == "transfer"
    sched.end_cycle([1.5, 1.5])  # last phase: nowhere to go
    assert sched.phase == "transfer"
    phases = [e.payload for e in got if e.type == "phase"]
    assert [(p["from"], p["to"]) for p in phases] == [
        ("exploration", "exploitation"),
        ("exploitation", "transfer"),
    ]
    assert "0.400" in phases[0]["reason"]


def test_plateau_after_three_cycles_without_two_percent_gain():
    got = []
    sched = make(events=EventStream([got.append]), phases=[Phase("exploitation", 0.99)])
    sched.end_cycle([0.50])
    sched.end_cycle([0.5099])  # +1.98%: not more than 2%
    sched.end_cycle([0.505])
    assert not [e for e in got if e.type == "plateau"]
    out = sched.end_cycle([0.509])  # third stale cycle
    assert [k for k, _ in out] == ["plateau"]
    assert got[-1].type == "plateau" and got[-1].payload["cycles"] == 3
    assert "reward" in got[-1].payload["recommendation"]
    # a real improvement resets the count
    sched.end_cycle([0.60])
    sched.end_cycle([0.60])
    sched.end_cycle([0.60])
    assert len([e for e in got if e.type == "plateau"]) == 1
    sched.end_cycle([0.60])
    assert len([e for e in got if e.type == "plateau"]) == 2


def test_plateau_counter_restarts_with_a_new_phase():
    sched = make()
    sched.end_cycle([0.1])
    sched.end_cycle([0.1])
    sched.end_cycle([0.5])  # advances to exploitation; stale count must not carry over
    assert sched.phase == "exploitation"
    assert [k for k, _ in sched.end_cycle([0.5])] == []
    assert [k for k, _ in sched.end_cycle([0.5])] == []
    assert [k for k, _ in sched.end_cycle([0.5])] == []
    assert [k for k, _ in sched.end_cycle([0.5])] == ["plateau"]


def test_per_agent_update_periods():
    sched = make(update_periods={"logistics": 1, "shopping_guide": 3})
    updates = [sched.agents_to_update(["logistics", "shopping_guide", "other"], u) for u in range(6)]
    assert [("shopping_guide" in u) for u in updates] == [True, False, False, True, False, False]
    assert all("logistics" in u and "other" in u for u in updates)
    with pytest.raises(ValueError, match="update_period"):
        make(update_periods={"x": 0})


def test_state_dict_resumes_phase_and_plateau_count_and_durations():
    clock = FakeClock()
    sched = make(clock=clock)
    clock.t = 10.0
    sched.end_cycle([0.5])  # exploration lasted 10 s
    sched.end_cycle([0.6])
    sched.end_cycle([0.6])
    clock.t = 15.0
    state = sched.state_dict()
    clock2 = FakeClock()
    clock2.t = 100.0
    resumed = make(clock=clock2)
    resumed.load_state_dict(state)
    assert resumed.phase == "exploitation"
    assert resumed.stale_cycles == sched.stale_cycles == 1
    assert resumed.phase_durations == [("exploration", 10.0)]
    assert resumed.phase_elapsed() == pytest.approx(5.0)
