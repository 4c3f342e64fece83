"""Whether a challenger team may replace the serving champion: a paired comparison on a frozen slice.

Both teams answer the same evaluation tickets — a slice of the deployment's real traffic that no
generation trained on. Per ticket we know whether each team was right, so the comparison is paired: only
the tickets where they disagree carry information (McNemar's exact test on the discordant pairs), and the
difference in exact match gets a paired confidence interval. The challenger is promoted only when

1. the slice is large enough to judge (``min_tickets``) and shares no ticket with any training data;
2. it is better by at least the declared ``margin`` and the interval's lower end is above zero;
3. no intent with enough tickets to judge (``min_intent_tickets``) loses more than ``intent_tolerance``.

Otherwise it stays a candidate, and the reason says which condition failed, in words. Wrong or hostile
feedback can only reach the challenger through its training data; the slice it is judged on is frozen
and labelled apart from it, so a challenger that learned from bad corrections scores worse here and is not
promoted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

Z_95 = 1.959963984540054


@dataclass(frozen=True)
class PromotionRule:
    """What a challenger must show. Figures are shares of exact match (0.02 = two points)."""

    margin: float = 0.02
    intent_tolerance: float = 0.02
    min_tickets: int = 100
    min_intent_tickets: int = 20
    alpha: float = 0.05

    def __post_init__(self) -> None:
        if not (0.0 <= self.margin < 1.0 and 0.0 <= self.intent_tolerance < 1.0):
            raise ValueError("promotion: margin and intent_tolerance must be shares in [0, 1)")
        if self.min_tickets < 1 or self.min_intent_tickets < 1:
            raise ValueError("promotion: min_tickets and min_intent_tickets must be >= 1")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError("promotion: alpha must be in (0, 1)")


@dataclass
class IntentChange:
    tickets: int
    champion: float
    challenger: float
    judged: bool  # enough tickets to hold the challenger to the tolerance

    @property
    def change(self) -> float:
        return self.challenger - self.champion


@dataclass
class Comparison:
    tickets: int
    champion: float
    challenger: float
    gain: float
    interval: tuple[float, float]
    p_value: float
    only_champion_right: int
    only_challenger_right: int
    per_intent: dict[str, IntentChange] = field(default_factory=dict)
    promote: bool = False
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["interval"] = list(self.interval)
        for name, change in self.per_intent.items():
            out["per_intent"][name]["change"] = change.change
        return out


def mcnemar_p(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: under "no difference" each discordant pair is a fair coin."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def paired_interval(only_a: int, only_b: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The 95 % interval of (b's exact match − a's) from paired outcomes (the discordant counts)."""
    if n == 0:
        return (0.0, 0.0)
    diff = (only_b - only_a) / n
    variance = ((only_a + only_b) / n - diff * diff) / n
    half = z * math.sqrt(max(variance, 0.0))
    return (diff - half, diff + half)


def check_disjoint(evaluation_ids: Iterable[Any], training_ids: Iterable[Any]) -> None:
    """Refuse a comparison on tickets any generation trained on (the slice would flatter the challenger)."""
    overlap = set(evaluation_ids) & set(training_ids)
    if overlap:
        shown = ", ".join(sorted(map(str, overlap))[:5])
        raise ValueError(f"the evaluation slice shares {len(overlap)} ticket(s) with training data ({shown})")


def compare(
    champion_right: Sequence[bool],
    challenger_right: Sequence[bool],
    intents: Sequence[Sequence[str]],
    rule: PromotionRule | None = None,
) -> Comparison:
    """Judge a challenger against the champion on the same tickets (one entry per ticket, in the same
    order; ``intents``: each ticket's true intents, for the per-intent breakdown)."""
    rule = rule or PromotionRule()
    if not len(champion_right) == len(challenger_right) == len(intents):
        raise ValueError("promotion: both teams must be judged on the same tickets")
    n = len(champion_right)
    only_champion = sum(a and not b for a, b in zip(champion_right, challenger_right, strict=True))
    only_challenger = sum(b and not a for a, b in zip(champion_right, challenger_right, strict=True))
    champion = sum(map(bool, champion_right)) / n if n else 0.0
    challenger = sum(map(bool, challenger_right)) / n if n else 0.0
    result = Comparison(
        tickets=n,
        champion=champion,
        challenger=challenger,
        gain=challenger - champion,
        interval=paired_interval(only_champion, only_challenger, n),
        p_value=mcnemar_p(only_champion, only_challenger),
        only_champion_right=only_champion,
        only_challenger_right=only_challenger,
        per_intent=_per_intent(champion_right, challenger_right, intents, rule),
    )
    result.promote, result.reason = _verdict(result, rule)
    return result


def _per_intent(champion_right, challenger_right, intents, rule: PromotionRule) -> dict[str, IntentChange]:
    tallies: dict[str, list[int]] = {}
    for a, b, names in zip(champion_right, challenger_right, intents, strict=True):
        for name in names or ["(none)"]:  # an out-of-scope ticket is judged as its own group
            tally = tallies.setdefault(name, [0, 0, 0])
            tally[0] += 1
            tally[1] += bool(a)
            tally[2] += bool(b)
    return {
        name: IntentChange(tickets=n, champion=a / n, challenger=b / n, judged=n >= rule.min_intent_tickets)
        for name, (n, a, b) in sorted(tallies.items())
    }


def _verdict(result: Comparison, rule: PromotionRule) -> tuple[bool, str]:
    points = 100.0 * result.gain
    if result.tickets < rule.min_tickets:
        return False, (
            f"not enough evaluation tickets yet: {result.tickets} of the {rule.min_tickets} needed to judge"
        )
    losers = [
        f"{name} ({100 * c.change:+.1f} points on {c.tickets} tickets)"
        for name, c in result.per_intent.items()
        if c.judged and c.change < -rule.intent_tolerance
    ]
    if losers:
        return False, (
            f"{', '.join(losers)} lost more than the tolerance of {100 * rule.intent_tolerance:.1f} points"
        )
    if result.gain < rule.margin:
        return False, (
            f"{points:+.1f} points of exact match is below the declared margin of {100 * rule.margin:.1f}"
        )
    low, high = result.interval
    if low <= 0.0 or result.p_value >= rule.alpha:
        return False, (
            f"{points:+.1f} points, but within noise on {result.tickets} tickets "
            f"(95 % interval {100 * low:+.1f} to {100 * high:+.1f}, p = {result.p_value:.3f})"
        )
    return True, (
        f"better by {points:.1f} points of exact match (95 % interval {100 * low:+.1f} to {100 * high:+.1f}, "
        f"p = {result.p_value:.3g}) and no intent lost more than {100 * rule.intent_tolerance:.1f} points"
    )
