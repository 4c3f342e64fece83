"""Datasets benchmark: routing teams trained from a labelled dataset, their plain baseline, and out of scope.

For every routing dataset shipped under ``data/<domain>/`` with a ``catalogue.json`` beside its
``train.jsonl`` and ``test.jsonl`` (and, for any other dataset, ``--train FILE --test FILE [--catalogue
FILE] [--dev FILE]``, key ``custom``), the product's own path, which knows no domain
(`bench/datasets_product.py`): in this process, on a fresh web app and through its API, a product manager

1. uploads the training rows (and ``--dev``'s, when given) as a dataset whose catalogue is the file's
   (``{"intents": [{"name", "description"}]}``, or without one the intents found in the rows, each described
   by its name); the product draws its frozen train/dev/test split (decision 0018); its test split is the
   ``holdout`` (never trained or selected on);
2. puts the gallery's routing template over the catalogue (``environment.params.intents``, the version's
   training files named in ``tickets``; the template's specialists each own a contiguous block of intents,
   their prompts say which; the rule fallback routes each intent's keywords or name to its owner);
3. launches the run (`POST /api/runs/`, executed here as a worker executes it), deploys it, and sends every
   test ticket to the deployment's ticket API: ``exact_match`` is what customers got (model, breaker
   fallback or the out-of-scope hand-off); beside it the rule team over the same catalogue
   (``rules_exact_match``) and a one-vs-rest logistic regression on the same frozen sentence vectors fitted
   on the same training split (``plain_exact_match``, `training.plain_classifier`).

Out of scope (``out_of_scope``): the shipped customer-service template (or the custom team with
``--out-of-scope FILE``, rows with empty ``intents``) is trained, and the scope gate its deployment uses
(`serving.scope.ScopeGate.for_env`: floor on the environment's dev split, contrasted with the routing
interface's generated out-of-scope tickets) is put in front of it: the share of out-of-scope tickets it lets
through to an in-scope answer, the AUROC of its score between in-scope test tickets and out-of-scope ones,
and the in-scope exact match without and with the gate (a ticket the gate turns away counts as wrong); also
on the second hand-written out-of-scope set (``out_of_scope_voices``), on other authors' in-scope tickets,
and the same with the distance-only gate (``distance_only``).

Gate cold start (``scope_gate``, `bench/datasets_scope_gate.py`): for each trained team (every dataset's,
and the template's in ``out_of_scope`` except in a quick run), its deployment's scope gate built with no
store and read back from the store that build wrote, and the first gated check after each (medians of three;
quick: one).

New intent (``new_intent``, `bench/datasets_new_intent.py`): one intent added to the shipped template with
N = 20, 40, 60 labelled tickets; its recall and the other intents' exact match before and after.

    python bench/datasets.py --out FILE.json [--quick] [--train F --test F [--catalogue F] [--dev F]]
                             [--out-of-scope F] [--scope-dev F] [--seed 0]
                             [--parts domains out_of_scope new_intent] [--new-intent-labels 20 40 60]
                             [--min-rows-per-intent M]

Keys are documented in bench/README.md (section bench/datasets.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from agents import places  # noqa: E402
from agents.backbone import Backbone  # noqa: E402
from agents.envs import env_class, team_kwargs  # noqa: E402
from agents.envs.routing import routing  # noqa: E402
from agents.envs.scripted import scripted_team  # noqa: E402
from agents.spec import load_spec  # noqa: E402
from bench import datasets_scope_gate  # noqa: E402
from serving.model import resolve_checkpoint  # noqa: E402
from serving.scope import ScopeGate  # noqa: E402
from training import api  # noqa: E402
from training.cli import add_settings_argument, apply_settings  # noqa: E402
from training.evidence import evidence_agreement  # noqa: E402
from training.plain_classifier import PlainClassifier  # noqa: E402

DATA = ROOT / "data"
TEMPLATE = ROOT / "examples" / "customer_service.json"
ENVIRONMENT = "customer_service"  # the routing environment the template plays; datasets live under its name
HOLDOUT_SHARE = 0.15
# the shipped datasets; the template's out of scope; an intent added to it
PARTS = ("domains", "out_of_scope", "new_intent")
QUICK_TRAINING = {"episodes": 128, "eval_every": 64, "eval_episodes": 32, "checkpoint_every": 64}
QUICK_START = {"warm_start_episodes": 200, "warm_start_epochs": 4, "reader_epochs": 60}


# ---- rows and splits ---------------------------------------------------------------------------------
def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """A JSONL upload's rows: ``text`` and ``intents`` kept, an ``id`` made when missing."""
    rows = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            row = json.loads(line)
            rows.append({"id": str(row.get("id") or f"row-{number}"), "text": row["text"],
                         "intents": list(row.get("intents") or [])})  # fmt: skip
    return rows


def read_catalogue(path: str | Path | None, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``{"intents": [{"name", "description", "keywords"?}]}``; without a file, the rows' intents in order of
    first use, each described by its own name's words."""
    if path:
        return [dict(entry) for entry in json.loads(Path(path).read_text(encoding="utf-8"))["intents"]]
    names = list(dict.fromkeys(i for r in rows for i in r["intents"]))
    return [{"name": n, "description": n.replace("_", " ").capitalize() + "."} for n in names]


def split_rows(rows: list[dict[str, Any]], shares: list[float], seed: int) -> list[list[dict[str, Any]]]:
    """Rows dealt into parts of the given shares (the rest in the first part), stratified by intent set,
    the same for the same seed."""
    by_label: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_label[tuple(sorted(row["intents"]))].append(row)
    parts: list[list[dict[str, Any]]] = [[] for _ in range(len(shares) + 1)]
    rng = random.Random(seed)
    for label in sorted(by_label):
        group = by_label[label]
        rng.shuffle(group)
        start = 0
        for k, share in enumerate(shares, start=1):
            take = int(round(share * len(group)))
            parts[k] += group[start : start + take]
            start += take
        parts[0] += group[start:]
    return parts


def data_folder() -> Path:
    """Where the routing environment reads named datasets now (the server's directory in the web path)."""
    return Path(places.data_dir(places.DataFiles(ENVIRONMENT, "dataset file")))


def write_dataset(folder: Path | None, name: str, train: list, dev: list) -> None:
    """The rows as dataset ``name`` (``NAME.jsonl``, ``NAME.validation.jsonl``) where the env reads datasets."""
    place = data_folder()
    place.mkdir(parents=True, exist_ok=True)
    for file, rows in ((f"{name}.jsonl", train), (f"{name}.validation.jsonl", dev or train)):
        lines = [json.dumps({"id": r["id"], "text": r["text"], "intents": r["intents"]}) for r in rows]
        (place / file).write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---- the team over a catalogue ----------------------------------------------------------------------
def team_document(
    catalogue: list[dict[str, Any]], dataset: str, seed: int, quick: bool, base: dict | None = None
) -> dict[str, Any]:
    """The routing template (``base``, default the customer-service example) over ``catalogue`` and
    dataset ``dataset`` (module docstring, step 2)."""
    doc = json.loads(json.dumps(base)) if base else json.loads(TEMPLATE.read_text(encoding="utf-8"))
    doc["name"] = f"{dataset} routing team"
    specialists = [a for a in doc["agents"] if a.get("intents")]
    blocks = np.array_split(np.arange(len(catalogue)), min(len(specialists), len(catalogue)))
    owner: dict[str, str] = {}
    for agent, block in zip(specialists, blocks, strict=False):
        owned = [catalogue[int(k)] for k in block]
        agent["role"], agent["intents"] = "custom", [c["name"] for c in owned]
        agent["prompt"] = "You answer these requests: " + " ".join(c["description"] for c in owned)
        owner |= {c["name"]: agent["id"] for c in owned}
    for agent in specialists[len(blocks) :]:
        agent["role"], agent["intents"] = "custom", []
    doc["environment"]["params"] |= {"tickets": dataset, "intents": catalogue}
    doc["fallback"]["rules"] = [
        {"keywords": list(c.get("keywords") or [c["name"].replace("_", " ")]), "route_to": owner[c["name"]]}
        for c in catalogue
    ]
    doc["training"]["seed"] = int(seed)
    if quick:
        doc["training"] |= QUICK_TRAINING
        doc["environment"]["params"] |= QUICK_START
    return doc


def routing_env(team: Any, rows: list[dict[str, Any]], name: str) -> Any:
    """The team's environment over ``rows`` in file order: written as dataset ``name`` to the datasets
    directory and read by the environment's own loader, as a user's upload is."""
    folder = data_folder()
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"id": r["id"], "text": r["text"], "intents": r["intents"]}) for r in rows]
    (folder / f"{name}.test.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    env_name, params = team.environment.name, dict(team.environment.params)
    params |= {"tickets": f"{name}.test", "shuffle": False}  # a test file: never oversampled
    return env_class(env_name)(**params, **team_kwargs(env_name, team.agents, team.edges))


def exact_per_ticket(env: Any, policy: Any, before_each: Callable[[], None] | None = None) -> list[bool]:
    """Each ticket of ``env`` played once in file order by ``policy``: whether its intents came out exact
    (``before_each``, if given, is called as each ticket starts: a recording policy's ticket boundary)."""
    exact = []
    for index in range(len(env.unwrapped.tickets)):
        if before_each is not None:
            before_each()
        observations, _ = env.reset(seed=index, options={"ticket_index": index})
        info: dict[str, Any] = {}
        while env.agents:
            observations, _, _, _, infos = env.step(policy(observations))
            info = next(iter(infos.values()))
        exact.append(bool(info["exact_match"]))
    return exact


def train_team(doc: dict[str, Any], work: Path, backbone: Backbone) -> tuple[Any, Any, float]:
    """`training.api.train` on ``doc``; (spec, the deployed checkpoint's greedy policy, wall seconds)."""
    from training.mappo import load_policy

    run_dir = work / "run"
    shutil.rmtree(run_dir, ignore_errors=True)
    backbone.clear_cache()
    started = time.perf_counter()
    api.train(doc, run_dir, backbone=backbone)
    seconds = time.perf_counter() - started
    team = load_spec(doc, require_environment=True)
    # the checkpoint a deployment of the run serves, loaded as the runtime loads it (with its calibration)
    policy = load_policy(team, resolve_checkpoint(run_dir), backbone).policy(greedy=True)
    return team, policy, seconds


# ---- measurements --------------------------------------------------------------------------------------
@contextlib.contextmanager
def datasets_directory(prefix: str):
    """A fresh datasets directory the environments read named datasets from (the server's, in the product)."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    saved = places.places()
    (work / "datasets" / ENVIRONMENT).mkdir(parents=True)
    places.configure(saved.models_dir, None, saved.runs_dir, work / "datasets")
    try:
        yield work
    finally:
        places.configure(saved.models_dir, saved.tickets_dir, saved.runs_dir, saved.datasets_dir)
        shutil.rmtree(work, ignore_errors=True)


def routing_dataset(
    name: str, files: dict[str, Any], args: argparse.Namespace, backbone: Backbone, web
) -> dict:
    """One dataset through the product's path (module docstring); the keys of ``datasets.<name>``."""
    from bench import datasets_product as product
    from mase_web.runs.models import Run
    from training.mappo import load_policy

    rows = read_rows(files["train"]) + (read_rows(files["dev"]) if files.get("dev") else [])
    test = read_rows(files["test"])
    catalogue = read_catalogue(files.get("catalogue"), rows + test)
    if args.quick:
        rows, test = spread(rows, 150), spread(test, 40)
    up = product.upload(web, f"bench {name}", rows, catalogue, args.seed)
    train = product.split_rows(web, up["version"], "train")
    dev = product.split_rows(web, up["version"], "dev")
    holdout = product.split_rows(web, up["version"], "test")
    doc = team_document(catalogue, up["tickets"], args.seed, args.quick, base=product.template(web))
    apply_settings(doc, dict(getattr(args, "set", None) or []))  # --set: an experiment's change
    run, seconds = product.train(web, f"{name} routing team", doc)
    deployment = product.deploy(web, run, f"{name} routing team")
    given = product.answers(web, deployment, test)
    breaker = web.call("get", f"/api/deployments/{deployment}/")["breaker"]  # why tickets fell back
    held = product.answers(web, deployment, holdout)
    plain = PlainClassifier.fit(backbone.encode, train, [c["name"] for c in catalogue])
    team = load_spec(doc, require_environment=True)
    drawn = team_kwargs(team.environment.name, team.agents, team.edges).get("team")
    rules = scripted_team(team.environment.name, dict(team.environment.params), team=drawn)
    out = {
        "exact_match": product.exact(test, given),
        "rules_exact_match": mean(exact_per_ticket(routing_env(team, test, "bench_test"), rules.actions)),
        "plain_exact_match": plain.exact_match(test),
        "holdout_exact_match": product.exact(holdout, held),
        "plain_holdout_exact_match": plain.exact_match(holdout),
        "train_seconds": round(seconds, 2),
        "labels": len(train),
        "intents": len(catalogue),
        "rows": {
            "uploaded": up["accepted"],
            "refused": up["refused"],
            "train": len(train),
            "dev": len(dev),
            "holdout": len(holdout),
            "test": len(test),
        },
        "answered_by": dict(Counter(str(g["by"]) for g in given)),
        "breaker_after_test": {"counts": breaker["counts"], "last_transition": breaker["last_transition"]},
        "statuses": dict(Counter(str(g["status"]) for g in given)),
        "path": {"dataset": up["dataset"], "version": up["version"], "run": run, "deployment": deployment},
    }
    checkpoint = resolve_checkpoint(Run.objects.get(pk=run).out_dir)
    policy = load_policy(team, checkpoint, backbone)
    greedy = policy.policy(greedy=True)  # the deployed checkpoint's actors alone: no breaker, no fallback
    out["model_exact_match"] = mean(exact_per_ticket(routing_env(team, test, "bench_test"), greedy))
    out["model_holdout_exact_match"] = mean(
        exact_per_ticket(routing_env(team, holdout, "bench_hold"), greedy)
    )
    if policy.actor.reader is not None and dev:  # does the greedy team answer what its evidence says?
        dev_env = routing_env(team, dev, "bench_dev")
        out["dev_evidence"] = evidence_agreement(dev_env, greedy, policy.actor, policy.featurize)
    if files.get("out_of_scope"):
        outside = read_rows(files["out_of_scope"])
        out["out_of_scope"] = out_of_scope(team, policy.policy(greedy=True), test, outside, backbone, dev=dev)
    # the deployment's gate built cold and read from its store (bench/datasets_scope_gate.py)
    out["scope_gate"] = datasets_scope_gate.cold_start(
        team, checkpoint, backbone, test[0]["text"], args.quick
    )
    return out


def scope_gate(team: Any, backbone: Backbone, dev: list | None, contrast: bool = True) -> ScopeGate:
    """The scope gate a deployment of ``team`` puts in front of it (`TeamRuntime.from_spec_checkpoint`): its
    floor chosen on ``dev`` (default: the environment's dev split, else the labelled tickets left out in
    turn), contrasted with the interface's labelled out-of-scope tickets (``contrast=False``: distance to
    the catalogue alone, decision 0020's first gate)."""
    name, params = team.environment.name, dict(team.environment.params)
    env = env_class(name)(**params, **team_kwargs(name, team.agents, team.edges))
    interface = routing(name)
    if dev is None and interface is not None and interface.dev_tickets(params):
        dev = [{"text": t.text} for t in interface.load_tickets(interface.dev_tickets(params), params)]
    outside = interface.out_of_scope_tickets(params) if contrast and interface is not None else []
    return ScopeGate.for_env(env, backbone.encode, dev=dev, outside=outside)


def out_of_scope(
    team: Any, policy: Any, in_scope: list, outside: list, backbone: Backbone, dev: list | None = None,
    gate: ScopeGate | None = None, exact: list | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The deployed team behind its scope gate (default `scope_gate`) on in-scope rows and out-of-scope
    rows (module docstring); ``exact``: the team's per-row exact match on ``in_scope`` when known."""
    gate = gate or scope_gate(team, backbone, dev)
    inside, away = gate.verdicts([r["text"] for r in in_scope]), gate.verdicts([r["text"] for r in outside])
    inside_scores, outside_scores = inside["score"], away["score"]
    if exact is None:
        exact = exact_per_ticket(routing_env(team, in_scope, "bench_in_scope"), policy)
    exact = np.array(exact, dtype=bool)
    kept = inside["in_scope"]  # above the floor, or kept by the gate's second signal (decision 0041)
    truth = np.r_[np.ones(len(inside_scores)), np.zeros(len(outside_scores))]
    return {
        "answered_share": float(away["in_scope"].mean()) if outside else None,
        "auroc": float(roc_auc_score(truth, np.r_[inside_scores, outside_scores])) if outside else None,
        "in_scope_exact_match_before": float(exact.mean()),
        "in_scope_exact_match_after": float((exact & kept).mean()),
        "in_scope_turned_away": float(1 - kept.mean()),
        "gate": gate.describe(),
        "tickets": {"in_scope": len(in_scope), "out_of_scope": len(outside)},
    }


OTHER_AUTHORS = ("handwritten", "handwritten_voices")  # other authors' in-scope tickets
SECOND_OUT_OF_SCOPE = "out_of_scope_voices"  # our second hand-written out-of-scope set, in other voices


def customer_service_out_of_scope(args: argparse.Namespace, backbone: Backbone) -> dict[str, Any]:
    """The shipped customer-service template, trained as shipped, behind the scope gate its deployment uses
    on the out-of-scope test set (``--out-of-scope`` replaces it), the second set in other voices, the test
    split and other authors' in-scope tickets (quick: fewer of each); ``distance_only``: the same with
    decision 0020's first gate (distance to the catalogue alone)."""
    doc = json.loads(TEMPLATE.read_text(encoding="utf-8"))
    doc["training"]["seed"] = int(args.seed)
    if args.quick:
        doc["training"] |= QUICK_TRAINING
        doc["environment"]["params"] |= QUICK_START
    with datasets_directory("mase-datasets-cs-") as work:
        team, policy, _ = train_team(doc, work, backbone)
        limit = (lambda rows, n: spread(rows, n)) if args.quick else (lambda rows, n: rows)
        sets = {"test": limit(read_rows(DATA / ENVIRONMENT / "test.jsonl"), 100)}
        sets |= {
            extra: limit(read_rows(DATA / ENVIRONMENT / f"{extra}.jsonl"), 30) for extra in OTHER_AUTHORS
        }
        outside = limit(read_rows(args.out_of_scope or DATA / ENVIRONMENT / "out_of_scope_test.jsonl"), 30)
        voices = limit(read_rows(DATA / ENVIRONMENT / f"{SECOND_OUT_OF_SCOPE}.jsonl"), 20)
        exact = {
            k: exact_per_ticket(routing_env(team, rows, f"bench_{k}"), policy) for k, rows in sets.items()
        }
        dev = read_rows(args.scope_dev) if args.scope_dev else None
        out: dict[str, Any] = {}
        for key, contrast in (("", True), ("distance_only", False)):
            gate = scope_gate(team, backbone, dev, contrast=contrast)
            found = out_of_scope(
                team, policy, sets["test"], outside, backbone, gate=gate, exact=exact["test"]
            )
            found[SECOND_OUT_OF_SCOPE] = out_of_scope(
                team, policy, sets["test"], voices, backbone, gate=gate, exact=exact["test"]
            )["answered_share"]
            for extra in OTHER_AUTHORS:
                also = out_of_scope(team, policy, sets[extra], [], backbone, gate=gate, exact=exact[extra])
                found[extra] = {k: also[k] for k in ("in_scope_exact_match_before", "in_scope_exact_match_after",
                                                     "in_scope_turned_away")}  # fmt: skip
            if key:
                out[key] = found
            else:
                out |= found
        out["file"] = Path(args.out_of_scope).name if args.out_of_scope else "out_of_scope_test.jsonl"
        if not args.quick:  # its cold build encodes thousands of texts: about a minute on 2 cores
            checkpoint, first = resolve_checkpoint(work / "run"), sets["test"][0]["text"]
            out["scope_gate"] = datasets_scope_gate.cold_start(team, checkpoint, backbone, first, quick=False)
        return out


def spread(rows: list, limit: int) -> list:
    """At most ``limit`` rows taken evenly over ``rows`` (a quick run keeps every kind of row)."""
    if len(rows) <= limit:
        return rows
    return [rows[int(k * len(rows) / limit)] for k in range(limit)]


def mean(values: list[bool]) -> float:
    return float(np.mean(values)) if values else 0.0


def shipped_datasets() -> dict[str, dict[str, Path]]:
    """Every ``data/<domain>/`` with a catalogue, training and test file (and a dev file when present)."""
    found = {}
    for catalogue in sorted(DATA.glob("*/catalogue.json")):
        folder = catalogue.parent
        if (folder / "train.jsonl").is_file() and (folder / "test.jsonl").is_file():
            found[folder.name] = {"train": folder / "train.jsonl", "test": folder / "test.jsonl",
                                  "catalogue": catalogue} | ({"dev": folder / "dev.jsonl"} if (folder / "dev.jsonl").is_file() else {})  # fmt: skip
    return found


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description="Routing teams from labelled datasets; plain baseline; out of scope."
    )
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument(
        "--quick", action="store_true", help="few rows and a tiny training budget (a test runs this)"
    )
    parser.add_argument("--train", help="a labelled JSONL dataset to train on (key datasets.custom)")
    parser.add_argument("--test", help="its test file (never trained or selected on)")
    parser.add_argument(
        "--catalogue",
        help='{"intents": [{"name", "description", "keywords"?}]} (default: the rows\' intents)',
    )
    parser.add_argument("--dev", help="more labelled rows, uploaded with --train (the product splits both)")
    parser.add_argument(
        "--out-of-scope",
        help="rows with empty intents: scored against the custom team, else the customer-service template",
    )
    parser.add_argument(
        "--scope-dev",
        help="in-scope rows the customer-service scope floor is chosen on (default: its dev split)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--parts", nargs="+", choices=PARTS, default=list(PARTS), help="what to measure (default: both)"
    )
    parser.add_argument("--new-intent-labels", type=int, nargs="+", help="N labelled tickets (20 40 60)")
    parser.add_argument(
        "--min-rows-per-intent",
        type=int,
        default=0,
        help="new_intent: the team's environment.params.min_rows_per_intent (oversampling; 0 = off)",
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    add_settings_argument(
        parser,
        "domains: change the routing template for an experiment (e.g. environment.params.actor_evidence=reader)",
    )
    args = parser.parse_args(argv)
    if bool(args.train) != bool(args.test):
        parser.error("--train and --test go together")
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    backbone = Backbone.load("default")
    out: dict[str, Any] = {
        "quick": bool(args.quick),
        "seed": args.seed,
        "settings": dict(args.set),  # {} = the template as shipped
        "backbone": backbone.describe(),
        "datasets": {},
    }
    if args.train or "domains" in args.parts:
        from bench.datasets_product import web_app

        if args.train:
            files = {"train": args.train, "test": args.test, "catalogue": args.catalogue, "dev": args.dev,
                     "out_of_scope": args.out_of_scope}  # fmt: skip
            domains = {"custom": files}
        else:
            domains = shipped_datasets()
        with web_app() as web:
            for name, files in domains.items():
                out["datasets"][name] = routing_dataset(name, files, args, backbone, web)
                print(f"[datasets] {name}: {out['datasets'][name]}", file=sys.stderr, flush=True)
    if "out_of_scope" in args.parts and not (args.train and args.out_of_scope):
        out["datasets"]["out_of_scope"] = customer_service_out_of_scope(args, backbone)
    if "new_intent" in args.parts and not args.train:
        from bench import datasets_new_intent

        out["datasets"]["new_intent"] = datasets_new_intent.measure(sys.modules[__name__], args, backbone)
    out["wall_seconds"] = round(time.perf_counter() - started, 1)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2, default=float))
    print(json.dumps(out["datasets"], indent=1, default=float), file=sys.stderr)
    return out


if __name__ == "__main__":
    main()
