"""bench/evolve.py --sections ratings --quick (bench/evolve_ratings.py): the documented keys are there, the
writer learns the hidden criterion from a reward (it fails on a learning regression), and a generation
whose ratings reward model crosses the ticket with the style teaches the writer."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from bench.evolve_ratings import SHORT_WORDS, mean_stars, rate, wanted_style

ROOT = Path(__file__).resolve().parents[2]


def test_the_hidden_criterion_and_the_simulated_annotator():
    assert wanted_style("This is unacceptable, where is my parcel?!") == "apologetic"
    assert wanted_style("where is my parcel") == "brief"
    assert wanted_style(" ".join(["word"] * (SHORT_WORDS + 1))) == "plain"
    assert mean_stars("where is my parcel", "brief") > mean_stars("where is my parcel", "plain")
    rng = random.Random(0)
    stars = [rate("where is my parcel", "brief", rng) for _ in range(400)]
    assert all(1 <= s <= 5 for s in stars) and 4.0 < sum(stars) / len(stars) < 4.6


def test_quick_ratings_section_learns_and_refuses_an_untrusted_reward_model(tmp_path):
    out = tmp_path / "ratings.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "RUN_TORCH_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "bench/evolve.py", "--sections", "ratings", "--quick", "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(out.read_text())["evolve"]["ratings"]
    for key in ("before", "after", "ratings", "gain_points", "writer_refused", "after_if_not_refused",
                "after_with_true_reward", "after_with_true_reward_embedding_only", "criterion_ceiling", "explore",
                "served_share", "wanted_share", "chosen_share", "reward_model", "writer"):  # fmt: skip
        assert key in figures, key
    assert figures["quick"] is True and figures["ratings"] == 500
    # the writer learns the criterion from its reward (hashed words: about 0.64 -> 0.80)
    assert figures["after_with_true_reward"] >= figures["before"] + 0.08
    assert figures["writer"]["reward_last"] > figures["writer"]["reward_first"]
    # the (ticket, style) reward model (decision 0035) predicts held-out stars better than the style alone,
    # and the writer it teaches moves the criterion (hashed words: 0.64 -> 0.77)
    assert figures["reader"] == "crossed" and figures["writer_refused"] is None
    model = figures["reward_model"]
    assert model["mse"] < model["mse_style_only"] < model["mse_constant"]
    assert figures["after"] == figures["after_if_not_refused"] >= figures["before"] + 0.08
