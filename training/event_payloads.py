"""The payload of each kind of run event, declared once: a pydantic model per event type.

`training.events` takes its event types from `PAYLOADS`; the frontend's payload types are generated from
the schema printed here (``python -m training.event_payloads > frontend/src/runs/events.schema.json``,
then ``npm run gen:events`` in frontend/), and tests check both committed copies are current. Payloads
that carry more than their declared keys (a metrics event's named scalars, an alert's readings) allow
extra keys; the declared ones are what every consumer may rely on.

Run: python -m training.event_payloads > frontend/src/runs/events.schema.json
"""

from __future__ import annotations

import json
import sys
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Payload(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _OpenPayload(BaseModel):
    model_config = ConfigDict(extra="allow")


class StartedPayload(_OpenPayload):
    """The run began or resumed."""

    resumed_from: int | None = Field(None, description="the episode it resumed from; null: a new run")
    algorithm: str | None = Field(None, description="the algorithm that trains")
    episodes: int | None = Field(None, description="the episode budget")
    agents: list[str] | None = Field(None, description="the team's agent ids")


class MetricsPayload(_OpenPayload):
    """Scalar metrics at one point of training; every other numeric key is a named metric."""

    step: int | None = Field(None, description="the update or request count")
    episode: int | None = Field(None, description="episodes done so far")
    phase: str | None = Field(None, description="the evolution phase the run is in")
    golden_levels: dict[str, Literal["ok", "warn", "alert"]] | None = Field(
        None, description="each golden metric's level (the metric itself is 'golden.<name>')"
    )
    system: dict[str, Any] | None = Field(None, description="process and device readings (cpu_percent, …)")


class GraphNode(_Payload):
    id: str
    x: float
    y: float


class GraphEdge(_Payload):
    source: str
    target: str
    weight: float


class CommunicationGraph(_Payload):
    """A network picture laid out on the server (networkx), so every viewer shows the same graph."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]


class AttentionPayload(_OpenPayload):
    """Communication attention: row i of ``matrix`` is how much agent i listens to each agent j."""

    step: int | None = None
    agents: list[str]
    matrix: list[list[float]]
    mode: str | None = Field(None, description="train or eval")
    graph: CommunicationGraph | None = None


class PhasePayload(_Payload):
    """The evolution phase changed."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    from_: str = Field(alias="from", description="the phase left")
    to: str = Field(description="the phase entered")
    reason: str = ""


class PlateauPayload(_Payload):
    """The plateau rule fired."""

    cycles: int
    recommendation: str


class CheckpointPayload(_OpenPayload):
    """A checkpoint was written."""

    step: int
    path: str
    metrics: dict[str, Any] = Field(default_factory=dict)


class AlertPayload(_OpenPayload):
    """A golden-range, circuit-breaker or health alert; readings (value, golden, state…) ride along."""

    name: str | None = None
    level: str = Field(description="ok, warn, alert (breakers: info, warning, critical)")
    source: str | None = Field(None, description="what raised it: golden, breaker, protocol, health…")
    message: str | None = None


class LogPayload(_OpenPayload):
    """A human-readable progress line; a stage's report rides along under its own key (offline, calibration)."""

    message: str


class ProgressPayload(_Payload):
    """How far one stage of the run is (`training.events.RunStage`)."""

    phase: str = Field(
        description="the stage: preparing, reader_texts, reader_fit, expert_episodes, cloning_data, cloning, "
        "critic_warmup, training, evaluation, calibration"
    )
    label: str
    done: int
    total: int
    unit: str
    elapsed_s: float
    eta_s: float | None = Field(
        description="seconds left at the stage's own rate since its first unit (which holds the start-up); "
        "null until it did more"
    )
    state: Literal["running", "done", "stopped"]


class ErrorPayload(_Payload):
    """An error the run reports before failing."""

    message: str


class FinishedPayload(_OpenPayload):
    """The run ended."""

    status: Literal["succeeded", "failed", "cancelled"]
    metrics: dict[str, Any] = Field(default_factory=dict)
    episode: int | None = None


class ArmScorePayload(_Payload):
    """One arm of a verdict on the evaluation episodes (training.verdict.ArmScore)."""

    name: str = Field(description="rules, imitation, mappo, ippo, …")
    mean: float
    low: float = Field(description="the bootstrap interval's lower end")
    high: float
    episodes: int
    cost: float | None = Field(None, description="mean cost per episode (steps, or the environment's cost)")


class VerdictPayload(_OpenPayload):
    """The trained team beside its baselines on the same held-out episodes, and whether MARL paid
    (training.baselines, training.verdict)."""

    learned: str = Field(description="the learned arm's name (the run's algorithm)")
    baseline: str | None = Field(description="the best baseline arm it was judged against")
    difference: float | None = Field(description="mean paired score difference learned − baseline")
    low: float | None
    high: float | None
    outcome: Literal["marl_paid", "marl_paid_costlier", "no_better", "worse", "no_baseline"]
    sentence: str
    level: float = Field(0.95, description="the confidence level of the intervals")
    arms: list[ArmScorePayload]


class AllocationPayload(_Payload):
    """Who got the tasks of a large team's last evaluation episode, and what syncing its state cost
    (`agents.envs.large_team.summary`)."""

    step: int | None = Field(None, description="episodes trained when it was evaluated")
    split: str | None = Field(None, description="the evaluation split")
    allocation: str = Field(description="auction (learned bids), fixed_auction, central or round_robin")
    state_sync: str = Field(description="gossip or central")
    agents: list[str]
    tasks: list[int] = Field(description="the task indices the backlog columns stand for (the last ones)")
    backlog: list[list[float]] = Field(
        description="agents × tasks: each agent's backlog (time units) when each task arrived"
    )
    wins: list[int] = Field(description="tasks each agent won, in agents order")
    dropped: int = Field(description="tasks nobody took")
    messages: int = Field(description="state-sync messages the run's mode sent")
    gossip_messages: int
    central_messages: int = Field(description="what the central controller sends for the same changes")
    quota_hits: int = Field(description="agent-rounds that gossiped with one peer only (quota reached)")
    storms: int = Field(0, description="message storms detected (an agent over the message quota)")
    storm_rounds: int = Field(0, description="agent-rounds over the message quota")
    throttled: int = Field(0, description="messages the quota and reputation dropped")
    reputations: list[float] = Field(
        default_factory=list, description="each agent's reputation at the episode's end, in agents order"
    )
    stormers: list[str] = Field(default_factory=list, description="agents detected storming this episode")


PAYLOADS: dict[str, type[BaseModel]] = {
    "started": StartedPayload,
    "metrics": MetricsPayload,
    "attention": AttentionPayload,
    "phase": PhasePayload,
    "plateau": PlateauPayload,
    "checkpoint": CheckpointPayload,
    "alert": AlertPayload,
    "log": LogPayload,
    "progress": ProgressPayload,
    "error": ErrorPayload,
    "finished": FinishedPayload,
    "verdict": VerdictPayload,
    "allocation": AllocationPayload,
}
"""Event type -> the model of its payload."""


def payload_problems(type: str, payload: dict[str, Any]) -> list[str]:
    """What is wrong with ``payload`` for an event of ``type``, in words (empty: it is as declared)."""
    model = PAYLOADS.get(type)
    if model is None:
        return [f"unknown event type {type!r}"]
    try:
        model.model_validate(payload)
    except ValueError as exc:
        return [f"{type}: {error['loc']}: {error['msg']}" for error in exc.errors()]  # type: ignore[attr-defined]
    return []


def payload_schema() -> dict[str, Any]:
    """One JSON schema whose ``EventPayloads`` property maps each event type to its payload's model."""
    definitions: dict[str, Any] = {}
    properties = {}
    for type_name, model in PAYLOADS.items():
        schema = model.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
        definitions.update(schema.pop("$defs", {}))
        definitions[model.__name__] = schema
        properties[type_name] = {"$ref": f"#/$defs/{model.__name__}"}
    for definition in definitions.values():  # a titled field would become a named TS alias of its own
        for field_schema in definition.get("properties", {}).values():
            field_schema.pop("title", None)
    return {
        "title": "EventPayloads",
        "description": "Each run event type's payload (training/event_payloads.py).",
        "type": "object",
        "properties": properties,
        "required": list(PAYLOADS),
        "additionalProperties": False,
        "$defs": dict(sorted(definitions.items())),
    }


def schema_text() -> str:
    """The schema as the committed frontend/src/runs/events.schema.json holds it."""
    return json.dumps(payload_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(schema_text())
