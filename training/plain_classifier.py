"""The plain baseline of a routing team: one-vs-rest logistic regression on frozen sentence vectors.

A routing team (an intent catalogue, specialists that answer intents) is worth its training only if it
reads tickets better than the simplest learned reader of the same text: the backbone's sentence vector of
the whole ticket (frozen, unit length) and one logistic regression per intent, fitted on the same labelled
training rows. A ticket gets every intent whose probability is at least one half, and at least its most
probable one (a team always answers something). Nothing here knows a domain: the intents are the
catalogue's, or the ones the rows name.

    baseline = PlainClassifier.fit(backbone.encode, train_rows, intents)
    baseline.exact_match(test_rows)          # share of rows whose intent set is exactly right
    baseline.predict(["my vpn drops"])       # [("vpn_access",)]

Rows are mappings with ``text`` and ``intents`` or objects with those attributes (`Ticket`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from sklearn.linear_model import LogisticRegression

__all__ = ["PlainClassifier", "row_intents", "row_text", "unit_vectors"]

Embed = Callable[[Sequence[str]], torch.Tensor]
INVERSE_REGULARISATION = 10.0
"""sklearn's C: unit-length 384-wide vectors need a weak penalty to separate a few hundred rows; fixed, not
tuned on any evaluation set."""


def row_text(row: Any) -> str:
    return str(row["text"] if isinstance(row, dict) else row.text)


def row_intents(row: Any) -> tuple[str, ...]:
    return tuple(row["intents"] if isinstance(row, dict) else row.intents)


def unit_vectors(embed: Embed, texts: Sequence[str], batch: int = 128) -> np.ndarray:
    """The frozen sentence vectors of ``texts``, unit length, float64 (in batches, without gradients)."""
    if not texts:
        return np.zeros((0, 1))
    with torch.no_grad():
        parts = [embed(list(texts[i : i + batch])).float() for i in range(0, len(texts), batch)]
    return torch.nn.functional.normalize(torch.cat(parts), dim=1).cpu().double().numpy()


@dataclass
class PlainClassifier:
    """One logistic regression per intent over frozen sentence vectors (module docstring)."""

    embed: Embed
    intents: tuple[str, ...]
    models: list[Any] = field(default_factory=list)
    """Per intent: a fitted LogisticRegression, or a constant probability for an intent the rows never
    (or always) name."""
    fit_seconds: float = 0.0

    @classmethod
    def fit(cls, embed: Embed, rows: Sequence[Any], intents: Sequence[str] | None = None) -> PlainClassifier:
        """Fit on labelled ``rows``; ``intents``: the catalogue's (None: every intent the rows name, sorted)."""
        started = time.perf_counter()
        names = (
            tuple(intents)
            if intents is not None
            else tuple(sorted({i for r in rows for i in row_intents(r)}))
        )
        if not names:
            raise ValueError("a plain classifier needs at least one intent")
        x = unit_vectors(embed, [row_text(r) for r in rows])
        targets = np.array([[name in row_intents(r) for name in names] for r in rows], dtype=int)
        models: list[Any] = []
        for column in targets.T:
            if column.min() == column.max():  # one class only: its probability is that class
                models.append(float(column[0]) if len(column) else 0.0)
                continue
            model = LogisticRegression(C=INVERSE_REGULARISATION, max_iter=2000)
            models.append(model.fit(x, column))
        return cls(embed, names, models, time.perf_counter() - started)

    def probabilities(self, texts: Sequence[str]) -> np.ndarray:
        """``[len(texts), len(intents)]``: each intent's probability for each text."""
        x = unit_vectors(self.embed, list(texts))
        columns = [
            np.full(len(texts), m) if isinstance(m, float) else m.predict_proba(x)[:, 1] for m in self.models
        ]
        return np.stack(columns, axis=1) if columns else np.zeros((len(texts), 0))

    def predict(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        """Each text's intents: those at probability ≥ 0.5, and at least the most probable one."""
        chosen = self.chosen(self.probabilities(texts))
        return [tuple(n for n, on in zip(self.intents, row, strict=True) if on) for row in chosen]

    def exact_match(self, rows: Sequence[Any]) -> float:
        """Share of labelled ``rows`` whose predicted intent set is exactly their intents."""
        if not rows:
            return 0.0
        predicted = self.predict([row_text(r) for r in rows])
        return float(np.mean([set(p) == set(row_intents(r)) for p, r in zip(predicted, rows, strict=True)]))

    def linear(self) -> tuple[np.ndarray, np.ndarray]:
        """The classifier as one linear layer on the unit vectors: (weights [C, D], biases [C]), each
        intent's probability the sigmoid of its row (a constant intent: zero weights, its log-odds)."""
        width = next((m.coef_.shape[1] for m in self.models if not isinstance(m, float)), 1)
        weights, biases = np.zeros((len(self.models), width)), np.zeros(len(self.models))
        for c, model in enumerate(self.models):
            if isinstance(model, float):
                p = min(max(model, 1e-4), 1 - 1e-4)
                biases[c] = np.log(p / (1 - p))
            else:
                weights[c], biases[c] = model.coef_[0], model.intercept_[0]
        return weights, biases

    @staticmethod
    def chosen(probabilities: np.ndarray) -> np.ndarray:
        """Which intents are answered [T, C]: probability ≥ 0.5, and at least each row's most probable."""
        chosen = probabilities >= 0.5
        if len(probabilities) and probabilities.shape[1]:
            chosen[np.arange(len(probabilities)), probabilities.argmax(axis=1)] = True
        return chosen
