"""Which agents of a served team an operator has taken offline (`Roster`), applied to every episode the runtime
plays: from its first step for an episode that starts (the ``offline`` reset option) and, for the episodes in
flight, before their next step (``env.set_agent_online``: the agent's work is handed over, nothing is dropped).
Only an environment with ``set_agent_online`` (the large team) has a roster; for the others it does nothing."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any


def has_roster(env: Any) -> bool:
    """Whether an operator can take this environment's agents offline."""
    return callable(getattr(env, "set_agent_online", None))


class Roster:
    """The agents taken offline, shared by the runtime's request threads; `set` replaces the whole set."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._offline: frozenset[str] = frozenset()
        self._as_of = float("-inf")

    def set(self, offline: Iterable[str], as_of: float | None = None) -> None:
        """Replace the set. ``as_of``: when the caller read it (``time.monotonic()``, e.g. before reading the
        deployment's row); a read older than the last set is ignored, so a switch heard meanwhile stands."""
        stamp = time.monotonic() if as_of is None else as_of
        with self._lock:
            if stamp >= self._as_of:
                self._offline, self._as_of = frozenset(offline), stamp

    def offline(self) -> frozenset[str]:
        with self._lock:
            return self._offline

    def start(self, env: Any, options: Mapping[str, Any]) -> tuple[dict[str, Any], frozenset[str]]:
        """An episode's reset options with the agents offline now, and the set it starts with."""
        current = self.offline()
        if not current or not has_roster(env):
            return dict(options), frozenset()
        return {**options, "offline": sorted(set(options.get("offline") or ()) | current)}, current

    def catch_up(
        self, env: Any, applied: frozenset[str], observations: Mapping[str, Any]
    ) -> tuple[frozenset[str], Mapping[str, Any]]:
        """Apply what changed since ``applied`` to a running episode; the set now applied and the observations
        of the agents acting now (unchanged when nothing changed)."""
        current = self.offline()
        if current == applied or not has_roster(env):
            return applied, observations
        for agent in sorted(current - applied):
            observations = env.set_agent_online(agent, False)
        for agent in sorted(applied - current):
            observations = env.set_agent_online(agent, True)
        return current, observations
