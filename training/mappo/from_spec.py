"""A team spec to the parts of a MAPPO/IPPO trainer: its config, links, featurizer, reward, schedule, teacher
(`training.mappo.build` assembles the run from them); and a spec's trained team loaded back
from a checkpoint, as a trainer (`trained_team`) or as the inference policy a runtime serves (`load_policy`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.comm import allowed_links
from agents.envs import make_env, team_kwargs
from agents.envs.routing import start_options
from agents.spec.algorithms import sends_messages
from training import distributed
from training.curriculum import AdaptiveCurriculum
from training.events import EventStream
from training.evolution import EvolutionScheduler
from training.golden import GoldenMetrics
from training.mappo.calibration import selection_params
from training.mappo.checkpoint import CheckpointError, check_fits, read_checkpoint
from training.mappo.config import MappoConfig
from training.mappo.featurizer import featurizer_from_spec
from training.mappo.networks import TeamActor
from training.mappo.policy import TeamPolicy, action_count
from training.mappo.team import MappoTeam
from training.mappo.trainer import MappoTrainer
from training.mappo.vector_features import VectorFeaturizer, is_vector_env
from training.reward import NoHumanFeedback, RewardComposer
from training.spec_options import same_named
from training.teacher import teacher_from_spec


def links_from_spec(team: Any) -> Any:
    """Who may message whom: the spec's communication edges (none listed = everyone to everyone)."""

    ids = [a.id for a in team.agents]
    edges = [(e.source, e.target) for e in team.edges if e.kind == "communication"]
    return allowed_links(len(ids), edges or None, ids)


def trained_team(team: Any, config: MappoConfig, checkpoint_dir: str | Path, backbone: Any) -> MappoTrainer:
    """A spec's team (environment, links, observation reader) with `config`, loaded from a checkpoint
    (CheckpointError naming the problem when it does not fit); for runtimes and checkpoint teachers."""

    trainer = MappoTrainer(
        config,
        MappoTeam(
            env_factory(team),
            backbone=backbone,
            allowed_links=links_from_spec(team),
            featurizer=spec_featurizer(team, backbone),
        ),
    )
    trainer.load_checkpoint(checkpoint_dir)
    return trainer


def load_policy(team: Any, checkpoint_dir: str | Path, backbone: Any, events: Any = None) -> TeamPolicy:
    """A spec's trained team from its checkpoint, for inference: the reader built as training built it,
    the actors' weights, the HCP codebook and the calibration (when the checkpoint has them).

    Raises `CheckpointError` naming the problem when the checkpoint is missing, damaged or was trained
    for another team (other agents, action spaces, algorithm, sharing, communication or width).
    """
    from agents.protocol.link import PROTOCOLS_WITH_LINK, load_link
    from training.mappo.calibration import load_calibration, temperature_vector

    cfg = config_from_spec(team)
    name, params = team.environment.name, dict(team.environment.params)
    env = make_env(name, params, **team_kwargs(name, team.agents, team.edges))
    agents = list(env.possible_agents)
    n_actions = [action_count(env.action_space(a)) for a in agents]
    featurize = spec_featurizer(team, backbone)
    # the dimensions as training probed them (the same texts enter the reader's cache, in the same batches)
    obs, _ = env.reset(seed=cfg.seed)
    obs_dim = featurize([obs.get(a) for a in agents]).shape[1]
    featurize([env.state()])
    actor = TeamActor(
        len(agents), obs_dim, n_actions, cfg, links_from_spec(team),
        clause_block=getattr(featurize, "clause_block", None),
    )  # fmt: skip
    state, tensors = read_checkpoint(checkpoint_dir)
    check_fits(checkpoint_dir, state, agents, n_actions, cfg)
    prefix = "actor."
    try:
        actor.load_state_dict({k[len(prefix) :]: v for k, v in tensors.items() if k.startswith(prefix)})
    except RuntimeError as exc:
        raise CheckpointError(
            f"checkpoint {str(checkpoint_dir)!r} does not fit this team: {str(exc).splitlines()[0]}"
        ) from None
    link = None
    if actor.use_comm and cfg.protocol in PROTOCOLS_WITH_LINK:
        try:
            link = load_link(checkpoint_dir, state, events=events)
        except ValueError as exc:
            raise CheckpointError(str(exc)) from None
    temperature = temperature_vector(load_calibration(checkpoint_dir), agents)
    return TeamPolicy(agents, n_actions, obs_dim, cfg, featurize, actor, link, temperature)


def env_factory(team: Any) -> Callable[[str], Any]:
    """``split`` → the spec's environment. Validation (which checkpoint is `best`) plays the dev tickets
    when the run trains on the shipped training split: selecting on the tickets it trains on rewarded
    memorising them. Every other split, and every environment without ticket splits, is the spec's own."""
    name, params = team.environment.name, dict(team.environment.params)
    drawn = team_kwargs(name, team.agents, team.edges)
    dev = selection_params(name, params)
    return lambda split: make_env(name, dev if split == "validation" and dev is not None else params, **drawn)


def spec_featurizer(team: Any, backbone: Any) -> Any:
    """The team's observation reader: float vectors pass through (`vector_features`), text is embedded."""
    if is_vector_env(team.environment.name):
        return VectorFeaturizer()
    return featurizer_from_spec(team, backbone)


def config_from_spec(team: Any, group: distributed.Group = distributed.SINGLE) -> MappoConfig:
    """MappoConfig from a TeamSpec: `training` (episodes → updates of `batch_size` episodes, policy sharing,
    credit assignment, teacher weight, self-imitation), heads, comm.

    For a data-parallel `group` each rank plays `batch_size` episodes per update, so episode counts
    (the budget, evaluation / checkpoint / cycle periods) become updates of `processes × batch_size`
    episodes, and the learning rate is scaled by `training.distributed.lr_scale` (1 for one process).
    """
    t = team.training
    start = start_options(team.environment)
    per_update = max(1, int(t.batch_size)) * group.world_size

    def every(episodes: int) -> int:
        return 0 if not episodes else max(1, round(episodes / per_update))

    # Options named as the config names them arrive as given (training.spec_options); below is only what
    # MAPPO translates: renamed, counted in updates rather than episodes, or scaled by the group.
    translated = dict(
        sharing=t.policy_sharing,
        # readers fitted on the tickets' labels stay as fitted: the actors learn to act on that reading
        reader_fixed=start.clause_reader and start.reader_epochs > 0,
        reader_outputs=start.reader_outputs,  # one score per intent of the environment's catalogue
        actor_evidence=start.actor_evidence,  # the readers' scores, or averaged with a plain classifier
        teacher_coef=float(t.teacher_coef) if t.teacher != "none" else 0.0,
        teacher_fade_updates=every(t.teacher_fade_episodes),
        critic_warmup_updates=every(t.critic_warmup_episodes),
        comm=bool(team.communication.enabled) and sends_messages(t.algorithm),
        updates=max(1, t.episodes // per_update),
        episodes_per_update=max(1, int(t.batch_size)),
        lr=float(t.lr) * distributed.lr_scale(group),
        hidden=max(a.policy_head.hidden for a in team.agents),
        eval_every=every(t.eval_every),
        checkpoint_every=every(t.checkpoint_every),
        cycle_updates=max(1, round(team.evolution.cycle_episodes / per_update)),
    )
    return MappoConfig(**{**same_named(MappoConfig, team.communication, t), **translated})


def team_trainer(
    team: Any,
    cfg: MappoConfig,
    backbone: Any,
    events: EventStream,
    human_feedback: Any | None = None,
    group: distributed.Group = distributed.SINGLE,
) -> MappoTrainer:
    """The spec's `MappoTrainer` with its reward (composer, per evolution phase), evolution schedule,
    curriculum, per-agent update periods, golden-range metrics and teacher, reporting on `events`."""
    scheduler = EvolutionScheduler.from_spec(team, events=events)
    composer = RewardComposer.from_spec(team.reward, human_feedback=human_feedback or NoHumanFeedback())
    message_cost = float(team.communication.message_cost)

    def reward_fn(agent: str, env_reward: float, info: dict, extras: dict) -> float:
        # The env reward is the task term; entropy_bonus is the acting agent's policy entropy at the step;
        # communication_cost prices the messages delivered; human_feedback is read once, at the episode's end.
        values = {
            "task": env_reward,
            "communication_cost": message_cost * float(extras.get("delivered", 0.0)),
            "entropy_bonus": float(extras.get("entropy", 0.0)),
        }
        if isinstance(info.get("shaping"), (int, float)):
            values["shaping"] = float(info["shaping"])
        key = str(extras["episode_key"]) if extras.get("done") else None
        if key is None:
            values["human_feedback"] = 0.0
        return composer.compose(values, scheduler.phase, episode_key=key)

    curriculum = (
        AdaptiveCurriculum.from_spec(team.curriculum, events=events) if team.curriculum.enabled else None
    )
    return MappoTrainer(
        cfg,
        MappoTeam(
            env_factory(team),
            backbone=backbone,
            events=events,
            reward_fn=reward_fn,
            success_fn=lambda info: float(
                info.get("exact_match", info.get("success", info.get("accepted", 0.0)))
            ),
            allowed_links=links_from_spec(team),
            delivery_threshold=float(team.communication.delivery_threshold),
            update_periods={a.id: a.update_period for a in team.agents},
            scheduler=scheduler,
            golden=GoldenMetrics(events),
            curriculum=curriculum,
            featurizer=spec_featurizer(team, backbone),
            teacher=teacher_from_spec(team, backbone, load_team=trained_team),
            group=group,
        ),
    )


def calibrate_run(
    trainer: MappoTrainer, team: Any, root: Path, events: EventStream | None = None
) -> dict[str, Any] | None:
    """Fit and store the calibration of the run's `best` and `last` checkpoints on the dev split; the
    trainer ends holding `last` (its final state) again. Returns `last`'s summary (no per-ticket data);
    `events` hears its progress and results."""
    from training.mappo.calibration import calibrate_checkpoints

    def load(directory: Path) -> MappoTrainer:
        trainer.load_checkpoint(directory)
        return trainer

    found = calibrate_checkpoints(team, [root / "best", root / "last"], load, events)
    return None if found is None else {k: v for k, v in found.items() if k != "confidences"}
