"""Train/dev/test splits drawn once per version, stratified by label set, with a seed; then frozen.

Rows that already have a split (carried from the parent version, or identical to one of its rows) keep it.
The others are shuffled within their stratum (the sorted label set; unlabelled rows are a stratum of their
own) by a generator seeded with the version's seed and the stratum, then each goes to the split furthest
below its share of the whole stratum (kept rows included), so every label set is spread 80/10/10 as far as
its count allows. The same rows with the same seed always get the same splits.
"""

from __future__ import annotations

import random
from collections import defaultdict

from mase_web.datasets.rows import NewRow

SHARES = (("train", 0.8), ("dev", 0.1), ("test", 0.1))


def inherit(rows: list[NewRow], parent_rows: list[NewRow]) -> None:
    """Give each row without a split the split of an identical parent row (one parent row per row)."""
    by_hash: dict[str, list[str]] = defaultdict(list)
    for parent in parent_rows:
        if parent.split:
            by_hash[parent.row_hash].append(parent.split)
    for row in rows:
        if row.split is None and by_hash.get(row.row_hash):
            row.split = by_hash[row.row_hash].pop(0)


def assign(rows: list[NewRow], seed: int) -> None:
    """Draw a split for every row that has none (in place)."""
    strata: dict[tuple[str, ...], list[NewRow]] = defaultdict(list)
    for row in rows:
        strata[tuple(row.intents)].append(row)
    for labels, members in strata.items():
        _fill_stratum(members, random.Random(f"{seed}:{'|'.join(labels)}"))


def _fill_stratum(members: list[NewRow], generator: random.Random) -> None:
    counts = {name: 0 for name, _ in SHARES}
    fresh = []
    for row in members:
        if row.split is None:
            fresh.append(row)
        else:
            counts[row.split] = counts.get(row.split, 0) + 1
    generator.shuffle(fresh)
    total = len(members)
    for row in fresh:
        # The split furthest below its share of the stratum; ties go to the earlier (train, dev, test).
        name = max(SHARES, key=lambda item: item[1] * total - counts[item[0]])[0]
        row.split = name
        counts[name] += 1
