"""Complexity advisor (docs/design.md#complexity-advisor): does this workflow need MARL, or would rules do?

Three indicators decide; when a workflow scores high on all three, multi-agent RL is
worth exploring, otherwise a rule engine or a fixed DAG is simpler, steadier and easier to debug:

- decision density — how many steps make non-trivial choices that depend on the current state;
- uncertainty — how variable each step's output is and how unpredictable the environment is;
- long/short-term reward conflict — whether a good final result needs some agent to give up
  short-term efficiency (a reviewer who checks carefully slows the step but saves rework).

The agent count matters too: 2–5 agents is the sweet spot, more needs a reason.

`advise(spec)` scores each indicator in [0, 1] from the spec's structure only (no training, no
model): the roles' decision weights and input uncertainty (`agents.roles`), branching and joins in the
dependency DAG, communication links, the environment's randomness and horizon, and the reward's
mix of delayed terms against immediate costs and bonuses. Every number comes with the reasons that
produced it, so the designer can show why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents.envs import UnknownEnvironmentError, env_class, episode_limit
from agents.roles import REWARD_TERMS, ROLES, deciding_agents
from agents.spec import SWEET_SPOT_AGENTS, FrozenDict, SpecError, TeamSpec, load_spec

__all__ = ["Advice", "EnvironmentProfile", "ENVIRONMENT_PROFILES", "MARL_THRESHOLDS", "advise"]


@dataclass(frozen=True)
class EnvironmentProfile:
    """What the advisor assumes about an environment it cannot run. An environment class may declare its
    own as the class attribute `complexity_profile`; the shipped ones are in `ENVIRONMENT_PROFILES`."""

    stochasticity: float  # 0 = deterministic episodes, 1 = every episode unpredictable
    horizon_param: str | None  # the params key holding the episode length, if any
    default_horizon: int
    note: str
    # Decisions each agent takes per episode when the step limit overstates it (None: the horizon above).
    decisions_per_agent: int | None = None
    # Every decision's right answer is in the data (a ticket's intents name its owners): a classifier or
    # imitation of an expert learns it without RL.
    labelled: bool = False
    # Share of what a decision needs that sits with other agents (0: each agent sees what it needs).
    information_spread: float = 0.0


ENVIRONMENT_PROFILES: dict[str, EnvironmentProfile] = {
    "number_guess": EnvironmentProfile(
        0.5,
        "max_rounds",
        1,
        "number_guess is a test bed for learned communication: the guesser sees none of the clues and "
        "distractors talk too, so the team must learn whom to listen to (a parser written for these exact "
        "clue phrasings would also solve it)",
        information_spread=1.0,
    ),
    "customer_service": EnvironmentProfile(
        0.7,
        "max_steps",
        6,
        "customer tickets vary in wording and may carry several intents at once, but each ticket's "
        "intents name the agents that should answer it: routing is a labelled, one-decision task",
        decisions_per_agent=1,
        labelled=True,
    ),
    "research_report": EnvironmentProfile(
        0.8, "max_steps", 32, "search results and the judge's scores vary from topic to topic"
    ),
    "collaborative_writing": EnvironmentProfile(
        0.6,
        "max_steps",
        16,
        "briefs differ in topic, tone and length, and each section's candidate blocks vary",
    ),
    "code_generation": EnvironmentProfile(
        0.6,
        "max_steps",
        14,
        "candidate snippets differ from task to task and only the hidden tests tell which one is right",
    ),
    "mpe": EnvironmentProfile(
        0.4,
        "max_cycles",
        25,
        "PettingZoo's Multi-Particle tasks: random start positions and targets, continuous physics, a "
        "standard benchmark (bench/peers.py compares MASE with BenchMARL on them)",
    ),
}
"""Known environments. An environment not listed is assumed moderately random (0.5), one step long."""

MARL_THRESHOLDS = {"each": 0.3, "mean": 0.5, "spread": 0.5}
"""MARL is recommended when every indicator reaches `each` and their mean reaches `mean`, or when at least
`spread` of what a decision needs sits with other agents (only learned communication joins it)."""


@dataclass(frozen=True)
class Advice:
    """The advisor's verdict on one spec."""

    decision_density: float
    uncertainty: float
    reward_conflict: float
    recommendation: str  # "rules" | "supervised" | "marl"
    reasons: tuple[str, ...]
    warnings: tuple[SpecError, ...] = ()
    factors: Mapping[str, float] = field(default_factory=FrozenDict)  # the sub-scores behind each indicator

    @property
    def score(self) -> float:
        """Mean of the three indicators."""
        return round((self.decision_density + self.uncertainty + self.reward_conflict) / 3, 3)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON for the web designer."""
        return {
            "decision_density": self.decision_density,
            "uncertainty": self.uncertainty,
            "reward_conflict": self.reward_conflict,
            "score": self.score,
            "recommendation": self.recommendation,
            "reasons": list(self.reasons),
            "warnings": [w.to_dict() for w in self.warnings],
            "factors": dict(self.factors),
        }


def _clip(x: float) -> float:
    return round(min(1.0, max(0.0, x)), 3)


def _level(x: float) -> str:
    return "high" if x >= 0.6 else "moderate" if x >= 0.3 else "low"


def _longest_dependency_path(spec: TeamSpec) -> int:
    """Agents on the longest dependency chain (1 when there are no dependency edges)."""
    out: dict[str, list[str]] = {}
    for e in spec.dependency_edges:
        out.setdefault(e.source, []).append(e.target)
    memo: dict[str, int] = {}

    def depth(node: str) -> int:  # the spec validator guarantees a DAG of at most 64 agents
        if node not in memo:
            memo[node] = 1 + max((depth(t) for t in out.get(node, [])), default=0)
        return memo[node]

    return max((depth(a) for a in spec.agent_ids), default=1)


def _agents_per_box(spec: TeamSpec) -> dict[str, int]:
    """How many agents each agent on the canvas plays: one, or a group's members where the environment
    draws its team by groups (``group_members`` on its class: the large team's `groups`)."""
    sizes = dict.fromkeys(spec.agent_ids, 1)
    if spec.environment.name is None:
        return sizes
    try:
        groups = getattr(env_class(spec.environment.name), "group_members", None)
    except UnknownEnvironmentError:
        return sizes
    if callable(groups):
        members = groups(dict(spec.environment.params))
        sizes.update({box: len(members[box]) for box in sizes if box in members})
    return sizes


def _decision_density(spec: TeamSpec, reasons: list[str], factors: dict[str, float]) -> float:
    agents = spec.agents
    n = len(agents)
    weights = [ROLES[a.role].decision_weight for a in agents]
    roles = sum(weights) / n
    deciders = sum(w >= 0.5 for w in weights)
    sizes = _agents_per_box(spec)
    members = sum(sizes.values())
    who = f"{deciders} of {n} agents"
    if members != n:  # groups: the roles are the boxes, the team plays every member
        playing = sum(sizes[a.id] for a, w in zip(agents, weights, strict=True) if w >= 0.5)
        who = f"{deciders} of {n} roles ({playing} of {members} agents, a group's members sharing its role)"

    out_deg: dict[str, int] = {}
    in_deg: dict[str, int] = {}
    for e in spec.dependency_edges:
        out_deg[e.source] = out_deg.get(e.source, 0) + 1
        in_deg[e.target] = in_deg.get(e.target, 0) + 1
    branching_nodes = sum(1 for a in spec.agent_ids if out_deg.get(a, 0) > 1 or in_deg.get(a, 0) > 1)
    branching = branching_nodes / n

    possible = n * (n - 1)
    if not spec.communication.enabled or possible == 0:
        links = 0.0
    elif not spec.communication_edges:
        links = 1.0  # every link open: whom to listen to is itself a learned decision
    else:
        links = len(spec.communication_edges) / possible

    value = _clip(0.5 * roles + 0.25 * branching + 0.25 * links)
    factors.update(role_decisions=_clip(roles), branching=_clip(branching), communication_links=_clip(links))
    link_text = (
        "communication is off"
        if links == 0.0 and not spec.communication.enabled
        else "every communication link open"
        if not spec.communication_edges
        else f"{len(spec.communication_edges)} of {possible} possible communication links"
    )
    reasons.append(
        f"decision density {value:.2f} ({_level(value)}): {who} make non-trivial choices; "
        f"{branching_nodes} agent(s) where the workflow branches or joins; {link_text}"
    )
    return value


def _env_profile(spec: TeamSpec) -> tuple[EnvironmentProfile | None, int]:
    name = spec.environment.name
    if name is None:
        return None, _longest_dependency_path(spec)
    profile = _declared_profile(name) or ENVIRONMENT_PROFILES.get(name) or _undeclared_profile(name)
    horizon = profile.default_horizon
    if profile.decisions_per_agent is not None:
        horizon = profile.decisions_per_agent
    elif profile.horizon_param is not None:
        value = spec.environment.params.get(profile.horizon_param)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            horizon = value
    return profile, max(horizon, _longest_dependency_path(spec))


def _undeclared_profile(name: str) -> EnvironmentProfile:
    """An environment that declares no profile: moderately random, as long as its declared step limit
    (`max_steps`, agents.envs.episode_limit) when it has one, else one step."""
    try:
        longest = episode_limit(env_class(name), {})
    except UnknownEnvironmentError:
        longest = None
    if longest is None:
        return EnvironmentProfile(0.5, None, 1, f"{name}: unknown environment, assumed moderately random")
    return EnvironmentProfile(
        0.5, "max_steps", longest, f"{name}: no complexity profile declared; assumed moderately random"
    )


def _declared_profile(name: str) -> EnvironmentProfile | None:
    """The `complexity_profile` an environment class declares, if any (an unknown name has none)."""
    try:
        declared = getattr(env_class(name), "complexity_profile", None)
    except UnknownEnvironmentError:
        return None
    return declared if isinstance(declared, EnvironmentProfile) else None


def _uncertainty(spec: TeamSpec, reasons: list[str], factors: dict[str, float]) -> float:
    n = len(spec.agents)
    roles = sum(ROLES[a.role].external_uncertainty for a in spec.agents) / n
    profile, _ = _env_profile(spec)
    in_deg: dict[str, int] = {}
    if spec.communication.enabled:
        if spec.communication_edges:
            for e in spec.communication_edges:
                in_deg[e.target] = in_deg.get(e.target, 0) + 1
        else:
            in_deg = dict.fromkeys(spec.agent_ids, n - 1)
    fan_in = max(in_deg.values(), default=0)
    # A receiver that must weigh many sources is unsure which to trust (distractors, conflicting advice).
    fan = (fan_in - 1) / (n - 2) if n > 2 and fan_in > 1 else 0.0
    if profile is None:
        value = 0.65 * roles + 0.35 * fan
        env_text = "no environment yet (judged from the roles)"
    else:
        value = 0.4 * roles + 0.4 * profile.stochasticity + 0.2 * fan
        env_text = f"environment randomness {profile.stochasticity:.1f}"
        factors["environment_randomness"] = _clip(profile.stochasticity)
    value = _clip(value)
    factors.update(role_input_uncertainty=_clip(roles), fan_in=_clip(fan))
    reasons.append(
        f"uncertainty {value:.2f} ({_level(value)}): role inputs {roles:.2f} on average; {env_text}; "
        f"the busiest receiver weighs {fan_in} source(s)"
    )
    return value


def _reward_conflict(spec: TeamSpec, reasons: list[str], factors: dict[str, float]) -> float:
    per_phase = []
    for phase in (p.name for p in spec.evolution.phases):
        delayed = immediate = 0.0
        for t in spec.reward.terms:
            w = t.weight(phase)
            if REWARD_TERMS[t.term].delayed:
                delayed += max(w, 0.0)
            else:
                immediate += abs(w)  # per-step costs and bonuses pull towards the short term
        if spec.communication.enabled:
            immediate += spec.communication.message_cost
        per_phase.append(math.sqrt(min(1.0, immediate / delayed)) if delayed > 0 and immediate > 0 else 0.0)
    terms = sum(per_phase) / len(per_phase) if per_phase else 0.0
    _, horizon = _env_profile(spec)
    steps = 1.0 - 1.0 / horizon
    value = _clip(0.6 * terms + 0.4 * steps)
    factors.update(delayed_vs_immediate=_clip(terms), horizon=_clip(steps))
    reasons.append(
        f"long/short-term reward conflict {value:.2f} ({_level(value)}): immediate costs and bonuses against "
        f"delayed rewards {terms:.2f}; episodes of about {horizon} step(s)"
    )
    return value


def _recommend(
    spec: TeamSpec, indicators: tuple[float, float, float], profile: EnvironmentProfile | None, horizon: int
) -> tuple[str, str]:
    """("rules" | "supervised" | "marl", the reason). In order: one agent → rules; decisions whose right
    answers are in the data and are taken once per episode → supervised (routing: a classifier or imitation
    of an expert matches RL); all three indicators high → MARL; information spread over agents that talk →
    MARL (only learned communication joins it, even in one step); otherwise rules."""
    mean = sum(indicators) / 3
    spread = profile.information_spread if profile is not None else 0.0
    if len(spec.agents) == 1:
        return "rules", "a single agent has nobody to coordinate with: improve its prompt and tools instead"
    if profile is not None and profile.labelled and horizon <= 2:
        return "supervised", (
            "each decision's right answer is in the data and taken once per episode, with nothing deferred: "
            "supervised learning (a classifier, or imitation of an expert) reaches what RL would, at a "
            "fraction of the cost; keep MARL for workflows with many dependent decisions"
        )
    if min(indicators) >= MARL_THRESHOLDS["each"] and mean >= MARL_THRESHOLDS["mean"]:
        return "marl", (
            f"all three indicators are at least {MARL_THRESHOLDS['each']} (mean {mean:.2f}): learned collaboration "
            "can find patterns a rule designer would miss"
        )
    if spread >= MARL_THRESHOLDS["spread"] and spec.communication.enabled:
        return "marl", (
            f"what a decision needs is spread over the agents ({spread:.1f}): no agent can decide alone, and whom "
            "to listen to must be learned, so learned communication pays even where the three indicators are low"
        )
    weakest = min(zip(indicators, ("decision density", "uncertainty", "reward conflict"), strict=True))
    return "rules", (
        f"{weakest[1]} is {_level(weakest[0])} ({weakest[0]:.2f}; mean {mean:.2f}): hand-written rules or a fixed "
        "DAG are simpler, steadier and easier to debug here"
    )


def advise(spec_or_doc: TeamSpec | Mapping[str, Any]) -> Advice:
    """Score a spec's need for MARL (docs/design.md#complexity-advisor) and recommend "rules" or "marl", with reasons.

    A pure function of the spec's structure. A document is validated first (SpecValidationError,
    a ValueError, when it is invalid).
    """
    spec = spec_or_doc if isinstance(spec_or_doc, TeamSpec) else load_spec(dict(spec_or_doc))
    reasons: list[str] = []
    factors: dict[str, float] = {}
    density = _decision_density(spec, reasons, factors)
    uncertainty = _uncertainty(spec, reasons, factors)
    conflict = _reward_conflict(spec, reasons, factors)

    deciding = deciding_agents(a.role for a in spec.agents)  # informants and distractors only share
    lo, hi = SWEET_SPOT_AGENTS
    warnings: list[SpecError] = []
    if deciding > hi:
        warnings.append(
            SpecError(
                "$.agents",
                f"{deciding} agents make decisions: above {hi} the coordination cost usually outweighs specialisation "
                "(see docs/design.md#complexity-advisor); merge roles unless the task is very large and modular",
            )
        )
    indicators = (density, uncertainty, conflict)
    profile, horizon = _env_profile(spec)
    recommendation, why = _recommend(spec, indicators, profile, horizon)
    reasons.append(why)
    if profile is not None:
        reasons.append(profile.note)
    if deciding > hi:
        reasons.append(f"{deciding} deciding agents is above the {lo}–{hi} sweet spot")
    members = sum(_agents_per_box(spec).values())
    if members != len(spec.agents):
        reasons.append(
            f"{len(spec.agents)} roles, {members} agents: the {lo}–{hi} sweet spot counts the roles that must "
            "coordinate, not a group's members, who share their group's role"
        )
    return Advice(
        decision_density=density,
        uncertainty=uncertainty,
        reward_conflict=conflict,
        recommendation=recommendation,
        reasons=tuple(reasons),
        warnings=tuple(warnings),
        factors=FrozenDict(factors),
    )
