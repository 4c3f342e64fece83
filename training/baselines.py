"""A trained team beside its baselines on the same evaluation episodes, and the verdict (`training.verdict`).

The arms a team is compared with:

- `rules` — the environment's rule-scripted team (`agents.envs.scripted`), the procedure a team lead writes;
- `imitation` — supervised learning without RL: the spec's own supervised start where it has one (the
  customer-service template fits its clause readers on labelled tickets and clones the expert), else
  behaviour cloning of the rules (`training.offline.pretrain` on the rules' logged episodes); no PPO update;
- `plain` (routing teams only) — a plain classifier on the same backbone (`training.plain_classifier`:
  one-vs-rest logistic regression on the frozen sentence vectors, fitted on the training tickets) as the
  rules team's router: the same team and procedure, only the reading of the ticket learned;
- the learned team — the run's checkpoint (MAPPO or IPPO), or in the benchmark `ippo` and `mappo` trained
  with the template's own budget.

Every arm plays the same evaluation episodes: the spec's environment on its held-out split
(`evaluation_params`: a routing team's test split of the tickets it trained on, else `EVALUATION_PARAMS`),
episode k reset with seed `EVALUATION_SEED + k`, greedy. An episode's score is the
environment's own success measure (exact match, the judge's score, the guess), its cost the environment's
`cost` when it reports one, else the steps taken.

`run_baselines(spec, run_dir)` is what a worker calls after a run that asked for its baselines.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.envs import make_env, team_kwargs
from agents.envs.routing import routing
from agents.envs.scripted import SCRIPTED_ENVIRONMENTS, scripted_team
from agents.spec import TeamSpec, load_spec
from agents.spec.algorithms import is_ppo
from training.events import EventStream
from training.verdict import Verdict, judge

__all__ = [
    "EVALUATION_PARAMS",
    "EVALUATION_SEED",
    "ArmEpisodes",
    "evaluation_params",
    "has_baselines",
    "evaluation_env",
    "play_episodes",
    "rules_policy",
    "imitation_policy",
    "has_plain",
    "plain_policy",
    "checkpoint_policy",
    "run_baselines",
    "train_with_baselines",
    "FinishedHeld",
]

EVALUATION_PARAMS: dict[str, dict[str, Any]] = {
    "research_report": {"split": "test"},
    "collaborative_writing": {"split": "test", "shuffle": True},
    "code_generation": {"split": "test", "shuffle": True},
    "interactive_support": {"split": "heldout"},  # customers of product families kept out of training
}
"""Per environment: the parameters that turn the training environment into its held-out evaluation one. A
routing environment's come from the tickets it trained on (`evaluation_params`): a dataset's own test split."""

EVALUATION_SEED = 50_000
"""Episode k of an evaluation is reset with seed EVALUATION_SEED + k (apart from training's and validation's)."""

IMITATION_EPISODES = 400
"""Logged episodes of the rules that behaviour cloning learns from (when the spec has no supervised start)."""

IMITATION_EPOCHS = 8

Policy = Callable[[Mapping[str, Any]], Mapping[str, int]]


@dataclass(frozen=True)
class ArmEpisodes:
    """One arm's per-episode scores and costs on the evaluation episodes."""

    scores: tuple[float, ...]
    costs: tuple[float, ...]


def has_baselines(spec: TeamSpec | Mapping[str, Any]) -> bool:
    """Whether a run of `spec` can be compared with rules and imitation: its environment ships a rule-scripted
    team and its algorithm is a PPO one (a checkpoint that plays the environment step by step)."""
    team = spec if isinstance(spec, TeamSpec) else load_spec(dict(spec), require_environment=True)
    return team.environment.name in SCRIPTED_ENVIRONMENTS and is_ppo(team.training.algorithm)


def evaluation_params(team: TeamSpec) -> dict[str, Any]:
    """What turns the spec's environment into its held-out evaluation one: a routing team's test split of
    the tickets it trained on (a dataset's ``NAME.test``, the shipped test split for the shipped catalogue;
    a ValueError saying so when there is none), else `EVALUATION_PARAMS`."""
    name, params = team.environment.name, dict(team.environment.params)
    interface = routing(name)
    if interface is None:
        return EVALUATION_PARAMS.get(name, {})
    test = interface.test_tickets(params)
    if test is None:
        raise ValueError(f"the tickets {params.get('tickets')!r} have no test split to judge the team on")
    return {"tickets": test}


def evaluation_env(team: TeamSpec) -> Any:
    """The spec's environment on its held-out evaluation split (`evaluation_params`)."""
    name = team.environment.name
    params = {**dict(team.environment.params), **evaluation_params(team)}
    return make_env(name, params, **team_kwargs(name, team.agents, team.edges))


def episode_score(info: Mapping[str, Any]) -> float:
    """An episode's score from its last info: the environment's success measure, as the trainer reads it."""
    return float(info.get("exact_match", info.get("success", info.get("accepted", 0.0))))


def play_episodes(
    env: Any,
    policy: Policy,
    episodes: int,
    seed: int = EVALUATION_SEED,
    on_episode: Callable[[], None] = lambda: None,
) -> ArmEpisodes:
    """`policy` greedy on `episodes` episodes of `env` (episode k reset with `seed + k`); `on_episode` is
    called after each one (the run's progress)."""
    scores, costs = [], []
    for k in range(episodes):
        observations, _ = env.reset(seed=seed + k)
        info: Mapping[str, Any] = {}
        steps = 0
        while env.agents:
            observations, _, _, _, infos = env.step({a: int(v) for a, v in policy(observations).items()})
            info = next(iter(infos.values()), info)
            steps += 1
        scores.append(episode_score(info))
        costs.append(float(info.get("cost", steps)))
        on_episode()
    return ArmEpisodes(tuple(scores), tuple(costs))


def rules_policy(team: TeamSpec) -> Policy:
    """The environment's rule-scripted team for the spec's agents."""
    return scripted_team(team.environment.name, dict(team.environment.params), team=team.agents).actions


def _fresh_trainer(team: TeamSpec, backbone: Any, events: EventStream) -> Any:
    from training.mappo.from_spec import config_from_spec, team_trainer

    return team_trainer(team, config_from_spec(team), backbone, events)


def imitation_policy(
    team: TeamSpec,
    backbone: Any,
    work_dir: str | Path,
    events: EventStream | None = None,
    episodes: int = IMITATION_EPISODES,
    epochs: int = IMITATION_EPOCHS,
) -> Policy:
    """Supervised learning without RL: the spec's own supervised start (its warm start, then its clone of the
    teacher where it declares one: what its MAPPO run starts from), else behaviour cloning of the rules."""
    from training.mappo.teacher_clone import clone_teacher
    from training.offline import load_episodes, log_episodes, pretrain, warm_start_from_spec

    events = events if events is not None else EventStream()
    trainer = _fresh_trainer(team, backbone, events)
    started = warm_start_from_spec(trainer, team, Path(work_dir) / "imitation", events)
    clone = trainer.cfg.teacher_clone_episodes
    started = bool(clone_teacher(trainer, clone, trainer.cfg.seed, events)) or started
    if not started:
        name = team.environment.name
        env = make_env(name, dict(team.environment.params), **team_kwargs(name, team.agents, team.edges))
        path = Path(work_dir) / "imitation" / "rules.jsonl"
        logged = load_episodes(log_episodes(env, rules_policy(team), episodes, path, seed=team.training.seed))
        pretrain(
            trainer, logged, epochs=epochs, lr=3e-3, batch_size=128, seed=team.training.seed, events=events
        )
    return trainer.policy(greedy=True)


def has_plain(team: TeamSpec) -> bool:
    """Whether `team` gets the plain-classifier arm: a routing team (one that answers a ticket by intents)."""
    return routing(team.environment.name) is not None


class ClassifierRouter:
    """A `PlainClassifier` as a rules team's router: a text's intents at probability ≥ ½; with `fallback`
    at least the most probable one (a queue with no request in it may ask nothing)."""

    def __init__(self, classifier: Any) -> None:
        self.classifier = classifier

    def predict(self, text: str, fallback: bool = True) -> tuple[str, ...]:
        (probabilities,) = self.classifier.probabilities([text])
        chosen = [n for n, p in zip(self.classifier.intents, probabilities, strict=True) if p >= 0.5]
        if not chosen and fallback and len(probabilities):
            chosen = [self.classifier.intents[int(probabilities.argmax())]]
        return tuple(chosen)


def plain_policy(team: TeamSpec, backbone: Any) -> Policy:
    """The plain-classifier arm of a routing team (`has_plain`): the classifier fitted on the spec's
    training tickets with the backbone's frozen sentence vectors, read by the rules team in place of its
    keyword router — so the arm differs from the rules only in how a ticket is read."""
    from training.plain_classifier import PlainClassifier

    interface = routing(team.environment.name)
    if interface is None:
        raise ValueError(f"{team.environment.name}: not a routing environment, no plain classifier arm")
    params = dict(team.environment.params)
    rows = interface.load_tickets(str(params.get("tickets", "train")), params)
    names = tuple(interface.catalogue(params).names)
    classifier = PlainClassifier.fit(backbone.encode, rows, names)
    return interface.scripted_team(params, team.agents, router=ClassifierRouter(classifier)).actions


def served_checkpoint(run_dir: str | Path) -> Path:
    """The checkpoint a deployment of a MAPPO/IPPO run would serve: `best`, else `last`
    (FileNotFoundError when the run has neither)."""
    root = Path(run_dir) / "checkpoints" / "mappo"
    for name in ("best", "last"):
        if (root / name / "state.json").is_file():
            return root / name
    raise FileNotFoundError("the run has no MAPPO/IPPO checkpoint to evaluate")


def checkpoint_policy(team: TeamSpec, run_dir: str | Path, backbone: Any) -> Policy:
    """The checkpoint a deployment of a MAPPO/IPPO run would serve (`served_checkpoint`), as a policy."""
    from training.mappo.from_spec import config_from_spec, trained_team

    checkpoint = served_checkpoint(run_dir)
    return trained_team(team, config_from_spec(team), checkpoint, backbone).policy(greedy=True)


def _load_backbone(team: TeamSpec) -> Any:
    from agents.backbone import Backbone

    b = team.backbone
    return Backbone.load(b.model, pooling=b.pooling, max_length=b.max_length)


def judge_arms(arms: Mapping[str, ArmEpisodes], learned: str, score_name: str = "") -> Verdict:
    """The verdict on `learned` against the rules and imitation arms in `arms`."""
    return judge(
        {k: v.scores for k, v in arms.items()},
        {k: v.costs for k, v in arms.items()},
        learned=learned,
        score_name=score_name or "success",
    )


def score_name(environment: str) -> str:
    """What a point of score is in this environment's words (for the verdict's sentence)."""
    return {
        "customer_service": "exact match",
        "research_report": "judge score",
        "collaborative_writing": "judge score",
        "code_generation": "judge score",
        "interactive_support": "resolution",
    }.get(environment, "success")


def run_baselines(
    spec: TeamSpec | Mapping[str, Any] | str | Path,
    run_dir: str | Path,
    *,
    events: EventStream | None = None,
    backbone: Any = None,
    episodes: int | None = None,
    should_stop: Callable[[], bool] = lambda: False,
) -> Verdict | None:
    """Evaluate a finished run's checkpoint, the rules and imitation (and, for a routing team, the plain
    classifier) on the same held-out episodes; emit a
    "verdict" event on `events` and return the verdict (None when stopped, or when the run's team has no
    baselines). `episodes` defaults to the spec's `training.eval_episodes`."""
    team = spec if isinstance(spec, TeamSpec) else load_spec(spec, require_environment=True)
    if not has_baselines(team):
        return None
    events = events if events is not None else EventStream()
    n = int(episodes or team.training.eval_episodes)
    served_checkpoint(run_dir)  # nothing to judge without one, or without a test split:
    evaluation_params(team)  # say so before the slow arms
    backbone = backbone if backbone is not None else _load_backbone(team)
    learned = team.training.algorithm
    arms: dict[str, ArmEpisodes] = {}
    plain: list[tuple[str, Callable[[], Policy]]] = (
        [("plain", lambda: plain_policy(team, backbone))] if has_plain(team) else []
    )
    arm_count = 3 + len(plain)
    # Counted in episodes, not arms: one arm of a large team plays for minutes, and a bar of arms would
    # stand still at "1 / 3 arms, estimating…" all that time.
    with events.stage(
        "baselines", "Evaluating the team beside its baselines", arm_count * n, "episodes"
    ) as stage:
        with tempfile.TemporaryDirectory(prefix="mase-baselines-") as work:
            makers: Sequence[tuple[str, Callable[[], Policy]]] = (
                ("rules", lambda: rules_policy(team)),
                ("imitation", lambda: imitation_policy(team, backbone, work)),
                *plain,
                (learned, lambda: checkpoint_policy(team, run_dir, backbone)),
            )
            for name, make in makers:
                if should_stop():
                    return None
                arms[name] = play_episodes(evaluation_env(team), make(), n, on_episode=stage.advance)
    verdict = judge_arms(arms, learned, score_name(team.environment.name))
    events.emit("verdict", **verdict.to_dict(), episodes=n, split=_split_words(team))
    return verdict


class FinishedHeld:
    """An event sink that relays a trainer's events onto `outer` but keeps its "finished" back, so work done
    after training (the baselines) still reports inside the run: a run's stream ends with "finished"."""

    def __init__(self, outer: EventStream):
        self.outer = outer
        self.finished: dict[str, Any] | None = None

    def __call__(self, event: Any) -> None:
        if event.type == "finished":
            self.finished = dict(event.payload)
        else:
            self.outer.emit(event.type, **event.payload)

    def release(self) -> None:
        """Emit the held "finished" on `outer` (nothing when the trainer never finished)."""
        if self.finished is not None:
            self.outer.emit("finished", **self.finished)
            self.finished = None


def train_with_baselines(
    train: Callable[..., Any],
    spec: Mapping[str, Any],
    out_dir: str | Path,
    *,
    events: EventStream,
    should_stop: Callable[[], bool] = lambda: False,
    **kwargs: Any,
) -> Any:
    """`train(spec, out_dir, events=…, should_stop=…, **kwargs)` (training.api.train), then, when it
    succeeded and the team has baselines, `run_baselines` on the run; its "verdict" comes before the run's
    "finished". A failure of the baselines is logged on the run and does not fail it."""
    held = FinishedHeld(events)
    result = train(spec, out_dir, events=EventStream([held]), should_stop=should_stop, **kwargs)
    try:
        if result.status == "succeeded" and has_baselines(spec):
            run_baselines(spec, out_dir, events=events, should_stop=should_stop)
    except Exception as exc:  # the run trained: its verdict is a report on it, not part of it
        events.emit("log", message=f"the baselines could not be evaluated: {type(exc).__name__}: {exc}")
    finally:
        held.release()
    return result


def _split_words(team: TeamSpec) -> str:
    params = evaluation_params(team)
    return str(params.get("split", params.get("tickets", "the training environment")))
