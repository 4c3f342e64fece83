"""Semantic codec: codebook fitting, encode/decode round trip, frames, history compression, drift."""

import numpy as np
import pytest

from agents.protocol.compression import CodecConfig, CodecError, HistoryCompressor, SemanticCodec
from agents.protocol.drift import CodebookDriftMonitor, DriftConfig
from agents.protocol.wire import WireFormatError, decode_frame


def _traffic(n, seed=0, shift=0.0, dim=32, intents=6):
    """Unit-ish vectors around 3 sub-topics per intent; `shift` moves all traffic to a new region."""
    rng = np.random.default_rng(seed)
    base = np.random.default_rng(123).normal(size=(intents, 3, dim))
    lab = rng.integers(intents, size=n)
    sub = rng.integers(3, size=n)
    x = base[lab, sub] + rng.normal(scale=0.9, size=(n, dim))
    if shift:
        x = x + shift * np.random.default_rng(7).normal(size=dim)
    return x, [f"intent{i}" for i in lab]


@pytest.fixture(scope="module")
def fitted():
    x, y = _traffic(1200)
    codec = SemanticCodec(CodecConfig(n_codes=32, residual_dims=4, residual_bits=2)).fit(x, y)
    return codec, x, y


def test_codebook_is_deterministic_with_the_seed_and_uses_every_code():
    x, y = _traffic(600, seed=11)
    config = CodecConfig(n_codes=16, residual_dims=2, residual_bits=2)
    first, again = SemanticCodec(config).fit(x, y), SemanticCodec(config).fit(x, y)
    np.testing.assert_array_equal(first.centroids, again.centroids)
    np.testing.assert_array_equal(first.encode(x)[0], again.encode(x)[0])
    other = SemanticCodec(CodecConfig(n_codes=16, residual_dims=2, residual_bits=2, seed=1)).fit(x, y)
    assert not np.array_equal(other.centroids, first.centroids)
    # no codebook entry is wasted: each is the nearest entry of some fitting vector
    assert len(np.unique(first._nearest(first._check(x), 1))) == 16


def test_codebook_fit_and_round_trip_reconstruction(fitted):
    codec, _, _ = fitted
    xt, _ = _traffic(400, seed=1)
    unit = xt / np.linalg.norm(xt, axis=1, keepdims=True)
    codes, levels = codec.encode(xt)
    assert codes.shape == (400,) and levels.shape == (400, 4)
    assert codes.max() < 32 and levels.max() < 4
    full = codec.decode(codes, levels)
    bare = codec.decode(codes)
    err_full = np.linalg.norm(unit - full, axis=1).mean()
    err_bare = np.linalg.norm(unit - bare, axis=1).mean()
    assert err_full < err_bare  # the residual carries real information
    # Codebook entries are real cluster centres: each vector is closer to its code than to a random one.
    rand = codec.centroids[np.random.default_rng(0).integers(32, size=400)]
    assert err_bare < np.linalg.norm(unit - rand, axis=1).mean()
    assert codec.stats()["bits_per_message"] == 5 + 4 * 2


def test_closed_loop_keeps_the_intent(fitted):
    _, x, y = fitted
    xt, _ = _traffic(400, seed=2)
    agree = {}
    for closed in (False, True):
        codec = SemanticCodec(
            CodecConfig(n_codes=16, residual_dims=0, residual_bits=0, preserve_intent=closed)
        ).fit(x, y)
        original = codec.classifier.predict(xt / np.linalg.norm(xt, axis=1, keepdims=True))
        agree[closed] = (codec.classifier.predict(codec.decode(*codec.encode(xt))) == original).mean()
    assert agree[True] > agree[False]
    assert agree[True] > 0.95


def test_frame_round_trip_and_codebook_version_check(fitted):
    codec, _, _ = fitted
    xt, _ = _traffic(20, seed=3)
    data = codec.to_frame(xt, sender=4, channel=0)
    frame, vecs = codec.from_frame(data)
    assert frame.sender == 4 and frame.codebook_version == codec.version and len(frame.messages) == 20
    np.testing.assert_allclose(vecs, codec.decode(*codec.encode(xt)))
    other = SemanticCodec(
        CodecConfig(n_codes=32, residual_dims=4, residual_bits=2, residual_basis="pca")
    ).fit(_traffic(300)[0])
    other.version = codec.version + 5
    with pytest.raises(WireFormatError, match="codebook version"):
        other.from_frame(data)


def test_unfitted_and_bad_input_errors():
    codec = SemanticCodec()
    with pytest.raises(CodecError, match="call fit"):
        codec.encode(np.ones((2, 8)))
    with pytest.raises(CodecError, match="needs labels"):
        SemanticCodec(CodecConfig(n_codes=4)).fit(np.random.default_rng(0).normal(size=(50, 8)))
    with pytest.raises(CodecError, match="residual_basis"):
        SemanticCodec(CodecConfig(residual_basis="magic"))
    fitted_codec = SemanticCodec(CodecConfig(n_codes=4, residual_basis="pca")).fit(
        np.random.default_rng(0).normal(size=(50, 8))
    )
    with pytest.raises(CodecError, match="dim 9"):
        fitted_codec.encode(np.ones((2, 9)))


def test_history_keeps_codes_and_only_residuals_that_matter(fitted):
    codec, _, _ = fitted
    xt, _ = _traffic(60, seed=4)
    codes, levels = codec.encode(xt)
    hist = HistoryCompressor(codec, keep_recent=2)
    kept = hist.compress(codes, levels)
    assert [m.code for m in kept] == codes.tolist()
    n_res = sum(1 for m in kept if m.residual)
    assert 2 <= n_res < 60 and kept[-1].residual and kept[-2].residual
    # Decoding the compressed history gives the same intents as the full messages.
    data = hist.to_frame(codes, levels)
    frame, vecs = codec.from_frame(data)
    assert codec.intent(vecs) == codec.intent(codec.decode(codes, levels))
    assert len(data) < len(codec.to_frame(xt))
    assert decode_frame(data).kind.name == "HISTORY"


def test_drift_detection_raises_storm_alert_and_refit_repairs_it():
    x, y = _traffic(1200)
    codec = SemanticCodec(CodecConfig(n_codes=32, residual_dims=4, residual_bits=2)).fit(x, y)
    monitor = CodebookDriftMonitor(codec, DriftConfig(window=200, min_samples=100))
    assert monitor.observe(_traffic(200, seed=5)[0]) is None  # same distribution: quiet
    drifted, _ = _traffic(400, seed=6, shift=3.0)
    alert = monitor.observe(drifted[:200])
    assert alert is not None and alert["name"] == "communication_storm" and alert["level"] == "warning"
    assert "codebook_drift" in alert["reason"] and alert["distortion_ratio"] > 1.5
    version = codec.version
    monitor.refit()
    assert codec.version == version + 1
    assert monitor.observe(drifted[200:]) is None  # the re-fitted codebook fits the new traffic
    assert monitor.stats()["alerts"] == 1


def test_flood_rate_alert():
    x, y = _traffic(600)
    codec = SemanticCodec(CodecConfig(n_codes=16, residual_dims=2, residual_bits=2)).fit(x, y)
    monitor = CodebookDriftMonitor(
        codec, DriftConfig(min_samples=10_000, rate_window_s=1.0), expected_rate=10.0
    )
    assert monitor.observe(_traffic(5)[0], now=0.5) is None
    alert = monitor.observe(_traffic(100, seed=1)[0], now=0.9)
    assert alert["reason"] == "message_flood" and alert["rate_ratio"] > 4


def test_refit_can_grow_the_codebook_and_old_receivers_reject_new_frames():
    import copy

    x, y = _traffic(1200)
    sender = SemanticCodec(CodecConfig(n_codes=16, residual_dims=2, residual_bits=2)).fit(x, y)
    receiver = copy.deepcopy(sender)
    drifted, _ = _traffic(300, seed=8, shift=3.0)
    before = sender._traffic_profile(sender._check(drifted))["distortion"]
    sender.refit(drifted[:200], extra_codes=16)
    assert sender.config.n_codes == 32 and sender.config.code_bits == 5 and sender.version == 2
    assert sender._traffic_profile(sender._check(drifted[200:]))["distortion"] < before
    with pytest.raises(WireFormatError, match="re-sync the codebook"):
        receiver.from_frame(sender.to_frame(drifted[200:210]))


def test_calibrate_sets_the_normal_level():
    x, y = _traffic(1200)
    codec = SemanticCodec(CodecConfig(n_codes=32, residual_dims=2, residual_bits=2)).fit(x, y)
    monitor = CodebookDriftMonitor(codec, DriftConfig(window=100, min_samples=100))
    fit_level = monitor.baseline["distortion"]
    level = monitor.calibrate(_traffic(300, seed=9)[0])["distortion"]
    assert level > fit_level  # held-out traffic is served a little worse than the fitting sample
    assert monitor.observe(_traffic(100, seed=10)[0]) is None
    assert 0.8 < monitor.last["distortion_ratio"] < 1.2
