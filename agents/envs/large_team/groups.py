"""A large team as data: groups of alike agents, each declared once (one line per group, not one box per agent).

A group line reads ``"<id>*<count>: <kind>=<speed> ... cap=<capacity>"``, e.g.
``"guides*12: presales=1.0 shipping=0.4 cap=4"``: twelve agents that do presales tasks at speed 1.0 (work units
per time unit) and shipping tasks at 0.4, each holding at most 4 tasks (the one in progress and its queue). An
agent declared alone is a group of one (``"*1"`` or no ``*count``). The ``<id>`` is the spec's agent id of the
group (its box on the canvas); its members are ``<id>_0 … <id>_<count-1>`` (a group of one keeps the id).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

GROUP_LINE = re.compile(r"^\s*([a-z][a-z0-9_]{0,39})\s*(?:\*\s*([0-9]+))?\s*:\s*(.*)$")
MAX_MEMBERS = 100


@dataclass(frozen=True)
class Group:
    """One group: its id, how many members, each member's speed per task kind and capacity."""

    id: str
    count: int
    speeds: tuple[tuple[str, float], ...]
    capacity: int

    def members(self) -> list[str]:
        """The member agents' names."""
        return [self.id] if self.count == 1 else [f"{self.id}_{i}" for i in range(self.count)]


def parse_group(line: str) -> Group:
    """The group a line declares; ValueError saying what is wrong with it."""
    match = GROUP_LINE.match(line) if isinstance(line, str) else None
    if match is None:
        raise ValueError(
            'write a group as "id*count: kind=speed ... cap=N", e.g. "guides*12: presales=1.0 cap=4"'
        )
    ident, count, rest = match.group(1), int(match.group(2) or 1), match.group(3)
    if not 1 <= count <= MAX_MEMBERS:
        raise ValueError(f"group {ident}: count must be between 1 and {MAX_MEMBERS}")
    speeds: list[tuple[str, float]] = []
    capacity = 4
    for item in rest.split():
        key, sep, value = item.partition("=")
        try:
            number = float(value) if sep else None
        except ValueError:
            number = None
        if number is None:
            raise ValueError(f"group {ident}: {item!r} is not kind=speed or cap=N")
        if key == "cap":
            if number != int(number) or not 1 <= number <= 64:
                raise ValueError(f"group {ident}: cap must be a whole number between 1 and 64")
            capacity = int(number)
        elif not 0 < number <= 10:
            raise ValueError(f"group {ident}: the speed of {key} must be above 0 and at most 10")
        else:
            speeds.append((key, number))
    if not speeds:
        raise ValueError(f"group {ident}: name at least one task kind it does, as kind=speed")
    return Group(ident, count, tuple(speeds), capacity)


def parse_groups(lines: Sequence[str]) -> list[Group]:
    """Every group; ValueError naming the first bad line (by index) and why."""
    groups = []
    for i, line in enumerate(lines):
        try:
            groups.append(parse_group(line))
        except ValueError as exc:
            raise ValueError(f"[{i}]: {exc}") from None
    return groups


def group_problems(lines: object, kinds: Sequence[str]) -> list[tuple[str, str]]:
    """(path rooted at the params, message) for every problem of the ``groups`` parameter."""
    if not isinstance(lines, list | tuple) or not lines:
        return [("$.groups", "declare at least one group of agents")]
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()
    total = 0
    for i, line in enumerate(lines):
        try:
            group = parse_group(line)
        except ValueError as exc:
            problems.append((f"$.groups[{i}]", str(exc)))
            continue
        if group.id in seen:
            problems.append((f"$.groups[{i}]", f"group {group.id} is declared twice"))
        seen.add(group.id)
        total += group.count
        unknown = [k for k, _ in group.speeds if k not in kinds]
        if unknown:
            problems.append(
                (f"$.groups[{i}]", f"unknown task kind(s) {', '.join(unknown)}; kinds: {', '.join(kinds)}")
            )
    if not problems and not 2 <= total <= MAX_MEMBERS:
        problems.append(("$.groups", f"the groups hold {total} agents; a team has 2 to {MAX_MEMBERS}"))
    if not problems:
        done = {k for line in lines for k, _ in parse_group(line).speeds}
        missing = [k for k in kinds if k not in done]
        if missing:
            problems.append(
                ("$.groups", f"nobody does task kind(s) {', '.join(missing)}: give a group that skill")
            )
    return problems


def scaled_groups(
    n_agents: int, kinds: Sequence[str] = ("presales", "shipping", "dispute", "quality")
) -> list[str]:
    """A support centre of ``n_agents``: per kind a group of specialists (speed 1.0, 0.4 on the next kind,
    capacity 4), and a fifth of the team generalists (0.6 on every kind, capacity 6)."""
    generalists = max(1, n_agents // 5)
    left = n_agents - generalists
    names = ("guides", "couriers", "mediators", "inspectors")
    lines = []
    for i, kind in enumerate(kinds):
        count = left // len(kinds) + (1 if i < left % len(kinds) else 0)
        neighbour = kinds[(i + 1) % len(kinds)]
        lines.append(f"{names[i % len(names)]}*{count}: {kind}=1.0 {neighbour}=0.4 cap=4")
    lines.append("generalists*{}: {} cap=6".format(generalists, " ".join(f"{k}=0.6" for k in kinds)))
    return lines
