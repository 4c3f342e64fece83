"""A routing team (customer service, or any intent catalogue): turn a played episode into the reply the
customer reads, one part per agent.

The team's decisions say who writes what. The intents of the approved draft (the supervisor's verdict
decides what is sent) are each written by the agent that handled them in the episode (the role that owns
the intent when the log does not say); each writing agent gets its own system prompt from the team spec
and, as context, the ticket, the intents it handles, the team's other decisions and the teammates it
listened to most (the learned communication, from its decision records). The parts are written at once
under the breaker (`GuardedWriter`) and joined into one reply.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from agents.envs.routing import routing
from serving.breaker import BreakerConfig, CircuitBreaker
from serving.generation import GenerationConfig, Reach, make_generator
from serving.generation.guard import GuardedWriter, PartRequest, summarise
from serving.generation.styles import styled_parts
from serving.generation.template import join_reply, ticket_context
from serving.requests import OUT_OF_SCOPE
from serving.scope import handoff_text

SUPERVISOR = "quality_supervisor"  # who sends the holding reply when the team names no reviewer
DEFAULT_PROMPT = "You are a customer-service agent. Answer the customer's request politely and concretely."


class TicketWriter:
    """Writes the reply of a played customer-service episode (`answer`); thread-safe."""

    def __init__(self, writer: GuardedWriter, agents: Sequence[Mapping[str, Any]] = (), team: str = ""):
        self.writer = writer
        self.team = team
        """Who signs the reply: the deployed team's name (the spec's ``name``)."""
        self.prompts = {str(a["id"]): str(a.get("prompt") or DEFAULT_PROMPT) for a in agents}
        # who owns an intent when the log does not say: the agent naming it in its spec ``intents``,
        # else the one whose role owns it; the reviewer (if any) sends the holding reply
        self.owner: dict[str, str] = {}
        self.reviewer = SUPERVISOR
        self.routing = routing()  # what an action answers, and a shipped role's intents
        for a in agents:
            role, agent = str(a.get("role") or a["id"]), str(a["id"])
            if role in self.routing.reviewer_roles:
                self.reviewer = agent if self.reviewer == SUPERVISOR else self.reviewer
                continue
            owned = a.get("intents") or self.routing.role_intents(role)
            for intent in owned:
                self.owner.setdefault(str(intent), agent)

    @classmethod
    def build(
        cls,
        config: GenerationConfig,
        agents: Sequence[Mapping[str, Any]] = (),
        api_key: str | None = None,
        name: str = "writer",
        reach: Reach | None = None,
        team: str = "",
    ) -> TicketWriter:
        """A writer for ``config``'s backend with its own breaker (cool-down ``config.cooldown_s``);
        ``reach``: what a server allows the backend to connect to (`make_generator`); ``team``: who signs."""
        breaker = CircuitBreaker(BreakerConfig(cooldown_s=config.cooldown_s), name=name)
        generator = make_generator(config, api_key=api_key, reach=reach)
        return cls(GuardedWriter(generator, config, breaker, secrets=[api_key or ""]), agents, team)

    def plan(self, ticket: str, result: Mapping[str, Any]) -> list[PartRequest]:
        """Who writes which intents, and what each of them reads."""
        info = result.get("info") or {}
        intents = list(dict.fromkeys(info.get("predicted_intents") or ()))  # the env's catalogue order
        records = list(result.get("decisions") or ())
        handled_by: dict[str, str] = {}
        for r in records:  # the first agent whose action handled the intent writes it
            intent = self.routing.answered_intent(str(r.get("action")))
            if intent in intents and intent not in handled_by:
                handled_by[intent] = str(r["agent"])
        writers: dict[str, list[str]] = defaultdict(list)
        for intent in intents:
            agent = handled_by.get(intent) or self.owner.get(intent, self.reviewer)
            writers[agent].append(intent)
        if not writers:  # nothing answered: the supervisor sends the holding reply
            writers[self.reviewer] = []
        decisions = [f"{handled_by.get(i) or self.owner.get(i, '?')} → {i}" for i in intents]
        parts = []
        for agent, own in writers.items():
            heard = _heard(records, agent)
            context = ticket_context(ticket, own, [d for d in decisions if not d.startswith(agent)], heard)
            system = self.prompts.get(agent, DEFAULT_PROMPT)
            parts.append(PartRequest(agent, tuple(own), system, [{"role": "user", "content": context}]))
        return parts

    def answer(self, ticket: str, result: Mapping[str, Any], on_part=None, on_chunk=None) -> dict[str, Any]:
        """The reply: ``{"text", "parts": [{agent, intents, text, source, backend, usage, latency_ms, cost,
        fault, …}], "backend", "model", "usage", "cost", "latency_ms", "faults", "fallback", "approved",
        "breaker", "signature"}`` (plain JSON; ``signature``: the team's name the reply is signed with).
        Never raises for a backend fault: the template writes that part.
        The reply is written in the result's ``reply_style`` ("plain" when it has none, `styled_parts`),
        recorded as the reply's ``style`` when the result names one (with ``propensity``, the probability
        it was served with, when the result logs it).
        ``on_part(index, part dict)`` hears each part as soon as it is settled, ``on_chunk(index, agent,
        text)`` its text as it is written (`GuardedWriter.write`): what a browser shows live."""
        if result.get("status") == OUT_OF_SCOPE:  # outside the catalogue: a person takes it over
            return self.handoff(result)
        started = time.perf_counter()
        hear = None if on_part is None else (lambda i, part: on_part(i, part.to_dict()))
        parts = self.writer.write(self.plan(ticket, result), on_part=hear, on_chunk=on_chunk)
        config = self.writer.config
        style = str(result.get("reply_style") or "plain")  # the team's writer's choice (serving.runtime)
        reply = {
            "text": join_reply(styled_parts(style, [p.text for p in parts]), self.team),
            "signature": self.team,
            "parts": [p.to_dict() for p in parts],
            **summarise(parts, config.backend, config.model or config.backend),
            "latency_ms": round((time.perf_counter() - started) * 1000.0, 3),
            "approved": bool((result.get("info") or {}).get("approved", False)),
            "breaker": self.writer.breaker.state,
        }
        if "reply_style" in result:  # a team with a writer: the style is logged with the reply
            reply["style"] = style
            if result.get("reply_style_explored"):  # served to explore (decision 0035), not the writer's choice
                reply["explored"] = True
            if result.get("reply_style_propensity") is not None:  # the probability it was served with (0039)
                reply["propensity"] = float(result["reply_style_propensity"])
        return reply

    def handoff(self, result: Mapping[str, Any]) -> dict[str, Any]:
        """The reply to a ticket outside the team's catalogue (`serving.scope`): says so in words and that a
        person takes it over; nothing is written by the agents."""
        faults = [f for f in result.get("faults") or () if f.get("kind") == OUT_OF_SCOPE]
        config = self.writer.config
        return {
            "text": handoff_text(self.team),
            "signature": self.team,
            "parts": [],
            **summarise([], config.backend, config.model or config.backend),
            "faults": [{"agent": None, "kind": OUT_OF_SCOPE, "detail": str(faults[0].get("detail", "")) if faults else ""}],
            "latency_ms": 0.0,
            "approved": False,
            "handed_to_person": True,
            "breaker": self.writer.breaker.state,
        }

    def close(self) -> None:
        self.writer.close()


def _heard(records: Sequence[Mapping[str, Any]], agent: str, top: int = 3) -> list[str]:
    """The teammates ``agent`` listened to most over the episode (mean attention weight), strongest first."""
    weights: dict[str, list[float]] = defaultdict(list)
    for r in records:
        if r.get("agent") == agent:
            for m in (r.get("messages") or {}).get("received") or ():
                weights[str(m["from"])].append(float(m["weight"]))
    means = sorted(((sum(w) / len(w), who) for who, w in weights.items()), reverse=True)
    return [f"{who} ({mean:.2f})" for mean, who in means[:top] if mean >= 0.05]
