"""Does a LoRA adapter on the encoder's attention projections make the clause readers read intents better?

The customer-service team reads tickets through frozen all-MiniLM-L6-v2 clause vectors and a small
clause reader (an MLP scoring every clause, max-pooled per intent; `training.offline.pretrain_reader`).
This probe isolates that reader (no RL): it fits it on the training split's intents and scores the
intent set it reads (exact match, micro F1) on the validation ("dev"), test, holdout-styles and
hand-written tickets. Arms, each on the same seeds:

- ``frozen``: today's recipe — clause vectors of the bare encoder, the reader fitted full-batch with Adam
  (300 epochs, lr 3e-3, weight decay 1e-4), as `pretrain_reader` does;
- ``shared``: the frozen arm's reader, then one LoRA adapter on the encoder's attention projections and the
  reader trained together (mini-batches of tickets, every clause through the encoder with gradients) for
  `--epochs`; the epoch kept is the one with the best dev exact match;
- ``roles``: the same, one adapter and reader per specialist, each on its own intents only; a ticket's
  intent set is the union of the specialists' readings.

The hand-written tickets are never used for fitting or selection (out-of-distribution check only).

    python bench/probe_encoder_lora.py --out /tmp/probe.json [--arms frozen shared roles] [--seeds 0 1]
                                       [--epochs 4] [--rank 8] [--targets query key value]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from agents.backbone import Backbone  # noqa: E402
from agents.envs.customer_service.clauses import split_clauses  # noqa: E402
from agents.envs.customer_service.roster import DEFAULT_INTENTS  # noqa: E402
from agents.envs.customer_service.tickets import INTENTS, load_tickets  # noqa: E402
from training.mappo.featurizer import CLAUSE_SLOTS  # noqa: E402

HANDWRITTEN = ROOT / "data" / "customer_service" / "handwritten.jsonl"
SPLITS = {"dev": "validation", "test": "test", "holdout": "holdout_styles", "handwritten": str(HANDWRITTEN)}


class Clauses:
    """A ticket file cut into clauses the way the featurizer cuts it (at most CLAUSE_SLOTS per ticket)."""

    def __init__(self, tickets: list[Any]):
        pieces = [split_clauses(t.text, limit=CLAUSE_SLOTS) for t in tickets]
        self.texts = [p for ps in pieces for p in ps]
        self.segments = torch.tensor([i for i, ps in enumerate(pieces) for _ in ps])
        self.starts = torch.tensor([0] + [len(ps) for ps in pieces]).cumsum(0)
        self.labels = torch.tensor([[i in t.intents for i in INTENTS] for t in tickets], dtype=torch.float32)
        self.n = len(tickets)


class Reader(torch.nn.Module):
    """One clause reader (the architecture of `training.mappo.networks.ClauseReader` for one agent)."""

    def __init__(self, dim: int, hidden: int, outputs: int):
        super().__init__()
        self.l1, self.l2 = torch.nn.Linear(dim, hidden), torch.nn.Linear(hidden, outputs)

    def pooled(self, vectors: torch.Tensor, segments: torch.Tensor, n: int) -> torch.Tensor:
        per_clause = self.l2(torch.relu(self.l1(vectors)))
        out = torch.full((n, per_clause.shape[1]), -1e4)
        return out.scatter_reduce(0, segments.unsqueeze(1).expand_as(per_clause), per_clause, "amax")


def scores(logits: torch.Tensor, truth: torch.Tensor) -> dict[str, float]:
    predicted, truth = logits > 0, truth.bool()
    tp = (predicted & truth).sum().item()
    wrong = (predicted ^ truth).sum().item()
    return {
        "exact_match": round(float((predicted == truth).all(1).float().mean()), 4),
        "intent_f1": round(2 * tp / max(1, 2 * tp + wrong), 4),
    }


class Stack:
    """The encoder cut in two: frozen lower layers whose token states are cached once per text, and the
    top `top` layers (where the LoRA layers go) run on those states — with gradients while fitting.

    Mean pooling of the top layers' output under the mask is `Backbone.encode` (checked in `main`).
    """

    def __init__(self, backbone: Backbone, top: int):
        self.backbone, self.bert = backbone, backbone.model
        self.cut = len(self.bert.encoder.layer) - top
        self.states: dict[str, torch.Tensor] = {}

    def _mask(self, h: torch.Tensor, mask: torch.Tensor) -> Any:
        from transformers.masking_utils import create_bidirectional_mask

        return create_bidirectional_mask(config=self.bert.config, inputs_embeds=h, attention_mask=mask)

    def cache(self, texts: list[str], batch: int = 128) -> None:
        """Token states after the frozen lower layers, for every text not cached yet (sorted by length)."""
        tok = self.backbone.tokenizer
        missing = sorted(set(texts) - set(self.states), key=len)
        with torch.no_grad():
            for i in range(0, len(missing), batch):
                chunk = missing[i : i + batch]
                enc = tok(
                    chunk,
                    padding=True,
                    truncation=True,
                    max_length=self.backbone.max_length,
                    return_tensors="pt",
                )
                h = self.bert.embeddings(input_ids=enc["input_ids"], token_type_ids=enc.get("token_type_ids"))
                m = self._mask(h, enc["attention_mask"])
                for layer in self.bert.encoder.layer[: self.cut]:
                    h = layer(h, m)
                for text, states, real in zip(chunk, h, enc["attention_mask"].bool(), strict=True):
                    self.states[text] = states[real].clone()

    def encode(self, texts: list[str], grad: bool = False, batch: int = 256) -> torch.Tensor:
        """Mean-pooled vectors of `texts` through the top layers (and whatever LoRA layers they carry)."""
        self.cache(texts)
        # without gradients, batch texts of similar length (less padding) and put the rows back in order
        order = (
            list(range(len(texts)))
            if grad
            else sorted(range(len(texts)), key=lambda i: len(self.states[texts[i]]))
        )
        out = []
        with torch.set_grad_enabled(grad):
            for i in range(0, len(texts), batch):
                rows = [self.states[texts[j]] for j in order[i : i + batch]]
                length = max(len(r) for r in rows)
                h = torch.zeros(len(rows), length, rows[0].shape[1])
                mask = torch.zeros(len(rows), length, dtype=torch.long)
                for j, r in enumerate(rows):
                    h[j, : len(r)], mask[j, : len(r)] = r, 1
                m = self._mask(h, mask)
                for layer in self.bert.encoder.layer[self.cut :]:
                    h = layer(h, m)
                out.append(self.backbone._pool(h, mask))
        pooled = torch.cat(out)
        return pooled if grad else pooled[torch.tensor(order).argsort()]


def fit_frozen(vectors: torch.Tensor, data: Clauses, outputs: list[int], seed: int) -> Reader:
    """`pretrain_reader`'s fit: full-batch Adam on binary cross-entropy over max-pooled clause logits."""
    torch.manual_seed(seed)
    reader = Reader(vectors.shape[1], 128, len(outputs))
    optimizer = torch.optim.Adam(reader.parameters(), lr=3e-3, weight_decay=1e-4)
    y = data.labels[:, outputs]
    for _ in range(300):
        loss = torch.nn.functional.binary_cross_entropy_with_logits(
            reader.pooled(vectors, data.segments, data.n), y
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return reader


def attach_lora(stack: Stack, rank: int, targets: list[str]) -> tuple[Any, list[torch.nn.Parameter]]:
    """Fresh LoRA layers on the attention projections of the top layers only (the cached ones stay bare)."""
    from peft import LoraConfig, get_peft_model

    layers = list(range(stack.cut, len(stack.bert.encoder.layer)))
    config = LoraConfig(
        r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules=targets, layers_to_transform=layers
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped = get_peft_model(stack.bert, config)
    return wrapped, [p for n, p in wrapped.named_parameters() if "lora_" in n]


def fit_lora(
    stack: Stack,
    reader: Reader,
    train: Clauses,
    dev: Clauses,
    outputs: list[int],
    args: argparse.Namespace,
    seed: int,
) -> tuple[Any, dict[str, Any]]:
    """LoRA on the encoder's top layers plus the (warm) reader, mini-batches of tickets; keep the best dev
    epoch. Returns the PEFT wrapper (call `unload()` to take the LoRA layers out again) and the history."""
    torch.manual_seed(seed)
    wrapped, lora = attach_lora(stack, args.rank, args.targets)
    optimizer = torch.optim.AdamW(
        [{"params": lora, "lr": args.lr}, {"params": reader.parameters(), "lr": args.reader_lr}],
        weight_decay=1e-4,
    )
    y = train.labels[:, outputs]
    gen = torch.Generator().manual_seed(seed)

    def dev_em() -> float:
        with torch.no_grad():
            logits = reader.pooled(stack.encode(dev.texts), dev.segments, dev.n)
        return scores(logits, dev.labels[:, outputs])["exact_match"]

    def snapshot() -> tuple:
        return copy.deepcopy(reader.state_dict()), [p.detach().clone() for p in lora]

    best = (dev_em(), 0, snapshot())
    history = [{"epoch": 0, "dev_exact_match": best[0]}]
    for epoch in range(1, args.epochs + 1):
        started, losses = time.perf_counter(), []
        for idx in torch.randperm(train.n, generator=gen).split(args.batch):
            texts, segments = [], []  # the batch's clauses, segment ids renumbered 0..len(idx)-1
            for j, i in enumerate(idx.tolist()):
                a, b = int(train.starts[i]), int(train.starts[i + 1])
                texts += train.texts[a:b]
                segments += [j] * (b - a)
            logits = reader.pooled(stack.encode(texts, grad=True), torch.tensor(segments), len(idx))
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(float(loss.detach()))
        fit_s = time.perf_counter() - started
        em = dev_em()
        history.append(
            {
                "epoch": epoch,
                "loss": round(statistics.mean(losses), 4),
                "dev_exact_match": em,
                "fit_s": round(fit_s, 1),
            }
        )
        print(f"    epoch {epoch}: {history[-1]}", file=sys.stderr, flush=True)
        if em > best[0]:
            best = (em, epoch, snapshot())
    reader.load_state_dict(best[2][0])
    with torch.no_grad():
        for p, kept in zip(lora, best[2][1], strict=True):
            p.copy_(kept)
    return wrapped, {"best_epoch": best[1], "history": history}


def run_seed(
    args: argparse.Namespace,
    stack: Stack,
    data: dict[str, Clauses],
    frozen: dict[str, torch.Tensor],
    seed: int,
) -> dict[str, Any]:
    out: dict[str, Any] = {"seed": seed}
    evals = [k for k in data if k != "train"]
    started = time.perf_counter()
    reader = fit_frozen(frozen["train"], data["train"], list(range(len(INTENTS))), seed)
    with torch.no_grad():
        out["frozen"] = {
            k: scores(reader.pooled(frozen[k], data[k].segments, data[k].n), data[k].labels) for k in evals
        }
    out["frozen"]["fit_seconds"] = round(time.perf_counter() - started, 1)
    print(f"  seed {seed} frozen: {out['frozen']}", file=sys.stderr, flush=True)
    groups = {}
    if "shared" in args.arms:
        groups["shared"] = {"all": list(range(len(INTENTS)))}
    if "roles" in args.arms:
        groups["roles"] = {r: [INTENTS.index(i) for i in its] for r, its in DEFAULT_INTENTS.items() if its}
    for arm, roles in groups.items():
        started = time.perf_counter()
        logits = {k: torch.zeros(data[k].n, len(INTENTS)) for k in evals}
        detail = {}
        for role, outputs in roles.items():
            warm = fit_frozen(
                frozen["train"], data["train"], outputs, seed
            )  # today's reader, this role's outputs
            wrapped, detail[role] = fit_lora(stack, warm, data["train"], data["dev"], outputs, args, seed)
            with torch.no_grad():
                for k in evals:
                    logits[k][:, outputs] = warm.pooled(
                        stack.encode(data[k].texts), data[k].segments, data[k].n
                    )
            wrapped.unload()  # the bare top layers again, for the next fit
        out[arm] = {k: scores(v, data[k].labels) for k, v in logits.items()}
        out[arm]["seconds"] = round(time.perf_counter() - started, 1)
        out[arm]["fits"] = detail
        brief = {k: v for k, v in out[arm].items() if k != "fits"}
        print(f"  seed {seed} {arm}: {brief}", file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument(
        "--arms", nargs="+", default=["frozen", "shared"], choices=["frozen", "shared", "roles"]
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--epochs", type=int, default=4, help="LoRA epochs over the training tickets")
    parser.add_argument("--batch", type=int, default=32, help="tickets per LoRA step")
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-3, help="LoRA learning rate")
    parser.add_argument("--reader-lr", type=float, default=1e-3)
    parser.add_argument("--targets", nargs="+", default=["query", "key", "value"])
    parser.add_argument(
        "--top", type=int, default=2, help="LoRA on the top N encoder layers; the rest cached"
    )
    parser.add_argument("--train-limit", type=int, help="first N training tickets (a smoke run)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache", help="keep the lower layers' token states in this file between runs")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    train = load_tickets("train")[: args.train_limit]
    data = {"train": Clauses(train)} | {k: Clauses(load_tickets(v)) for k, v in SPLITS.items()}
    print({k: (d.n, len(d.texts)) for k, d in data.items()}, file=sys.stderr, flush=True)
    backbone = Backbone.load("default")
    stack = Stack(backbone, args.top)
    cache_file = Path(args.cache) if args.cache else None
    if cache_file is not None and cache_file.is_file():  # lower-layer token states of an earlier run
        stack.states.update(torch.load(cache_file)[f"cut{stack.cut}"] if cache_file.is_file() else {})
    started = time.perf_counter()
    frozen = {k: stack.encode(d.texts) for k, d in data.items()}  # the lower-layer cache is filled here
    cache_s = round(time.perf_counter() - started, 1)
    if cache_file is not None:
        torch.save({f"cut{stack.cut}": stack.states}, cache_file)
    check = data["dev"].texts[:16]
    with torch.no_grad():
        gap = float((stack.encode(check) - backbone.encode(check)).abs().max())
    print(
        f"cache + frozen vectors: {cache_s} s; |split - whole encoder| = {gap:.2e}",
        file=sys.stderr,
        flush=True,
    )
    started = time.perf_counter()
    runs = [run_seed(args, stack, data, frozen, s) for s in args.seeds]
    arms = [a for a in ("frozen", "shared", "roles") if a in runs[0]]
    summary = {
        arm: {
            k: statistics.median(r[arm][k]["exact_match"] for r in runs)
            for k in ("dev", "test", "holdout", "handwritten")
        }
        for arm in arms
    }
    out = {
        "args": vars(args),
        "summary_exact_match": summary,
        "cache_seconds": cache_s,
        "split_check_max_abs_diff": gap,
        "runs": runs,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    Path(args.out).write_text(json.dumps(out, indent=1))
    print(json.dumps(summary, indent=1), file=sys.stderr)
    return out


if __name__ == "__main__":
    main()
