"""Evolution benchmark over any routing dataset: `bench/evolve.py --train FILE --traffic FILE [--catalogue FILE]
[--dev FILE]`, keys ``evolve.custom.*``. Nothing here knows the domain; it reads the files it is given.

The champion is made as `bench/datasets.py` makes a custom team, through the product's path and with its
functions (`bench/datasets_product.py`): a product manager uploads the training rows (and ``--dev``'s) as a
dataset over the catalogue (without one, the rows' intents, each described by its name), the product draws
its frozen train/dev/test split, the gallery's routing template is put over the catalogue
(`datasets.team_document`), the run is launched through the API and executed here as a worker would. Its
run is deployed with the benchmark's evolution policy, and `bench/evolve.py`'s sections run on it: the
traffic is the ``--traffic`` file's tickets in a seeded random order (``--seed``), its first ``--unseen``
(default a quarter) set aside and never reviewed; the in-distribution figure (``test_by_generation``) is the
upload's own test split, which neither the champion nor any challenger trains or selects on.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path
from typing import Any

from bench import datasets_product as product
from bench.datasets import read_catalogue, read_rows, spread, team_document

QUICK_ROWS, QUICK_TRAFFIC = 48, 20  # a quick run's uploaded rows and traffic tickets


def traffic_split(tickets: list[dict], unseen: int | None, seed: int) -> tuple[list[dict], list[dict]]:
    """(the unseen tickets, the stream): ``tickets`` shuffled with ``seed``, the first ``unseen`` (default a
    quarter) set aside."""
    count = len(tickets) // 4 if unseen is None else unseen
    if not 0 < count < len(tickets):
        raise SystemExit(f"--unseen {count}: must leave traffic to review ({len(tickets)} tickets)")
    order = [t | {"intents": sorted(t["intents"])} for t in tickets]
    random.Random(seed).shuffle(order)
    return order[:count], order[count:]


def people(web: product.Web) -> tuple[Any, dict[str, Any]]:
    """The web app's project, its product manager, and an operator who reviews the traffic."""
    from django.contrib.auth import get_user_model

    from mase_web.accounts.models import Membership, Project, Role

    project = Project.objects.get(pk=web.project)
    pm = Membership.objects.filter(project=project, role=Role.PRODUCT_MANAGER).first().user
    operator = get_user_model().objects.create(username="bench-operator")
    Membership.objects.create(project=project, user=operator, role=Role.OPERATOR)
    return project, {"pm": pm, "operator": operator}


def champion(bench, web: product.Web, args: argparse.Namespace, rows: list[dict], catalogue: list[dict]):
    """The champion's run, trained through the product; (run, its spec, the upload's test split, figures)."""
    from mase_web.runs.facade import Run

    up = product.upload(web, "evolve custom", rows, catalogue, args.seed)
    doc = team_document(catalogue, up["tickets"], args.seed, False, base=product.template(web))
    if args.quick:
        doc = bench.quick_spec(bench.tiny_backbone(), doc)
    run_id, seconds = product.train(web, "champion", doc)
    run = Run.objects.get(pk=run_id)
    holdout = product.split_rows(web, up["version"], "test")
    about = {
        "train_seconds": round(seconds, 1),
        "intents": len(catalogue),
        "rows": {"uploaded": up["accepted"], "refused": up["refused"], "holdout": len(holdout)},
    }
    return run, run.spec, [r | {"intents": sorted(r["intents"])} for r in holdout], about


def custom(bench, args: argparse.Namespace, started: float) -> None:
    """``evolve.custom``: the champion trained from ``--train`` and evolved on ``--traffic``."""
    rows = read_rows(args.train) + (read_rows(args.dev) if args.dev else [])
    tickets = [{"text": r["text"], "intents": r["intents"]} for r in read_rows(args.traffic)]
    catalogue = read_catalogue(args.catalogue, rows + tickets)
    if args.quick:
        rows, tickets = spread(rows, QUICK_ROWS), spread(tickets, QUICK_TRAFFIC)
        args.ks, args.budget, args.unseen = [4], 4, 6
    unseen, stream = traffic_split(tickets, args.unseen, args.seed)
    os.environ.setdefault("RUN_TORCH_THREADS", "1")
    with product.web_app() as web:
        from django.conf import settings

        settings.MASE_EVALUATE_INLINE = True  # the judging runs here, as a worker would
        project, users = people(web)
        run, spec, test, about = champion(bench, web, args, rows, catalogue)
        policy = bench.policy_for(args)
        inner: dict[str, Any] = {
            "files": {k: Path(v).name for k, v in vars(args).items() if k in ("train", "traffic", "catalogue",
                                                                              "dev") and v},
            "policy": policy,
            "traffic": {"unseen": len(unseen), "stream": len(stream), "test": len(test)},
            "champion": about,
            "champion_run_seconds": round(time.perf_counter() - started, 1),
        }  # fmt: skip
        out = {"quick": args.quick, "custom": inner}
        save = lambda: bench.write(args.out, out, started)  # noqa: E731
        bench.measure(args, (project, users, run, spec), stream, unseen, test, policy, inner, save)
        save()
