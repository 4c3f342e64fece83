"""Checkpoints without pickle: safetensors for tensors, JSON for everything else.

Layout of one checkpoint directory (`OUT/checkpoints/step_000123/`):

    heads.safetensors        per-agent policy heads (and the value baseline when learned)
    comm.safetensors         the communication attention (W_Q, W_K)
    optimizer.safetensors    optimizer moments, flattened ("state.<param>.<name>")
    rng.safetensors          torch generator state
    state.json               step, episode, baseline, schedule state, numpy RNG state, event seq, …
    adapters/<agent>/        PEFT adapter folders (when adapters train), loadable with
                             `PeftModel.from_pretrained(base, adapters/<agent>)`

`OUT/checkpoints/latest.json` names the newest complete checkpoint; it is written last, so a run
killed while saving resumes from the previous one.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

STATE_FILE = "state.json"
LATEST_FILE = "latest.json"
FORMAT_VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that is missing, incomplete, corrupted or made for another team."""


def save_tensors(path: Path, tensors: Mapping[str, torch.Tensor]) -> None:
    """Write `tensors` to a safetensors file (contiguous CPU copies)."""
    from safetensors.torch import save_file

    save_file({k: v.detach().cpu().contiguous() for k, v in tensors.items()}, str(path))


def load_tensors(path: Path) -> dict[str, torch.Tensor]:
    """Read a safetensors file, turning any failure into a `CheckpointError` naming the file."""
    from safetensors.torch import load_file

    if not path.is_file():
        raise CheckpointError(f"checkpoint file {path} is missing")
    try:
        return load_file(str(path))
    except Exception as exc:  # safetensors raises its own error type for truncated or garbled files
        raise CheckpointError(
            f"checkpoint file {path} is corrupted ({exc}); delete the checkpoint "
            "directory to fall back to an earlier one"
        ) from exc


def optimizer_tensors(optimizer: torch.optim.Optimizer) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """Split an optimizer's state dict into flat tensors and JSON metadata (no pickle needed)."""
    state = optimizer.state_dict()
    tensors, scalars = {}, {}
    for index, values in state["state"].items():
        for name, value in values.items():
            if torch.is_tensor(value):
                tensors[f"state.{index}.{name}"] = value
            else:
                scalars[f"{index}.{name}"] = value
    return tensors, {"param_groups": state["param_groups"], "scalars": scalars}


def restore_optimizer(
    optimizer: torch.optim.Optimizer, tensors: Mapping[str, torch.Tensor], meta: Mapping
) -> None:
    """Inverse of `optimizer_tensors`."""
    state: dict[int, dict[str, Any]] = {}
    for key, value in tensors.items():
        _, index, name = key.split(".", 2)
        state.setdefault(int(index), {})[name] = value
    for key, value in meta.get("scalars", {}).items():
        index, name = key.split(".", 1)
        state.setdefault(int(index), {})[name] = value
    try:
        optimizer.load_state_dict({"state": state, "param_groups": meta["param_groups"]})
    except (ValueError, KeyError) as exc:
        raise CheckpointError(f"optimizer state does not fit this team ({exc})") from exc


def write_checkpoint(
    root: Path,
    step: int,
    groups: Mapping[str, Mapping[str, torch.Tensor]],
    state: Mapping[str, Any],
    adapters=None,
    keep: int = 3,
) -> Path:
    """Write checkpoint `step` under `root` (the run's `checkpoints/` folder) and mark it latest.

    `groups` maps a file stem ("heads", "comm", "optimizer", "rng") to its tensors. Only the newest
    `keep` checkpoints are kept (0 = keep all).
    """
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"step_{step:07d}"
    staging = root / f".step_{step:07d}.partial"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    for stem, tensors in groups.items():
        save_tensors(staging / f"{stem}.safetensors", tensors)
    if adapters is not None:
        adapters.save(staging / "adapters")
    (staging / STATE_FILE).write_text(json.dumps({"format": FORMAT_VERSION, **state}, indent=1))
    if final.exists():
        shutil.rmtree(final)
    os.replace(staging, final)
    latest = root / LATEST_FILE
    tmp = root / (LATEST_FILE + ".tmp")
    tmp.write_text(json.dumps({"step": step, "path": final.name}))
    os.replace(tmp, latest)
    if keep > 0:
        for old in sorted(p for p in root.glob("step_*") if p.is_dir())[:-keep]:
            shutil.rmtree(old, ignore_errors=True)
    return final


def latest_checkpoint(root: Path) -> Path | None:
    """The newest complete checkpoint directory under `root`, or None when there is none."""
    latest = root / LATEST_FILE
    if not latest.is_file():
        return None
    try:
        name = json.loads(latest.read_text())["path"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise CheckpointError(f"{latest} is corrupted; delete it to start over") from exc
    path = root / name
    if not path.is_dir():
        raise CheckpointError(f"{latest} names {path}, which does not exist")
    return path


def read_state(path: Path) -> dict[str, Any]:
    """The JSON state of checkpoint directory `path`."""
    file = path / STATE_FILE
    if not file.is_file():
        raise CheckpointError(f"{path} is not a checkpoint (no {STATE_FILE})")
    try:
        state = json.loads(file.read_text())
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"{file} is corrupted: {exc}") from exc
    if not isinstance(state, dict) or state.get("format") != FORMAT_VERSION:
        raise CheckpointError(f"{file} has an unknown checkpoint format")
    return state


def load_state_dict_strict(module: torch.nn.Module, tensors: Mapping[str, torch.Tensor], what: str) -> None:
    """`module.load_state_dict` with shape/name mismatches reported as a `CheckpointError`."""
    try:
        module.load_state_dict(dict(tensors), strict=True)
    except RuntimeError as exc:
        first = str(exc).strip().splitlines()[0]
        raise CheckpointError(f"the checkpoint's {what} do not fit this team's spec: {first}") from exc
