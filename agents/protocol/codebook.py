"""Fitting the HCP codec's parts (`compression.SemanticCodec` holds them): the k-means semantic codebook,
the receiver's intent classifier, and the residual quantiser (directions, equal-probability bins and
their reconstruction values). Pure functions of embedding arrays; nothing here keeps state.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans


def unit(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    x = np.asarray(x, dtype=np.float64)
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


class IntentClassifier:
    """Nearest labelled centroid by cosine similarity: the receiver's intent decoder."""

    def __init__(self, centroids: np.ndarray, names: list[str]):
        self.centroids = unit(centroids)
        self.names = list(names)

    @classmethod
    def fit(cls, embeddings: np.ndarray, labels: list[str]) -> IntentClassifier:
        """Average the unit-normalised embeddings of each label."""
        x = unit(embeddings)
        names = sorted(set(labels))
        lab = np.asarray(labels)
        cents = np.stack([x[lab == n].mean(axis=0) for n in names])
        return cls(cents, names)

    def predict(self, vectors: np.ndarray) -> np.ndarray:
        """Index (into `names`) of the most similar centroid for each row."""
        return np.argmax(np.asarray(vectors, dtype=np.float64) @ self.centroids.T, axis=1)

    def predict_names(self, vectors: np.ndarray) -> list[str]:
        """Label names of the nearest centroids."""
        return [self.names[i] for i in self.predict(vectors)]


def kmeans(
    x: np.ndarray, k: int, iters: int, restarts: int, seed: int, init: np.ndarray | None = None
) -> np.ndarray:
    """`k` centroids of the rows of `x`: scikit-learn's Lloyd with k-means++ seeding (best of `restarts`),
    or one warm-started run from `init`; deterministic for a given `seed`. An empty cluster is re-seeded
    on a far point, so no code id is wasted."""
    model = KMeans(
        n_clusters=k,
        init="k-means++" if init is None else init,
        n_init=restarts if init is None else 1,
        max_iter=iters,
        random_state=seed,
    ).fit(x)
    return model.cluster_centers_.astype(x.dtype)


def nearest(centroids: np.ndarray, x: np.ndarray, k: int) -> np.ndarray:
    """[n, k] indices of the `k` centroids nearest each row of `x`, nearest first."""
    d = -2 * x @ centroids.T + (centroids**2).sum(axis=1)[None, :]
    if k == 1:
        return d.argmin(axis=1)[:, None]
    part = np.argpartition(d, k - 1, axis=1)[:, :k]
    return np.take_along_axis(part, np.argsort(np.take_along_axis(d, part, 1), axis=1), 1)


def principal_directions(m: np.ndarray, k: int) -> np.ndarray:
    """Top-`k` principal directions (rows, unit length) of the rows of `m`, largest variance first."""
    centred = m - m.mean(axis=0)
    if len(centred) < centred.shape[1]:  # fewer samples than dimensions: the thin SVD is the cheap way
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        return vt[:k]
    _, vecs = np.linalg.eigh(centred.T @ centred)  # d × d: cheaper than an SVD of the n × d data
    return vecs[:, ::-1][:, :k].T


def residual_basis(
    resid: np.ndarray, dims: int, bits: int, kind: str, classifier: IntentClassifier | None
) -> np.ndarray:
    """(dims, d) directions the residual is projected on; (0, d) when no residual is sent."""
    if dims == 0 or bits == 0:
        return np.zeros((0, resid.shape[1]))
    if kind == "intent":
        # The classifier's decision depends on x only through x @ centroids.T, so spend the residual bits
        # inside that span, on its directions of largest residual variance.
        q, _ = np.linalg.qr(classifier.centroids.T)  # (d, C) orthonormal
        basis = principal_directions(resid @ q, q.shape[1]) @ q.T  # rows: directions inside the span
        if dims > len(basis):
            rest = resid - (resid @ basis.T) @ basis
            basis = np.concatenate([basis, principal_directions(rest, dims - len(basis))])
        return basis[:dims]
    return principal_directions(resid, dims)


def residual_bins(coords: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """(thresholds [dims, levels − 1], reconstruction levels [dims, levels]) of each coordinate column:
    equal-probability bins over the fitting sample, each reconstructed by the mean of its members."""
    dims = coords.shape[1]
    n_levels = 1 << bits if dims else 1
    qs = np.linspace(0, 1, n_levels + 1)[1:-1]
    thresholds = np.quantile(coords, qs, axis=0).T if dims else np.zeros((0, 0))
    levels = np.zeros((dims, n_levels))
    for j in range(dims):
        bins = np.searchsorted(thresholds[j], coords[:, j])
        for b in range(n_levels):
            members = coords[bins == b, j]
            levels[j, b] = members.mean() if len(members) else 0.0
    return thresholds, levels
