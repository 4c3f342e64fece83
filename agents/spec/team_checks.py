"""The validator's checks of the team itself: backbone, agents, edges, communication, evolution, reward,
curriculum, circuit breaker and fallback."""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import MISSING

import networkx as nx

from agents.roles import REWARD_TERMS
from agents.spec.checks import _allowed_keys, _Checks, _quote_list
from agents.spec.declared import rule
from agents.spec.nodes import (
    AgentSpec,
    BackboneSpec,
    CircuitBreakerSpec,
    CommunicationSpec,
    CurriculumSpec,
    EdgeSpec,
    EvolutionSpec,
    FallbackRuleSpec,
    FallbackSpec,
    LoraSpec,
    PhaseSpec,
    PlateauSpec,
    PolicyHeadSpec,
    RewardSpec,
    RewardTermSpec,
)
from agents.spec.options import (
    ID_PATTERN,
    LIMITS,
    PHASES,
    PRESETS,
    REWARD_PRESETS,
)


class _TeamChecks(_Checks):
    """Checks of the sections that describe the team (each method checks one section of `top`)."""

    def backbone(self, top: dict) -> None:
        sec = self.section(top, "backbone", BackboneSpec)
        if sec is None:
            return
        self.declared(sec, "$.backbone", BackboneSpec)

    def agents(self, top: dict) -> list[str] | None:
        """Checks the agents; returns their distinct ids when every id is valid (for cross-references)."""
        agents = self.array(top, "$", "agents", LIMITS["agents"], min_items=1)
        if agents is None:
            return None
        ids: list[str] = []
        ids_ok = True
        seen: dict[str, int] = {}
        for i, a in enumerate(agents):
            p = f"$.agents[{i}]"
            sec = self.obj(a, p, _allowed_keys(AgentSpec), required=("id", "role"))
            if sec is None:
                ids_ok = False
                continue
            aid = self.option(sec, p, rule(AgentSpec, "id"))
            if isinstance(aid, str):
                if aid in seen:  # still a known id for cross-references; the duplicate is the error
                    self.err(f"{p}.id", f"duplicate agent id {json.dumps(aid)} (also $.agents[{seen[aid]}])")
                else:
                    seen[aid] = i
                    ids.append(aid)
            else:
                ids_ok = False
            role = self.option(sec, p, rule(AgentSpec, "role"))
            if "prompt" in sec:
                self.option(sec, p, rule(AgentSpec, "prompt"))
            elif role == "custom":
                self.err(f"{p}.prompt", "is required for a custom role (custom roles have no default prompt)")
            if "lora" in sec:
                lp = f"{p}.lora"
                lora = self.obj(sec["lora"], lp, _allowed_keys(LoraSpec))
                if lora is not None:
                    self.declared(lora, lp, LoraSpec)  # r, alpha, dropout; the modules below
                    if lora.get("target_modules") is not None:
                        mods = self.array(lora, lp, "target_modules", LIMITS["target_modules"], min_items=1)
                        for j, m in enumerate(mods or []):
                            if (
                                not isinstance(m, str)
                                or not m.strip()
                                or len(m) > 200
                                or any(c.isspace() for c in m)
                            ):
                                self.err(
                                    f"{lp}.target_modules[{j}]",
                                    'must be a module name such as "k_proj" (no spaces)',
                                )
            if "policy_head" in sec:
                hp = f"{p}.policy_head"
                head = self.obj(sec["policy_head"], hp, _allowed_keys(PolicyHeadSpec))
                if head is not None:
                    self.declared(head, hp, PolicyHeadSpec)
            self.option(sec, p, rule(AgentSpec, "update_period"))
            intents = self.array(sec, p, "intents", 64)
            for j, name in enumerate(intents or []):
                if not isinstance(name, str) or not ID_PATTERN.match(name):
                    self.err(f"{p}.intents[{j}]", "must be an intent name from the environment's catalogue")
            if intents and len(set(map(str, intents))) < len(intents):
                self.err(f"{p}.intents", "lists an intent twice")
            self.option(sec, p, rule(AgentSpec, "clue"))
        return ids if ids_ok else None

    def edges(self, top: dict, ids: list[str] | None) -> None:
        edges = self.array(top, "$", "edges", LIMITS["edges"])
        if edges is None:
            return
        known = set(ids) if ids is not None else None
        seen: dict[tuple[str, str, str], int] = {}
        deps: list[tuple[int, str, str]] = []
        for i, e in enumerate(edges):
            p = f"$.edges[{i}]"
            sec = self.obj(e, p, _allowed_keys(EdgeSpec), required=("source", "target"))
            if sec is None:
                continue
            src = self.option(sec, p, rule(EdgeSpec, "source"))
            dst = self.option(sec, p, rule(EdgeSpec, "target"))
            kind = self.option(sec, p, rule(EdgeSpec, "kind"))
            kind = EdgeSpec.kind if kind is MISSING else kind
            ends_ok = True
            for key, end in (("source", src), ("target", dst)):
                if not isinstance(end, str):
                    ends_ok = False
                elif known is not None and end not in known:
                    self.err(
                        f"{p}.{key}",
                        f"unknown agent {json.dumps(end[:40])}; known agents: {_quote_list(ids or [])}",
                    )
                    ends_ok = False
            if not (ends_ok and isinstance(kind, str)):
                continue
            if src == dst:
                self.err(
                    p, f"self-loop: an edge from {json.dumps(src)} to itself; connect two different agents"
                )
                continue
            key3 = (src, dst, kind)
            if key3 in seen:
                self.err(p, f"duplicate {kind} edge {src} -> {dst} (also $.edges[{seen[key3]}])")
                continue
            seen[key3] = i
            if kind == "dependency":
                deps.append((i, src, dst))
        if known is not None:
            self.dependency_cycles(deps)

    def dependency_cycles(self, deps: list[tuple[int, str, str]]) -> None:
        """Dependency edges must form a DAG; report each cycle found (at the edge that closes it)."""
        graph = nx.DiGraph()
        for i, s, t in deps:
            graph.add_edge(s, t, index=i)
        cycles = list(itertools.islice(nx.simple_cycles(graph), 11))  # hostile specs may hold very many
        for cycle in cycles[:10]:
            start = cycle.index(min(cycle))  # name each cycle from the same node, whatever the search order
            cycle = cycle[start:] + cycle[:start]
            closing = graph.edges[cycle[-1], cycle[0]]["index"]
            self.err(
                f"$.edges[{closing}]",
                "dependency edges form a cycle: "
                + " -> ".join([*cycle, cycle[0]])
                + "; a workflow must be a DAG",
            )

    def communication(self, top: dict) -> None:
        sec = self.section(top, "communication", CommunicationSpec)
        if sec is None:
            return
        p = "$.communication"
        v = self.declared(sec, p, CommunicationSpec)
        # an absent beta is its default in the cross-check
        b0, b1 = (
            getattr(CommunicationSpec, k) if v[k] is MISSING else v[k] for k in ("beta_start", "beta_end")
        )
        if isinstance(b0, float) and isinstance(b1, float) and b1 > b0:
            self.err(
                f"{p}.beta_end",
                f"exploration noise decays: beta_end ({b1:g}) must not exceed beta_start ({b0:g})",
            )

    def evolution(self, top: dict) -> list[str] | None:
        """Checks the schedule; returns the declared phase names (None when they are invalid)."""
        sec = self.section(top, "evolution", EvolutionSpec)
        if sec is None:
            return None
        p = "$.evolution"
        names: list[str] | None = list(PHASES)
        if "phases" in sec:
            phases = self.array(sec, p, "phases", len(PHASES), min_items=1)
            names = [] if phases is not None else None
            last = -math.inf
            for i, ph in enumerate(phases or []):
                pp = f"{p}.phases[{i}]"
                s = self.obj(ph, pp, _allowed_keys(PhaseSpec), required=("name", "threshold"))
                if s is None:
                    names = None
                    continue
                name = self.option(s, pp, rule(PhaseSpec, "name"))
                if isinstance(name, str) and names is not None:
                    if name in names:
                        self.err(f"{pp}.name", f"phase {json.dumps(name)} is listed twice")
                    elif names and PHASES.index(name) < PHASES.index(names[-1]):
                        self.err(
                            f"{pp}.name",
                            f"phases run in the order {' -> '.join(PHASES)}; {name} cannot follow {names[-1]}",
                        )
                    names.append(name)
                elif names is not None:
                    names = None
                th = self.option(s, pp, rule(PhaseSpec, "threshold"))
                if isinstance(th, float):
                    if th < last:
                        self.err(
                            f"{pp}.threshold",
                            f"thresholds must not decrease from one phase to the next ({th:g} < {last:g})",
                        )
                    last = th
        if "plateau" in sec:
            pl = self.obj(sec["plateau"], f"{p}.plateau", _allowed_keys(PlateauSpec))
            if pl is not None:
                self.declared(pl, f"{p}.plateau", PlateauSpec)
        self.declared(sec, p, EvolutionSpec)  # cycle_episodes; phases and plateau are checked above
        return names

    def reward(self, top: dict, phases: list[str] | None) -> None:
        sec = self.section(top, "reward", RewardSpec)
        if sec is None:
            return
        p = "$.reward"
        preset = self.string(sec, p, "preset", max_len=40, choices=PRESETS, nullable=True)
        if isinstance(preset, str) and phases is not None:
            needed = {ph for w in REWARD_PRESETS[preset].values() for ph, x in w.items() if x != 0}
            missing = sorted(needed - set(phases), key=PHASES.index)
            if missing and preset == "phase_rewards":
                self.err(
                    f"{p}.preset",
                    f"preset phase_rewards weighs phases {_quote_list(missing)} that $.evolution.phases does not declare",
                )
        terms = self.array(sec, p, "terms", LIMITS["reward_terms"])
        if "terms" in sec and terms is not None and not terms and preset in (None, MISSING):
            self.err(f"{p}.terms", "the reward needs at least one term (or a preset)")
        seen: dict[str, int] = {}
        for i, t in enumerate(terms or []):
            tp = f"{p}.terms[{i}]"
            s = self.obj(t, tp, _allowed_keys(RewardTermSpec), required=("term", "weights"))
            if s is None:
                continue
            name = self.string(s, tp, "term", max_len=40, choices=REWARD_TERMS)
            if isinstance(name, str):
                if name in seen:
                    self.err(
                        f"{tp}.term",
                        f"term {json.dumps(name)} is listed twice (also {p}.terms[{seen[name]}])",
                    )
                seen[name] = i
            if "weights" in s:
                w = self.obj(s["weights"], f"{tp}.weights", PHASES if phases is None else phases)
                for ph in w or {}:
                    if phases is None or ph in phases:
                        self.number(w, f"{tp}.weights", ph, -10, 10)

    def curriculum(self, top: dict) -> None:
        sec = self.section(top, "curriculum", CurriculumSpec)
        if sec is None:
            return
        p = "$.curriculum"
        # an absent bound is its default in the cross-checks (lower below upper, min_level up to max_level)
        v = {
            k: getattr(CurriculumSpec, k) if x is MISSING else x
            for k, x in self.declared(sec, p, CurriculumSpec).items()
        }
        up, lo = v["upper"], v["lower"]
        if isinstance(up, float) and isinstance(lo, float) and not lo < up:
            self.err(f"{p}.lower", f"lower ({lo:g}) must be below upper ({up:g})")
        mn, mx = v["min_level"], v["max_level"]
        if isinstance(mn, int) and isinstance(mx, int) and mn > mx:
            self.err(f"{p}.min_level", f"min_level ({mn}) must not exceed max_level ({mx})")

    def circuit_breaker(self, top: dict) -> None:
        sec = self.section(top, "circuit_breaker", CircuitBreakerSpec)
        if sec is None:
            return
        self.declared(sec, "$.circuit_breaker", CircuitBreakerSpec)

    def fallback(self, top: dict, ids: list[str] | None) -> None:
        sec = self.section(top, "fallback", FallbackSpec)
        if sec is None:
            return
        p = "$.fallback"
        kind = self.option(sec, p, rule(FallbackSpec, "kind"))
        rules = self.array(sec, p, "rules", LIMITS["fallback_rules"])
        # Absent or empty rules leave a router with nowhere to route (an invalid "rules" is reported already).
        if kind == "keyword_router" and ("rules" not in sec or rules == []):
            self.err(f"{p}.rules", "a keyword_router needs at least one rule")
        for i, r in enumerate(rules or []):
            rp = f"{p}.rules[{i}]"
            s = self.obj(r, rp, _allowed_keys(FallbackRuleSpec), required=("keywords", "route_to"))
            if s is None:
                continue
            kws = self.array(s, rp, "keywords", LIMITS["keywords"], min_items=1)
            for j, kw in enumerate(kws or []):
                if not isinstance(kw, str) or not kw.strip() or len(kw) > LIMITS["keyword_chars"]:
                    self.err(
                        f"{rp}.keywords[{j}]",
                        f"must be a non-empty string of at most {LIMITS['keyword_chars']} characters",
                    )
            target = self.option(s, rp, rule(FallbackRuleSpec, "route_to"))
            if isinstance(target, str) and ids is not None and target not in ids:
                self.err(
                    f"{rp}.route_to", f"unknown agent {json.dumps(target)}; known agents: {_quote_list(ids)}"
                )
