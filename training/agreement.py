"""Inter-annotator agreement: Krippendorff's alpha for any number of raters and missing ratings.

alpha = 1 - D_o / D_e, where D_o is the observed disagreement between values given to the same unit
and D_e the disagreement expected by chance (all pairable values pooled). Both come from the
coincidence matrix o[c, k]: every unit rated by m_u >= 2 raters adds 1 / (m_u - 1) for each ordered
pair of its values from different raters. Units with fewer than two values are not pairable and count
for nothing. Metrics (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"):

- nominal: delta(c, k) = 0 if c == k else 1 (pairwise A / B / tie judgements);
- interval: delta(c, k) = (c - k)^2 (numeric ratings);
- ordinal: delta(c, k) = (sum of n_g for g from c to k - (n_c + n_k) / 2)^2, ranks only (1–5 stars).

Pure numpy: no Django, usable from the library and from the web layer.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence

import numpy as np

METRICS = ("nominal", "ordinal", "interval")


def coincidences(units: Iterable[Sequence[Hashable]]) -> tuple[list[Hashable], np.ndarray]:
    """The sorted values seen in pairable units, and the coincidence matrix o[c, k] over them."""
    pairable = [list(values) for values in units if len(values) >= 2]
    values = sorted({v for unit in pairable for v in unit}, key=_sort_key)
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for unit in pairable:
        counts = np.zeros(len(values))
        for v in unit:
            counts[index[v]] += 1
        # Ordered pairs of different raters: counts_c * counts_k, minus the pairs of a value with itself.
        o += (np.outer(counts, counts) - np.diag(counts)) / (len(unit) - 1)
    return values, o


def distance_matrix(values: Sequence[Hashable], marginals: np.ndarray, metric: str) -> np.ndarray:
    """delta^2(c, k) for every pair of `values` under `metric` (`marginals` n_c are used by ordinal)."""
    size = len(values)
    if metric == "nominal":
        return 1.0 - np.eye(size)
    if metric == "interval":
        numeric = np.asarray(values, dtype=float)
        return (numeric[:, None] - numeric[None, :]) ** 2
    if metric == "ordinal":
        cumulative = np.concatenate([[0.0], np.cumsum(marginals)])
        delta = np.zeros((size, size))
        for c in range(size):
            for k in range(c, size):
                between = cumulative[k + 1] - cumulative[c] - (marginals[c] + marginals[k]) / 2
                delta[c, k] = delta[k, c] = between**2
        return delta
    raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")


def krippendorff_alpha(units: Iterable[Sequence[Hashable]], metric: str = "nominal") -> float | None:
    """Krippendorff's alpha of `units` (each the list of values its raters gave; missing ones left out).

    None when alpha is undefined: fewer than two pairable values, or no variation at all (D_e = 0).
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    values, o = coincidences(units)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if n < 2:
        return None
    delta = distance_matrix(values, n_c, metric)
    observed = float((o * delta).sum() / n)
    expected = float((np.outer(n_c, n_c) * delta).sum() / (n * (n - 1)))
    if expected == 0:
        return None
    return 1.0 - observed / expected


def reliability_units(matrix: Sequence[Sequence[Hashable | None]]) -> list[list[Hashable]]:
    """Units from a raters x units reliability table where None marks a missing value."""
    if not matrix:
        return []
    width = len(matrix[0])
    if any(len(row) != width for row in matrix):
        raise ValueError("every rater's row must have one entry per unit (None when missing)")
    return [[row[u] for row in matrix if row[u] is not None] for u in range(width)]


def spread(values: Sequence[float]) -> float:
    """How far apart the ratings of one unit are (max - min; 0 for fewer than two)."""
    return float(max(values) - min(values)) if len(values) >= 2 else 0.0


def alpha_by_unit_set(
    units: Mapping[Hashable, Sequence[Hashable]], metric: str
) -> dict[str, float | int | None]:
    """alpha plus how much data it rests on: {alpha, units (pairable), values (pairable)}."""
    pairable = [list(v) for v in units.values() if len(v) >= 2]
    return {
        "alpha": krippendorff_alpha(pairable, metric),
        "units": len(pairable),
        "values": sum(len(v) for v in pairable),
    }


def _sort_key(value: Hashable) -> tuple[int, object]:
    # Numbers in numeric order, everything else by its text (a mixed set stays sortable).
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, float(value))
    return (1, str(value))
