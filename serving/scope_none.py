"""The scope gate's second signal (docs/decisions/0041-scope-gate-none-class.md): a "none of these" class.

The gate's contrast score (`serving.scope`) turns away a few in-scope tickets written unlike the training
data. Beside it, one multinomial logistic regression reads the same frozen unit sentence vectors over the
catalogue's intents plus a "none" class, fitted on the labelled in-scope tickets (a ticket of two intents is
one row per intent) and the labelled out-of-scope tickets (all "none"); its signal is the probability that a
ticket is in scope, 1 - P(none). The gate turns a ticket away only when its score is at or under the floor
AND this probability is under `NONE_THRESHOLD`. This module is the one definition of the recipe: the study
that measured it (bench/scope_negatives.py) fits it through `NoneClass.fit` too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.linear_model import LogisticRegression

from training.plain_classifier import INVERSE_REGULARISATION

__all__ = ["NONE", "NONE_THRESHOLD", "NoneClass"]

NONE = "none"
"""The label of the out-of-scope rows (another one is taken when the catalogue has an intent of that name)."""
NONE_THRESHOLD = 0.95
"""A ticket under the floor is kept when its in-scope probability is at least this: the most permissive
threshold letting at most 1 point more out-of-scope dev tickets through than the gate alone (chosen on dev)."""


class NoneClass:
    """A fitted "none of these" regression (module docstring); read-only after construction."""

    def __init__(self, model: LogisticRegression, none_label: str):
        self.model = model
        self.none_label = none_label
        self._none = list(model.classes_).index(none_label)

    @classmethod
    def fit(
        cls, inside: np.ndarray, intents: Sequence[Sequence[str]], outside: np.ndarray
    ) -> NoneClass | None:
        """The regression over ``inside`` (unit vectors of the labelled in-scope tickets, ``intents`` each;
        a ticket without intents adds no row) and ``outside`` (unit vectors of out-of-scope tickets, all
        "none"); None when either side is empty. C as the plain classifier's, no class weights."""
        rows = [(k, str(name)) for k, names in enumerate(intents) for name in names]
        if not rows or not len(outside):
            return None
        label = NONE
        while label in {name for _, name in rows}:
            label += "_"
        x = np.concatenate([inside[[k for k, _ in rows]], outside])
        labels = [name for _, name in rows] + [label] * len(outside)
        return cls(LogisticRegression(C=INVERSE_REGULARISATION, max_iter=2000).fit(x, labels), label)

    def in_scope_probability(self, vectors: np.ndarray) -> np.ndarray:
        """Per row of unit sentence vectors, 1 - P(none)."""
        if not len(vectors):
            return np.zeros(0)
        return 1.0 - self.model.predict_proba(vectors)[:, self._none]
