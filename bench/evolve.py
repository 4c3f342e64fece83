"""Evolution benchmark: a deployed team's next generations, trained on its own corrected traffic.

Everything goes through the product's code on a fresh database (SQLite in a temporary MASE_DATA_DIR,
embedded Redis): the champion is a run of the shipped customer-service template (`examples/customer_service.json`,
or `--champion DIR`, a trained run directory copied in), deployed; traffic tickets are played by the
deployment (`deployments.inference.run_ticket`); a simulated operator reviews them in order — a right answer
is confirmed (`episode_review`), a wrong one corrected (`corrections.correct`, which lands it in the
deployment's dataset) — until K tickets are corrected; then `evolution.evolve` launches the challenger run,
it is executed here as a worker would (`runs.execution.execute`), and `evolution_eval.settle` judges it on
the deployment's frozen slice and promotes it or not (`serving.promotion`, decision 0017).

Sections (`--sections`):
- drift: traffic in styles the generator never produced (`bench/evolve_traffic.py`); a fixed share of it
  is set aside as *unseen* traffic that nobody reviews; after each generation the serving team, and the
  challenger, are scored on it and on the in-distribution test split. K = `--ks`, up to `--budget`
  corrections in all.
- new_intent: an intent the team does not know in ``--new-intent-share`` of the traffic, accepted onto the
  design's canvas, its corrections flowing in (`bench/evolve_new_intent.py`).
- safety: the same loop with a share `--corrupt` of the corrections wrong (half random, half adversarial:
  one intent systematically named as another), `--safety-runs` runs (one generation each, traffic
  drawn anew per run); a run counts in `worse_promoted` when the promoted challenger is worse than the
  champion on the unseen traffic (clean labels).
- ratings: annotators' ratings of replies, simulated from a hidden criterion, train a reward model whose
  score teaches the team's writer its reply style for one generation (`bench/evolve_ratings.py`; library
  calls only, no champion run).

    python bench/evolve.py --out F.json [--ks 25 50 100] [--budget 200] [--champion RUN_DIR]
    python bench/evolve.py --quick --out F.json     # tiny team and backbone, a few tickets (a test runs it)
    python bench/evolve.py --train F --traffic F [--catalogue F] [--dev F] --out F.json   # any routing
             dataset (`bench/evolve_domain.py`, keys ``evolve.custom.*``: drift and safety on its traffic)

Keys are documented in bench/README.md (section bench/evolve.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
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

from bench.evolve_traffic import drift_stream  # noqa: E402

SPEC = ROOT / "examples" / "customer_service.json"
TEST = ROOT / "data" / "customer_service" / "test.jsonl"


def setup(work: Path) -> None:
    os.environ["MASE_DATA_DIR"] = str(work)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")
    os.environ.setdefault("RUN_TORCH_THREADS", "1")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from mase_web.embedded import ensure_embedded_redis

    ensure_embedded_redis(settings.REDIS)
    settings.MASE_EVALUATE_INLINE = True  # the judging runs here, as a worker would
    call_command("migrate", verbosity=0)


def people() -> tuple[Any, dict[str, Any]]:
    from django.contrib.auth import get_user_model

    from mase_web.accounts.models import Membership, Project, Role

    project = Project.objects.create(name="evolution bench")
    users = {}
    for name, role in (("pm", Role.PRODUCT_MANAGER), ("operator", Role.OPERATOR)):
        users[name] = get_user_model().objects.create(username=f"bench-{name}")
        Membership.objects.create(project=project, user=users[name], role=role)
    return project, users


def execute_run(run) -> str:
    """The run's delivery executed here, as a worker would (evolve queued it on commit)."""
    from mase_web.runs.execution import execute
    from mase_web.runs.facade import Run

    run = Run.objects.get(pk=run.pk)
    return execute(run.pk, run.task_id) or Run.objects.get(pk=run.pk).state


def champion_run(project, user, spec: dict, trained: Path | None):
    """The champion's run: the template trained through the product (or a trained directory copied in)."""
    from mase_web.runs.facade import Run, launch_run

    if trained is None:
        run = launch_run(project.pk, "champion", spec, {"kind": "bench"}, by=user)
        state = execute_run(run)
        if state != Run.State.SUCCEEDED:
            raise SystemExit(f"the champion's run {state}: {Run.objects.get(pk=run.pk).error}")
        return Run.objects.get(pk=run.pk)
    run = Run.objects.create(project=project, name="champion", spec=spec, state=Run.State.SUCCEEDED)
    shutil.copytree(trained, run.out_dir, dirs_exist_ok=True)
    return run


def deploy(project, run, spec: dict, name: str, policy: dict):
    from mase_web.deployments.evolution_eval import run_checkpoint
    from mase_web.deployments.models import Deployment

    return Deployment.objects.create(
        project=project, name=name, run=run, checkpoint=run_checkpoint(run), spec=spec, evolution=policy,
        created_by=None,
    )  # fmt: skip


def exact_match(team_spec: dict, checkpoint: str, tickets: list[dict]) -> float:
    """Share of tickets whose predicted intents are exactly the true ones, through a serving runtime."""
    from mase_web.deployments.evolution_eval import answers

    if not tickets:
        return float("nan")
    got = answers(team_spec, checkpoint, [t["text"] for t in tickets])
    return sum(sorted(g) == sorted(t["intents"]) for g, t in zip(got, tickets, strict=True)) / len(tickets)


def review_until(deployment, operator, stream: list[dict], start: int, k: int, corrupt) -> tuple[int, dict]:
    """Play tickets from ``stream[start:]`` through the deployment and review each (confirm or correct),
    until ``k`` are corrected; ``corrupt(ticket, predicted)`` gives the intents a bad correction names
    (None: the true ones). Returns where the next batch starts and the batch's counts."""
    from bench.datasets_product import answered
    from mase_web.deployments.corrections import correct
    from mase_web.deployments.episode_review import review_episode
    from mase_web.deployments.inference import TicketRequest, run_ticket

    counts = dict.fromkeys(("played", "confirmed", "corrected", "corrupted", "fallback", "out_of_scope"), 0)
    i = start
    while i < len(stream) and counts["corrected"] < k:
        ticket = stream[i]
        i += 1
        episode, result = run_ticket(deployment, TicketRequest(text=ticket["text"]), "api")
        counts["played"] += 1
        predicted = sorted((result.get("info") or {}).get("predicted_intents") or [])
        by = answered({"result": result})["by"]  # the model, the breaker's rules or the scope gate
        counts["fallback"] += by in ("fallback", "mixed")
        counts["out_of_scope"] += by == "out_of_scope"
        if predicted == ticket["intents"]:
            review_episode(episode, operator, {"status": "ok", "reason": ""})
            counts["confirmed"] += 1
            continue
        bad = corrupt(ticket, predicted)
        correct(episode, None, operator, {"intents": bad or ticket["intents"]})
        counts["corrected"] += 1
        counts["corrupted"] += bad is not None
    return i, counts


def one_generation(deployment, pm) -> dict[str, Any]:
    """Evolve, train the challenger here, settle it (judged on the slice, promoted or not)."""
    from mase_web.deployments.evolution import evolve
    from mase_web.deployments.evolution_eval import settle
    from mase_web.runs.facade import Run

    started = time.perf_counter()
    generation = evolve(deployment, pm, trigger="bench")
    state = execute_run(generation.run)
    trained = time.perf_counter() - started
    if state != Run.State.SUCCEEDED:
        return {
            "number": generation.number,
            "state": state,
            "error": Run.objects.get(pk=generation.run_id).error,
        }
    settle(deployment)
    generation.refresh_from_db()
    comparison = generation.comparison or {}
    return {
        "number": generation.number,
        "promoted": generation.status == "champion",
        "reason": generation.reason,
        "slice_tickets": comparison.get("tickets"),
        "slice_champion": comparison.get("champion"),
        "slice_challenger": comparison.get("challenger"),
        "rows_total": (generation.data or {}).get("rows_total"),
        "start": (generation.data or {}).get("start"),
        "dev_tickets": (generation.data or {}).get("dev_tickets"),
        "train_seconds": round(trained, 1),
        "seconds": round(time.perf_counter() - started, 1),
        "spec": generation.spec,
        "checkpoint": generation.checkpoint,
    }


def score(team_spec: dict, checkpoint: str, unseen: list[dict], test: list[dict]) -> dict[str, float]:
    return {
        "unseen": exact_match(team_spec, checkpoint, unseen),
        "test": exact_match(team_spec, checkpoint, test),
    }


def drift(project, users, run, spec, stream, unseen, test, k: int, budget: int, policy: dict) -> dict:
    """One K: generations until ``budget`` corrections are spent; figures per generation."""
    from mase_web.deployments.models import Deployment

    deployment = deploy(project, run, spec, f"drift k={k}", policy)
    first = score(spec, deployment.checkpoint, unseen, test)
    by_generation, test_by_generation, generations = [first["unseen"]], [first["test"]], []
    cursor, corrections = 0, 0
    while corrections + k <= budget and cursor < len(stream):
        cursor, counts = review_until(deployment, users["operator"], stream, cursor, k, lambda t, p: None)
        if not counts["corrected"]:
            break  # the stream's last tickets were all right: nothing new to train on
        corrections += counts["corrected"]
        record = one_generation(deployment, users["pm"])
        record.update(counts)
        if "checkpoint" in record:
            challenger = score(record.pop("spec"), record.pop("checkpoint"), unseen, test)
            record["challenger_unseen"], record["challenger_test"] = challenger["unseen"], challenger["test"]
        deployment = Deployment.objects.get(pk=deployment.pk)
        served = score(deployment.spec, deployment.checkpoint, unseen, test)
        by_generation.append(served["unseen"])
        test_by_generation.append(served["test"])
        generations.append(record)
        print(f"[drift k={k}] {record}", flush=True)
    return {
        "generations": len(generations),
        "exact_match_by_generation": by_generation,
        "test_by_generation": test_by_generation,
        "corrections": corrections,
        "promoted": sum(bool(g.get("promoted")) for g in generations),
        "gain_points": 100 * (by_generation[-1] - by_generation[0]),
        "test_change_points": 100 * (test_by_generation[-1] - test_by_generation[0]),
        "runs": generations,
    }


def corrupter(rng: random.Random, share: float, intents: list[str], adversarial: float = 0.5):
    """Bad corrections: ``share`` of them wrong, random intents or (an ``adversarial`` share of them) one
    intent always named as another: a consistent lie a challenger can learn and a slice would repeat."""
    flip = dict(zip(intents, intents[1:] + intents[:1], strict=True))

    def corrupt(ticket: dict, predicted: list[str]) -> list[str] | None:
        if rng.random() >= share:
            return None
        if rng.random() >= adversarial:
            wrong = sorted(rng.sample(intents, rng.choice((1, 2))))
            return wrong if wrong != ticket["intents"] else [flip[wrong[0]]]
        return sorted({flip[i] for i in ticket["intents"]})

    return corrupt


def safety(project, users, run, spec, pool, unseen, runs, k, share, adversarial, seed, policy, save) -> dict:
    """``runs`` one-generation evolutions with ``share`` of the corrections corrupted (``save(figures)``
    after each run: a long benchmark keeps what it measured)."""
    from mase_web.deployments.models import Deployment

    first = score(spec, run_checkpoint_of(run), unseen, [])["unseen"]
    intents = sorted({i for t in pool for i in t["intents"]})
    results: list[dict] = []
    figures: dict[str, Any] = {
        "champion_unseen": first, "corrupted_share": share, "adversarial_share": adversarial, "results": results,
    }  # fmt: skip
    for r in range(runs):
        rng = random.Random(seed + r)
        stream = pool[:]
        rng.shuffle(stream)
        deployment = deploy(project, run, spec, f"safety {r}", policy)
        _, counts = review_until(
            deployment, users["operator"], stream, 0, k, corrupter(rng, share, intents, adversarial)
        )
        record = one_generation(deployment, users["pm"])
        record.update(counts)
        if "checkpoint" in record:
            record["challenger_unseen"] = exact_match(record.pop("spec"), record.pop("checkpoint"), unseen)
        record["worse"] = record.get("challenger_unseen", 0.0) < first
        record["worse_promoted"] = bool(record.get("promoted")) and record["worse"]
        Deployment.objects.filter(pk=deployment.pk).update(status="stopped")
        results.append(record)
        print(f"[safety {r}] {record}", flush=True)
        figures |= {
            "runs": len(results),
            "worse_promoted": sum(x["worse_promoted"] for x in results),
            "promoted": sum(bool(x.get("promoted")) for x in results),
            "worse": sum(x["worse"] for x in results),
        }
        save(figures)
    return figures


def run_checkpoint_of(run) -> str:
    from mase_web.deployments.evolution_eval import run_checkpoint

    return run_checkpoint(run)


def quick_spec(backbone_dir: Path, doc: dict | None = None) -> dict:
    """The shipped template (or ``doc``) on a tiny backbone with a training budget of a moment (smoke run)."""
    from tests.fixtures.quick_team import QUICK_START, QUICK_TEAM

    doc = json.loads(json.dumps(doc)) if doc else json.loads(SPEC.read_text())
    doc["backbone"] = {"model": backbone_dir.name, "pooling": "mean", "max_length": 32}
    doc["training"] |= {"episodes": 2, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0} | QUICK_TEAM
    doc["environment"]["params"] |= QUICK_START
    return doc


def load_jsonl(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{"text": r["text"], "intents": sorted(r["intents"])} for r in rows]


def main() -> None:
    args = arguments()
    import torch

    torch.set_num_threads(1)
    started = time.perf_counter()
    ratings = None
    if "ratings" in args.sections:  # library calls only: no champion run, no database
        from bench.evolve_ratings import section

        ratings = section(args.quick, args.seed)
        if set(args.sections) == {"ratings"}:
            return write(args.out, {"quick": args.quick, "ratings": ratings}, started)
    if args.train:
        from bench.evolve_domain import custom

        return custom(sys.modules[__name__], args, started)
    work = Path(tempfile.mkdtemp(prefix="mase-evolve-"))
    setup(work)
    project, users = people()
    if args.quick:
        spec = quick_spec(tiny_backbone())
        args.ks, args.budget, args.unseen, args.per_family = [4], 8, 12, 4
        test = load_jsonl(TEST)[:12]
    else:
        spec = json.loads(SPEC.read_text())
        test = load_jsonl(TEST)
    policy = policy_for(args)
    stream = [t | {"intents": sorted(t["intents"])} for t in drift_stream(args.per_family, args.seed)]
    cut = 240 if args.unseen is None else args.unseen
    unseen, traffic = stream[:cut], stream[cut:]
    run = champion_run(project, users["pm"], spec, args.champion)
    out: dict[str, Any] = {
        "quick": args.quick,
        "policy": policy,
        "traffic": {"unseen": len(unseen), "stream": len(traffic), "test": len(test)},
        "champion_run_seconds": round(time.perf_counter() - started, 1),
    }
    if ratings is not None:
        out["ratings"] = ratings
    deployed = (project, users, run, spec)
    measure(args, deployed, traffic, unseen, test, policy, out, lambda: write(args.out, out, started))
    write(args.out, out, started)
    shutil.rmtree(work, ignore_errors=True)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--sections",
        nargs="+",
        default=["drift", "safety"],
        choices=["drift", "safety", "new_intent", "ratings"],
    )
    parser.add_argument("--ks", nargs="+", type=int, default=[100, 50, 25])
    parser.add_argument("--budget", type=int, default=200, help="corrections in all, per K")
    parser.add_argument("--champion", type=Path, help="a trained run directory of the template to deploy")
    parser.add_argument(
        "--unseen", type=int, help="traffic tickets set aside, never reviewed (240; --traffic: a quarter)"
    )
    parser.add_argument("--per-family", type=int, default=120, help="tickets of each family written here")
    parser.add_argument("--train", help="labelled JSONL: the champion is trained on it through the product")
    parser.add_argument("--traffic", help="labelled JSONL: with --train, the traffic (seeded random order)")
    parser.add_argument("--catalogue", help='with --train: {"intents": [{"name", "description"}]}')
    parser.add_argument("--dev", help="with --train: more rows uploaded with it (the product splits both)")
    parser.add_argument("--safety-runs", type=int, default=20)
    parser.add_argument("--safety-k", type=int, default=200)
    parser.add_argument("--corrupt", type=float, default=0.3)
    parser.add_argument(
        "--adversarial", type=float, default=0.5, help="share of bad corrections that lie alike"
    )
    parser.add_argument("--safety-seed", type=int, default=1000, help="run r draws its traffic with seed + r")
    parser.add_argument("--weight", type=int, default=None, help="the policy's correction_weight (lever)")
    parser.add_argument("--slice-every", type=int, default=None)
    parser.add_argument("--min-tickets", type=int, default=None)
    parser.add_argument("--new-intent-k", type=int, default=20, help="corrections per generation")
    parser.add_argument("--new-intent-generations", type=int, default=3)
    parser.add_argument("--new-intent-share", type=float, default=0.2, help="its share of traffic")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if bool(args.train) != bool(args.traffic) or (args.train and "new_intent" in args.sections):
        parser.error("--train and --traffic go together, without --sections new_intent")
    if args.quick:
        args.safety_runs, args.safety_k = 1, 4
        args.new_intent_k, args.new_intent_generations = 2, 2
    return args


def tiny_backbone() -> Path:
    from agents import places
    from tests.fixtures.tiny_models import build_tiny_causal_lm

    return build_tiny_causal_lm(places.places().models_dir / "tiny-lm-evolve")


def policy_for(args: argparse.Namespace) -> dict[str, Any]:
    """The deployment's evolution policy: the product's defaults but the interval, and the levers given."""
    policy: dict[str, Any] = {"min_interval_s": 0, "auto_promote": True}
    if args.quick:
        policy |= {"slice_every": 2, "min_tickets": 2, "min_intent_tickets": 100}
    for key, value in (("correction_weight", args.weight), ("slice_every", args.slice_every),
                       ("min_tickets", args.min_tickets)):  # fmt: skip
        if value is not None:
            policy[key] = value
    return policy


def measure(args, deployed: tuple, traffic, unseen, test, policy: dict, out: dict, save) -> None:
    """The sections asked for, into ``out`` (``save()`` after each part: a long benchmark keeps what it
    measured); ``deployed``: (project, users, the champion's run, its spec)."""
    project, users, run, spec = deployed
    if "drift" in args.sections:
        out["drift"] = {}
        for k in args.ks:
            figures = drift(project, users, run, spec, traffic, unseen, test, k, args.budget, policy)
            out["drift"][str(k)] = figures
            save()
    if "safety" in args.sections:

        def keep(figures: dict) -> None:
            out["safety"] = figures
            save()

        safety(
            project, users, run, spec, traffic, unseen, args.safety_runs, args.safety_k, args.corrupt,
            args.adversarial, args.safety_seed, policy, keep,
        )  # fmt: skip
    if "new_intent" in args.sections:
        from bench.evolve_new_intent import new_intent

        out["new_intent"] = new_intent(sys.modules[__name__], project, users, run, spec, args, policy)


def write(path: str, out: dict, started: float) -> None:
    out["wall_seconds"] = round(time.perf_counter() - started, 1)
    for section in (out.get("drift"), (out.get("custom") or {}).get("drift")):
        for figures in (section or {}).values():
            figures["median_generation_seconds"] = statistics.median(
                [g["seconds"] for g in figures["runs"] if "seconds" in g] or [0.0]
            )
    Path(path).write_text(json.dumps({"evolve": out}, indent=2, default=str))


if __name__ == "__main__":
    main()
