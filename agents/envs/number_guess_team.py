"""Number guessing's team as data: the canvas's nodes are the players.

Each node's role says what it holds: an ``informant`` holds one clue (informants state the secret's digits
in the order they are drawn — the first the lowest digit, e.g. its parity with bit clues; an informant's
``clue`` field, "bit" or "range", is the kind of digit it holds, else the environment's ``clue_kinds``), a
``distractor`` holds an irrelevant sentence, and exactly one ``guesser`` names the number. The node ids
are the agent ids (any valid id, not only ``clue_0``); the environment's ``informative`` and
``distractors`` parameters are counted from the canvas, so a spec need not (and if it does, must
agree). A node of another role (the palette's ``custom``) keeps the part its fixed name gave it before
teams were drawn: ``clue_j`` informs, ``distractor_j`` distracts, ``guesser`` guesses. Which informant the guesser listens to is the canvas's communication edges (the trainer reads
them from the spec).

`team_problems` says in words what a drawn team lacks; `GuessTeam.from_team` splits a valid one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agents.envs.number_guess_digits import CLUE_KINDS, DEFAULT_CLUE_KINDS, informant_kinds

INFORMANT, DISTRACTOR, GUESSER = "informant", "distractor", "guesser"
TEAM_ROLES = (INFORMANT, DISTRACTOR, GUESSER)


LEGACY = re.compile(r"^(clue|distractor)_[0-9]+$")


def _get(agent: Any, key: str) -> Any:
    return agent.get(key) if isinstance(agent, Mapping) else getattr(agent, key, None)


def kind_of(agent: Any) -> str:
    """What a node holds: its role when that is informant, distractor or guesser; a node of another
    role keeps the part its fixed name gave it before teams were drawn (clue_j, distractor_j, guesser);
    else its role (which `team_problems` refuses)."""
    role, ident = str(_get(agent, "role")), str(_get(agent, "id"))
    if role in TEAM_ROLES:
        return role
    if ident == GUESSER:
        return GUESSER
    match = LEGACY.match(ident)
    if match:
        return INFORMANT if match.group(1) == "clue" else DISTRACTOR
    return role


@dataclass(frozen=True)
class GuessTeam:
    """A valid drawn team: informants (digit order), distractors, the guesser, every id in spec order, and
    each informant's clue kind (None: the environment's ``clue_kinds``)."""

    informants: tuple[str, ...]
    distractors: tuple[str, ...]
    guesser: str
    order: tuple[str, ...]
    clues: tuple[str | None, ...] = ()

    @classmethod
    def from_team(cls, team: Sequence[Any]) -> GuessTeam:
        """The team of ``team`` (spec agents or mappings with id and role); ValueError naming every problem."""
        problems = [p for p in team_problems(team) if not p[0].endswith(".clue")]  # a stray clue is not read
        if problems:
            raise ValueError("; ".join(f"{path}: {message}" for path, message in problems))
        ids = [str(_get(a, "id")) for a in team]
        roles = [kind_of(a) for a in team]

        def of(role: str) -> tuple[str, ...]:
            return tuple(i for i, r in zip(ids, roles, strict=True) if r == role)

        clues = tuple(_get(a, "clue") or None for a, r in zip(team, roles, strict=True) if r == INFORMANT)
        return cls(of(INFORMANT), of(DISTRACTOR), of(GUESSER)[0], tuple(ids), clues)

    def clue_kinds(self, default: Any) -> Any:
        """The ``clue_kinds`` the environment is built with: one kind per informant when a node names its
        own, the others taking theirs from ``default``; ``default`` unchanged when no node names one (or
        when it is invalid: the parameter check says why)."""
        if not any(self.clues):
            return default
        defaults = informant_kinds(default, len(self.informants))
        if defaults is None:
            return default
        return [
            clue if clue in CLUE_KINDS else fallback
            for clue, fallback in zip(self.clues, defaults, strict=True)
        ]

    def params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` with the counts and clue kinds the canvas draws (what the environment is built with)."""
        built = {**params, "informative": len(self.informants), "distractors": len(self.distractors)}
        if any(self.clues):
            built["clue_kinds"] = self.clue_kinds(params.get("clue_kinds", list(DEFAULT_CLUE_KINDS)))
        return built


def team_problems(agents: Sequence[Any], params: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """Every problem of a drawn team as (JSON path rooted at the spec, message); [] for a team that can
    play. With ``params``, counts the spec also states must agree with the canvas."""
    problems: list[tuple[str, str]] = []
    counts = dict.fromkeys(TEAM_ROLES, 0)
    for i, agent in enumerate(agents):
        role = kind_of(agent)
        clue = _get(agent, "clue")
        if clue is not None and role != INFORMANT:
            problems.append(
                (f"$.agents[{i}].clue", f"only informants hold a clue; a {role} holds none: clear it")
            )
        elif clue is not None and clue not in CLUE_KINDS:
            problems.append((f"$.agents[{i}].clue", f"must be one of {', '.join(CLUE_KINDS)}"))
        if role in counts:
            counts[role] += 1
        else:
            problems.append(
                (
                    f"$.agents[{i}].role",
                    f"a {role} has no part in number guessing: make it an informant (holds a clue), "
                    "a distractor (holds an irrelevant sentence) or the guesser",
                )
            )
    if counts[GUESSER] == 0:
        problems.append(("$.agents", "nobody names the number: add an agent with the role guesser"))
    elif counts[GUESSER] > 1:
        problems.append(
            ("$.agents", f"{counts[GUESSER]} guessers: the team has one guesser, make the others informants")
        )
    if counts[INFORMANT] == 0:
        problems.append(("$.agents", "nobody holds a clue, so the number cannot be found: add an informant"))
    for key, role in (("informative", INFORMANT), ("distractors", DISTRACTOR)):
        stated = (params or {}).get(key)
        if isinstance(stated, int) and not isinstance(stated, bool) and stated != counts[role]:
            problems.append(
                (
                    f"$.environment.params.{key}",
                    f"the canvas has {counts[role]} {role}s but {key} says {stated}: the canvas counts them, "
                    "remove the parameter or draw the agents",
                )
            )
    return problems
