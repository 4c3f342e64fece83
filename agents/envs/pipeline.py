"""Phased pipelines: the shared frame of the research-report, collaborative-writing and code-generation envs.

A pipeline passes one piece of work through a fixed sequence of *stages* (research → analysis → writing →
review, say). Each stage belongs to one role (`Role`); the team drawn on the canvas (the spec's agents,
each with a ``role``) may hold between ``fewest`` and ``most`` agents of a role. Every step every agent
acts, but only the agent whose turn it is does something: the others' only valid action is ``wait``
(index 0), and ``action_mask`` in every observation says which actions are valid.

Several agents of one role work **one after the other** on the same piece of work: each takes its turn in
the stage and, with its hand-over action (``enough``, ``done``, ``accept`` ...), passes the stage to the next
agent of its role; the last one's hand-over ends the stage. Two researchers thus both gather sources into
one shared pool (the stage's limits, e.g. ``max_sources``, count for the pool); two reviewers both look at
the same draft, and the draft is accepted only when the last reviewer accepts — a send-back returns it to
the writer, and the next review round starts again with the first reviewer. Shaping goes to the agent
that earned it; the team's rewards go to everyone.

The order: stages come in the environment's order (what the work needs: a review needs a draft). The
spec's ``dependency`` edges order the agents — within a stage, an agent that depends on another takes its
turn after it (without edges, the spec's order) — and they must agree with the stage order: an edge that
makes a writer wait for a reviewer, or a cycle, is an error said in words (`team_problems`).

`PipelineTeam` is a checked team; `PhasePipelineEnv` is the ParallelEnv frame (agents, whose turn, spaces,
seeding, step bookkeeping, the spec hooks ``takes_team`` / ``validate_team``); `ScriptedPipeline` drives
the rule-scripted baselines over the drawn team; `play` runs a policy once per item.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from agents import places
from agents.envs.params import EnvParams
from agents.errors import SpecError

__all__ = [
    "PhasePipelineEnv",
    "PipelineTeam",
    "Role",
    "ScriptedPipeline",
    "TeamError",
    "dependency_pairs",
    "play",
    "team_problems",
]


@dataclass(frozen=True)
class Role:
    """A role a pipeline needs: its stage (phase), its action names (0 = ``wait``), how many agents of it a
    team may hold, and what it does (words for the validator's messages)."""

    name: str
    phase: str
    actions: tuple[str, ...]
    does: str
    fewest: int = 1
    most: int = 1


class TeamError(ValueError):
    """A team that cannot run the pipeline; the message says in words what to change."""


def _field(agent: object, key: str, default: object = None) -> object:
    if isinstance(agent, Mapping):
        return agent.get(key, default)
    return getattr(agent, key, default)


def dependency_pairs(edges: Iterable[object] | None) -> list[tuple[str, str]]:
    """(source, target) of the ``dependency`` edges among ``edges`` (spec edges, mappings with source,
    target, kind, or (source, target) pairs, which count as dependencies)."""
    pairs = []
    for edge in edges or ():
        if isinstance(edge, tuple | list) and len(edge) == 2:
            pairs.append((str(edge[0]), str(edge[1])))
        elif _field(edge, "kind", "communication") == "dependency":
            pairs.append((str(_field(edge, "source", "")), str(_field(edge, "target", ""))))
    return pairs


def _plural(role: str, n: int) -> str:
    return f"{n} {role}{'' if n == 1 else 's'}"


def team_problems(
    label: str, roles: Sequence[Role], agents: Sequence[object], edges: Iterable[object] | None = None
) -> list[tuple[str, str]]:
    """Every problem of a drawn team as (JSON path, message), paths rooted at the spec; [] for a team that
    can run the pipeline. ``agents`` are spec agents or mappings with id and role."""
    problems: list[tuple[str, str]] = []
    by_name = {r.name: r for r in roles}
    known = ", ".join(r.name for r in roles)
    ids = [str(_field(a, "id", "")) for a in agents]
    role_of: dict[str, str] = {}
    for i, agent in enumerate(agents):
        role = str(_field(agent, "role", ""))
        if role not in by_name:
            problems.append(
                (
                    f"$.agents[{i}].role",
                    f"a {role or 'role-less agent'} has no part in {label}: make it one of {known}",
                )
            )
        elif ids[i] in role_of:
            problems.append((f"$.agents[{i}].id", f"two agents are called {ids[i]}: give each its own id"))
        else:
            role_of[ids[i]] = role
    for role in roles:
        members = [a for a in ids if role_of.get(a) == role.name]
        if len(members) < role.fewest:
            need = "a" if role.fewest == 1 else f"at least {role.fewest}"
            problems.append(
                (
                    "$.agents",
                    f"{label} needs {need} {role.name} to {role.does}: add an agent with the role {role.name}",
                )
            )
        elif len(members) > role.most:
            problems.append(
                (
                    "$.agents",
                    f"{label} has work for at most {_plural(role.name, role.most)} but {', '.join(members)} "
                    f"are all {role.name}s: give {'one' if len(members) - role.most == 1 else 'some'} of them "
                    "another role",
                )
            )
    rank = {r.name: i for i, r in enumerate(roles)}
    stage_of = {r.name: r.phase for r in roles}
    pairs = [(s, t) for s, t in dependency_pairs(edges) if s in role_of and t in role_of]
    for source, target in pairs:
        if rank[role_of[source]] > rank[role_of[target]]:
            problems.append(
                (
                    "$.edges",
                    f"the {role_of[target]} {target} is made to wait for the {role_of[source]} {source}, but "
                    f"the {stage_of[role_of[target]]} comes before the {stage_of[role_of[source]]}: "
                    f"reverse the dependency edge {source} → {target}",
                )
            )
    cycle = _cycle(list(role_of), pairs)
    if cycle:
        problems.append(
            (
                "$.edges",
                "the dependency edges go round in a circle ("
                + " → ".join([*cycle, cycle[0]])
                + "), so nobody can start: remove one of them",
            )
        )
    return problems


def _cycle(nodes: list[str], pairs: list[tuple[str, str]]) -> list[str]:
    """One cycle of the directed graph (its nodes in order), or [] when there is none: the first a
    depth-first search meets, visiting nodes and edges in the order given."""
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(pairs)
    try:
        return [source for source, _ in nx.find_cycle(graph)]
    except nx.NetworkXNoCycle:
        return []


def data_file_problem(key: str, value: Any, files: places.DataFiles) -> list[SpecError]:
    """The problem of parameter ``key`` when its ``value`` names no ``files`` (null: the shipped data)."""
    if value is None or (
        isinstance(value, str | Path) and places.usable(places.data_path(value, files), files)
    ):
        return []
    names = places.shipped_names(files)
    shipped = f"a shipped one ({', '.join(names)}), " if names else ""
    return [SpecError(f"$.{key}", f"must name a {files.what}: {shipped}a path, or null for the shipped data")]


class PipelineTeam:
    """A checked team: ``ids`` (spec order), each agent's role, and the turn order of each stage."""

    def __init__(
        self, roles: Sequence[Role], members: Sequence[tuple[str, str]], turns: Mapping[str, tuple[str, ...]]
    ):
        self.roles = tuple(roles)
        self.ids = [agent for agent, _ in members]
        self.role_of = dict(members)
        self.turns = dict(turns)
        """phase -> the agents that act in it, in turn order."""
        self.by_role = {r.name: self.turns[r.phase] for r in self.roles}
        self.actions = {r.name: r.actions for r in self.roles}

    @classmethod
    def default(cls, roles: Sequence[Role]) -> PipelineTeam:
        """One agent per role, named after it (the shipped team)."""
        return cls(roles, [(r.name, r.name) for r in roles], {r.phase: (r.name,) for r in roles})

    @classmethod
    def build(
        cls,
        label: str,
        roles: Sequence[Role],
        team: Sequence[object] | PipelineTeam | None = None,
        edges: Iterable[object] | None = None,
    ) -> PipelineTeam:
        """The team of the spec's agents (``None``: `default`) ordered by ``edges``; TeamError naming every
        problem in words."""
        if isinstance(team, PipelineTeam):
            return team
        if team is None:
            return cls.default(roles)
        edges = list(edges or ())
        problems = team_problems(label, roles, team, edges)
        if problems:
            raise TeamError(f"{label}: " + "; ".join(f"{path}: {message}" for path, message in problems))
        members = [(str(_field(a, "id", "")), str(_field(a, "role", ""))) for a in team]
        ids = [agent for agent, _ in members]
        role_of = dict(members)
        rank = {r.name: i for i, r in enumerate(roles)}
        waits_for: dict[str, set[str]] = {a: set() for a in ids}
        for source, target in dependency_pairs(edges):
            if source in waits_for and target in waits_for:
                waits_for[target].add(source)
        done: list[str] = []  # Kahn's order, ready agents by (stage, spec order)
        while len(done) < len(ids):
            ready = [a for a in ids if a not in done and waits_for[a] <= set(done)]
            done.append(min(ready, key=lambda a: (rank[role_of[a]], ids.index(a))))
        turns = {r.phase: tuple(a for a in done if role_of[a] == r.name) for r in roles}
        return cls(roles, members, turns)

    def position(self, agent: str) -> tuple[int, int]:
        """(this agent's place in its stage's turn order, how many agents share the stage)."""
        turn = self.turns[self.phase_of(agent)]
        return turn.index(agent), len(turn)

    def phase_of(self, agent: str) -> str:
        return next(r.phase for r in self.roles if r.name == self.role_of[agent])

    def one(self, role: str) -> str:
        """The first agent of ``role`` in turn order."""
        return self.by_role[role][0]


class PhasePipelineEnv(ParallelEnv):
    """The frame of a phased pipeline. A subclass sets ``roles``, ``label``, ``phases`` (stage names and
    ``"done"``), ``feature_size``, its parameters (``params_model``, an `EnvParams`) and its items
    (``item_option``, ``items_attr``, ``item_error``); its constructor calls ``_configure(params, ...)``,
    loads the items and calls ``_start(first item)``. It
    implements ``_start(item)`` (which calls ``_enter(first phase)``), ``_valid(name)``, ``features()``,
    ``_info(rewards)`` and either ``_act(name)`` + ``_shaping(name)`` (the team reward to everyone, shaping
    to the actor: `step`) or its own ``step``; a stage's hand-over action calls ``_hand_over(next phase)``."""

    roles: tuple[Role, ...] = ()
    label = "pipeline"
    phases: tuple[str, ...] = ()
    feature_size = 0
    params_model: type[EnvParams] = EnvParams
    """The environment's parameters (the spec's ``environment.params``): one `EnvParams` declaration of
    their defaults, ranges, help and the data they name."""
    item_option, items_attr, item_error = "item", "items", ValueError
    """The reset option that names an episode's item, the attribute holding the items, the error for an
    unknown one."""
    scope_folder: str | None = None
    """The folder of the shipped data (under ``data/``) holding ``scope_dev.jsonl`` and ``scope_test.jsonl``:
    requests written for the team, each marked whether it is one the team can do (`scope_requests`)."""
    takes_team = True  # make_env(..., team=the spec's agents) draws the team (agents.envs.team_kwargs)
    takes_edges = True  # ... and edges=its dependency edges order it

    # ------------------------------------------------------------------------------------ parameters

    @classmethod
    def validate_params(cls, params: Mapping[str, Any]) -> list[SpecError]:
        """Every problem with ``environment.params``, paths rooted at params (never raises)."""
        return cls.params_model.problems(params)

    def _configure(
        self,
        params: Mapping[str, Any],
        render_mode: str | None = None,
        team: Sequence[object] | PipelineTeam | None = None,
        edges: Iterable[object] | None = None,
    ) -> Any:
        """The checked parameters (ValueError naming the first problem); keeps the numbers, ``shuffle`` and
        ``render_mode`` as attributes and draws the team."""
        checked = self.params_model.build(self.metadata["name"].removesuffix("_v0"), params)
        as_kind = {"integer": int, "number": float}  # a cost given as 1 is kept as 1.0
        for info in self.params_model.describe():
            if info.kind in as_kind:
                setattr(self, info.name, as_kind[info.kind](getattr(checked, info.name)))
        self.shuffle = bool(checked.shuffle)
        self.render_mode = render_mode
        self._setup_team(team, edges)
        return checked

    # ------------------------------------------------------------------------------------ spec hooks

    @classmethod
    def expected_agents(cls, params: Mapping[str, Any] | None = None) -> list[str]:
        """The agent names of the shipped team (one agent per role)."""
        return [r.name for r in cls.roles]

    @classmethod
    def validate_team(
        cls,
        agents: Sequence[object],
        params: Mapping[str, Any] | None = None,
        edges: Iterable[object] | None = None,
    ) -> list[SpecError]:
        """What the drawn team (and the order its dependency ``edges`` set) lacks, in words (never raises)."""
        try:
            return [
                SpecError(path, message)
                for path, message in team_problems(cls.label, cls.roles, agents, edges)
            ]
        except Exception as exc:  # noqa: BLE001 - hostile input must not crash the validator
            return [SpecError("$.agents", f"{cls.label} could not read the team: {exc}")]

    # ------------------------------------------------------------------------------------- the team

    def _setup_team(
        self, team: Sequence[object] | PipelineTeam | None, edges: Iterable[object] | None
    ) -> None:
        self.team = PipelineTeam.build(self.label, self.roles, team, edges)
        self.possible_agents = list(self.team.ids)
        self.agents: list[str] = []
        self._rng = np.random.default_rng()
        self._cursor = 0
        self.turn = 0

    def role_of(self, agent: str) -> str:
        return self.team.role_of[agent]

    def action_names(self, agent: str) -> tuple[str, ...]:
        """The names of ``agent``'s actions (its role's); the action index is the position here."""
        return self.team.actions[self.team.role_of[agent]]

    @property
    def actor(self) -> str | None:
        """The agent whose turn it is (None when the work is done)."""
        turn = self.team.turns.get(self.phase)
        return turn[self.turn] if turn else None

    def _enter(self, phase: str) -> None:
        """Move the work to ``phase``; its first agent takes the turn."""
        self.phase, self.turn = phase, 0

    def _hand_over(self, next_phase: str) -> None:
        """The actor is finished: the next agent of its stage takes the turn, or the work moves on."""
        if self.turn + 1 < len(self.team.turns[self.phase]):
            self.turn += 1
        else:
            self._enter(next_phase)

    @property
    def last_in_stage(self) -> bool:
        """Whether the actor is the last of its stage."""
        return self.turn + 1 >= len(self.team.turns.get(self.phase, ()))

    # ------------------------------------------------------------------------------------------ spaces

    @functools.cache  # noqa: B019 - PettingZoo wants the same space object on every call
    def observation_space(self, agent: str) -> spaces.Dict:
        return spaces.Dict(
            {
                "features": spaces.Box(0.0, 1.0, shape=(self.feature_size,), dtype=np.float32),
                "action_mask": self._mask_space(agent),
            }
        )

    def _mask_space(self, agent: str) -> spaces.Box:
        return spaces.Box(0, 1, shape=(len(self.action_names(agent)),), dtype=np.int8)

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Discrete:
        return spaces.Discrete(len(self.action_names(agent)))

    # ------------------------------------------------------------------------------------------ episodes

    def _pick(self, wanted: Any) -> Any:
        """The episode's item: the one whose ``id`` is ``wanted``, else at random (shuffle), else in order."""
        items = getattr(self, self.items_attr)
        if wanted is not None:
            matches = [item for item in items if getattr(item, "id", item) == wanted]
            if not matches:
                raise self.item_error(f"unknown {self.item_option} {wanted!r} in this split")
            return matches[0]
        if self.shuffle:
            return items[int(self._rng.integers(len(items)))]
        item = items[self._cursor % len(items)]
        self._cursor += 1
        return item

    def request_items(self) -> dict[str, str]:
        """What a free-text request can ask for: each item's id and a description of it in words (what
        `serving.requests` matches a user's request against; ``reset(options={item_option: id})`` plays it)."""
        return {
            str(getattr(item, "id", item)): self._describe(item) for item in getattr(self, self.items_attr)
        }

    def _describe(self, item: Any) -> str:
        return str(getattr(item, "id", item))

    @classmethod
    def scope_requests(cls, split: str) -> list[tuple[str, bool]]:
        """The ``(text, in_scope)`` requests of the scope set ``split`` ("dev" sets the team's similarity
        floor, `serving.requests`; "test" is held out to measure it); none without a ``scope_folder``."""
        if cls.scope_folder is None:
            return []
        path = places.SHIPPED_DATA / cls.scope_folder / f"scope_{split}.jsonl"
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [(str(row["text"]), bool(row["in_scope"])) for row in rows]

    def _seed(self, seed: int | None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._cursor = 0
            for i, agent in enumerate(self.possible_agents):
                self.action_space(agent).seed(seed + i)

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start an episode; ``options={item_option: id}`` picks its item (a task, a brief, a topic), else
        one is drawn at random (``shuffle``) or in order."""
        self._seed(seed)
        self._start(self._pick((options or {}).get(self.item_option)))
        self.agents = list(self.possible_agents)
        info = self._info(dict.fromkeys(self.agents, 0.0))
        return self._observations(), {agent: dict(info) for agent in self.agents}

    def action_mask(self, agent: str) -> np.ndarray:
        """Which of ``agent``'s actions are valid now (wait is valid only when it is not its turn)."""
        names = self.action_names(agent)
        mask = np.zeros(len(names), dtype=np.int8)
        if self.phase == "done" or self.actor != agent:
            mask[0] = 1
            return mask
        for i, name in enumerate(names):
            mask[i] = int(self._valid(name))
        return mask

    def _valid(self, name: str) -> bool:
        """Whether the acting agent may take action `name` now (each pipeline defines its own rules)."""
        raise NotImplementedError

    def _decode(self, actions: Mapping[str, Any]) -> tuple[str, str]:
        """(the actor, the name of its action; "invalid" when out of range)."""
        actor = self.actor
        assert actor is not None
        index = int(actions.get(actor, 0))
        names = self.action_names(actor)
        return actor, names[index] if 0 <= index < len(names) else "invalid"

    def _ended(self) -> tuple[bool, bool]:
        """(terminated: the work is done, truncated: the steps ran out first)."""
        terminated = self.phase == "done"
        return terminated, not terminated and self.step_count >= self.max_steps

    def _emit(
        self, rewards: Mapping[str, float], terminated: bool, truncated: bool
    ) -> tuple[dict, dict, dict, dict, dict]:
        """The step's five dicts; the agents leave when the episode ended."""
        observations = self._observations()
        info = self._info(rewards)
        live = list(self.agents)
        if terminated or truncated:
            self.agents = []
        return (
            observations,
            {agent: float(rewards[agent]) for agent in live},
            dict.fromkeys(live, terminated),
            dict.fromkeys(live, truncated),
            {agent: dict(info) for agent in live},
        )

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Apply the actor's action (others wait): its team reward to everyone, its shaping to the actor."""
        if not self.agents:
            return {}, {}, {}, {}, {}
        self.step_count += 1
        actor, name = self._decode(actions)
        reward, shaped = 0.0, 0.0
        if name != "invalid" and self._valid(name):
            shaped = self.shaping * self._shaping(name)
            reward = self._act(name)
            self.log.append(f"{actor}: {name}")
        else:
            self.log.append(f"{actor}: invalid {name}, ignored")
        terminated, truncated = self._ended()
        if truncated:
            reward -= self.timeout_penalty
        rewards = {a: reward + (shaped if a == actor else 0.0) for a in self.agents}
        return self._emit(rewards, terminated, truncated)

    def _act(self, name: str) -> float:
        """Carry out the acting agent's action `name`; returns its shaping reward (each pipeline's own work)."""
        raise NotImplementedError

    def _shaping(self, name: str) -> float:
        return 0.0

    def _observations(self) -> dict[str, dict]:
        features = self.features()
        return {a: {"features": features, "action_mask": self.action_mask(a)} for a in self.agents}

    def state(self) -> np.ndarray:
        """Global state for the centralised critic: phase one-hot ‖ the shared features."""
        return np.concatenate(
            [np.array([float(p == self.phase) for p in self.phases], np.float32), self.features()]
        )

    def close(self) -> None:
        """Nothing to release."""


class ScriptedPipeline:
    """A rule-scripted team over a drawn pipeline team: one rule ``_<role>(reading, mask, names)`` per role
    (``self.agent`` is the agent it acts for). ``team``/``edges`` as for the environment (None: the shipped
    team); an agent id the team does not know is taken for a role name."""

    env: type[PhasePipelineEnv]

    def __init__(
        self, team: Sequence[object] | PipelineTeam | None = None, edges: Iterable[object] | None = None
    ):
        self.team = PipelineTeam.build(self.env.label, self.env.roles, team, edges)
        self.agent = ""

    def role_of(self, agent: str) -> str:
        return self.team.role_of.get(agent, agent)

    def _read(self, observation: dict) -> Any:
        return np.asarray(observation["features"], dtype=np.float32)

    def act(self, agent: str, observation: dict) -> int:
        """The scripted action index for ``agent`` (``wait`` when it is not its turn)."""
        mask = np.asarray(observation["action_mask"])
        role = self.role_of(agent)
        names = self.team.actions[role]
        if mask[0] == 1 and mask.sum() == 1:
            return 0
        self.agent = agent
        choice = getattr(self, f"_{role}")(self._read(observation), mask, names)
        return names.index(choice) if mask[names.index(choice)] else int(np.flatnonzero(mask)[-1])

    def actions(self, observations: dict[str, dict]) -> dict[str, int]:
        """Scripted actions for every agent that has an observation."""
        return {agent: self.act(agent, obs) for agent, obs in observations.items()}


def play(policy: Any, env: Any, option: str, ids: Sequence[str], seed: int = 1000) -> list[dict[str, Any]]:
    """The last info of `policy` ({agent: obs} -> {agent: action}) once per item of ``ids`` (reset with
    ``options={option: id}``; episode k with ``seed + k``)."""
    rows = []
    for number, item in enumerate(ids):
        obs, _ = env.reset(seed=seed + number, options={option: item})
        info: dict[str, Any] = {}
        while env.agents:
            obs, _, _, _, infos = env.step(policy(obs))
            info = next(iter(infos.values()), info)
        rows.append(info)
    return rows
