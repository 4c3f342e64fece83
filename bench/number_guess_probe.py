"""How well can a frozen sentence encoder read number_guess clues it was never trained on?

For each benchmark variant of the `number_guess` environment this fits, per informant, a linear probe
on the frozen default backbone's embeddings (all-MiniLM-L6-v2) of the *training* paraphrases, and
scores it on the *held-out* paraphrases. The team ceiling is the share of held-out episodes in which
every informant's probe reads its digit correctly, i.e. the best a team that only learns heads on the
frozen encoder could reach on unseen phrasings. Two probe arms side by side: logistic regression and
nearest centroid (cosine).

    python bench/number_guess_probe.py --out probe.json [--quick]

Output keys are documented in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing


@dataclass(frozen=True)
class Args:
    """Hyper-parameters of the probe."""

    c: float = 10.0  # inverse L2 strength of the logistic-regression probe
    episodes: int = 2000  # held-out episodes per seed for the team ceiling
    seeds: int = 5  # episode-sampling seeds; the median is reported


VARIANTS = {
    "n16_bits_digits": {
        "n": 16,
        "informative": 4,
        "distractors": 2,
        "clue_kinds": ["bits"],
        "numbers": "digits",
    },
    "n64_ranges_digits": {
        "n": 64,
        "informative": 3,
        "distractors": 4,
        "clue_kinds": ["ranges", "remainders"],
        "numbers": "digits",
    },
    "n16_bits_words": {
        "n": 16,
        "informative": 4,
        "distractors": 2,
        "clue_kinds": ["bits"],
        "numbers": "words",
    },
    "n64_ranges_words": {
        "n": 64,
        "informative": 3,
        "distractors": 4,
        "clue_kinds": ["ranges", "remainders"],
        "numbers": "words",
    },
}
QUICK_VARIANTS = ("n16_bits_digits", "n64_ranges_digits")


def probe_variant(name: str, params: dict, embed, args: Args) -> dict:
    """Per-informant probe accuracies and the team ceiling on held-out templates for one variant."""
    from sklearn.linear_model import LogisticRegression

    from agents.envs.number_guess import NumberGuessEnv

    train = NumberGuessEnv(**params, templates="train")
    held = NumberGuessEnv(**params, templates="heldout")
    informants = [a for a in train.possible_agents if train.agent_kind(a) == "informative"]
    t_train, t_held = train.templates_per_clue(), held.templates_per_clue()
    result: dict = {
        "params": params,
        "templates_train": t_train,
        "templates_heldout": t_held,
        "informants": {},
    }
    readers = {}
    for agent in informants:
        x_tr = embed(train.vocabulary(agent))
        y_tr = np.arange(len(x_tr)) // t_train
        x_he = embed(held.vocabulary(agent))
        y_he = np.arange(len(x_he)) // t_held
        clf = LogisticRegression(C=args.c, max_iter=5000).fit(x_tr, y_tr)
        centroids = np.stack([x_tr[y_tr == d].mean(0) for d in range(int(y_tr.max()) + 1)])
        logreg_digit = clf.predict(x_he)
        centroid_digit = (x_he @ centroids.T).argmax(1)
        readers[agent] = (logreg_digit, centroid_digit)
        result["informants"][agent] = {
            "train_acc": float(clf.score(x_tr, y_tr)),
            "heldout_acc_logreg": float((logreg_digit == y_he).mean()),
            "heldout_acc_centroid": float((centroid_digit == y_he).mean()),
        }
    team = {"logreg": [], "centroid": []}
    for seed in range(args.seeds):
        batch = held.sample_batch(args.episodes, np.random.default_rng(seed), with_texts=False)
        for arm, k in (("logreg", 0), ("centroid", 1)):
            ok = np.ones(args.episodes, dtype=bool)
            for agent in informants:
                ok &= readers[agent][k][batch.text_ids[agent]] == held.digit_of(agent, batch.secrets)
            team[arm].append(float(ok.mean()))
    result["team_heldout_acc_logreg_median"] = statistics.median(team["logreg"])
    result["team_heldout_acc_centroid_median"] = statistics.median(team["centroid"])
    result["chance"] = 1.0 / params["n"]
    return result


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="JSON file to write")
    parser.add_argument("--quick", action="store_true", help="two variants, fewer episodes (under a minute)")
    ns = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from agents.backbone import Backbone

    torch.set_num_threads(min(2, torch.get_num_threads()))
    args = Args(episodes=500, seeds=3) if ns.quick else Args()
    start = time.time()
    backbone = Backbone.load("default")

    def embed(texts: list[str]) -> np.ndarray:
        x = backbone.encode(texts).cpu().numpy()
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    names = QUICK_VARIANTS if ns.quick else tuple(VARIANTS)
    out = {
        "backbone": "all-MiniLM-L6-v2 (frozen, mean pooling)",
        "quick": ns.quick,
        "probe_c": args.c,
        "episodes_per_seed": args.episodes,
        "seeds": args.seeds,
        "variants": {name: probe_variant(name, VARIANTS[name], embed, args) for name in names},
    }
    out["seconds"] = round(time.time() - start, 1)
    Path(ns.out).write_text(json.dumps(out, indent=2) + "\n")
    for name, v in out["variants"].items():
        print(
            f"{name:20s} team ceiling on held-out templates: logreg {v['team_heldout_acc_logreg_median']:.3f}  "
            f"centroid {v['team_heldout_acc_centroid_median']:.3f}  (chance {v['chance']:.3f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
