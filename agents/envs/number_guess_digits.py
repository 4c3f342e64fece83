"""Number guessing's number system: how the informants' clues split the secret into digits.

The secret x ∈ [0, n) is written in a mixed radix: informant j states digit d_j of base r_j, and
x = Σ_j d_j · w_j with place value w_j = r_0 · … · r_{j-1}, so n = r_0 · … · r_{k-1}. An informant's
clue kind fixes its base:

- ``bit``: r = 2, phrased as parity (lowest digit), a threshold (highest) or a remainder threshold;
- ``range``: the range informants share what the bits leave equally, r = (n / 2**b) ** (1/m) for m range
  informants and b bit informants; phrased as a remainder (lowest digit) or a range of the number or of
  a remainder.

The environment's ``clue_kinds`` parameter names either one kind for every informant (``["bits"]`` or
``["ranges", "remainders"]``, as before per-node kinds existed) or one kind per informant in digit order
(``["bit", "range", "range"]``), which is what a canvas with a clue kind on its informant nodes builds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CLUE_KINDS = ("bit", "range")
"""What one informant may hold (an informant node's ``clue``): one binary digit, or one base-r digit."""

DEFAULT_CLUE_KINDS = ("bits",)
"""The environment's ``clue_kinds`` default: a bit clue for every informant."""

UNIFORM_KINDS = {("bits",): "bit", ("ranges", "remainders"): "range"}
"""``clue_kinds`` values that give every informant the same kind (sorted), and that kind."""


def informant_kinds(clue_kinds: Any, informants: int) -> tuple[str, ...] | None:
    """Each informant's kind, in digit order, from a ``clue_kinds`` parameter; None when it is neither a
    kind set for all nor one kind per informant."""
    if not isinstance(clue_kinds, (list, tuple)) or not all(isinstance(k, str) for k in clue_kinds):
        return None
    uniform = UNIFORM_KINDS.get(tuple(sorted(set(clue_kinds))))
    if uniform is not None and len(set(clue_kinds)) == len(clue_kinds):
        return (uniform,) * informants
    if len(clue_kinds) == informants and set(clue_kinds) <= set(CLUE_KINDS):
        return tuple(clue_kinds)
    return None


def integer_root(n: int, k: int) -> int | None:
    """r with r**k == n and r >= 2, else None."""
    r = round(n ** (1.0 / k))
    for cand in (r - 1, r, r + 1):
        if cand >= 2 and cand**k == n:
            return cand
    return None


class SplitError(ValueError):
    """n cannot be split into the informants' digits; ``param`` names the parameter to change."""

    def __init__(self, param: str, message: str):
        super().__init__(message)
        self.param = param


def radices(n: int, kinds: Sequence[str]) -> tuple[int, ...]:
    """Each informant's base for ``kinds`` (one per informant, digit order) splitting [0, n); `SplitError`
    saying in words why when n cannot be split so."""
    k, bits = len(kinds), sum(kind == "bit" for kind in kinds)
    ranges = k - bits
    if ranges == 0:
        if n != 2**k:
            raise SplitError(
                "n",
                f"with bit clues each informant tells one bit, so n must be 2**informative = {2**k} (got {n})",
            )
        return (2,) * k
    if bits == 0 and k < 2:
        raise SplitError("informative", "range and remainder clues need at least 2 informants")
    rest, left = divmod(n, 2**bits)
    root = integer_root(rest, ranges) if left == 0 else None
    if root is None:
        if bits == 0:
            raise SplitError(
                "n",
                f"range/remainder clues split the number into {k} base-r digits, so n must be "
                f"r**{k} for a whole r >= 2 (got {n})",
            )
        examples = ", ".join(str(2**bits * r**ranges) for r in (2, 3, 4))
        raise SplitError(
            "n",
            f"{bits} bit and {ranges} range informants split the number into 2**{bits} times r**{ranges}, "
            f"so n must be one of {examples}, … (got {n}); or change an informant's clue kind",
        )
    return tuple(2 if kind == "bit" else root for kind in kinds)


def place_values(bases: Sequence[int]) -> tuple[int, ...]:
    """w_j = r_0 · … · r_{j-1}: what one unit of digit j is worth."""
    places, w = [], 1
    for r in bases:
        places.append(w)
        w *= r
    return tuple(places)
