"""Teacher–student augmentation (docs/design.md#teacher-student): learn from the steps where a stronger policy disagrees.

The idea: run a teacher and the current student on the same task, compare the two trajectories and
turn the steps where they differ into extra training samples (the design target is about 40% more
useful samples). Here a teacher is anything with `act(agent, observation, info) -> action | None`:

- `ScriptedTeacher` wraps a rule-scripted team (e.g. the customer-service `ScriptedTeam`);
- `ExpertTeacher` wraps the customer-service expert, which reads the labels and the whole ticket;
- `PolicyTeacher` wraps a stronger trained team (e.g. `MappoTrainer.policy()` of a better checkpoint).

`MappoTeam(teacher=...)` asks the teacher at every step the student takes, on the student's own
observation (the same task, the same state), and every step where the two actions differ becomes a
behaviour-cloning sample weighted by `MappoConfig.teacher_coef`. A teacher sample is "useful" by
construction (it corrects an action); a student sample is useful when its advantage is above
`useful_eps`. The trainer reports `useful_share` (with teacher samples) and `useful_share_student`.

`compare_trajectories` is that literal procedure — two full runs on the same task, compared step
by step — for analysis and for logged-episode pipelines.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agents.places import find_checkpoint
from training.mappo.checkpoint import CheckpointError
from training.mappo.config import MappoConfig

# Builds a trained team from (spec, config, checkpoint directory, backbone); the MAPPO package passes its own.
TeamLoader = Callable[[Any, MappoConfig, Path, Any], Any]


class Teacher(Protocol):
    """A stronger policy queried on the student's observations."""

    def act(self, agent: str, observation: Any, info: Mapping[str, Any]) -> int | None:
        """The teacher's action for `agent`, or None when it has no opinion."""
        ...


class ScriptedTeacher:
    """A rule-scripted team as teacher: anything with `act(agent, observation) -> int`."""

    def __init__(self, team: Any):
        self.team = team

    def act(self, agent: str, observation: Any, info: Mapping[str, Any]) -> int | None:
        """The scripted action (for this episode's owners when the env deals jobs: its info's ``owners``)."""
        owners = info.get("owners")
        return int(self.team.act(agent, observation, *([] if owners is None else [owners])))

    __call__ = act


class ExpertTeacher(ScriptedTeacher):
    """A routing environment's expert (its interface's ``expert_team``): reads the whole ticket named by the step's info, like
    the logs it was cloned from, so it teaches agents that see only part of it."""

    def act(self, agent: str, observation: Any, info: Mapping[str, Any]) -> int | None:
        """The expert's action on the ticket the info names."""
        return int(self.team.act_on_ticket(agent, observation, info.get("ticket_id"), info.get("owners")))

    __call__ = act


class PolicyTeacher:
    """A trained team as teacher: a joint policy {agent: observation} -> {agent: action}."""

    def __init__(self, policy: Callable[[Mapping[str, Any]], Mapping[str, int]]):
        self.policy = policy

    def act(self, agent: str, observation: Any, info: Mapping[str, Any]) -> int | None:
        """The policy's action for `agent` on that agent's observation alone."""
        return self.policy({agent: observation}).get(agent)

    __call__ = act


def checkpoint_teacher(team: Any, path: str | Path, backbone: Any, load_team: TeamLoader) -> PolicyTeacher:
    """A trained team as teacher, greedy: the checkpoint's own settings (it may share, communicate or
    criticise differently from the student), the spec's environment, links and observation reader.
    `load_team(team, config, directory, backbone)` builds it (`training.mappo.from_spec.trained_team`)."""
    directory = find_checkpoint(path)
    if directory is None:
        raise CheckpointError(
            f"no MAPPO checkpoint at {str(path)!r} (nor in its checkpoints/mappo/best or last)"
        )
    config = MappoConfig.from_dict(json.loads((directory / "state.json").read_text())["config"])
    teacher = load_team(team, config, directory, backbone)
    return PolicyTeacher(teacher.policy(greedy=True))


def teacher_from_spec(
    team: Any, backbone: Any = None, load_team: TeamLoader | None = None
) -> ScriptedTeacher | PolicyTeacher | None:
    """The spec's teacher (`training.teacher`): None for "none"; the environment's rule-scripted team for
    "rules"; for "expert", that team reading the labels of the environment's training tickets; for
    "checkpoint", the trained team at `training.teacher_checkpoint` (on `backbone`, built by `load_team`)."""
    kind = team.training.teacher
    if kind == "none":
        return None
    name, params = team.environment.name, dict(team.environment.params)
    if kind == "rules":
        from agents.envs import team_kwargs
        from agents.envs.scripted import scripted_team

        drawn = team_kwargs(name, team.agents, team.edges).get("team")  # the rules follow the drawn roster
        return ScriptedTeacher(scripted_team(str(name), params, team=drawn))
    if kind == "checkpoint":
        if load_team is None:
            raise ValueError(
                "a checkpoint teacher needs a team loader (training.mappo.from_spec.trained_team)"
            )
        return checkpoint_teacher(team, team.training.teacher_checkpoint, backbone, load_team)
    if kind != "expert":
        raise ValueError(f"training.teacher must be 'none', 'rules', 'expert' or 'checkpoint', got {kind!r}")
    from agents.envs import make_env, team_kwargs
    from agents.envs.routing import environment_interface

    env = make_env(name, params, **team_kwargs(name, team.agents, team.edges))
    tickets, interface = getattr(env, "tickets", None), environment_interface(env)
    if tickets is None or interface is None:
        raise ValueError(f"the expert teacher reads labelled tickets; environment {name!r} has none")
    return ExpertTeacher(interface.expert_team(tickets, getattr(env, "roster", None)))


@dataclass(frozen=True)
class DiffStep:
    """A step where teacher and student acted differently on the same task."""

    step: int
    agent: str
    observation: Any
    student_action: int
    teacher_action: int


def run_trajectory(
    env: Any,
    policy: Callable[[Mapping[str, Any]], Mapping[str, int]],
    seed: int,
    options: Mapping[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One episode of a joint policy: the list of {"observations", "actions"} per step and the last info."""
    obs, info = env.reset(seed=seed, options=dict(options or {}))
    steps: list[dict[str, Any]] = []
    last: dict[str, Any] = {}
    while env.agents:
        actions = dict(policy(obs))
        steps.append({"observations": obs, "actions": actions})
        obs, _, _, _, infos = env.step(actions)
        last = next(iter(infos.values()), last)
    return steps, last


def compare_trajectories(
    env: Any,
    teacher: Callable[[Mapping[str, Any]], Mapping[str, int]],
    student: Callable[[Mapping[str, Any]], Mapping[str, int]],
    seed: int,
    options: Mapping[str, Any] | None = None,
) -> tuple[list[DiffStep], dict[str, Any], dict[str, Any]]:
    """Run teacher and student on the same task; the steps (while both trajectories last) where they differ.

    Returns (diff steps on the student's observations, teacher's last info, student's last info).
    """
    t_steps, t_info = run_trajectory(env, teacher, seed, options)
    s_steps, s_info = run_trajectory(env, student, seed, options)
    diffs = []
    for k, (ts, ss) in enumerate(zip(t_steps, s_steps, strict=False)):
        for agent, s_act in ss["actions"].items():
            t_act = ts["actions"].get(agent)
            if t_act is not None and int(t_act) != int(s_act):
                diffs.append(DiffStep(k, agent, ss["observations"][agent], int(s_act), int(t_act)))
    return diffs, t_info, s_info
