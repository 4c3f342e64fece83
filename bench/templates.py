"""Template benchmark: the shipped templates (examples/*.json), defaults untouched, trained the product's way.

Each trainable template is trained through `training.api.train` — the entry point a web launch calls
(mase_web/runs/execution.py) — with nothing changed but `training.seed`, on ≥ 5 seeds; figures are
medians over seeds, wall time included (backbone loaded once, embedding caches cleared per run).

- number_guessing: greedy success, share of the guesser's attention on the distractors, delivered
  messages per episode (`training.api.evaluate_run`), training wall seconds; target per seed: success
  ≥ 0.99, distractor attention ≤ 0.02, ≤ 4 messages, ≤ 60 s.
- customer_service: the checkpoint a deployment serves (`serving.model.resolve_checkpoint`) scored
  greedily on the test split (or `--tickets FILE`) and the held-out phrasing styles, against the tuned
  rule-scripted team and the plain baseline (`training.plain_classifier`, fitted on the train split);
  then deployed as the product does (`TeamRuntime.from_spec_checkpoint`: the
  template's breaker and fallback, the checkpoint's calibration) and run on the same tickets one after
  another: the share of decisions the model made; the calibration error stored with the checkpoint (dev
  split) and the same temperatures' error on the test tickets; whether injected faults open the breaker.
- research_report, collaborative_writing, code_generation (only when named in `--templates`; minutes per
  seed): the judge's score of the trained team and of the scripted team on the held-out test topics,
  briefs or tasks.

    python bench/templates.py --out FILE.json [--seeds 0 1 2 3 4] [--templates customer_service]
                              [--tickets FILE] [--also-tickets FILE ...] [--backbone NAME] [--quick]

Keys are documented in bench/README.md (section bench/templates.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from agents.backbone import Backbone  # noqa: E402
from agents.envs import env_class, team_kwargs  # noqa: E402
from agents.envs.customer_service.env import evaluate as cs_evaluate  # noqa: E402
from agents.envs.customer_service.tickets import load_tickets  # noqa: E402
from agents.envs.scripted import scripted_team  # noqa: E402
from agents.spec import load_spec  # noqa: E402
from training import api  # noqa: E402
from training.cli import add_settings_argument, apply_settings  # noqa: E402

EXAMPLES = ROOT / "examples"
TEMPLATES = (
    "number_guessing",
    "customer_service",
    "research_report",
    "collaborative_writing",
    "code_generation",
)
DEFAULT = ("number_guessing", "customer_service")
NG_TARGET = {
    "success": 0.99,
    "distractor_attention": 0.02,
    "messages_per_episode": 4.0,
    "train_seconds": 60.0,
}


SETTINGS: dict[str, Any] = {}  # --set SECTION.KEY=VALUE (experiments only; figures of record use none)


def template(name: str, seed: int) -> dict[str, Any]:
    """The shipped template `name` as a web launch stores it, with only `training.seed` set (and the
    `--set` overrides of an experiment)."""
    doc = json.loads((EXAMPLES / f"{name}.json").read_text())
    doc["training"]["seed"] = int(seed)
    return apply_settings(doc, SETTINGS)


def train(doc: dict[str, Any], out: Path, backbone: Backbone) -> tuple[Any, float]:
    """`training.api.train` on a fresh directory; (result, wall seconds of the whole call)."""
    shutil.rmtree(out, ignore_errors=True)
    backbone.clear_cache()  # every run pays for its own encoder work, as a fresh worker would
    started = time.perf_counter()
    result = api.train(doc, out, backbone=backbone)
    return result, time.perf_counter() - started


def median(values: list[Any]) -> float | None:
    values = [v for v in values if v is not None]
    return float(statistics.median(values)) if values else None


# ---- number guessing ------------------------------------------------------------------------------------
def number_guessing(args: argparse.Namespace, backbone: Backbone, work: Path) -> dict[str, Any]:
    runs = []
    for seed in args.seeds:
        run_dir = work / f"ng_s{seed}"
        result, seconds = train(template("number_guessing", seed), run_dir, backbone)
        final = api.evaluate_run(run_dir, episodes=args.ng_episodes, backbone=backbone, seed=4242)
        run = {
            "seed": seed,
            "status": result.status,
            "success": float(final["success"]),
            "distractor_attention": float(final["distractor_attention"]),
            "messages_per_episode": float(final["messages_per_episode"]),
            "train_seconds": round(seconds, 2),
            "episodes": int(result.episodes),
        }
        run["meets_target"] = (
            run["success"] >= NG_TARGET["success"]
            and run["distractor_attention"] <= NG_TARGET["distractor_attention"]
            and run["messages_per_episode"] <= NG_TARGET["messages_per_episode"]
            and run["train_seconds"] <= NG_TARGET["train_seconds"]
        )
        print(f"[templates] number_guessing seed {seed}: {run}", file=sys.stderr, flush=True)
        runs.append(run)
    keys = ("success", "distractor_attention", "messages_per_episode", "train_seconds")
    return {k: median([r[k] for r in runs]) for k in keys} | {
        "seeds": len(runs),
        "seeds_meeting_target": sum(r["meets_target"] for r in runs),
        "target": NG_TARGET,
        "per_seed": runs,
    }


# ---- customer service -----------------------------------------------------------------------------------
def cs_env(team: Any, tickets: Any) -> Any:
    """The template's environment (its params and drawn team) over `tickets`, in file order."""
    name, params = team.environment.name, dict(team.environment.params)
    params |= {"tickets": tickets, "shuffle": False}  # a list of tickets: past make_env's check of file names
    return env_class(name)(**params, **team_kwargs(name, team.agents, team.edges))


def decision_share(runtime: Any, tickets: list[Any]) -> dict[str, Any]:
    """Run `tickets` one after another through a deployed runtime; who made the decisions."""
    sources = {"model": 0, "trial": 0, "fallback": 0}
    faults = 0
    for ticket in tickets:
        result = runtime.run_ticket(ticket)
        faults += len(result["faults"])
        for record in result["decisions"]:
            sources[record["source"]] += 1
    total = max(1, sum(sources.values()))
    return {
        "model_decision_share": (sources["model"] + sources["trial"]) / total,
        "decisions": sources,
        "breaker_opened": runtime.breaker.counts["opened"],
        "faults": faults,
    }


def faults_trip(runtime: Any, ticket: Any) -> dict[str, bool]:
    """Inject each fault into a deployed runtime's model; whether the breaker opens on it."""
    model = runtime.model
    original = model.forward_many

    def raising(batch):
        raise RuntimeError("injected backbone failure")

    def non_finite(batch):
        return [(torch.full_like(p, float("nan")), a) for p, a in original(batch)]

    out = {}
    for kind, forward in (("backbone_error", raising), ("non_finite", non_finite)):
        runtime.breaker.force_closed("bench", "before an injected fault")
        model.forward_many = forward
        try:
            result = runtime.run_ticket(ticket)
        finally:
            model.forward_many = original
        out[kind] = runtime.breaker.state == "open" and any(f["kind"] == kind for f in result["faults"])
    runtime.breaker.force_closed("bench", "after the injected faults")
    return out


def cs_seed(backbone: Backbone, work: Path, seed: int, files: dict[str, list]) -> dict[str, Any]:
    from serving.model import resolve_checkpoint
    from serving.runtime import RuntimeConfig, TeamRuntime
    from training.mappo.calibration import calibration_error, load_calibration

    doc = template("customer_service", seed)
    run_dir = work / f"cs_s{seed}"
    result, seconds = train(doc, run_dir, backbone)
    team = load_spec(doc, require_environment=True)
    checkpoint = resolve_checkpoint(run_dir)  # what a deployment of this run serves
    config = RuntimeConfig(explain_tokens=0)
    with TeamRuntime.from_spec_checkpoint(team, checkpoint, backbone=backbone, config=config) as runtime:
        team_policy = runtime.model.policy
        policy = team_policy.policy(greedy=True)
        scores = {name: cs_evaluate(cs_env(team, tickets), policy) for name, tickets in files.items()}
        share = decision_share(runtime, files["test"])
        also = {key: decision_share(runtime, files[key]) for key in files if key.startswith("also")}
        tripped = faults_trip(runtime, files["test"][0])
        calibration = load_calibration(checkpoint) or {}
        test_ece = calibration_error(team_policy, cs_env(team, files["test"]), runtime.model.temperature)
    run = {
        "seed": seed,
        "status": result.status,
        "checkpoint": checkpoint.name,
        "exact_match": scores["test"]["exact_match"],
        "holdout_exact_match": scores["holdout"]["exact_match"],
        "intent_f1": scores["test"]["intent_f1"],
        "model_decision_share": share["model_decision_share"],
        "decisions": share["decisions"],
        "breaker_opened": share["breaker_opened"],
        "runtime_faults": share["faults"],
        "calibration_error": calibration.get("ece_after"),
        "calibration_error_before": calibration.get("ece_before"),
        "test_calibration_error": test_ece,
        "temperatures": calibration.get("temperatures"),
        "breaker_trips_on_faults": tripped,
        "train_seconds": round(seconds, 2),
    }
    for key, shares in also.items():
        run[f"{key}_exact_match"] = scores[key]["exact_match"]
        run[f"{key}_model_decision_share"] = shares["model_decision_share"]
    print(f"[templates] customer_service seed {seed}: {run}", file=sys.stderr, flush=True)
    return run


def plain_baseline(backbone: Backbone, files: dict[str, list]) -> dict[str, float]:
    """Exact match of the plain baseline (`training.plain_classifier`: one-vs-rest logistic regression on
    the frozen sentence vectors, fitted on the training split) on each scored file."""
    from training.plain_classifier import PlainClassifier

    baseline = PlainClassifier.fit(backbone.encode, load_tickets("train"))
    return {name: baseline.exact_match(tickets) for name, tickets in files.items()}


def also_keys(paths: list[str] | None) -> dict[str, str]:
    """The result key of each `--also-tickets` file: `also` for the first (as before several were
    accepted), then `also_2`, `also_3`, ..."""
    return {("also" if i == 1 else f"also_{i}"): path for i, path in enumerate(paths or [], start=1)}


def customer_service(args: argparse.Namespace, backbone: Backbone, work: Path) -> dict[str, Any]:
    files = {
        "test": load_tickets(args.tickets) if args.tickets else load_tickets("test"),
        "holdout": load_tickets("holdout_styles"),
    }
    if args.quick:
        files = {"test": files["test"][:200], "holdout": files["holdout"][:100]}
    extra = also_keys(args.also_tickets)  # scored like the test tickets, in the same runs (no retraining)
    files |= {key: load_tickets(path) for key, path in extra.items()}
    team = load_spec(template("customer_service", 0), require_environment=True)
    name, params = team.environment.name, dict(team.environment.params)
    rules_team = scripted_team(name, params, team=team_kwargs(name, team.agents, team.edges).get("team"))
    rules = {k: cs_evaluate(cs_env(team, t), rules_team.actions)["exact_match"] for k, t in files.items()}
    runs = [cs_seed(backbone, work, seed, files) for seed in args.seeds]
    plain = plain_baseline(backbone, files)
    keys = (
        "exact_match",
        "holdout_exact_match",
        "intent_f1",
        "model_decision_share",
        "calibration_error",
        "calibration_error_before",
        "test_calibration_error",
        "train_seconds",
    )
    also = {
        key: {
            "file": str(path),
            "tickets": len(files[key]),
            "exact_match": median([r[f"{key}_exact_match"] for r in runs]),
            "rules_exact_match": rules[key],
            "plain_exact_match": plain[key],
            "model_decision_share": median([r[f"{key}_model_decision_share"] for r in runs]),
        }
        for key, path in extra.items()
    }
    return (
        also
        | {k: median([r[k] for r in runs]) for k in keys}
        | {
            "rules_exact_match": rules["test"],
            "plain_exact_match": plain["test"],
            "plain_holdout_exact_match": plain["holdout"],
            "rules_holdout_exact_match": rules["holdout"],
            "breaker_trips_on_faults": all(all(r["breaker_trips_on_faults"].values()) for r in runs),
            "seeds": len(runs),
            "tickets": {"test": len(files["test"]), "holdout": len(files["holdout"])},
            "test_file": str(args.tickets or "test"),
            "per_seed": runs,
        }
    )


# ---- the writing workflows ------------------------------------------------------------------------------
# Their measurement (train/test split of topics, briefs or tasks; the scripted team on the same items)
# lives beside each workflow's own CLI: bench/template_workflows.py, bench/template_workflows_writing.py.
def research_report(args: argparse.Namespace, backbone: Backbone, work: Path) -> dict[str, Any]:
    from bench.template_workflows import measure_research_report

    return measure_research_report(args.seeds, args.quick)


def collaborative_writing(args: argparse.Namespace, backbone: Backbone, work: Path) -> dict[str, Any]:
    from bench.template_workflows_writing import measure_collaborative_writing

    return measure_collaborative_writing(args.seeds, args.quick)


def code_generation(args: argparse.Namespace, backbone: Backbone, work: Path) -> dict[str, Any]:
    from bench.template_workflows_writing import measure_code_generation

    return measure_code_generation(args.seeds, args.quick)


RUNNERS = {
    "number_guessing": number_guessing,
    "customer_service": customer_service,
    "research_report": research_report,
    "collaborative_writing": collaborative_writing,
    "code_generation": code_generation,
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Train the shipped templates, defaults untouched, as the product does."
    )
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument(
        "--quick", action="store_true", help="one seed, fewer evaluation tickets (a test runs this)"
    )
    parser.add_argument("--seeds", type=int, nargs="+", help="training seeds (default 0 1 2 3 4; quick: 0)")
    parser.add_argument("--templates", nargs="+", choices=TEMPLATES, help=f"default: {' '.join(DEFAULT)}")
    parser.add_argument(
        "--tickets", help="customer service: score on this JSONL ticket file instead of the test split"
    )
    parser.add_argument(
        "--also-tickets",
        nargs="+",
        help="customer service: also score each seed's deployed team on these JSONL ticket files "
        "(keys `also`, `also_2`, ...)",
    )
    parser.add_argument(
        "--backbone",
        default="default",
        help="the backbone every arm reads (team spec's backbone.model, plain baseline): "
        '"default" (MiniLM) or a model name in MASE_MODELS_DIR / a model directory',
    )
    parser.add_argument(
        "--ng-episodes", type=int, default=None, help="number guessing: evaluation episodes (1000)"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: small ops, busy CPU)")
    parser.add_argument("--work", help="keep the run directories here (default: a temporary directory)")
    add_settings_argument(
        parser,
        "change a template setting for an experiment (e.g. environment.params.warm_start_epochs=24); repeatable",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    SETTINGS.update(dict(args.set))
    out_settings = dict(args.set)
    if args.backbone != "default":  # the trained teams read the same vectors as the plain baseline
        SETTINGS["backbone.model"] = args.backbone
    args.seeds = args.seeds or ([0] if args.quick else [0, 1, 2, 3, 4])
    args.ng_episodes = args.ng_episodes or (500 if args.quick else 1000)
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    backbone = Backbone.load(args.backbone)
    out: dict[str, Any] = {"quick": bool(args.quick), "seeds": args.seeds, "backbone": backbone.describe()}
    out["settings"] = out_settings  # {} = every template exactly as shipped
    out["templates"] = {}
    with tempfile.TemporaryDirectory(prefix="mase-templates-") as tmp:
        work = Path(args.work) if args.work else Path(tmp)
        for name in args.templates or DEFAULT:
            out["templates"][name] = RUNNERS[name](args, backbone, work)
    out["wall_seconds"] = round(time.perf_counter() - started, 1)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2, default=float))
    summary = {n: {k: v for k, v in t.items() if k != "per_seed"} for n, t in out["templates"].items()}
    print(json.dumps(summary, indent=1, default=float), file=sys.stderr)
    return out


if __name__ == "__main__":
    main()
