"""Does the team learn whom to listen to? Number guessing with four routings, same seeds, one run.

Arms (all on the same frozen MiniLM backbone, the same heads and the same REINFORCE trainer):
  none       no communication: the guesser hears nothing (chance = 1/N)
  broadcast  uniform attention over every sender, every message delivered
  random     attention weights drawn at random for every episode (training and evaluation)
  learned    CommAttention learned by REINFORCE on explored weights (training/reinforce_comm/)

Task (robustness): N=16, 4 informative one-bit clue agents, 2 distractors. The learned arm trains each
seed for `--budget` seconds (it keeps refining its routing after the answers are right), the fixed
routings for up to `--baseline-budget` seconds, stopping early once two consecutive greedy evaluations
reach 99%. Wall time counts everything a run does except the periodic evaluations that detect the
95% point: encoding the vocabulary (the embedding cache is cleared at the start of every run), sampling,
updates. Then: greedy success on 1,000 fresh episodes, delivered messages per episode, attention mass
on distractors, attention entropy at start and end.

Generalisation: N=64, 3 clue agents with digits (a range of 16, a range of remainders mod 16, a
remainder mod 4) and 4 distractors, trained on the 10 training paraphrase templates per clue (plus
`--heldout-augment` re-worded copies of each) and evaluated only on the 2 held-out templates
(`HELDOUT_SETTINGS`; `--heldout-set KEY=VALUE` overrides one for a variant, `--heldout-only` runs just
this section).

Protocol: the learned arm on the N=16 task with its messages sent as they are ("dense") and through the
HCP semantic compression link (communication.protocol = "hcp": k-means codebook + quantised residual,
agents/protocol/link.py) with 64 and 128 codes, the same seeds and the same number of episodes; greedy
success on 1,000 fresh episodes, bytes sent relative to the clue sentences' UTF-8 bytes, reconstruction
error, storms. `--protocol-only` runs just this section.

Throughput (same run): backbone sentences/s (uncached encoding), training episodes/s of the full loop
(sample → embedding lookup → update) and of a bare loop running the same update on pre-built tensors;
ceiling_ratio = loop / bare.

    python bench/comm_learning.py --out results.json          # full (about 25 minutes on 2 cores)
    python bench/comm_learning.py --out smoke.json --quick    # sub-minute smoke run
    python bench/comm_learning.py --out protocol.json --protocol-only   # the protocol section alone
    python bench/comm_learning.py --out heldout.json --heldout-only     # the N=64 held-out section alone
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.backbone import Backbone  # noqa: E402
from agents.spec import load_spec  # noqa: E402
from training.cli import parse_setting  # noqa: E402
from training.reinforce_comm import ReinforceCommTrainer  # noqa: E402

ARMS = ("none", "broadcast", "random", "learned")

# Trainer settings of every arm (the spec fills the rest). Chosen on seeds 0–4 of the N=16 task.
SETTINGS = {
    "batch_size": 32,
    "lr": 3e-3,
    "baseline": "value",
    "entropy_coef": 0.15,
    "beta_start": 0.5,
    "beta_end": 0.1,
    "beta_decay_episodes": 60_000,
    "explore_share": 0.5,
    "delivery_threshold": 0.05,
    "message_cost": 0.01,
}
# The held-out-template run (N=64) adds four settings, chosen on seeds 0-4 (docs/decisions/0005-token-attention-for-unseen-phrasings.md): gated
# reception (a delivered message is heard at full weight, so an unseen phrasing that shifts the
# attention among the clues does not change what the guesser reads), a first layer per agent (a shared
# one must read every agent's texts at once), Gaussian noise (std 0.1) on the embeddings in training
# updates, and token attention: each agent pools the backbone's token states with its own learned query
# instead of taking their mean, and learns to read the numbers rather than the phrasing around them.
HELDOUT_SETTINGS = {
    "reception": "gated",
    "reading": "per_agent",
    "embedding_noise": 0.1,
    "token_attention": True,
}
HELDOUT_AUGMENT = 0  # re-worded copies of the training clue templates (environment param `augment`)


def number_guess_spec(
    n: int,
    informative: int,
    distractors: int,
    kinds: list[str],
    seed: int,
    templates: str = "train",
    augment: int = 0,
) -> dict:
    """A team spec for number_guess: every sender may talk to the guesser, reward = task."""
    agents = (
        [f"clue_{j}" for j in range(informative)]
        + [f"distractor_{j}" for j in range(distractors)]
        + ["guesser"]
    )
    return {
        "spec_version": 1,
        "name": f"number guessing N={n}",
        "agents": [
            {"id": a, "role": "guesser" if a == "guesser" else "custom", "prompt": "Share what you know."}
            for a in agents
        ],
        "edges": [
            {"source": a, "target": "guesser", "kind": "communication"} for a in agents if a != "guesser"
        ],
        "reward": {
            "terms": [{"term": "task", "weights": {"exploration": 1, "exploitation": 1, "transfer": 1}}]
        },
        "environment": {
            "name": "number_guess",
            "params": {
                "n": n,
                "informative": informative,
                "distractors": distractors,
                "clue_kinds": kinds,
                "templates": templates,
                "augment": augment,
            },
        },
        "training": {"episodes": 10**9, "seed": seed, "eval_every": 0, "checkpoint_every": 0},
    }


def run_arm(
    backbone: Backbone,
    spec_doc: dict,
    routing: str,
    budget_s: float,
    eval_every: int,
    eval_episodes: int,
    stop_at: float,
    final_episodes: int,
    heldout: bool = False,
    extra_settings: dict | None = None,
    budget_episodes: int | None = None,
) -> dict:
    """Train one arm on one seed within `budget_s` of training wall time (or, when given, for
    `budget_episodes` episodes whatever the time); return its metrics."""
    spec = load_spec(spec_doc)
    backbone.clear_cache()  # every run pays for its own encoder work
    start = time.perf_counter()
    settings = {**SETTINGS, **(extra_settings or {})}
    trainer = ReinforceCommTrainer(spec, backbone=backbone, routing=routing, **settings)
    trainer.embedding_table(trainer.env)
    train_seconds = time.perf_counter() - start
    start_eval = trainer.evaluate(eval_episodes, seed=1)
    curve, reached, above = [], None, 0
    while trainer.episode < budget_episodes if budget_episodes else train_seconds < budget_s:
        tick = time.perf_counter()
        for _ in range(eval_every):
            embeddings, secrets = trainer.sample(trainer.config.batch_size)
            trainer.update(embeddings, secrets)
        train_seconds += time.perf_counter() - tick
        probe = trainer.evaluate(eval_episodes, seed=1000 + trainer.update_index)
        curve.append([trainer.episode, round(train_seconds, 2), round(probe["success"], 4)])
        if reached is None and probe["success"] >= 0.95:
            reached = (trainer.episode, train_seconds)
        above = above + 1 if probe["success"] >= stop_at else 0
        if routing != "learned" and above >= 2:
            break  # a fixed routing has nothing left to learn; the learned arm still refines its routing
    final = trainer.evaluate(final_episodes, seed=123_456)
    result = {
        "success": final["success"],
        "messages_per_episode": final["messages_per_episode"],
        "distractor_attention": final["distractor_attention"],
        "entropy_start": start_eval["attention_entropy"],
        "entropy_end": final["attention_entropy"],
        "episodes_to_95": reached[0] if reached else None,
        "seconds_to_95": round(reached[1], 2) if reached else None,
        "episodes": trainer.episode,
        "train_seconds": round(train_seconds, 2),
        "train_episodes_per_s": trainer.episode / max(train_seconds, 1e-9),
        "attention_row": [round(x, 4) for x in final["attention"][-1]],
        "curve": curve,
    }
    if heldout:
        from agents.envs import make_env

        params = {**dict(spec.environment.params), "templates": "heldout"}
        env = make_env(spec.environment.name, params)
        result["heldout_success"] = trainer.evaluate(final_episodes, env=env, seed=654_321)["success"]
    return result


def throughput(backbone: Backbone, spec_doc: dict, seconds: float) -> dict:
    """Full loop vs bare loop (same update on pre-built tensors), back to back, plus encoder speed."""
    spec = load_spec(spec_doc)
    trainer = ReinforceCommTrainer(spec, backbone=backbone, routing="learned", **SETTINGS)
    trainer.attention_started_at = 0  # time the update with exploration and the routing loss active
    trainer.embedding_table(trainer.env)
    batch = trainer.config.batch_size
    prebuilt = [trainer.sample(batch) for _ in range(64)]

    def timed(step) -> float:
        for _ in range(20):  # warm-up
            step(0)
        count, tick = 0, time.perf_counter()
        while time.perf_counter() - tick < seconds:
            step(count)
            count += 1
        return count * batch / (time.perf_counter() - tick)

    loop = timed(lambda i: trainer.update(*trainer.sample(batch)))
    bare = timed(lambda i: trainer.update(*prebuilt[i % len(prebuilt)]))
    texts = [f"Sentence number {i} about the number {i * 7 % 101} and the weather." for i in range(160)]
    backbone.clear_cache()
    tick = time.perf_counter()
    backbone.encode(texts, batch_size=32)
    sentences = len(texts) / (time.perf_counter() - tick)
    return {
        "backbone_sentences_per_s": sentences,
        "train_episodes_per_s": loop,
        "bare_update_episodes_per_s": bare,
        "ceiling_ratio": loop / bare,
    }


PROTOCOL_ARMS = {"dense": {"protocol": None}, "hcp": {"protocol": "hcp"}}
PROTOCOL_ARMS["hcp_128"] = {"protocol": "hcp", "hcp_codes": 128}


def protocol_arm(backbone: Backbone, seed: int, episodes: int, final_episodes: int, **link: object) -> dict:
    """The learned arm for a fixed number of episodes with messages dense or through the HCP link."""
    trainer = ReinforceCommTrainer(
        load_spec(number_guess_spec(16, 4, 2, ["bits"], seed)), backbone=backbone, **SETTINGS, **link
    )
    trainer.embedding_table(trainer.env)
    tick = time.perf_counter()
    while trainer.episode < episodes:
        trainer.update(*trainer.sample(trainer.config.batch_size))
    seconds = time.perf_counter() - tick
    out = {"success": trainer.evaluate(final_episodes, seed=123_456)["success"], "seconds": round(seconds, 2)}
    if trainer.link is not None:
        stats = trainer.link.stats()
        keys = ("byte_ratio", "frame_byte_ratio", "compression_ratio", "dense_ratio", "reconstruction_error")
        out |= {k: stats[k] for k in keys} | {
            k: stats[k] for k in ("bits_per_message", "codebook_size", "storms", "refits", "raw_bytes")
        }
        out["sent_bytes"] = stats["wire_bytes"] + stats["sync_bytes"]
        out["channel_p95_ms"] = stats["channel_p95_ms"]
    return out


def protocol_section(
    backbone: Backbone, seeds: list[int], episodes: int, final_episodes: int, arms: list[str]
) -> dict:
    """The protocol arms on every seed; medians per arm plus the per-seed runs."""
    section: dict[str, dict] = {"episodes": episodes}
    for arm in arms:
        link = PROTOCOL_ARMS[arm]
        runs = []
        for seed in seeds:
            run = protocol_arm(backbone, seed, episodes, final_episodes, **link) | {"seed": seed}
            runs.append(run)
            ratio = f"  bytes {run['byte_ratio']:.3f} of raw" if "byte_ratio" in run else ""
            print(f"protocol {arm:8s} seed {seed}: success {run['success']:.3f}{ratio}", flush=True)
        keys = [k for k, v in runs[0].items() if isinstance(v, (int, float)) and k != "seed"]
        section[arm] = {k: _median([r[k] for r in runs]) for k in keys} | {"runs": runs}
    section["success_delta"] = section["hcp"]["success"] - section["dense"]["success"]
    return section


def heldout_section(
    backbone: Backbone,
    seeds: list[int],
    episodes: int,
    settings: dict,
    eval_every: int,
    eval_episodes: int,
    final_episodes: int,
    augment: int,
) -> dict:
    """N=64 runs on the training templates, scored on the held-out ones: medians plus per-seed figures."""
    runs = []
    for seed in seeds:
        doc = number_guess_spec(64, 3, 4, ["ranges", "remainders"], seed, augment=augment)
        run = run_arm(
            backbone,
            doc,
            "learned",
            0,
            eval_every,
            eval_episodes,
            0.99,
            final_episodes,
            True,
            settings,
            episodes,
        )
        run["seed"] = seed
        runs.append(run)
        print(
            f"heldout N=64 seed {seed}: train templates {run['success']:.3f}  "
            f"held-out templates {run['heldout_success']:.3f}  ({run['train_seconds']:.0f} s)",
            flush=True,
        )
    return {
        "n": 64,
        "success": _median([r["heldout_success"] for r in runs]),
        "train_templates_success": _median([r["success"] for r in runs]),
        "distractor_attention": _median([r["distractor_attention"] for r in runs]),
        "messages_per_episode": _median([r["messages_per_episode"] for r in runs]),
        "seconds": _median([r["train_seconds"] for r in runs]),
        "episodes": episodes,
        "settings": settings,
        "augment": augment,
        "seeds": {
            str(r["seed"]): {
                "success": r["heldout_success"],
                "train_templates_success": r["success"],
                "seconds": r["train_seconds"],
            }
            for r in runs
        },
    }


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument("--quick", action="store_true", help="sub-minute smoke run (1 seed, tiny budgets)")
    parser.add_argument("--seeds", type=int, nargs="+", help="seeds (default 0 1 2 3 4; quick: 0)")
    parser.add_argument(
        "--budget", type=float, help="training seconds per arm and seed (default 60; quick 1)"
    )
    parser.add_argument(
        "--learned-episodes",
        type=int,
        help="train the learned arm for this many episodes per seed instead of --budget seconds (default: "
        "off; quick 24000, enough for its attention to start learning and drop the distractors on any load)",
    )
    parser.add_argument(
        "--heldout-episodes",
        type=int,
        help="training episodes of each N=64 run (default 250000; quick 1000): a count, not seconds, so "
        "the figure does not depend on the machine's load",
    )
    parser.add_argument(
        "--heldout-seeds", type=int, help="N=64 runs on the first K seeds (default 3; quick 1)"
    )
    parser.add_argument(
        "--baseline-budget",
        type=float,
        help="training seconds for none/broadcast/random (default 30; quick 1)",
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (the networks are small: 1 is fastest)"
    )
    parser.add_argument(
        "--protocol-episodes", type=int, help="episodes per protocol arm (default 30000; quick 600)"
    )
    parser.add_argument("--protocol-only", action="store_true", help="run only the protocol section")
    parser.add_argument("--heldout-only", action="store_true", help="run only the held-out (N=64) section")
    parser.add_argument(
        "--heldout-set",
        type=parse_setting,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a trainer setting of the N=64 runs (repeatable), e.g. paraphrase_consistency=0",
    )
    parser.add_argument(
        "--heldout-augment",
        type=int,
        default=HELDOUT_AUGMENT,
        metavar="K",
        help=f"re-worded copies of each training clue template in the N=64 runs (default {HELDOUT_AUGMENT})",
    )
    args = parser.parse_args(argv)

    torch.set_num_threads(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    quick = args.quick
    seeds = args.seeds or ([0] if quick else [0, 1, 2, 3, 4])
    budget = args.budget or (1.0 if quick else 60.0)
    heldout_episodes = args.heldout_episodes or (1000 if quick else 250_000)
    heldout_seeds = seeds[: args.heldout_seeds or (1 if quick else 3)]
    baseline_budget = args.baseline_budget or (1.0 if quick else 30.0)
    learned_episodes = args.learned_episodes or (24_000 if quick else None)
    eval_every, eval_episodes = (25, 100) if quick else (25, 500)
    final_episodes = 200 if quick else 1000
    wall = time.perf_counter()
    backbone = Backbone.load("default")
    protocol_episodes = args.protocol_episodes or (600 if quick else 30_000)
    protocol_arms = ["dense", "hcp"] if quick else list(PROTOCOL_ARMS)  # quick: a smoke run of the link
    if args.protocol_only:
        section = protocol_section(backbone, seeds, protocol_episodes, final_episodes, protocol_arms)
        result = {"protocol": section, "quick": quick, "wall_seconds": round(time.perf_counter() - wall, 1)}
        Path(args.out).write_text(json.dumps(result, indent=1))
        print(f"wrote {args.out} ({result['wall_seconds']} s)")
        return 0
    run_heldout = functools.partial(
        heldout_section,
        backbone,
        heldout_seeds,
        heldout_episodes,
        {**HELDOUT_SETTINGS, **dict(args.heldout_set)},
        eval_every,
        eval_episodes,
        final_episodes,
        args.heldout_augment,
    )
    if args.heldout_only:
        section = run_heldout()
        result = {"heldout": section, "quick": quick, "wall_seconds": round(time.perf_counter() - wall, 1)}
        Path(args.out).write_text(json.dumps(result, indent=1))
        print(f"wrote {args.out} ({result['wall_seconds']} s)")
        return 0

    arms: dict[str, dict] = {}
    for arm in ARMS:
        runs = []
        for seed in seeds:
            doc = number_guess_spec(16, 4, 2, ["bits"], seed)
            arm_budget = budget if arm == "learned" else baseline_budget
            run = run_arm(
                backbone, doc, arm, arm_budget, eval_every, eval_episodes, 0.99, final_episodes,
                budget_episodes=learned_episodes if arm == "learned" else None,
            )  # fmt: skip
            run["seed"] = seed
            runs.append(run)
            print(
                f"{arm:9s} seed {seed}: success {run['success']:.3f}  msgs {run['messages_per_episode']:.2f}  "
                f"distractor {run['distractor_attention']:.3f}  H {run['entropy_start']:.2f}->{run['entropy_end']:.2f}  "
                f"t95 {run['seconds_to_95']}s / {run['episodes_to_95']} ep",
                flush=True,
            )
        arms[arm] = {
            "success": _median([r["success"] for r in runs]),
            "messages_per_episode": _median([r["messages_per_episode"] for r in runs]),
            "distractor_attention": _median([r["distractor_attention"] for r in runs]),
            "entropy_end": _median([r["entropy_end"] for r in runs]),
            "runs": runs,
        }
    learned_runs = arms["learned"]["runs"]
    learned = {
        "success": arms["learned"]["success"],
        "distractor_attention": _median([r["distractor_attention"] for r in learned_runs]),
        "entropy_start": _median([r["entropy_start"] for r in learned_runs]),
        "entropy_end": _median([r["entropy_end"] for r in learned_runs]),
        "episodes_to_95": _median([r["episodes_to_95"] for r in learned_runs]),
        "seconds_to_95": _median([r["seconds_to_95"] for r in learned_runs]),
        "seeds_at_99": sum(r["success"] >= 0.99 for r in learned_runs),
        "seeds_at_95_within_60s": sum(
            r["seconds_to_95"] is not None and r["seconds_to_95"] <= 60 for r in learned_runs
        ),
    }
    per_seed = {
        str(r["seed"]): {
            "success": r["success"],
            "seconds_to_95": r["seconds_to_95"],
            "episodes_to_95": r["episodes_to_95"],
        }
        for r in learned_runs
    }

    heldout = run_heldout()
    protocol = protocol_section(backbone, seeds[:3], protocol_episodes, final_episodes, protocol_arms)
    rates = throughput(backbone, number_guess_spec(16, 4, 2, ["bits"], 0), 0.5 if quick else 5.0)
    print(json.dumps({k: round(v, 2) for k, v in rates.items()}), flush=True)
    result = {
        "task": {"n": 16, "informative": 4, "distractors": 2, "clue_kinds": ["bits"], "chance": 1 / 16},
        "settings": {
            **SETTINGS,
            "budget_s": budget,
            "learned_episodes": learned_episodes,
            "eval_every_updates": eval_every,
            "eval_episodes": eval_episodes,
        },
        "arms": arms,
        "learned": learned,
        "seeds": per_seed,
        "heldout": heldout,
        "protocol": protocol,
        "throughput": rates,
        "machine": {
            "cpus": os.cpu_count(),
            "threads": args.threads,
            "load_average": list(os.getloadavg()),
            "python": platform.python_version(),
            "torch": torch.__version__,
        },
        "quick": quick,
        "wall_seconds": round(time.perf_counter() - wall, 1),
    }
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(f"wrote {args.out} ({result['wall_seconds']} s)")
    return 0


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    sys.exit(main())
