"""Before deploying: how often a checkpoint would hand its decisions to the fallback at a given threshold.

The per-ticket confidences come from the checkpoint's calibration (`training.mappo.calibration`, fitted on
the dev split when training ended). A checkpoint trained before calibration existed is calibrated here,
once, and the result stored next to its weights like training would have; the parsed confidences are
kept in memory (keyed by file and modification time), so moving a threshold slider costs one replay
through the breaker (`serving.breaker.fallback_preview`), milliseconds.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from serving.breaker import BreakerConfig, fallback_preview
from training.mappo.calibration import (
    CALIBRATION_FILE,
    DEV_SPLIT,
    calibrate,
    dev_env_factory,
    load_calibration,
    save_calibration,
)

_cache: OrderedDict[tuple[str, float], dict[str, Any]] = OrderedDict()
_lock = threading.Lock()
_KEEP = 16  # checkpoints whose confidences stay in memory


class PreviewUnavailable(ValueError):
    """No preview for this checkpoint (its environment has no dev split); the message says why."""


def checkpoint_calibration(
    team: Any, checkpoint_dir: str | Path, backbone: Callable[[], Any] | None = None
) -> dict[str, Any]:
    """The checkpoint's calibration, computed and stored once when it has none (loads the team: seconds;
    `backbone()` gives the backbone to load it with, default the spec's, loaded anew)."""
    path = Path(checkpoint_dir) / CALIBRATION_FILE
    with _lock:
        key = (str(path), path.stat().st_mtime if path.is_file() else -1.0)
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
        found = load_calibration(checkpoint_dir)
        if found is None:
            found = _calibrate_now(team, checkpoint_dir, backbone)
            key = (str(path), path.stat().st_mtime)
        _cache[key] = found
        while len(_cache) > _KEEP:
            _cache.popitem(last=False)
        return found


def _calibrate_now(
    team: Any, checkpoint_dir: str | Path, backbone: Callable[[], Any] | None
) -> dict[str, Any]:
    from agents.backbone import Backbone
    from training.mappo import config_from_spec, trained_team

    factory = dev_env_factory(team)
    if factory is None:
        raise PreviewUnavailable(
            f"environment {team.environment.name!r} has no dev split of tickets to preview the breaker on"
        )
    if backbone is None:
        b = team.backbone
        loaded = Backbone.load(b.model, pooling=b.pooling, max_length=b.max_length)
    else:
        loaded = backbone()
    trainer = trained_team(team, config_from_spec(team), checkpoint_dir, loaded)
    found = calibrate(trainer, factory())
    save_calibration(checkpoint_dir, found, DEV_SPLIT)
    return {**found, "split": DEV_SPLIT}


def preview(
    team: Any,
    checkpoint_dir: str | Path,
    threshold: float | None = None,
    backbone: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """The breaker of `team` (its `circuit_breaker`, the confidence threshold replaced by `threshold` when
    given) replayed on the checkpoint's dev-split confidences; `fallback_preview`'s keys plus the split,
    the spec's own threshold and the calibration error."""
    calibration = checkpoint_calibration(team, checkpoint_dir, backbone)
    config = BreakerConfig.from_spec(team.circuit_breaker)
    spec_threshold = config.confidence_threshold
    if threshold is not None:
        if not 0.0 <= float(threshold) <= 1.0:
            raise ValueError("threshold must be between 0 and 1")
        config.confidence_threshold = float(threshold)
    out = fallback_preview(calibration["confidences"], config)
    return out | {
        "split": calibration.get("split", DEV_SPLIT),
        "spec_threshold": spec_threshold,
        "calibration_error": calibration.get("ece_after"),
        "calibration_error_before": calibration.get("ece_before"),
    }
