"""Workflow benchmark: MAPPO against the rule baseline and independent PPO on the source workflows.

Customer service (docs/design.md#customer-service), all arms in one run with the same seeds, trained on the train split and
scored greedily on the test split (or `--tickets FILE`) and on the held-out phrasing styles:

- rules                 the tuned keyword router as a rule-scripted team (no training)
- ippo                  independent PPO: own critic over own observation, own parameters, no messages
- mappo                 MAPPO: centralised critic over env.state(), shared base + per-agent LoRA, messages
- mappo_counterfactual  MAPPO with the COMA counterfactual baseline
- mappo_teacher         MAPPO + teacher–student augmentation (teacher = the rule-scripted team)

Research report (docs/design.md#research-report): the judge's four dimensions before and after MAPPO training.

    python bench/workflows.py --out bench/results/workflows.json [--tickets FILE] [--quick]

Keys are documented in bench/README.md (section bench/workflows.py).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from agents.backbone import Backbone  # noqa: E402
from agents.envs.customer_service.env import CustomerServiceEnv, evaluate  # noqa: E402
from agents.envs.customer_service.randomisation import DomainRandomisation  # noqa: E402
from agents.envs.customer_service.rules import ExpertTeam, KeywordRouter, ScriptedTeam  # noqa: E402
from agents.envs.customer_service.tickets import DIFFICULTY_LEVELS, load_tickets  # noqa: E402
from agents.envs.customer_service.triage import misfiled, triage  # noqa: E402
from bench.paired import paired_stats  # noqa: E402
from training.cli import parse_setting  # noqa: E402
from training.curriculum import AdaptiveCurriculum, CurriculumConfig  # noqa: E402
from training.events import EventStream  # noqa: E402
from training.evolution import EvolutionScheduler  # noqa: E402
from training.golden import GoldenMetrics  # noqa: E402
from training.mappo import Featurizer, MappoConfig, MappoTeam, MappoTrainer, clause_featurizer  # noqa: E402
from training.offline import load_episodes, log_episodes, log_expert_episodes, pretrain, warm_start  # noqa: E402
from training.teacher import ExpertTeacher, PolicyTeacher  # noqa: E402

CACHE = ROOT / "var" / "cache"

ARMS: dict[str, dict[str, Any]] = {
    "ippo": {"algorithm": "ippo", "sharing": "independent", "comm": False},
    "mappo": {"algorithm": "mappo", "sharing": "lora"},
    "mappo_counterfactual": {"algorithm": "mappo", "sharing": "lora", "counterfactual": True},
    "mappo_teacher": {"algorithm": "mappo", "sharing": "lora", "teacher_coef": 1.0},
}
# run only when named in --arms: MAPPO with IPPO's independent actor networks (same critic as `mappo`)
ABLATIONS: dict[str, dict[str, Any]] = {
    "mappo_independent": {"algorithm": "mappo", "sharing": "independent"},
    "mappo_independent_silent": {"algorithm": "mappo", "sharing": "independent", "comm": False},
    "mappo_lora_silent": {"algorithm": "mappo", "sharing": "lora", "comm": False},
    "ippo_lora_comm": {"algorithm": "ippo", "sharing": "lora", "comm": True},
    "ippo_comm": {"algorithm": "ippo", "sharing": "independent", "comm": True},
    # teacher–student with a stronger checkpoint as teacher: this run's kept IPPO team (needs `ippo` in --arms)
    "mappo_checkpoint_teacher": {"algorithm": "mappo", "sharing": "independent", "teacher_coef": 1.0},
    "mappo_agent_state_silent": {
        "algorithm": "mappo",
        "sharing": "independent",
        "comm": False,
        "critic_input": "state_and_obs",
    },
}

FULL = {
    "updates": 60,
    "episodes_per_update": 32,
    "epochs": 4,
    "minibatches": 4,
    "lr": 3e-4,
    "hidden": 128,
    # after the warm start, routing noise on the attention only perturbs a policy that already works
    # (the workflow protocol, docs/experiments/2026-11-29-workflows-first-results.md): fine-tune without it
    "explore_share": 0.0,
    "entropy_coef": 0.003,
    "eval_every": 0,
    "checkpoint_every": 0,
}
QUICK = {
    "updates": 3,
    "episodes_per_update": 8,
    "epochs": 2,
    "minibatches": 1,
    "lr": 1e-3,
    "hidden": 32,
    "eval_every": 0,
    "checkpoint_every": 0,
}


def cs_metrics(env: CustomerServiceEnv, policy, limit: int | None = None) -> dict[str, float]:
    """Exact match, intent F1, steps and messages per ticket, every ticket once in file order."""
    out = evaluate(env, policy, limit=limit)
    return {k: float(v) for k, v in out.items() if k != "tickets"} | {"tickets": int(out["tickets"])}


def _progress(arm: str):
    def report(update: int, metrics: dict) -> None:
        if update % 10 == 0:
            print(
                f"[workflows]   {arm} update {update}: success {metrics.get('success', 0):.3f} "
                f"messages {metrics['messages_per_episode']:.2f} ({metrics['update_seconds']:.1f}s/update)",
                file=sys.stderr,
                flush=True,
            )

    return report


def scripted_policy(team: ScriptedTeam):
    return team.actions


def train_keeping_best(trainer: MappoTrainer, dev_env: Any, every: int, progress) -> dict:
    """PPO in chunks of `every` updates, keeping the actors that score best on the dev tickets.

    Periodic validation with best-checkpoint keeping (docs/design.md#sim-to-real): after the warm start and after each
    chunk the greedy team is scored on `dev_env` (training-split tickets that no stage trains on); the
    best actors (ties: the earlier) are restored at the end. Every scoring is kept as the dev curve.
    """
    target = trainer.cfg.updates
    curve = [{"update": 0} | cs_metrics(dev_env, trainer.policy(greedy=True))]
    best_score, best_update = curve[0]["exact_match"], 0
    best_state = copy.deepcopy(trainer.actor.state_dict())
    while trainer.update_index < target:
        trainer.cfg.updates = min(target, trainer.update_index + every)
        trainer.train(progress=progress)
        curve.append({"update": trainer.update_index} | cs_metrics(dev_env, trainer.policy(greedy=True)))
        if curve[-1]["exact_match"] > best_score:
            best_score, best_update = curve[-1]["exact_match"], trainer.update_index
            best_state = copy.deepcopy(trainer.actor.state_dict())
    trainer.actor.load_state_dict(best_state)
    return {"best_update": best_update, "dev_exact_match": best_score, "dev_curve": curve}


def env_tag(params: dict[str, Any]) -> str:
    """A file-name tag for the training env's parameters (logged rewards depend on them)."""
    return "_".join(f"{k}{v}" for k, v in sorted(params.items()))


def arm_teacher(
    arm: str, cfg: MappoConfig, expert: ExpertTeam, kept_teams: dict[str, MappoTrainer]
) -> ExpertTeacher | PolicyTeacher | None:
    """The arm's teacher: none without a teacher weight; this run's kept IPPO team (greedy) for the
    checkpoint-teacher arm; else the expert (the scripted team reading the training labels)."""
    if cfg.teacher_coef <= 0:
        return None
    if arm == "mappo_checkpoint_teacher":
        return PolicyTeacher(kept_teams["ippo"].policy(greedy=True))
    return ExpertTeacher(expert)


def useful_gain(curves: dict[str, Any], without: str, with_teacher: str) -> dict[str, Any]:
    """`useful_share` of an arm and of the same arm with a teacher, and the relative gain."""
    base = curves.get(without, {}).get("useful_share", 0.0)
    taught = curves.get(with_teacher, {}).get("useful_share", 0.0)
    return {
        "useful_share_without": base,
        "useful_share_with": taught,
        "relative_gain": (taught - base) / base if base > 0 else None,
    }


def run_customer_service(args, backbone: Backbone, seed: int) -> dict[str, Any]:
    train = load_tickets("train")
    files = {
        "test": load_tickets(args.tickets) if args.tickets else load_tickets("test"),
        "validation": load_tickets("validation"),
        "holdout": load_tickets("holdout_styles"),
    }
    if args.quick:
        train = train[:64]
        files = {name: tickets[: 40 if name == "test" else 20] for name, tickets in files.items()}
    # the last tenth of the training split is the dev set of best-checkpoint keeping: no stage trains on it
    split_at = len(train) - max(1, len(train) // 10)
    train, dev = train[:split_at], train[split_at:]
    router = KeywordRouter.tuned(train)
    team = ScriptedTeam(router, queues=args.env.get("role_view") == "triage")
    # The supervised stages (clause readers, cloned expert logs) see the labels of the first
    # `labelled_share` of the training tickets only; PPO trains on all of them, so the rest are tickets the
    # team first meets online, with only the env's reward to learn from.
    labelled = train[: max(1, round(len(train) * args.labelled_share))]
    # the expert: the scripted team reading the labels of the tickets it knows (logs to clone; with all
    # training labels, the teacher of teacher–student augmentation); it knows nothing about other tickets
    teacher_team = ExpertTeam(train)
    featurizer = clause_featurizer(backbone, CACHE / "customer_service_clauses.safetensors")
    texts = [t.text for t in train + dev + [t for ts in files.values() for t in ts]]
    if args.env.get("role_view") == "triage":  # the specialists read their triage queues
        texts += [queue for text in texts for queue in triage(text).values()]
    featurizer.text(texts)  # embed once
    featurizer.save_cache()

    def env_fn(split: str) -> Any:
        tickets = train if split == "train" else files["validation"]
        return randomised(CustomerServiceEnv(tickets=tickets, shuffle=True, **args.env))

    def randomised(env: CustomerServiceEnv) -> Any:
        return DomainRandomisation(env, **args.randomise) if args.randomise else env

    # the same env parameters everywhere: observation settings (supervisor_view) matter when scoring too
    eval_envs = {name: CustomerServiceEnv(tickets=t, shuffle=False, **args.env) for name, t in files.items()}
    results: dict[str, dict[str, Any]] = {name: {} for name in files}
    if args.randomise:  # the test tickets again, under the perturbations the team trained with
        eval_envs["randomised"] = randomised(
            CustomerServiceEnv(tickets=files["test"], shuffle=False, **args.env)
        )
        results["randomised"] = {}
    stranded = [t for t in files["test"] if misfiled(t)] if args.env.get("role_view") == "triage" else []
    if stranded:  # the test tickets where only a teammate can bring a request to its owner
        eval_envs["misfiled"] = CustomerServiceEnv(tickets=stranded, shuffle=False, **args.env)
        results["misfiled"] = {}
    # best-checkpoint keeping selects for the conditions the team trains under
    dev_env = randomised(CustomerServiceEnv(tickets=dev, shuffle=False, **args.env))
    curves: dict[str, Any] = {}
    for name, env in eval_envs.items():
        results[name]["rules"] = cs_metrics(env, scripted_policy(team)) | {"train_seconds": 0.0}
    logged = []
    if args.offline_episodes:
        # sim-to-real (docs/design.md#sim-to-real): every learning arm starts from the same logs of the expert team
        logged = log_expert_episodes(
            CustomerServiceEnv(tickets=labelled, shuffle=True, **args.env),
            labelled,
            args.offline_episodes,
            CACHE
            / f"cs_expert_logs_s{seed}_n{args.offline_episodes}_l{len(labelled)}_{env_tag(args.env)}.jsonl",
            seed=seed,
        )
    budget = QUICK if args.quick else FULL
    if args.updates:
        budget = budget | {"updates": args.updates}
    budget = budget | dict(args.set)
    reader_state: dict[str, torch.Tensor] | None = None
    kept_teams: dict[str, MappoTrainer] = {}
    for arm, settings in (ARMS | ABLATIONS).items():
        if (args.arms and arm not in args.arms) or (arm in ABLATIONS and arm not in (args.arms or ())):
            continue
        torch.manual_seed(seed)
        cfg = MappoConfig(**(budget | settings | {"seed": seed}))
        events = EventStream()
        teacher = arm_teacher(arm, cfg, teacher_team, kept_teams)
        trainer = MappoTrainer(
            cfg,
            MappoTeam(
                env_fn,
                backbone=backbone,
                events=events,
                teacher=teacher,
                featurizer=featurizer,
                success_fn=lambda info: bool(info.get("exact_match", False)),
                scheduler=EvolutionScheduler(events=events),
                golden=GoldenMetrics(events),
                curriculum=AdaptiveCurriculum(
                    CurriculumConfig(max_level=DIFFICULTY_LEVELS - 1), events=events
                )
                if args.curriculum
                else None,
            ),
        )
        untrained = cs_metrics(eval_envs["test"], trainer.policy(greedy=True))
        # every arm starts from the same supervised reading of the training tickets and the same clones
        pre, reader_state = warm_start(
            trainer, labelled, logged, args.reader_epochs, args.offline_epochs, seed, reader_state
        )
        print(f"[workflows]   {arm} warm start: {pre}", file=sys.stderr, flush=True)
        warm = cs_metrics(eval_envs["test"], trainer.policy(greedy=True))
        print(
            f"[workflows] customer_service {arm}: warm start {warm}; training {cfg.updates} updates",
            file=sys.stderr,
            flush=True,
        )
        kept = train_keeping_best(trainer, dev_env, args.select_every, _progress(arm))
        kept_teams[arm] = trainer
        hist = trainer.history
        k = max(1, len(hist) // 5)
        policy = trainer.policy(greedy=True)
        for name, env in eval_envs.items():
            results[name][arm] = cs_metrics(env, policy) | {"train_seconds": round(trainer.train_seconds, 2)}
        curves[arm] = {
            "untrained": untrained,
            "warm_start": warm,
            **kept,
            "messages_first": statistics.fmean(m["messages_per_episode"] for m in hist[:k]),
            "messages_last": statistics.fmean(m["messages_per_episode"] for m in hist[-k:]),
            "success_first": statistics.fmean(m["success"] for m in hist[:k]),
            "success_last": statistics.fmean(m["success"] for m in hist[-k:]),
            "explained_variance_first": statistics.fmean(m["explained_variance"] for m in hist[:k]),
            "explained_variance_last": statistics.fmean(m["explained_variance"] for m in hist[-k:]),
            "useful_share": statistics.fmean(m["useful_share"] for m in hist),
            "useful_share_student": statistics.fmean(m["useful_share_student"] for m in hist),
            "phase": trainer.scheduler.phase,
            "golden_alerts": trainer.golden.alerts(),
        }
        if trainer.curriculum is not None:
            curves[arm]["curriculum"] = {
                "level": trainer.curriculum.level,
                "moves": [list(move) for move in trainer.curriculum.moves],
            }
        print(f"[workflows]   {arm}: {results['test'][arm]}", file=sys.stderr, flush=True)
    return {
        "customer_service": results["test"],
        "customer_service_validation": results["validation"],
        "customer_service_holdout": results["holdout"],
        **({"customer_service_randomised": results["randomised"]} if args.randomise else {}),
        **({"customer_service_misfiled": results["misfiled"]} if "misfiled" in results else {}),
        "customer_service_training": curves,
        "teacher_student": useful_gain(curves, "mappo", "mappo_teacher")
        | (
            {"checkpoint_teacher": useful_gain(curves, "mappo_independent", "mappo_checkpoint_teacher")}
            if "mappo_checkpoint_teacher" in curves
            else {}
        ),
        "tickets": {
            "train": len(train),
            "labelled": len(labelled),
            "dev": len(dev),
            "test": len(files["test"]),
            "validation": len(files["validation"]),
            "holdout": len(files["holdout"]),
            "misfiled": len(stranded),
            "test_file": str(args.tickets or "test"),
        },
    }


def mean_leaves(runs: list[Any]) -> Any:
    """The runs' shared dict structure with every numeric leaf averaged; lists and text are left out."""
    if all(isinstance(r, dict) for r in runs):
        shared = [k for k in runs[0] if all(k in r for r in runs)]
        means = {k: mean_leaves([r[k] for r in runs]) for k in shared}
        return {k: v for k, v in means.items() if v is not None}
    if all(isinstance(r, int | float) and not isinstance(r, bool) for r in runs):
        return statistics.fmean(runs)
    return None


def versus_ippo(per_seed: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """Per learning arm: its test exact match minus IPPO's, seed by seed (paired: same seed, same warm start)."""
    if any("ippo" not in run["customer_service"] for run in per_seed.values()):
        return {}
    arms = [a for a in next(iter(per_seed.values()))["customer_service"] if a not in ("rules", "ippo")]
    return {
        arm: paired_stats(
            {
                seed: run["customer_service"][arm]["exact_match"]
                - run["customer_service"]["ippo"]["exact_match"]
                for seed, run in per_seed.items()
            }
        )
        for arm in arms
    }


def over_seeds(per_seed: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """One seed: its results as they are. Several: numeric means at the top, each seed under `per_seed`,
    the standard deviation of each arm's test exact match and the paired comparison with IPPO."""
    if len(per_seed) == 1:
        return next(iter(per_seed.values())) | {"versus_ippo": versus_ippo(per_seed)}
    runs = list(per_seed.values())
    spread = {
        arm: statistics.stdev(run["customer_service"][arm]["exact_match"] for run in runs)
        for arm in runs[0]["customer_service"]
    }
    return mean_leaves(runs) | {
        "per_seed": per_seed,
        "exact_match_sd": spread,
        "versus_ippo": versus_ippo(per_seed),
    }


RR_DIMENSIONS = ("accuracy", "depth", "structure", "readability")


def rr_scores(policy, env, topics: list[str]) -> dict[str, float]:
    """Greedy episodes, one per topic; the judge's dimensions averaged (0 for reports never accepted)."""
    sums = dict.fromkeys(RR_DIMENSIONS + ("score",), 0.0)
    accepted = 0
    for i, topic in enumerate(topics):
        obs, _ = env.reset(seed=i, options={"topic": topic})
        info: dict[str, Any] = {}
        while env.agents:
            obs, _, _, _, infos = env.step(policy(obs))
            info = next(iter(infos.values()), info)
        accepted += bool(info.get("accepted"))
        for key in sums:
            sums[key] += float(info.get("scores", {}).get(key, 0.0)) if info.get("accepted") else 0.0
    out = {k: v / len(topics) for k, v in sums.items()}
    out["accepted"] = accepted / len(topics)
    return out


def run_research_report(args, backbone: Backbone, seed: int) -> dict[str, Any]:
    from agents.envs.research_report.env import ResearchReportEnv

    probe = ResearchReportEnv()
    topics = list(probe.topic_names)
    max_steps = 16 if args.quick else 32

    def env_fn(split: str):
        return ResearchReportEnv(max_steps=max_steps)

    budget = (
        {"updates": 2, "episodes_per_update": 4, "epochs": 2, "minibatches": 1, "hidden": 32}
        if args.quick
        else {"updates": 40, "episodes_per_update": 16, "epochs": 4, "minibatches": 2, "hidden": 64}
    )
    if args.quick:
        topics = topics[:3]
    if args.rr_updates:
        budget = budget | {"updates": args.rr_updates}
    cfg = MappoConfig(
        **(
            budget
            | {
                "algorithm": "mappo",
                "sharing": "lora",
                "lr": 1e-3,
                "seed": seed,
                "eval_every": 0,
                "checkpoint_every": 0,
            }
        )
    )
    # the agents read their structured view (`features`), the action mask, the phase and the embedded
    # question; the free-text view changes every step and would cost a backbone call per step
    featurizer = Featurizer(
        backbone, skip=("text",), cache_file=CACHE / "research_report_questions.safetensors"
    )
    trainer = MappoTrainer(
        cfg,
        MappoTeam(
            env_fn,
            backbone=backbone,
            featurizer=featurizer,
            success_fn=lambda info: bool(info.get("accepted", False)),
        ),
    )
    eval_env = ResearchReportEnv(max_steps=max_steps, shuffle=False)
    from agents.envs.research_report.scripted import ScriptedResearchTeam

    scripted = ScriptedResearchTeam()
    before = rr_scores(trainer.policy(greedy=True), eval_env, topics)
    scripted_scores = rr_scores(scripted.actions, eval_env, topics)
    # the same sim-to-real start as customer service: clone logged rule-team episodes, then PPO
    logs = log_episodes(
        ResearchReportEnv(max_steps=max_steps),
        scripted.actions,
        args.rr_logged or (4 if args.quick else 40),
        CACHE / f"rr_rule_logs_seed{seed}_{'quick' if args.quick else 'full'}.jsonl",
        seed=seed,
    )
    pretrain(trainer, load_episodes(logs), epochs=3 if args.quick else 10, lr=3e-3, batch_size=64, seed=seed)
    print(f"[workflows] research_report: training {cfg.updates} updates", file=sys.stderr, flush=True)
    trainer.train()
    after = rr_scores(trainer.policy(greedy=True), eval_env, topics)
    featurizer.save_cache()
    return {
        "research_report": {
            "before": before,
            "after": after,
            "scripted": scripted_scores,
            "topics": len(topics),
            "train_seconds": round(trainer.train_seconds, 2),
        }
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description="Workflow benchmark: rules vs IPPO vs MAPPO variants.")
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument(
        "--tickets", help="customer-service evaluation tickets (JSONL); default: the test split"
    )
    parser.add_argument("--quick", action="store_true", help="sub-minute smoke run with tiny budgets")
    parser.add_argument("--updates", type=int, default=0, help="override the number of training updates")
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0],
        help="customer-service seeds (research report: the first)",
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: small ops, busy CPU)")
    parser.add_argument("--skip-research", action="store_true", help="customer service only")
    parser.add_argument("--skip-customer-service", action="store_true", help="research report only")
    parser.add_argument("--rr-updates", type=int, default=0, help="override the research-report PPO updates")
    parser.add_argument(
        "--rr-logged", type=int, default=0, help="override the research-report logged episodes"
    )
    parser.add_argument(
        "--offline-episodes",
        type=int,
        default=None,
        help="rule-team episodes logged for offline pre-training of every learning arm (0 = off)",
    )
    parser.add_argument(
        "--offline-epochs", type=int, default=None, help="warm-start cloning epochs (default 8; quick 40)"
    )
    parser.add_argument(
        "--select-every", type=int, default=10, help="PPO updates between dev scorings (best actors kept)"
    )
    parser.add_argument(
        "--message-cost",
        type=float,
        default=0.1,
        help="communication cost per message in the training reward (the env's message_cost; default 0.02)",
    )
    parser.add_argument(
        "--labelled-share",
        type=float,
        default=0.75,
        help="share of the training tickets whose labels the supervised warm start sees (PPO sees all)",
    )
    parser.add_argument(
        "--reader-epochs", type=int, default=None, help="supervised clause-reader epochs (train labels)"
    )
    parser.add_argument(
        "--set",
        action="append",
        type=parse_setting,
        default=[],
        metavar="KEY=VALUE",
        help="override a MappoConfig setting for every learning arm (e.g. lora_rank=16); repeatable",
    )
    parser.add_argument(
        "--randomise",
        action="append",
        type=parse_setting,
        default=[],
        metavar="KEY=VALUE",
        help="train under domain randomisation (drop_context, drop_fraction, latency, failure; repeatable) "
        "and score the test tickets under it too",
    )
    parser.add_argument(
        "--env",
        action="append",
        type=parse_setting,
        default=[],
        metavar="KEY=VALUE",
        help="a customer-service env parameter for every stage (e.g. supervisor_view=draft, correct_reward=0); "
        "repeatable",
    )
    parser.add_argument(
        "--curriculum",
        action="store_true",
        help="train every learning arm under the adaptive curriculum (ticket difficulty 0..3, easiest first)",
    )
    parser.add_argument("--arms", nargs="*", help="train only these customer-service arms (development)")
    args = parser.parse_args(argv)
    if "mappo_checkpoint_teacher" in (args.arms or ()) and "ippo" not in args.arms:
        parser.error("--arms mappo_checkpoint_teacher learns from this run's IPPO team: add ippo to --arms")
    args.randomise = dict(args.randomise)
    args.env = {"message_cost": args.message_cost} | dict(args.env)
    errors = CustomerServiceEnv.validate_params(args.env)
    if errors:
        parser.error(f"--env {errors[0].path[2:]}: {errors[0].message}")
    if args.offline_episodes is None:
        args.offline_episodes = 64 if args.quick else 1200
    if args.offline_epochs is None:  # quick: enough cloning for the trained teams to answer some tickets
        args.offline_epochs = 40 if args.quick else 8
    if args.reader_epochs is None:
        args.reader_epochs = 30 if args.quick else 300
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    backbone = Backbone.load("default")
    out: dict[str, Any] = {
        "seeds": args.seeds,
        "quick": bool(args.quick),
        "backbone": backbone.describe(),
        "env_params": args.env,
    }
    if not args.skip_customer_service:
        out |= over_seeds({seed: run_customer_service(args, backbone, seed) for seed in args.seeds})
    if not args.skip_research:
        out |= run_research_report(args, backbone, args.seeds[0])
    out["wall_seconds"] = round(time.perf_counter() - started, 1)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2, default=float))
    print(json.dumps(out.get("customer_service", out.get("research_report")), indent=1), file=sys.stderr)
    return out


if __name__ == "__main__":
    main()
