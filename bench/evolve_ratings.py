"""Evolution benchmark, section ``ratings`` (`bench/evolve.py --sections ratings`): annotators' ratings of a
deployed team's replies, turned into a reward model, make the next generation's replies better by a
criterion the intent labels do not capture.

The hidden criterion (written down before anything was measured, never shown to the learner):

- a ticket whose text is upset or urgent (`UPSET`: words of anger, disappointment or time pressure, or an
  exclamation mark) is well served by a reply that opens with an apology ("apologetic");
- otherwise a short ticket (at most `SHORT_WORDS` words) by a short reply ("brief");
- otherwise by the reply as the templates write it ("plain"). The fourth style ("steps") serves none.

A simulated annotator rates a reply 1–5 stars: about 4.5 in the wanted style, 3 for a plain reply where
another was wanted, 2 for any other style, with Gaussian noise (σ = `NOISE_STARS`) and a share
`CARELESS` of ratings drawn at random (a careless or hostile rater).

Steps, through library calls (`training.reward_model`, `training.reply_writer`, `serving.generation`):
1. Traffic: the repository's customer-service tickets (test, validation, holdout styles, the two
   hand-written sets), shuffled with ``seed`` and split into *rated*, *writer* (the traffic the next
   generation trains on) and *unseen* (never rated, never trained on) tickets.
2. Replies are the template replies to each ticket's labelled intents (one part per intent, as one
   agent per intent writes them): what a champion that routes right writes; the criterion reads only
   the reply's style, so routing errors would only add noise.
3. The deployment serves a uniformly drawn style to the rated tickets (a writer that explores: ratings of
   plain replies alone say nothing about the other styles); each gets ``raters`` ratings, their mean is
   the item's rating. The ratings reward model (`RatingHead`) reads, by ``reader``: ``joined``, one
   embedding of "Task: ticket / Reply: reply" as the feedback app's reward models read a rated episode;
   ``pair``, `pair_features` of the ticket's and the reply's embeddings apart.
4. One generation: unless the reward model is untrusted (`untrusted_reward_model`: held-out accuracy no
   better than the most common star), the writer head is trained by REINFORCE on the *writer* tickets
   with the reward model's score of (ticket, reply in the sampled style) as reward; the routing team is
   not touched.
5. ``before`` is the criterion's share on the unseen tickets with every reply plain (today), ``after``
   with the next generation's styles (plain everywhere when the writer was refused);
   ``after_if_not_refused`` what the writer trained anyway would have scored, and
   ``after_with_true_reward`` the same writer trained on the annotators' noiseless mean rating (no
   reward model): the ceiling of the writer on its input.

The writer's hyper-parameters (`WriterConfig`) were chosen on the rated tickets with the noiseless reward,
never on the unseen ones; the reward model's are `training.reward_model`'s defaults.

    python bench/evolve_ratings.py --out F.json [--ratings 500] [--reader joined|pair] [--quick]
    python bench/evolve.py --sections ratings --out F.json [--quick]
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "customer_service"
SETS = ("test", "validation", "holdout_styles", "handwritten", "handwritten_voices")
UPSET = re.compile(
    r"!|\b(urgent\w*|asap|immediately|right away|hurry|angry|furious|upset|unhappy|unacceptable|"
    r"ridiculous|shocking|disgust\w*|appall\w*|fed up|sick of|annoy\w*|frustrat\w*|disappoint\w*|"
    r"terrible|awful|worst|useless|outrage\w*|livid|still waiting)\b",
    re.I,
)
SHORT_WORDS = 12
NOISE_STARS = 0.8
CARELESS = 0.1
TEAM = "Support"


def wanted_style(ticket: str) -> str:
    """The hidden criterion: the style that serves ``ticket`` well."""
    if UPSET.search(ticket):
        return "apologetic"
    return "brief" if len(ticket.split()) <= SHORT_WORDS else "plain"


def mean_stars(ticket: str, style: str) -> float:
    """What a careful annotator gives, before noise."""
    return 4.5 if style == wanted_style(ticket) else 3.0 if style == "plain" else 2.0


def rate(ticket: str, style: str, rng: random.Random) -> int:
    """One simulated annotator's stars for a reply to ``ticket`` written in ``style``."""
    if rng.random() < CARELESS:
        return rng.randint(1, 5)
    return max(1, min(5, round(mean_stars(ticket, style) + rng.gauss(0.0, NOISE_STARS))))


def reply_text(ticket: dict, style: str) -> str:
    from serving.generation.styles import styled_parts
    from serving.generation.template import join_reply, write_part

    parts = [write_part(ticket["text"], [intent]) for intent in ticket["intents"]]
    return join_reply(styled_parts(style, parts), TEAM)


def traffic(seed: int) -> list[dict]:
    import json

    rows = []
    for name in SETS:
        for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                rows.append({"text": row["text"], "intents": sorted(row["intents"])})
    random.Random(seed).shuffle(rows)
    return rows


def share(chosen: list[str], tickets: list[dict]) -> float:
    """The criterion's share: replies written in the style their ticket wants."""
    return sum(c == wanted_style(t["text"]) for c, t in zip(chosen, tickets, strict=True)) / len(tickets)


class HashedWords:
    """The ``--quick`` encoder: hashed word and punctuation counts, unit length (no model file, instant).
    It stands in for the team's backbone only in the smoke run, so that a test sees the loop learn."""

    def __init__(self, dim: int = 512):
        self.dim = dim

    def encode(self, texts: list[str]):
        import zlib

        import torch

        out = torch.zeros(len(texts), self.dim)
        for row, text in enumerate(texts):
            for token in re.findall(r"[a-z0-9']+|[!?]", text.lower()):
                out[row, zlib.crc32(token.encode()) % self.dim] += 1.0
        return out


def encoders(backbone: str | None):
    """(ticket encoder, reader): the team's backbone as it embeds a ticket, and the same model reading
    what the reward model judges (up to 256 tokens, as the feedback app's reward models read);
    ``None``: `HashedWords` for both."""
    if backbone is None:
        return HashedWords(), HashedWords()
    from agents.backbone import Backbone

    return (
        Backbone.load(backbone, pooling="mean", max_length=64),  # the shipped team's backbone settings
        Backbone.load(backbone, pooling="mean", max_length=256),
    )


def judged_text(ticket: str, reply: str) -> str:
    """What the ``joined`` reward model reads: the task and reply lines of the text the feedback app's
    reward models read (`mase_web.feedback.snapshots.snapshot_text`)."""
    return f"Task: {ticket}\nReply: {' '.join(reply.split())}"


def ratings(
    n_ratings: int = 500,
    n_writer: int = 700,
    n_unseen: int = 500,
    raters: int = 1,
    seed: int = 0,
    backbone: str | None = "default",
    updates: int = 1000,
    reader: str = "crossed",
    explore: float = 0.75,
) -> dict[str, Any]:
    """``evolve.ratings``: the criterion's share on unseen traffic before and after one generation."""
    import torch

    from training.reply_writer import (
        EMBEDDING,
        STYLES,
        SURFACE,
        WITH_SURFACE,
        WriterConfig,
        ticket_features,
        train_writer,
    )

    started = time.perf_counter()
    pool = traffic(seed)
    end = n_ratings + n_writer + n_unseen
    if len(pool) < end:
        raise SystemExit(f"the traffic holds {len(pool)} tickets: fewer than the {end} asked")
    rated, writer, unseen = (
        pool[:n_ratings],
        pool[n_ratings : n_ratings + n_writer],
        pool[end - n_unseen : end],
    )
    ticket_encoder, reply_encoder = encoders(backbone)
    embedded = {}

    def vectors(rows: list[dict]) -> torch.Tensor:  # the ticket's embedding, unit length, as serving embeds
        key = id(rows)
        if key not in embedded:
            raw = ticket_encoder.encode([r["text"] for r in rows]).float()
            embedded[key] = torch.nn.functional.normalize(raw, dim=-1)
        return embedded[key]

    inputs = EMBEDDING if reader in ("crossed_embedding", "joined", "pair") else WITH_SURFACE

    def writer_rows(rows: list[dict], what: str = inputs) -> torch.Tensor:  # what the writer reads
        return (
            ticket_features(vectors(rows), [r["text"] for r in rows])
            if what == WITH_SURFACE
            else vectors(rows)
        )

    # the ratings: the deployment serves its champion's style (plain) to the rated tickets but a declared share
    # ``explore`` of them, which get one of the other styles drawn uniformly (0.75: every style equally often)
    rng = random.Random(seed + 1)
    served = [STYLES[0] if rng.random() >= explore else rng.choice(STYLES[1:]) for _ in rated]
    stars = [
        sum(rate(t["text"], s, rng) for _ in range(raters)) / raters
        for t, s in zip(rated, served, strict=True)
    ]
    if reader.startswith("crossed"):
        table, refused, model_figures = crossed_table(
            writer_rows(rated),
            served,
            stars,
            writer_rows(writer),
            seed,
            tail=len(SURFACE) if inputs == WITH_SURFACE else 0,
        )
    else:
        table, refused, model_figures = text_table(
            rated, served, stars, writer, reader, vectors, reply_encoder, seed
        )

    def train(reward: torch.Tensor, what: str = inputs):  # one generation of the writer on ``reward``
        return train_writer(writer_rows(writer, what), lambda idx, act: reward[idx, act],
                            WriterConfig(updates=updates, seed=seed), inputs=what)  # fmt: skip

    head, trained = train(table)
    trained_choice = head.choose(writer_rows(unseen))
    chosen = [STYLES[0]] * len(unseen) if refused else trained_choice  # refused: the generation stays plain
    # the writer's ceilings: the same training with the annotators' noiseless mean as reward (no reward model),
    # on its inputs and on the ticket's embedding alone (the writer of decision 0029)
    truth = torch.tensor([[(mean_stars(t["text"], s) - 1) / 4 for s in STYLES] for t in writer])
    ceiling, _ = train(truth)
    embedding_ceiling, _ = train(truth, EMBEDDING)
    wanted = [wanted_style(t["text"]) for t in unseen]
    before, after = share([STYLES[0]] * len(unseen), unseen), share(chosen, unseen)
    return {
        "before": before,
        "after": after,
        "gain_points": 100 * (after - before),
        "writer_refused": refused,
        "after_if_not_refused": share(trained_choice, unseen),
        "after_with_true_reward": share(ceiling.choose(writer_rows(unseen)), unseen),
        "after_with_true_reward_embedding_only": share(
            embedding_ceiling.choose(writer_rows(unseen, EMBEDDING)), unseen
        ),
        "criterion_ceiling": 1.0,  # the criterion is a function of the ticket's text: a learner that knew it
        "ratings": len(rated) * raters,
        "rated_items": len(rated),
        "explore": explore,
        "served_share": {s: served.count(s) / len(served) for s in STYLES},
        "writer_tickets": len(writer),
        "unseen": len(unseen),
        "wanted_share": {s: wanted.count(s) / len(wanted) for s in STYLES},
        "chosen_share": {s: chosen.count(s) / len(chosen) for s in STYLES},
        "reward_model": model_figures,
        "writer": {k: v for k, v in trained.items() if k != "chosen"},
        "encoder": backbone or "hashed words (--quick)",
        "reader": reader,
        "seconds": round(time.perf_counter() - started, 1),
    }


def crossed_table(rated_rows, served, stars, writer_rows, seed: int, tail: int):
    """The (ticket, style) reward model (`training.style_reward`) on the writer's inputs: its [writer tickets,
    styles] rewards, why it is refused (None: trusted) and its held-out figures."""
    from dataclasses import asdict

    from training.style_reward import train_style_reward, untrusted_style_reward

    model, metrics = train_style_reward(rated_rows, served, stars, seed=seed, tail=tail)
    return model.reward(writer_rows), untrusted_style_reward(metrics), asdict(metrics)


def text_table(rated, served, stars, writer, reader: str, vectors, reply_encoder, seed: int):
    """The feedback app's ratings reward model (`RatingHead`) on the judged text (``joined``: one embedding of
    "Task / Reply"; ``pair``: `pair_features` of ticket and reply apart), as decision 0029 measured it."""
    import torch

    from training.reply_writer import STYLES, pair_features, untrusted_reward_model
    from training.reward_model import train_reward_model

    def judged(rows: list[dict], styles: list[str]) -> torch.Tensor:
        replies = [reply_text(t, s) for t, s in zip(rows, styles, strict=True)]
        if reader == "joined":
            return reply_encoder.encode(
                [judged_text(t["text"], r) for t, r in zip(rows, replies, strict=True)]
            )
        return pair_features(vectors(rows), reply_encoder.encode(replies))

    model, m = train_reward_model(judged(rated, served), stars, seed=seed)
    table = torch.stack([model.reward(judged(writer, [s] * len(writer))) for s in STYLES], dim=1)
    refused = untrusted_reward_model(m.accuracy, m.baseline_accuracy, m.n_heldout)
    figures = {
        "accuracy": m.accuracy,
        "baseline_accuracy": m.baseline_accuracy,
        "mae": m.mae,
        "n_heldout": m.n_heldout,
    }
    return table, refused, figures


QUICK = {"n_ratings": 500, "n_writer": 800, "n_unseen": 400, "backbone": None}


def section(
    quick: bool, seed: int = 0, n_ratings: int | None = None, reader: str = "crossed", explore: float = 0.75
) -> dict[str, Any]:
    """``evolve.ratings`` as `bench/evolve.py --sections ratings` measures it (``--quick``: `QUICK`)."""
    kwargs: dict[str, Any] = dict(QUICK) if quick else {}
    if n_ratings is not None:
        kwargs["n_ratings"] = n_ratings
    kwargs["reader"], kwargs["explore"] = reader, explore
    return {"quick": quick, **ratings(seed=seed, **kwargs)}


def main() -> None:
    import argparse
    import json

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--ratings", type=int, default=None, help="rated replies (default 500; --quick 300)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--reader",
        choices=["crossed", "crossed_embedding", "joined", "pair"],
        default="crossed",
        help="what the ratings reward model reads",
    )
    parser.add_argument(
        "--explore", type=float, default=0.75, help="share of rated replies in a non-plain style"
    )
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    figures = section(args.quick, args.seed, args.ratings, args.reader, args.explore)
    Path(args.out).write_text(json.dumps({"evolve": {"ratings": figures}}, indent=2))
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(ROOT))
    main()
