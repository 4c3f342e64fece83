"""TeamRuntime on the customer-service team: decision logs, and breaker transitions under injected faults.

A tiny Llama-style backbone (built on the spot) stands in for MiniLM; faults are injected by a backbone
wrapper that raises, stalls or returns NaN. Each request uses a fresh ticket text, so the embedding
cache cannot hide the fault.
"""

from __future__ import annotations

import itertools
import json

import pytest
import torch

from agents.backbone import Backbone
from agents.envs.customer_service.env import CustomerServiceEnv
from agents.envs.customer_service.rules import KeywordRouter, ScriptedTeam
from agents.envs.customer_service.tickets import Ticket
from serving.breaker import BreakerConfig, CircuitBreaker, Fallback, ScriptedFallback
from serving.model import RuntimeInputError
from serving.runtime import RuntimeConfig, TeamRuntime
from tests.fixtures.faulty_backbone import FaultyBackbone
from tests.fixtures.quick_team import QUICK_START, QUICK_TEAM
from tests.fixtures.tiny_models import build_tiny_causal_lm
from training.events import EventStream
from training.mappo import Featurizer, MappoConfig, MappoTeam, MappoTrainer

torch.set_num_threads(1)

TICKETS = [
    Ticket("t-1", "my lamp arrived broken and I want a refund", ("return_refund", "damaged_item")),
    Ticket("t-2", "where is my order? it is late", ("order_tracking", "delivery_delay")),
    Ticket("t-3", "does the kettle come in blue?", ("product_question",)),
    Ticket("t-4", "can you recommend a gift for my dad", ("recommendation",)),
]
_fresh = itertools.count()


def fresh(ticket: Ticket) -> Ticket:
    """The same ticket with a never-seen text (so the backbone is really called)."""
    return Ticket(f"{ticket.id}-{next(_fresh)}", f"{ticket.text} (ref {next(_fresh)})", ticket.intents)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    path = build_tiny_causal_lm(tmp_path_factory.mktemp("tiny_lm"))
    backbone = FaultyBackbone(Backbone.load(str(path), pooling="mean", max_length=32))
    cfg = MappoConfig(updates=1, episodes_per_update=2, hidden=16, eval_every=0, checkpoint_every=0, seed=0)
    trainer = MappoTrainer(
        cfg,
        MappoTeam(
            lambda split: CustomerServiceEnv(tickets=TICKETS),
            backbone=backbone,
            featurizer=Featurizer(backbone, skip=("status", "action_mask")),
        ),
    )
    return trainer, backbone


@pytest.fixture(scope="module")
def rules():
    return ScriptedFallback(ScriptedTeam(KeywordRouter()))  # untuned hand rules: instant


# Healthy steps get a generous limit: a loaded CI machine must not turn a slow step into a fault.
HEALTHY_TIMEOUT_S, STALL_TIMEOUT_S = 10.0, 0.3  # the stalling backbone sleeps 0.6 s


def make_runtime(
    team, rules, threshold=0.0, k=3, step_limit=20, timeout=HEALTHY_TIMEOUT_S, fallback=None, sink=None
):
    trainer, backbone = team
    backbone.mode = None
    clock, alerts = Clock(), []
    events = EventStream([alerts.append])
    breaker = CircuitBreaker(
        BreakerConfig(threshold, k, cooldown_s=5.0, step_limit=step_limit), events=events, clock=clock
    )
    runtime = TeamRuntime(
        trainer,
        lambda: CustomerServiceEnv(tickets=TICKETS[:1], shuffle=False),
        breaker=breaker,
        fallback=fallback or rules,
        config=RuntimeConfig(timeout_s=timeout),
        events=events,
        decision_sink=sink,
    )
    return runtime, clock, alerts


def breaker_alerts(events):
    return [e.payload for e in events if e.type == "alert" and e.payload.get("source") == "breaker"]


def test_decision_log_records_what_each_agent_saw_did_and_why(team, rules):
    sunk = []
    runtime, _, events = make_runtime(team, rules, threshold=0.0, sink=sunk.append)
    result = runtime.run_ticket(TICKETS[0])
    assert result["status"] in ("completed", "truncated") and result["sources"]["fallback"] == 0
    decisions = result["decisions"]
    assert len(decisions) == 4 * result["steps"] and sunk == decisions
    json.dumps(result)  # plain JSON for the web layer
    agents = ["shopping_guide", "logistics", "dispute_mediator", "quality_supervisor"]
    for d in decisions:
        assert d["agent"] in agents and d["source"] == "model"
        assert d["observation"]["ticket"] == TICKETS[0].text
        alts = d["reason"]["alternatives"]
        assert alts[0]["action"] == d["action"]  # greedy: the top alternative is what it did
        assert d["confidence"] == pytest.approx(alts[0]["p"], abs=1e-4)
        assert [a["p"] for a in alts] == sorted((a["p"] for a in alts), reverse=True)
        received = [m["weight"] for m in d["messages"]["received"]]
        assert len(received) == 3 and sum(received) == pytest.approx(1.0, abs=1e-3)
        assert d["reward"] is not None and d["latency_ms"] > 0
    # the reward per record is the env's step reward; the result sums them per step
    per_step = {d["step"]: d["reward"] for d in decisions}
    assert result["reward"] == pytest.approx(sum(per_step.values()))
    assert result["info"]["ticket_id"] == "t-1"
    assert any(e.type == "log" and e.payload["request_id"] == result["request_id"] for e in events)


def test_the_step_sink_gets_each_step_whole_and_in_order(team, rules):
    steps: list[list[dict]] = []
    runtime, _, _ = make_runtime(team, rules, threshold=0.0)
    runtime.step_sink = steps.append
    result = runtime.run_ticket(TICKETS[0])
    assert len(steps) == result["steps"] > 0
    assert [d for records in steps for d in records] == result["decisions"]
    assert [{d["step"] for d in records} for records in steps] == [{n} for n in range(1, len(steps) + 1)]


def test_untrained_team_low_confidence_opens_breaker_and_rules_answer(team, rules):
    runtime, _, events = make_runtime(team, rules, threshold=0.9, k=3)
    # an untrained actor is near-uniform (confidence ≈ 1/3): every ticket is unsure; the streak counts
    # tickets, so the first two stay with a closed breaker (the rules answer their low decisions) ...
    for ticket in TICKETS[1:3]:
        unsure = runtime.run_ticket(ticket)
        assert unsure["breaker"] == "closed" and unsure["sources"]["model"] >= 1 and unsure["held_back"] >= 1
    assert not breaker_alerts(events)
    result = runtime.run_ticket(TICKETS[0])  # ... and the third in a row trips it on its first step
    first = [d for d in result["decisions"] if d["step"] == 1]
    assert all(d["source"] == "fallback" and d["reason"]["rule"] for d in first)
    assert all(d["confidence"] is not None and d["confidence"] < 0.9 for d in first)
    assert result["sources"]["model"] == 0 and result["breaker"] == "open"
    assert result["info"]["exact_match"] is True  # the rule fallback solved it
    [alert] = breaker_alerts(events)
    assert alert["transition"]["reason"] == "low_confidence" and alert["level"] == "critical"


def test_a_low_decision_is_answered_by_the_rules_even_while_the_breaker_stays_closed(team, rules):
    runtime, _, events = make_runtime(team, rules, threshold=0.9, k=10_000)  # a streak that never opens
    result = runtime.run_ticket(fresh(TICKETS[0]))
    # the untrained actor is near-uniform: every decision is below 0.9, none is executed as the model's
    low = [d for d in result["decisions"] if d["confidence"] is not None and d["confidence"] < 0.9]
    assert low and all(d["source"] == "fallback" and d["reason"]["rule"] for d in low)
    assert all(d["reason"]["proposed"]["confidence"] == d["confidence"] for d in low)
    assert result["held_back"] == len(low) and result["breaker"] == "closed" and not breaker_alerts(events)
    assert result["info"]["exact_match"] is True  # the rules answered the ticket


@pytest.mark.parametrize(
    ("mode", "kind"), [("raise", "backbone_error"), ("stall", "timeout"), ("nan", "non_finite")]
)
def test_backbone_fault_opens_breaker_fallback_answers_then_half_open_trial_recovers(team, rules, mode, kind):
    timeout = STALL_TIMEOUT_S if mode == "stall" else HEALTHY_TIMEOUT_S
    runtime, clock, events = make_runtime(team, rules, threshold=0.0, timeout=timeout)
    backbone = team[1]
    backbone.mode = mode
    try:
        result = runtime.run_ticket(fresh(TICKETS[1]))
    finally:
        backbone.mode = None
    assert result["status"] == "completed"  # the request did not fail
    assert result["faults"][0]["kind"] == kind and result["faults"][0]["step"] == 1
    step1 = [d for d in result["decisions"] if d["step"] == 1]
    assert all(d["source"] == "fallback" and d["fault"] == kind for d in step1)
    assert result["info"]["exact_match"] is True
    assert runtime.breaker.state == "open"
    # while open and cooling down, nothing reaches the model
    calls = backbone.calls
    runtime.run_ticket(fresh(TICKETS[2]))
    assert backbone.calls == calls
    # after the cool-down one trial goes to the (healthy again) model and closes the breaker
    runtime.config.timeout_s = HEALTHY_TIMEOUT_S  # the trial waits out any stalled call queued before it
    clock.now += 5.0
    recovered = runtime.run_ticket(fresh(TICKETS[3]))
    assert recovered["sources"]["trial"] == 1 and recovered["decisions"][0]["source"] == "trial"
    assert runtime.breaker.state == "closed"
    states = [(a["transition"]["from"], a["transition"]["to"]) for a in breaker_alerts(events)]
    assert states == [("closed", "open"), ("open", "half_open"), ("half_open", "closed")]
    assert breaker_alerts(events)[0]["transition"]["reason"] == kind


def test_looping_team_hits_step_limit_and_request_still_ends(team, rules):
    trainer, _ = team
    sup = trainer.agents.index("quality_supervisor")
    head = trainer.actor.head
    saved = head.bias.detach().clone()
    with torch.no_grad():
        head.bias[sup, 1] = -50.0  # "approve" never: the team loops until the env's own limit
    try:
        runtime, _, events = make_runtime(team, rules, threshold=0.0, step_limit=3, fallback=Fallback())
        result = runtime.run_ticket(TICKETS[2])
    finally:
        with torch.no_grad():
            head.bias.copy_(saved)
    assert [f["kind"] for f in result["faults"]] == ["step_limit"]
    assert result["faults"][0]["step"] == 4
    assert result["status"] == "truncated"  # the env's max_steps (6) ended it; nothing crashed
    assert all(d["source"] == "fallback" for d in result["decisions"] if d["step"] > 3)
    assert breaker_alerts(events)[0]["transition"]["reason"] == "step_limit"


def test_concurrent_batch_with_faults_has_no_failed_request(team, rules):
    runtime, clock, _ = make_runtime(team, rules, threshold=0.0)
    team[1].mode = "raise"
    try:
        tickets = [fresh(TICKETS[i % 4]) for i in range(16)]
        results = runtime.run_batch(tickets, concurrency=8)
    finally:
        team[1].mode = None
    assert [r["task_id"] for r in results] == [t.id for t in tickets]
    assert all(r["status"] == "completed" for r in results)
    assert runtime.status()["stats"]["errors"] == 0 and runtime.status()["stats"]["requests"] == 16
    assert runtime.breaker.state == "open" and runtime.breaker.counts["opened"] == 1


def test_typed_ticket_has_unknown_reward_and_bad_input_is_refused(team, rules):
    runtime, _, _ = make_runtime(team, rules)
    result = runtime.run_ticket("hi, where is my parcel?")
    assert result["reward"] is None and all(d["reward"] is None for d in result["decisions"])
    with pytest.raises(RuntimeInputError, match="empty"):
        runtime.run_ticket("   ")
    with pytest.raises(RuntimeInputError, match="Ticket or a text"):
        runtime.run_ticket(42)


def test_runtime_from_spec_checkpoint(tmp_path, team):
    from agents.spec import load_spec
    from training.mappo import CheckpointError, run_spec

    doc = json.loads(open("examples/customer_service.json").read())
    tiny = team[1].inner
    doc["backbone"] = {"model": tiny.name, "pooling": "mean", "max_length": 32}
    doc["training"] |= {"episodes": 2, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0}
    doc["training"] |= QUICK_TEAM  # no clause-reader pre-training: minutes on the tiny backbone
    doc["environment"]["params"] |= QUICK_START
    doc["circuit_breaker"] |= {"confidence_threshold": 0.0, "step_limit": 9}
    spec = load_spec(doc)
    run_spec(spec, tmp_path, backbone=tiny)
    checkpoint = tmp_path / "checkpoints" / "mappo" / "last"
    runtime = TeamRuntime.from_spec_checkpoint(spec, checkpoint, backbone=tiny)
    assert runtime.breaker.config.step_limit == 9 and runtime.fallback.kind == "keyword_router"
    result = runtime.run_ticket(TICKETS[3])
    assert result["sources"]["model"] == result["steps"] > 0
    # unset, the limit is the environment's: max_steps 6 plus a margin of 2 (agents.envs.breaker_step_limit)
    unset = load_spec({**doc, "circuit_breaker": {"confidence_threshold": 0.0}})
    derived = TeamRuntime.from_spec_checkpoint(unset, checkpoint, backbone=tiny)
    assert doc["environment"]["params"]["max_steps"] == 6 and derived.breaker.config.step_limit == 8
    (checkpoint / "model.safetensors").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="corrupted"):
        TeamRuntime.from_spec_checkpoint(spec, checkpoint, backbone=tiny)


def test_decision_log_sink_keeps_and_writes_records(tmp_path, team, rules):
    from serving.decisions import DecisionLog

    log = DecisionLog(maxlen=1000, path=tmp_path / "decisions.jsonl")
    runtime, _, _ = make_runtime(team, rules, sink=log.append)
    first, second = runtime.run_ticket(TICKETS[0]), runtime.run_ticket(TICKETS[1])
    assert len(log) == len(first["decisions"]) + len(second["decisions"])
    assert log.records(request_id=second["request_id"]) == second["decisions"]
    assert {r["agent"] for r in log.records(agent="logistics")} == {"logistics"}
    lines = (tmp_path / "decisions.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == first["decisions"] + second["decisions"]


def test_a_failing_decision_sink_fails_only_its_request_and_never_strands_the_trial(team, rules):
    runtime, clock, _ = make_runtime(team, rules, threshold=0.0)
    runtime.breaker.record_fault("timeout", "injected")
    clock.now += 5.0

    def broken_sink(record):
        raise KeyError("sink down")

    runtime.decision_sink = broken_sink
    [failed] = runtime.run_batch([TICKETS[0]], concurrency=1)
    assert failed["status"] == "error" and "sink down" in failed["error"]
    runtime.decision_sink = None
    # the trial was used (the model answered, breaker closed) or given back; never stuck half-open
    result = runtime.run_ticket(TICKETS[1])
    assert runtime.breaker.state == "closed" and result["sources"]["fallback"] == 0


def test_command_line_runs_tickets_and_refuses_a_missing_checkpoint(tmp_path, team, capsys):
    from agents.spec import load_spec
    from serving.cli import main
    from training.mappo import run_spec

    doc = json.loads(open("examples/customer_service.json").read())
    doc["backbone"] = {"model": team[1].inner.name, "pooling": "mean", "max_length": 32}
    doc["training"] |= {"episodes": 2, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0}
    doc["training"] |= QUICK_TEAM  # no clause-reader pre-training: minutes on the tiny backbone
    doc["environment"]["params"] |= QUICK_START
    doc["circuit_breaker"] |= {"confidence_threshold": 0.0}
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(json.dumps(doc))
    run_spec(load_spec(doc), tmp_path / "run", backbone=team[1].inner)
    decisions = tmp_path / "decisions.jsonl"
    code = main(
        [str(spec_path), "--checkpoint", str(tmp_path / "run"), "--ticket", "where is my parcel?"]
        + ["--json", "--decisions", str(decisions)]
    )
    assert code == 0
    [line] = capsys.readouterr().out.strip().splitlines()
    result = json.loads(line)
    assert result["status"] in ("completed", "truncated") and result["sources"]["model"] == result["steps"]
    assert len(decisions.read_text().splitlines()) == 4 * result["steps"]
    assert main([str(spec_path), "--checkpoint", str(tmp_path / "none"), "--ticket", "x"]) == 2
    assert "no checkpoint" in capsys.readouterr().err


def test_a_failed_half_open_trial_is_logged_as_the_trial_it_was(team, rules):
    runtime, clock, _ = make_runtime(team, rules, threshold=1.0)  # every decision is below 1.0: the trial fails
    runtime.breaker.record_fault("timeout", "opened by the test")
    clock.now += 5.0  # the cool-down elapses: the next step is the half-open trial
    result = runtime.run_ticket(fresh(TICKETS[0]))
    trial = [d for d in result["decisions"] if d["step"] == 1]
    assert trial and all(d["source"] == "trial" and d["breaker_state"] == "half_open" for d in trial)
    assert all(d["reason"]["rule"] for d in trial)  # the rules answered the failed trial
    assert result["sources"]["trial"] == 1
    assert all(d["source"] == "fallback" for d in result["decisions"] if d["step"] > 1)
    assert runtime.breaker.state == "open"
