"""Did multi-agent RL pay for this team? Per-arm scores with confidence intervals and a one-sentence verdict.

Every arm (the learned team, the rules, imitation of the rules, …) plays the *same* evaluation episodes, so
arm A's episode k and arm B's episode k are one pair. Two statistics follow:

- each arm's mean score with a percentile bootstrap interval: resample the n episode scores with
  replacement B times, take the mean of each resample, and report the (1−level)/2 and (1+level)/2
  quantiles of those B means;
- the *paired* difference learned − baseline: d_k = learned_k − baseline_k, and the same bootstrap on the
  d_k. Pairing removes the episodes' own difficulty from the noise, so a small but steady gain is seen.

The baseline the learned team is judged against is the best non-MARL arm (highest mean among the rules,
imitation and plain-classifier arms present). The verdict, with Δ the mean paired difference and [lo, hi]
its interval:

- lo > margin and the learned team costs no more than `cost_slack` above the baseline → "MARL paid";
- lo > margin but it costs more → "MARL paid, at a higher cost" (the sentence says how much more);
- hi < 0 → "worse than <baseline>": the baseline is the better choice;
- otherwise → "no better than <baseline> within noise": rules or supervised learning are enough.

Scores are fractions (exact match, success, a judge score in [0, 1]); a "point" is 0.01, so Δ = 0.12 reads
"12 points". Costs are per-episode costs (steps taken, escalations priced …): lower is cheaper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

__all__ = [
    "ArmScore",
    "Verdict",
    "BASELINE_ARMS",
    "bootstrap_interval",
    "paired_difference",
    "score_arm",
    "judge",
]

BASELINE_ARMS = ("rules", "imitation", "plain")
"""The arms that need no multi-agent RL: the scripted procedure, behaviour cloning of it (supervised) and,
for a routing team, a plain classifier on the same backbone read by the scripted team (supervised)."""

ARM_WORDS = {
    "rules": "the best rules",
    "imitation": "imitation of the rules (supervised)",
    "plain": "a plain classifier on the same backbone",
    "mappo": "MAPPO",
    "ippo": "independent PPO",
    "learned": "the learned team",
    "reinforce_comm": "learned communication (REINFORCE)",
    "alone": "the same team with its messages cut",
}
"""How the sentence names each arm."""


@dataclass(frozen=True)
class ArmScore:
    """One arm on the evaluation episodes: its mean score and interval, and its mean cost per episode."""

    name: str
    mean: float
    low: float
    high: float
    episodes: int
    cost: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (rounded to 4 places)."""
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()}


@dataclass(frozen=True)
class Verdict:
    """The learned arm against the best baseline arm on the same episodes, and what it means."""

    learned: str
    baseline: str | None
    difference: float | None  # mean paired difference learned − baseline (score units)
    low: float | None
    high: float | None
    outcome: str  # "marl_paid" | "marl_paid_costlier" | "no_better" | "worse" | "no_baseline"
    sentence: str
    arms: tuple[ArmScore, ...]
    level: float = 0.95

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values for events, the bench and the run page."""
        out: dict[str, Any] = {
            "learned": self.learned,
            "baseline": self.baseline,
            "outcome": self.outcome,
            "sentence": self.sentence,
            "level": self.level,
            "arms": [a.to_dict() for a in self.arms],
        }
        for key in ("difference", "low", "high"):
            value = getattr(self, key)
            out[key] = None if value is None else round(value, 4)
        return out


def bootstrap_interval(
    values: Sequence[float], level: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of `values` (the quantiles (1∓level)/2 of `resamples`
    resampled means). One value gives a zero-width interval; none raises ValueError."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        raise ValueError("no values to bootstrap")
    if np.ptp(x) == 0:  # one value, or all equal: every resample has the same mean
        return float(x.mean()), float(x.mean())
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    tail = (1.0 - level) / 2.0
    return float(np.quantile(means, tail)), float(np.quantile(means, 1.0 - tail))


def paired_difference(
    learned: Sequence[float], baseline: Sequence[float], level: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """(mean, low, high) of learned_k − baseline_k over paired episodes, with a bootstrap interval."""
    a, b = np.asarray(learned, dtype=float), np.asarray(baseline, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired arms need the same episodes: {a.size} scores against {b.size}")
    d = a - b
    low, high = bootstrap_interval(d, level, seed=seed)
    return float(d.mean()), low, high


def score_arm(
    name: str, scores: Sequence[float], costs: Sequence[float] | None = None, level: float = 0.95
) -> ArmScore:
    """An arm's mean score, its bootstrap interval and its mean cost."""
    low, high = bootstrap_interval(scores, level)
    cost = None if not costs else float(np.mean(costs))
    return ArmScore(name, float(np.mean(scores)), low, high, len(scores), cost)


def _points(x: float) -> str:
    points = abs(x) * 100
    if 0 < points < 0.95:
        return f"{points:.1f}"  # never "0" for a gain that is not
    return str(int(points + 0.5))  # halves away from zero: 2.5 points is "3", not the even "2"


def _signed_points(x: float) -> str:
    """Points with a minus sign for a loss, whenever the number shown is not 0 (-0.5 is "−0.5")."""
    shown = _points(x)
    return f"{'−' if x < 0 and shown != '0' else ''}{shown}"


def _with_unit(shown: str) -> str:
    """The number shown with its unit: "1 point", "−1 point", "0.5 points", "12 points"."""
    return f"{shown} {'point' if shown.lstrip('−') == '1' else 'points'}"


def _cost_words(learned: ArmScore, baseline: ArmScore, slack: float) -> tuple[bool, str]:
    """(costs no more, words): the learned arm's cost against the baseline's, `slack` a relative tolerance."""
    if learned.cost is None or baseline.cost is None:
        return True, ""
    if learned.cost <= baseline.cost * (1.0 + slack) + 1e-9:
        return (
            True,
            " at the same or lower cost"
            if learned.cost <= baseline.cost + 1e-9
            else " at about the same cost",
        )
    if baseline.cost <= 0:
        return False, f" but costs more per episode ({learned.cost:.2f} vs {baseline.cost:.2f})"
    more = (learned.cost / baseline.cost - 1.0) * 100
    return False, f" but costs {more:.0f}% more per episode ({learned.cost:.2f} vs {baseline.cost:.2f})"


def judge(
    scores: Mapping[str, Sequence[float]],
    costs: Mapping[str, Sequence[float]] | None = None,
    learned: str = "mappo",
    level: float = 0.95,
    margin: float = 0.0,
    cost_slack: float = 0.05,
    score_name: str = "scores",
    baselines: Sequence[str] = BASELINE_ARMS,
) -> Verdict:
    """The verdict on `learned` against the best of the baseline arms (`BASELINE_ARMS`) in `scores`.

    `baselines` names the arms that count as the alternative to MARL (default: rules and imitation).
    `scores` maps arm → per-episode scores, every arm on the same episodes in the same order; `costs`
    likewise (optional). `margin` is the least gain that counts (score units); `cost_slack` how much
    costlier (relative) still counts as "the same cost". `score_name` names the score in the sentence.
    """
    if learned not in scores:
        raise ValueError(f"no scores for the learned arm {learned!r}; arms: {', '.join(scores)}")
    costs = costs or {}
    arms = tuple(score_arm(n, s, costs.get(n), level) for n, s in scores.items())
    by_name = {a.name: a for a in arms}
    present = [by_name[n] for n in baselines if n in by_name]
    me = by_name[learned]
    words = ARM_WORDS.get(learned, learned)
    if not present:
        sentence = (
            f"{words} scores {me.mean:.2f} {score_name}; no rules or imitation baseline to compare with"
        )
        return Verdict(learned, None, None, None, None, "no_baseline", sentence, arms, level)
    best = max(present, key=lambda a: a.mean)
    diff, low, high = paired_difference(scores[learned], scores[best.name], level)
    base_words = ARM_WORDS.get(best.name, best.name)
    interval = f"(CI {_signed_points(low)} to {_signed_points(high)})"
    cheap, cost_text = _cost_words(me, best, cost_slack)
    if low > margin:
        outcome = "marl_paid" if cheap else "marl_paid_costlier"
        verdict = "MARL paid" if cheap else "MARL paid, at a higher cost"
        sentence = f"{words} scores {_with_unit(_points(diff))} more {score_name} than {base_words} {interval}{cost_text}: {verdict}"
    elif high < 0:
        outcome = "worse"
        sentence = f"{words} scores {_with_unit(_points(diff))} fewer {score_name} than {base_words} {interval}: use {best.name}, MARL did not pay"
    else:
        outcome = "no_better"
        enough = {
            "imitation": "supervised learning is enough",
            "rules": "rules are enough",
            "plain": "a plain classifier is enough",
        }.get(best.name, f"{best.name} is enough")
        sentence = f"{words} is no better than {base_words} within noise ({_with_unit(_signed_points(diff))}, CI {_signed_points(low)} to {_signed_points(high)}): {enough}"
    return Verdict(learned, best.name, diff, low, high, outcome, sentence, arms, level)
