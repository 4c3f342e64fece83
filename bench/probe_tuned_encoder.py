"""Probe: does fine-tuning the encoder give a routing team better evidence than frozen MiniLM vectors?

A routing team with ``actor_evidence = "reader_plain_answers"`` acts exactly on its evidence (clause readers
averaged with a plain one-vs-rest logistic regression on frozen sentence vectors; `training.evidence`), so a
team beats its plain classifier only through better evidence. This probe measures readers alone (no RL, no
product wiring), all fitted on a dataset's training rows only and scored by exact match (an intent is
answered at probability ≥ 0.5, and at least the most probable):

- ``plain``: `training.plain_classifier` on the frozen vectors (the baseline; the same in every seed);
- ``evidence``: today's evidence, the clause reader's and the plain classifier's probabilities averaged
  (`bench.probe_readers`' ``clause`` + ``plain``, per seed);
- ``bce``: the encoder's top ``--top`` layers (6 = every transformer layer; the embeddings stay frozen)
  fine-tuned with a linear head under binary cross-entropy, the head started from the plain classifier
  (so epoch 0 *is* plain); ``bce_lr``: the plain classifier refitted on the tuned vectors;
- ``setfit``: the same layers tuned contrastively (pairs of training tickets, cosine similarity regressed
  on the Jaccard overlap of their intent sets; per ticket and epoch one partner with the same intent set
  and one drawn at random), then the plain classifier on the tuned vectors;
- ``<arm>+evidence``: the arm's and today's evidence's probabilities averaged.

Epochs (0 … ``--epochs``) and learning rate (``--lrs``) are chosen per arm and seed on the dev split only
(IT helpdesk ``dev.jsonl``; customer service ``validation``); test, holdout and the hand-written sets are
never used for fitting or choosing. CPU seconds (process time) of fine-tuning and of encoding are reported.

    python bench/probe_tuned_encoder.py --out F.json [--domains it_helpdesk customer_service] [--seeds 0 1]
        [--top 2] [--epochs 4] [--lrs 5e-5 2e-4] [--cs-train 400] [--cs-dev 200] [--threads 1] [--quick]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.backbone import Backbone  # noqa: E402
from agents.envs.routing import routing  # noqa: E402
from bench import probe_readers as readers  # noqa: E402
from bench.probe_encoder_lora import Stack  # noqa: E402
from training.mappo.featurizer import clause_featurizer  # noqa: E402
from training.plain_classifier import PlainClassifier, row_intents, row_text  # noqa: E402

DEV = {"it_helpdesk": "dev", "customer_service": "validation"}
CS_SETS = ("validation", "test", "handwritten", "handwritten_voices")
ARMS = ("plain", "evidence", "bce", "bce_lr", "bce+evidence", "setfit", "setfit+evidence")


class Vectors:
    """Unit sentence vectors of every text of a dataset through the stack's current weights."""

    def __init__(self, stack: Stack, texts: list[str]):
        started = time.process_time()
        with torch.no_grad():
            pooled = torch.nn.functional.normalize(stack.encode(texts), dim=1)
        self.of = dict(zip(texts, pooled, strict=True))
        self.cpu_s = time.process_time() - started

    def embed(self, texts: list[str]) -> torch.Tensor:
        return torch.stack([self.of[t] for t in texts])


def exact_match(probabilities: np.ndarray, rows: list[dict], names: tuple[str, ...]) -> float:
    truth = np.array([[n in row_intents(r) for n in names] for r in rows])
    return float((PlainClassifier.chosen(probabilities) == truth).all(1).mean())


def labels_of(rows: list[dict], names: tuple[str, ...]) -> torch.Tensor:
    return torch.tensor([[n in row_intents(r) for n in names] for r in rows], dtype=torch.float32)


def evidence_probabilities(backbone, data, names, sets, plain_p, seed) -> dict[str, np.ndarray]:
    """Today's evidence per set: the clause reader's probability averaged with the plain classifier's."""
    featurize = clause_featurizer(backbone, keywords=True, environment=readers.Environment(data["params"]))
    dim = backbone.dim + featurize.evidence_dim
    with torch.no_grad():  # the tunable layers require gradients: keep the encoder out of the reader's fit
        blocks, wholes, y = readers.encode(featurize, backbone, names, data["train"])
    reader = readers.fit_reader(
        blocks, wholes, torch.tensor(y, dtype=torch.float32), dim, featurize.evidence_dim, False, seed
    )
    out = {}
    with torch.no_grad():
        for k, rows in sets.items():
            logits = reader.logits(readers.encode(featurize, backbone, names, rows)[0].unsqueeze(1))[:, 0]
            out[k] = (torch.sigmoid(logits).numpy() + plain_p[k]) / 2
    return out


class Tuning:
    """The tunable top layers of a stack: snapshots, restoring the bare weights, the parameters."""

    def __init__(self, stack: Stack):
        self.stack, self.layers = stack, stack.bert.encoder.layer[stack.cut :]
        self.bare = self.snapshot()
        for p in self.parameters():  # the backbone loads frozen
            p.requires_grad_(True)

    def parameters(self) -> list[torch.nn.Parameter]:
        return [p for layer in self.layers for p in layer.parameters()]

    def snapshot(self) -> list[dict]:
        return [copy.deepcopy(layer.state_dict()) for layer in self.layers]

    def load(self, states: list[dict]) -> None:
        for layer, state in zip(self.layers, states, strict=True):
            layer.load_state_dict(state)


def batches(n: int, size: int, gen: torch.Generator) -> list[list[int]]:
    return [b.tolist() for b in torch.randperm(n, generator=gen).split(size)]


def bce_epoch(stack, head, optimizer, texts, y, gen, batch) -> None:
    for idx in batches(len(texts), batch, gen):
        pooled = torch.nn.functional.normalize(stack.encode([texts[i] for i in idx], grad=True), dim=1)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(head(pooled), y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def pairs_of(rows: list[dict], rng: random.Random) -> list[tuple[int, int, float]]:
    """Per ticket one partner with the same intent set (where another has it) and one drawn at random;
    the target is the Jaccard overlap of the two intent sets."""
    sets = [frozenset(row_intents(r)) for r in rows]
    by_set: dict[frozenset, list[int]] = {}
    for i, s in enumerate(sets):
        by_set.setdefault(s, []).append(i)
    out = []
    for i, s in enumerate(sets):
        same = [j for j in by_set[s] if j != i]
        partners = ([rng.choice(same)] if same else []) + [rng.randrange(len(rows))]
        out += [(i, j, len(s & sets[j]) / max(1, len(s | sets[j]))) for j in partners]
    return out


def setfit_epoch(stack, optimizer, texts, rows, rng, batch) -> None:
    pairs = pairs_of(rows, rng)
    rng.shuffle(pairs)
    for start in range(0, len(pairs), batch):
        chunk = pairs[start : start + batch]
        a = stack.encode([texts[i] for i, _, _ in chunk], grad=True)
        b = stack.encode([texts[j] for _, j, _ in chunk], grad=True)
        target = torch.tensor([t for _, _, t in chunk])
        loss = torch.nn.functional.mse_loss(torch.nn.functional.cosine_similarity(a, b), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def plain_on(vectors: Vectors, train: list[dict], names) -> PlainClassifier:
    return PlainClassifier.fit(vectors.embed, train, names)


def fit_arm(arm: str, ctx: dict, lr: float, seed: int, args) -> dict[str, Any]:
    """One fine-tuning run of ``arm`` at ``lr``; the epoch with the best dev exact match (0 = untuned)
    is kept. Returns its dev score, epoch, layer states, head and seconds."""
    stack, tuning, train, dev, names = ctx["stack"], ctx["tuning"], ctx["train"], ctx["dev"], ctx["names"]
    tuning.load(tuning.bare)
    torch.manual_seed(seed)
    gen, rng = torch.Generator().manual_seed(seed), random.Random(seed)
    texts, y = [row_text(r) for r in train], labels_of(train, names)
    head = torch.nn.Linear(stack.backbone.dim, len(names))
    weight, bias = ctx["plain"].linear()  # epoch 0 of the bce arm is the plain classifier
    with torch.no_grad():
        head.weight.copy_(torch.as_tensor(weight, dtype=torch.float32))
        head.bias.copy_(torch.as_tensor(bias, dtype=torch.float32))
    groups = [{"params": tuning.parameters(), "lr": lr}]
    if arm == "bce":
        groups.append({"params": head.parameters(), "lr": args.head_lr})
    optimizer = torch.optim.AdamW(groups, weight_decay=0.01)
    fit_s = encode_s = 0.0

    def dev_score() -> float:
        nonlocal encode_s
        vectors = Vectors(stack, texts + [row_text(r) for r in dev] if arm == "setfit" else ctx["dev_texts"])
        encode_s += vectors.cpu_s
        if arm == "bce":
            with torch.no_grad():
                p = torch.sigmoid(head(vectors.embed(ctx["dev_texts"]))).numpy()
        else:
            p = plain_on(vectors, train, names).probabilities(ctx["dev_texts"])
        return exact_match(p, dev, names)

    best = {"dev": dev_score(), "epoch": 0, "states": tuning.bare, "head": copy.deepcopy(head.state_dict())}
    history = [best["dev"]]
    for epoch in range(1, args.epochs + 1):
        started = time.process_time()
        if arm == "bce":
            bce_epoch(stack, head, optimizer, texts, y, gen, args.batch)
        else:
            setfit_epoch(stack, optimizer, texts, train, rng, args.batch)
        fit_s += time.process_time() - started
        history.append(dev_score())
        print(
            f"      epoch {epoch}: dev {history[-1]:.3f}, fit {fit_s:.0f} CPU s", file=sys.stderr, flush=True
        )
        if history[-1] > best["dev"]:
            best = {"dev": history[-1], "epoch": epoch, "states": tuning.snapshot(),
                    "head": copy.deepcopy(head.state_dict())}  # fmt: skip
    head.load_state_dict(best["head"])
    print(f"    {arm} lr {lr}: dev by epoch {history}", file=sys.stderr, flush=True)
    return best | {"lr": lr, "head_module": head, "dev_history": history, "fit_cpu_s": fit_s,
                   "dev_encode_cpu_s": encode_s}  # fmt: skip


def scored(arm: str, best: dict, ctx: dict) -> tuple[dict[str, np.ndarray], float]:
    """Per set the probabilities of ``arm`` with its chosen weights, and the CPU seconds of encoding."""
    ctx["tuning"].load(best["states"])
    vectors = Vectors(ctx["stack"], ctx["all_texts"])
    if arm == "bce":
        head = best["head_module"]
        with torch.no_grad():
            probs = {k: torch.sigmoid(head(vectors.embed([row_text(r) for r in rows]))).numpy()
                     for k, rows in ctx["sets"].items()}  # fmt: skip
        refit = plain_on(vectors, ctx["train"], ctx["names"])
        probs |= {
            f"lr:{k}": refit.probabilities([row_text(r) for r in rows]) for k, rows in ctx["sets"].items()
        }
    else:
        refit = plain_on(vectors, ctx["train"], ctx["names"])
        probs = {k: refit.probabilities([row_text(r) for r in rows]) for k, rows in ctx["sets"].items()}
    ctx["tuning"].load(ctx["tuning"].bare)
    return probs, vectors.cpu_s


def run_seed(ctx: dict, seed: int, args) -> dict[str, Any]:
    sets, names = ctx["sets"], ctx["names"]
    score = {k: (lambda p, k=k: exact_match(p, sets[k], names)) for k in sets}
    evidence = evidence_probabilities(ctx["backbone"], ctx["data"], names, sets, ctx["plain_p"], seed)
    out: dict[str, Any] = {"seed": seed, "evidence": {k: score[k](evidence[k]) for k in sets}}
    print(f"  seed {seed} evidence: {out['evidence']}", file=sys.stderr, flush=True)
    out["selection"], out["cpu_s"] = {}, {}
    for arm in ("bce", "setfit"):
        runs = [fit_arm(arm, ctx, lr, seed, args) for lr in args.lrs]
        best = max(runs, key=lambda r: (r["dev"], -r["epoch"]))  # ties: the less-tuned run
        probs, encode_s = scored(arm, best, ctx)
        out[arm] = {k: score[k](probs[k]) for k in sets}
        out[f"{arm}+evidence"] = {k: score[k]((probs[k] + evidence[k]) / 2) for k in sets}
        if arm == "bce":
            out["bce_lr"] = {k: score[k](probs[f"lr:{k}"]) for k in sets}
        out["selection"][arm] = {"lr": best["lr"], "epoch": best["epoch"], "dev": best["dev"],
                                 "dev_by_lr": {str(r["lr"]): r["dev_history"] for r in runs}}  # fmt: skip
        out["cpu_s"][arm] = {"fine_tune": round(sum(r["fit_cpu_s"] for r in runs), 1),
                             "dev_encode": round(sum(r["dev_encode_cpu_s"] for r in runs), 1),
                             "encode_all": round(encode_s, 1)}  # fmt: skip
        print(
            f"  seed {seed} {arm}: {out[arm]} (+evidence {out[f'{arm}+evidence']})",
            file=sys.stderr,
            flush=True,
        )
    return out


def dataset(name: str, args) -> dict[str, Any]:
    data = readers.datasets()[name]
    if name == "customer_service":  # a 2-core machine: a modest, fixed random subset of the training rows
        data["train"] = random.Random(0).sample(data["train"], min(args.cs_train, len(data["train"])))
        data["sets"] = {k: data["sets"][k] for k in CS_SETS}
        data["sets"]["validation"] = data["sets"]["validation"][: args.cs_dev]
    if args.quick:
        data["train"] = data["train"][:40]
        data["sets"] = {k: v[:12] for k, v in data["sets"].items()}
    return data


def run_domain(name: str, backbone: Backbone, stack: Stack, tuning: Tuning, args) -> dict[str, Any]:
    started = time.perf_counter()
    data = dataset(name, args)
    names = tuple(routing().catalogue(data["params"]).names)
    train, sets = data["train"], data["sets"]
    all_texts = list(
        dict.fromkeys([row_text(r) for r in train] + [row_text(r) for v in sets.values() for r in v])
    )
    frozen = Vectors(stack, all_texts)
    plain = plain_on(frozen, train, names)
    plain_p = {k: plain.probabilities([row_text(r) for r in rows]) for k, rows in sets.items()}
    ctx = {"stack": stack, "tuning": tuning, "backbone": backbone, "data": data, "names": names,
           "train": train, "sets": sets, "dev": sets[DEV[name]], "dev_texts": [row_text(r) for r in sets[DEV[name]]],
           "all_texts": all_texts, "plain": plain, "plain_p": plain_p}  # fmt: skip
    out: dict[str, Any] = {
        "rows": {"train": len(train)} | {k: len(v) for k, v in sets.items()},
        "plain": {k: exact_match(plain_p[k], sets[k], names) for k in sets},
        "frozen_encode_cpu_s": round(frozen.cpu_s, 1),
        "seeds": [run_seed(ctx, s, args) for s in args.seeds],
    }
    out["mean"] = {arm: {k: round(statistics.mean(s[arm][k] for s in out["seeds"]), 4) for k in sets}
                   for arm in ARMS[1:]}  # fmt: skip
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True)
    parser.add_argument(
        "--domains", nargs="+", default=["it_helpdesk", "customer_service"], choices=list(DEV)
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--top", type=int, default=2, help="tune the top N transformer layers (6: all)")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lrs", type=float, nargs="+", default=[5e-5, 2e-4], help="encoder learning rates")
    parser.add_argument("--head-lr", type=float, default=1e-2, help="the bce arm's head")
    parser.add_argument("--batch", type=int, default=16, help="tickets (bce) or pairs (setfit) per step")
    parser.add_argument("--cs-train", type=int, default=400, help="customer-service training rows (subset)")
    parser.add_argument("--cs-dev", type=int, default=200, help="first N validation rows to choose on")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="smoke run: IT only, 40 rows, 1 epoch, 1 seed")
    args = parser.parse_args(argv)
    if args.quick:
        args.domains, args.seeds, args.epochs, args.lrs, args.top = ["it_helpdesk"], [0], 1, args.lrs[:1], 1
    torch.set_num_threads(args.threads)
    backbone = Backbone.load("default")
    stack = Stack(backbone, args.top)
    tuning = Tuning(stack)
    report: dict[str, Any] = {"args": vars(args)}
    for name in args.domains:
        report[name] = run_domain(name, backbone, stack, tuning, args)
        print(name, json.dumps(report[name]["mean"]), file=sys.stderr, flush=True)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
