"""Where MARL pays: every shipped template beside its baselines on the same held-out episodes, with a verdict.

Per template (examples/<name>.json, its defaults untouched but `training.algorithm`): the rules (the
environment's scripted team), imitation (`training.baselines.imitation_policy`: the template's supervised
start, else behaviour cloning of the rules), independent PPO and MAPPO, each trained with the template's
own budget through `training.api.train`, all playing the same held-out evaluation episodes
(`training.baselines`); a routing team (customer service) also gets `plain`, a plain classifier on the same
backbone read by the rules team (`training.baselines.plain_policy`); the large team (twenty bidders, one
shared policy) is scored by its share of tasks done in time, its rules being its rule bidders; then
`training.verdict.judge` (MAPPO against the best of rules, imitation and plain) and the complexity advisor's
prediction (`agents.advisor.advise`) beside it.

Number guessing and its 64-number variant (`number_guess_n64`) have no rule procedure (their only actions
are guesses; the clues are in other agents' hands): their arms are the template as shipped (learned
communication, REINFORCE) and the same trainer with its messages cut (`alone`), both on the same sampled
episodes, and the verdict is learned against alone.

    python bench/verdicts.py --out FILE.json [--quick] [--templates NAME ...] [--episodes N] [--seed S]

`--quick` trains each arm for a few dozen episodes and evaluates 8 episodes: a smoke run, not a figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

EXAMPLES = ROOT / "examples"
PPO_TEMPLATES = (
    "customer_service",
    "research_report",
    "collaborative_writing",
    "code_generation",
    "interactive_support",
    "large_team",  # the rules are its rule bidders (also its MAPPO's fading teacher); score: tasks done in time
)
GUESS_TEMPLATES = ("number_guessing", "number_guess_n64")
QUICK = {"episodes": 64, "eval_episodes": 8, "guess_episodes": 2000}
_BACKBONE: dict[str, Any] = {}


def _backbone(doc: dict[str, Any]) -> Any:
    from agents.backbone import Backbone

    b = doc.get("backbone") or {}
    key = json.dumps(b, sort_keys=True)
    if key not in _BACKBONE:
        _BACKBONE[key] = Backbone.load(
            b.get("model", "default"), pooling=b.get("pooling", "mean"), max_length=b.get("max_length", 64)
        )
    return _BACKBONE[key]


def _template(name: str, seed: int, algorithm: str | None = None, quick: bool = False) -> dict[str, Any]:
    doc = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    training = doc["training"]
    training["seed"] = int(seed)
    if algorithm is not None:
        training["algorithm"] = algorithm
    if quick:
        training.update(episodes=QUICK["episodes"], eval_every=0, checkpoint_every=0)
        params = doc["environment"]["params"]
        if "warm_start_episodes" in params:
            params.update(warm_start_episodes=64, reader_epochs=10, warm_start_epochs=2)
    return doc


def _advisor(doc: dict[str, Any]) -> dict[str, Any]:
    from agents.advisor import advise

    advice = advise(doc)
    return {
        "recommendation": advice.recommendation,
        "score": advice.score,
        "decision_density": advice.decision_density,
        "uncertainty": advice.uncertainty,
        "reward_conflict": advice.reward_conflict,
    }


def _summary(
    verdict: Any, arms: dict[str, Any], seconds: dict[str, float], doc: dict[str, Any]
) -> dict[str, Any]:
    by_name = {a.name: a for a in verdict.arms}
    out: dict[str, Any] = {name: round(by_name[name].mean, 4) for name in arms}
    learned = by_name[verdict.learned]
    out[f"{verdict.learned}_ci"] = [round(learned.low, 4), round(learned.high, 4)]
    out["cost"] = {name: by_name[name].cost for name in arms}
    out["train_seconds"] = seconds
    out["advisor"] = _advisor(doc)
    out["verdict"] = verdict.sentence
    out["outcome"] = verdict.outcome
    out["difference"] = verdict.to_dict()["difference"]
    out["difference_ci"] = [verdict.to_dict()["low"], verdict.to_dict()["high"]]
    out["episodes"] = learned.episodes
    out["arms"] = [a.to_dict() for a in verdict.arms]
    return out


def measure_ppo_template(
    name: str, seed: int, episodes: int, quick: bool, describe: Any = None
) -> dict[str, Any]:
    """Rules, imitation, IPPO and MAPPO of template `name` on `episodes` held-out episodes, and the verdict;
    `describe(policies)` adds what an environment reports per arm beyond its score (under its own keys)."""
    from agents.spec import load_spec
    from training import api
    from training.baselines import (
        checkpoint_policy,
        evaluation_env,
        has_plain,
        imitation_policy,
        judge_arms,
        plain_policy,
        play_episodes,
        rules_policy,
        score_name,
    )

    doc = _template(name, seed, quick=quick)
    team = load_spec(doc, require_environment=True)
    backbone = _backbone(doc)
    arms, seconds, policies = {}, {}, {}
    with tempfile.TemporaryDirectory(prefix=f"bench-verdicts-{name}-") as work:
        policies["rules"] = rules_policy(team)
        arms["rules"] = play_episodes(evaluation_env(team), policies["rules"], episodes)
        seconds["rules"] = 0.0
        started = time.perf_counter()
        policies["imitation"] = imitation_policy(team, backbone, work)
        arms["imitation"] = play_episodes(evaluation_env(team), policies["imitation"], episodes)
        seconds["imitation"] = round(time.perf_counter() - started, 1)
        if has_plain(team):
            started = time.perf_counter()
            policies["plain"] = plain_policy(team, backbone)
            arms["plain"] = play_episodes(evaluation_env(team), policies["plain"], episodes)
            seconds["plain"] = round(time.perf_counter() - started, 1)
        for algorithm in ("ippo", "mappo"):
            arm_doc = _template(name, seed, algorithm, quick)
            arm_team = load_spec(arm_doc, require_environment=True)
            run_dir = Path(work) / algorithm
            started = time.perf_counter()
            api.train(arm_doc, run_dir, backbone=backbone, resume=False)
            seconds[algorithm] = round(time.perf_counter() - started, 1)
            policies[algorithm] = checkpoint_policy(arm_team, run_dir, backbone)
            arms[algorithm] = play_episodes(evaluation_env(arm_team), policies[algorithm], episodes)
            print(
                f"[{name}] {algorithm}: {sum(arms[algorithm].scores) / episodes:.3f}",
                file=sys.stderr,
                flush=True,
            )
        described = describe(policies) if describe is not None else {}
    verdict = judge_arms(arms, "mappo", score_name(team.environment.name))
    return {**_summary(verdict, arms, seconds, doc), **described}


def _guess_outcomes(trainer: Any, episodes: int, seed: int) -> tuple[Any, float]:
    """Per-episode greedy success of a number-guessing trainer: episode k is the one `evaluate` samples
    with seed `seed + k`, so two trainers of the same environment play the same episodes; and the messages
    delivered per episode."""
    from training.baselines import ArmEpisodes

    rows = [trainer.evaluate(1, seed=seed + k) for k in range(episodes)]
    # one guess per episode whatever the routing: the cost is that step (messages are reported apart)
    return ArmEpisodes(tuple(float(r["success"]) for r in rows), (1.0,) * episodes), float(
        sum(r["messages_per_episode"] for r in rows) / episodes
    )


def measure_guess_template(name: str, seed: int, episodes: int, quick: bool) -> dict[str, Any]:
    """Number guessing as shipped (learned communication) against the same trainer with its messages cut."""
    from training import api
    from training.baselines import EVALUATION_SEED
    from training.verdict import judge

    doc = _template(name, seed)
    if quick:
        doc["training"].update(episodes=QUICK["guess_episodes"], eval_every=0, checkpoint_every=0)
    backbone = _backbone(doc)
    arms, seconds, messages = {}, {}, {}
    with tempfile.TemporaryDirectory(prefix=f"bench-verdicts-{name}-") as work:
        for arm, overrides in (("alone", {"routing": "none"}), ("reinforce_comm", None)):
            run_dir = Path(work) / arm
            started = time.perf_counter()
            api.train(doc, run_dir, backbone=backbone, resume=False, overrides=overrides)
            seconds[arm] = round(time.perf_counter() - started, 1)
            trainer = _loaded_guess_trainer(run_dir, backbone)
            arms[arm], messages[arm] = _guess_outcomes(trainer, episodes, EVALUATION_SEED)
            print(f"[{name}] {arm}: {sum(arms[arm].scores) / episodes:.3f}", file=sys.stderr, flush=True)
    verdict = judge(
        {k: v.scores for k, v in arms.items()},
        {k: v.costs for k, v in arms.items()},
        learned="reinforce_comm",
        baselines=("alone",),
        score_name="success",
    )
    out = _summary(verdict, arms, seconds, doc)
    out["messages_per_episode"] = {k: round(v, 3) for k, v in messages.items()}
    return out


def _loaded_guess_trainer(run_dir: Path, backbone: Any) -> Any:
    """The newest checkpoint of a number-guessing run, loaded as `training.api.evaluate_run` loads it."""
    from agents.spec import load_spec
    from training import checkpoint as ckpt
    from training.api import _ARCHITECTURE_SETTINGS
    from training.reinforce_comm import ReinforceCommTrainer

    checkpoint = ckpt.latest_checkpoint(run_dir / "checkpoints")
    state = ckpt.read_state(checkpoint)
    team = load_spec(state.get("spec") or run_dir / "spec.json", require_environment=True)
    settings = {k: v for k, v in (state.get("config") or {}).items() if k in _ARCHITECTURE_SETTINGS}
    trainer = ReinforceCommTrainer(team, backbone=backbone, **settings)
    trainer.load_checkpoint(checkpoint)
    return trainer


def describe_interactive_support(policies: dict[str, Any], episodes: int) -> dict[str, Any]:
    """Per arm `resolution`, `satisfaction`, `escalations`, `cost`, `heldout_resolution`,
    `heldout_satisfaction`: every arm on the same customers of the training families and of the held-out
    ones (the workflow's own evaluation, agents.envs.interactive_support.baselines.compare_arms)."""
    from agents.envs.interactive_support.baselines import compare_arms

    keys = ("resolution", "satisfaction", "escalations", "cost", "heldout_resolution", "heldout_satisfaction")
    rows = compare_arms(policies, episodes=episodes)
    return {"per_arm": {arm: {k: round(row[k], 4) for k in keys} for arm, row in rows.items()}}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument("--quick", action="store_true", help="tiny budgets, 8 episodes: a smoke run")
    parser.add_argument("--templates", nargs="+", choices=[*PPO_TEMPLATES, *GUESS_TEMPLATES])
    parser.add_argument("--episodes", type=int, help="evaluation episodes per arm (default 200; quick 8)")
    parser.add_argument("--seed", type=int, default=0, help="the training seed of every arm")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    names = args.templates or (
        [*PPO_TEMPLATES, *GUESS_TEMPLATES] if not args.quick else ["code_generation", "number_guessing"]
    )
    episodes = args.episodes or (QUICK["eval_episodes"] if args.quick else 200)
    started = time.perf_counter()
    verdicts: dict[str, Any] = {}
    for name in names:
        if name in GUESS_TEMPLATES:
            verdicts[name] = measure_guess_template(name, args.seed, episodes, args.quick)
        else:
            describe = None
            if name == "interactive_support":
                describe = lambda policies: describe_interactive_support(policies, episodes)  # noqa: E731
            verdicts[name] = measure_ppo_template(name, args.seed, episodes, args.quick, describe)
        print(f"[{name}] {verdicts[name]['verdict']}", file=sys.stderr, flush=True)
    results = {
        "verdicts": verdicts,
        "quick": bool(args.quick),
        "seed": args.seed,
        "episodes": episodes,
        "wall_seconds": round(time.perf_counter() - started, 1),
    }
    Path(args.out).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return results


if __name__ == "__main__":
    main()
