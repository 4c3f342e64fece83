"""The spec's keyword-router fallback for a routing team: the spec's keyword rules route a ticket to agents;
routed agents act by rule (`KeywordRoutedTeam`). The serving breaker holds one (`serving.breaker.
KeywordRouterFallback`) and asks the environment for it (`interface.keyword_fallback`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agents.envs.customer_service.roster import DEFAULT_ROSTER, Roster


def _field(rule: Any, key: str) -> Any:
    return rule[key] if isinstance(rule, Mapping) else getattr(rule, key)


class KeywordRoutedTeam:
    """The team is the drawn roster (``roster``; default the shipped four): an intent is answered by the
    agent that owns it. An agent is routed when any of its rule's keywords occurs in the ticket
    (case-insensitive). A routed agent handles the intents the tuned router finds among those it owns (or,
    when it finds none, the found intents whose owners no rule routed, else its first intent); unrouted
    agents pass. A ticket no rule matches gets the tuned router's intents, each answered by its owner, so
    nothing is approved empty. Reviewers approve once the chosen intents are all in the draft.

    ``tune`` makes the router on first use (a breaker that never opens never pays for it); ``router`` may
    be set before (a process shares one tuned router per catalogue).
    """

    def __init__(
        self,
        rules: Sequence[Any],
        tune: Callable[[], Any],
        roster: Roster | None = None,
        key: Any = "shipped",
    ):
        self.rules = [
            (tuple(str(k).lower() for k in _field(r, "keywords")), str(_field(r, "route_to"))) for r in rules
        ]
        if not self.rules:
            raise ValueError("fallback.rules: a keyword_router needs at least one rule")
        self.roster = roster or DEFAULT_ROSTER
        self.tune = tune
        self.catalogue_key = key  # what the router is tuned for: a process shares one router per key
        self.router: Any | None = None
        self._cache: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def routed_roles(self, text: str) -> list[str]:
        """Roles whose keywords occur in ``text``, in rule order, without repeats."""
        low = text.lower()
        roles = [role for keywords, role in self.rules if any(k in low for k in keywords)]
        return list(dict.fromkeys(roles))

    def intents_for(self, text: str) -> tuple[str, ...]:
        """The intents the routed roles will handle for this ticket."""
        names = self.roster.catalogue.names
        with self._lock:
            if text not in self._cache:
                if self.router is None:
                    self.router = self.tune()
                found = self.router.predict(text)
                roles = self.routed_roles(text)
                chosen: list[str] = [] if roles else list(found)  # no rule matched: the router alone
                for role in roles:
                    member = self.roster.by_id.get(role)
                    if member is None or member.reviewer:
                        continue  # a rule that routes to a reviewer (or nobody) answers nothing
                    owned = [i for i in found if self.roster.owner(i) == role]
                    # nothing found for the routed agent (its rule may predate a new owner): the intents
                    # found whose owners no rule routed go to those owners; else its first intent
                    orphans = [i for i in found if self.roster.owner(i) not in roles]
                    chosen += owned or orphans or [i for i in names if i in member.intents][:1]
                self._cache[text] = tuple(i for i in names if i in chosen)
            return self._cache[text]

    def act(self, agent: str, observation: Any) -> tuple[int, str]:
        """Rule action for ``agent`` on a `CustomerServiceEnv` observation, and why."""
        catalogue = self.roster.catalogue
        text = str(observation["ticket"])
        wanted = self.intents_for(text)
        drafted = {catalogue.names[i] for i, flag in enumerate(observation["draft"]) if flag}
        names = self.roster.role_actions[agent]
        if self.roster.by_id[agent].reviewer:
            if drafted - set(wanted):
                return names.index("send_back"), "draft holds unrouted intents"
            if set(wanted) <= drafted:
                return names.index("approve"), "every routed intent is answered"
            return names.index("continue"), "waiting for routed agents"
        for intent in wanted:
            if self.roster.owner(intent) == agent and intent not in drafted:
                return names.index(catalogue.actions[intent]), f"keyword rule routed {intent}"
        return names.index("pass"), "not routed here"
