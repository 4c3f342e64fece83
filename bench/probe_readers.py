"""Probe: which clause reader reads other authors' tickets best, measured alone (no team, no PPO).

A routing team's actors act on their clause readers' per-intent scores (decision 0014: the readers fitted
in the warm start stay fixed), so a reader that reads a hand-written ticket wrong sinks the team. This
probe fits, on a routing dataset's training rows only, the readers a team could carry and scores each
alone (an intent is answered where its logit is positive, and at least the top one):

- ``plain``: one-vs-rest logistic regression on the whole ticket's sentence vector (`training.plain_classifier`);
- ``clause``: the shipped clause reader (per-clause MLP over [sentence vector ‖ keyword verdicts],
  max-pooled; `training.offline.pretrain_reader`'s recipe);
- ``clause_whole``: the same clause reader plus a linear head on the whole ticket's sentence vector, the two
  logits summed and fitted together (`training.mappo.networks.ClauseReader` with ``whole``);
- ``<set>+plain`` under each reader: the reader's and the plain classifier's probabilities averaged.

Datasets: the shipped customer-service splits (train; test, holdout styles, both hand-written sets) and
every ``data/<domain>/`` with a ``catalogue.json`` (its training file minus the 15 % ``bench/datasets.py``
holds out with seed 0; its dev and test files). Nothing is selected on a reported set.

    python bench/probe_readers.py --out F.json [--seeds 0 1 2] [--backbone default|DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.backbone import Backbone  # noqa: E402
from agents.envs.routing import routing  # noqa: E402
from training.mappo.featurizer import clause_featurizer  # noqa: E402
from training.mappo.networks import ClauseReader  # noqa: E402
from training.offline import VECTOR_DROPOUT, hide_vectors  # noqa: E402
from training.plain_classifier import PlainClassifier, unit_vectors  # noqa: E402

DATA = ROOT / "data"


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def datasets() -> dict[str, dict]:
    """name -> {catalogue params, train rows, {set name: rows}}."""
    from bench.datasets import HOLDOUT_SHARE, read_catalogue, read_rows, split_rows

    cs = DATA / "customer_service"
    out = {
        "customer_service": {
            "params": {},
            "train": rows_of(cs / "train.jsonl"),
            "sets": {
                name: rows_of(cs / f"{name}.jsonl")
                for name in ("validation", "test", "holdout_styles", "handwritten", "handwritten_voices")
            },
        }
    }
    for folder in sorted(p for p in DATA.iterdir() if (p / "catalogue.json").is_file()):
        rows = read_rows(folder / "train.jsonl")
        train, holdout = split_rows(rows, [HOLDOUT_SHARE], 0)
        catalogue = read_catalogue(folder / "catalogue.json", rows)
        sets = {"holdout": holdout, "test": read_rows(folder / "test.jsonl")}
        if (folder / "dev.jsonl").is_file():
            sets["dev"] = read_rows(folder / "dev.jsonl")
        out[folder.name] = {"params": {"intents": catalogue}, "train": train, "sets": sets}
    return out


class Environment:  # what clause_featurizer asks of a spec's environment
    def __init__(self, params: dict):
        self.name, self.params = "customer_service", params


def fit_reader(blocks, wholes, labels, dim, evidence, whole: bool, seed: int, epochs: int = 300):
    """One reader fitted as `pretrain_reader` fits it (full-batch Adam, BCE on max-pooled logits)."""
    torch.manual_seed(seed)
    k = (blocks.shape[1]) // (dim + 1)
    reader = ClauseReader(1, k, dim, 128, labels.shape[1], whole=wholes.shape[1] if whole else 0)
    mask = blocks[:, k * dim :] > 0.5
    clauses = blocks[:, : k * dim].reshape(-1, k, dim)
    width = dim - evidence
    params = [p for p in reader.parameters()]
    opt = torch.optim.Adam(params, lr=3e-3, weight_decay=1e-4)
    for _ in range(epochs):
        x = hide_vectors(clauses[mask], width, VECTOR_DROPOUT) if evidence else clauses[mask]
        full = torch.zeros_like(clauses)
        full[mask] = x
        flat = torch.cat([full.reshape(len(blocks), -1), mask.float()], 1)
        logits = reader.logits((torch.cat([wholes, flat], 1) if whole else flat).unsqueeze(1))[:, 0]
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return reader


def encode(featurize, backbone, names, rows):
    """(clause blocks, whole-ticket unit vectors, multi-hot intents) of labelled rows."""
    texts = [r["text"] for r in rows]
    blocks = featurize.text(texts)
    wholes = torch.as_tensor(unit_vectors(backbone.encode, texts), dtype=torch.float32)
    return blocks, wholes, np.array([[n in r["intents"] for n in names] for r in rows])


def chosen(logits: np.ndarray) -> np.ndarray:
    on = logits > 0
    on[np.arange(len(on)), logits.argmax(1)] = True
    return on


def exact(on: np.ndarray, labels: np.ndarray) -> float:
    return float((on == labels.astype(bool)).all(1).mean())


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--backbone", default="default")
    parser.add_argument("--domains", nargs="*", default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # a shared, busy CPU: more threads only spin
    backbone = Backbone.load(args.backbone)
    report: dict = {"backbone": args.backbone}
    for name, data in datasets().items():
        if args.domains and name not in args.domains:
            continue
        started = time.perf_counter()
        names = routing().catalogue(data["params"]).names
        featurize = clause_featurizer(backbone, keywords=True, environment=Environment(data["params"]))
        dim = backbone.dim + featurize.evidence_dim

        train = encode(featurize, backbone, names, data["train"])
        sets = {k: encode(featurize, backbone, names, v) for k, v in data["sets"].items()}
        plain = PlainClassifier.fit(backbone.encode, data["train"], names)
        result: dict = {"plain": {k: plain.exact_match(data["sets"][k]) for k in sets}}
        plain_p = {k: plain.probabilities([r["text"] for r in data["sets"][k]]) for k in sets}
        for variant, whole in (("clause", False), ("clause_whole", True)):
            per_seed = []
            for seed in args.seeds:
                reader = fit_reader(
                    train[0], train[1], torch.tensor(train[2], dtype=torch.float32), dim,
                    featurize.evidence_dim, whole, seed,
                )  # fmt: skip
                with torch.no_grad():
                    scores = {}
                    for k, (b, w, y) in sets.items():
                        x = torch.cat([w, b], 1) if whole else b
                        logits = reader.logits(x.unsqueeze(1))[:, 0].numpy()
                        scores[k] = exact(chosen(logits), y)
                        # with the plain classifier: the mean of the two probabilities, answered at ≥ 0.5
                        mixed = (1 / (1 + np.exp(-logits)) + plain_p[k]) / 2 - 0.5
                        scores[f"{k}+plain"] = exact(chosen(mixed), y)
                per_seed.append(scores)
            result[variant] = {k: float(np.median([s[k] for s in per_seed])) for k in per_seed[0]}
            result[variant + "_seeds"] = per_seed
        result["seconds"] = round(time.perf_counter() - started, 1)
        report[name] = result
        print(name, json.dumps({k: v for k, v in result.items() if not k.endswith("_seeds")}), flush=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
