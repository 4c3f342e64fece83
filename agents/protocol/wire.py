"""Versioned binary wire format of the Hybrid Communication Protocol (HCP).

One *frame* carries a batch of messages from one sender on one priority channel. Three kinds exist:

- ``SEMANTIC``: semantically compressed messages — per message a codebook id plus a quantised residual,
  bit-packed back to back (the layout is described by the header, so a frame can be parsed without the
  codec; the codec then checks that it knows the codebook version).
- ``TEXT``: raw UTF-8 messages, the fallback when no codebook is fitted yet.
- ``HISTORY``: a compressed conversation history — per message the code id, one "residual kept" bit,
  and the residual only where it was kept.

Layout (version 1, big-endian, every field documented in docs/wire-format.md)::

    0  u8   magic 0xA7
    1  u8   version << 4 | kind
    2  u8   channel (bits 0-1: 0 urgent, 1 regular, 2 background), bits 2-7 reserved (zero)
    3  u16  sender id
    5  u16  codebook version (0 for TEXT)
    7  u16  message count
    9  u8   code_bits << 4 | residual_bits   (TEXT: 0)
    10 u8   residual dims                      (TEXT: 0)
    11 ...  payload
    -2 u16  CRC-16/CCITT of every byte before it

Malformed input raises `WireFormatError` (a `ValueError`) whose message names the field that is wrong.
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass, field
from enum import IntEnum

MAGIC = 0xA7
WIRE_VERSION = 1
SUPPORTED_VERSIONS = frozenset({1})
HEADER = struct.Struct(">BBBHHHBB")
HEADER_BYTES = HEADER.size  # 11
CRC_BYTES = 2
OVERHEAD_BYTES = HEADER_BYTES + CRC_BYTES  # 13 bytes of framing per frame
MAX_COUNT = 0xFFFF
MAX_CODE_BITS = 15  # 4-bit field; 0 is not a valid SEMANTIC layout
MAX_RESIDUAL_BITS = 8
CHANNELS = ("urgent", "regular", "background")


class WireFormatError(ValueError):
    """A frame that cannot be parsed or does not match what the receiver expects."""


class FrameKind(IntEnum):
    """What a frame's payload holds."""

    SEMANTIC = 1
    TEXT = 2
    HISTORY = 3


@dataclass(frozen=True)
class SemanticMessage:
    """One compressed message: codebook entry id plus quantised residual levels (one per residual dim).

    In a HISTORY frame `residual` is empty for messages whose residual was dropped.
    """

    code: int
    residual: tuple[int, ...] = ()


@dataclass(frozen=True)
class Frame:
    """A decoded (or to-be-encoded) frame. `messages` holds `SemanticMessage`s or `str`s (TEXT)."""

    kind: FrameKind
    sender: int
    messages: tuple = ()
    channel: int = 1
    codebook_version: int = 0
    code_bits: int = 0
    residual_bits: int = 0
    residual_dims: int = 0
    version: int = WIRE_VERSION
    extra: dict = field(default_factory=dict, compare=False)


def semantic_frame_bytes(count: int, code_bits: int, residual_dims: int, residual_bits: int) -> int:
    """Exact size in bytes of a SEMANTIC frame holding `count` messages (header and CRC included)."""
    payload_bits = count * (code_bits + residual_dims * residual_bits)
    return OVERHEAD_BYTES + (payload_bits + 7) // 8


def _check_u16(name: str, value: int) -> None:
    if not 0 <= value <= 0xFFFF:
        raise WireFormatError(f"{name} must fit in 16 bits (0..65535), got {value}")


def _pack_bits(fields: list[tuple[int, int]]) -> bytes:
    """Pack (value, width) pairs MSB-first into bytes, zero-padding the last byte."""
    acc = 0
    nbits = 0
    for value, width in fields:
        acc = (acc << width) | value
        nbits += width
    pad = (-nbits) % 8
    return (acc << pad).to_bytes((nbits + pad) // 8, "big") if nbits else b""


class _BitReader:
    """Reads MSB-first bit fields from a payload; running past the end is a malformed frame."""

    def __init__(self, payload: bytes):
        self.value = int.from_bytes(payload, "big")
        self.total = len(payload) * 8
        self.pos = 0

    def read(self, width: int, what: str) -> int:
        if self.pos + width > self.total:
            raise WireFormatError(f"payload is truncated: ran out of bits while reading {what}")
        shift = self.total - self.pos - width
        self.pos += width
        return (self.value >> shift) & ((1 << width) - 1)


def _header(frame: Frame, code_bits: int, residual_bits: int, residual_dims: int) -> bytes:
    if frame.version not in SUPPORTED_VERSIONS:
        raise WireFormatError(
            f"cannot write wire version {frame.version}; supported: {sorted(SUPPORTED_VERSIONS)}"
        )
    if frame.channel not in (0, 1, 2):
        raise WireFormatError(
            f"channel must be 0 (urgent), 1 (regular) or 2 (background), got {frame.channel}"
        )
    _check_u16("sender", frame.sender)
    _check_u16("codebook_version", frame.codebook_version)
    if len(frame.messages) > MAX_COUNT:
        raise WireFormatError(f"a frame holds at most {MAX_COUNT} messages, got {len(frame.messages)}")
    return HEADER.pack(
        MAGIC,
        (frame.version << 4) | int(frame.kind),
        frame.channel,
        frame.sender,
        frame.codebook_version,
        len(frame.messages),
        (code_bits << 4) | residual_bits,
        residual_dims,
    )


def _check_layout(code_bits: int, residual_bits: int, residual_dims: int) -> None:
    if not 1 <= code_bits <= MAX_CODE_BITS:
        raise WireFormatError(f"code_bits must be 1..{MAX_CODE_BITS}, got {code_bits}")
    if not 0 <= residual_bits <= MAX_RESIDUAL_BITS:
        raise WireFormatError(f"residual_bits must be 0..{MAX_RESIDUAL_BITS}, got {residual_bits}")
    if not 0 <= residual_dims <= 255:
        raise WireFormatError(f"residual_dims must be 0..255, got {residual_dims}")


def encode_frame(frame: Frame) -> bytes:
    """Serialise a frame to bytes (header, bit-packed payload, CRC-16)."""
    kind = FrameKind(frame.kind)
    if kind is FrameKind.TEXT:
        head = _header(frame, 0, 0, 0)
        parts = []
        for i, text in enumerate(frame.messages):
            if not isinstance(text, str):
                raise WireFormatError(f"TEXT frame message {i} must be str, got {type(text).__name__}")
            raw = text.encode("utf-8")
            if len(raw) > 0xFFFF:
                raise WireFormatError(f"TEXT frame message {i} is {len(raw)} bytes; the limit is 65535")
            parts.append(struct.pack(">H", len(raw)) + raw)
        body = head + b"".join(parts)
    else:
        cb, rb, rd = frame.code_bits, frame.residual_bits, frame.residual_dims
        _check_layout(cb, rb, rd)
        head = _header(frame, cb, rb, rd)
        fields: list[tuple[int, int]] = []
        for i, msg in enumerate(frame.messages):
            if not 0 <= msg.code < (1 << cb):
                raise WireFormatError(f"message {i}: code {msg.code} does not fit in {cb} bits")
            fields.append((msg.code, cb))
            residual = tuple(msg.residual)
            if kind is FrameKind.HISTORY:
                fields.append((1 if residual else 0, 1))
                if not residual:
                    continue
            if len(residual) != rd:
                raise WireFormatError(
                    f"message {i}: residual has {len(residual)} levels, the frame declares {rd}"
                )
            for level in residual:
                if not 0 <= level < (1 << rb):
                    raise WireFormatError(f"message {i}: residual level {level} does not fit in {rb} bits")
                fields.append((int(level), rb))
        body = head + _pack_bits(fields)
    return body + struct.pack(">H", binascii.crc_hqx(body, 0xFFFF))


def decode_frame(data: bytes) -> Frame:
    """Parse bytes into a `Frame`; raises `WireFormatError` naming the first thing that is wrong."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise WireFormatError(f"a frame must be bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) < OVERHEAD_BYTES:
        raise WireFormatError(f"frame is {len(data)} bytes; the header and CRC alone need {OVERHEAD_BYTES}")
    magic, ver_kind, channel, sender, cbv, count, bits, rd = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise WireFormatError(f"bad magic byte 0x{magic:02X} (expected 0x{MAGIC:02X}): not an HCP frame")
    version, kind_value = ver_kind >> 4, ver_kind & 0x0F
    if version not in SUPPORTED_VERSIONS:
        raise WireFormatError(
            f"unsupported wire version {version}; this reader supports {sorted(SUPPORTED_VERSIONS)}"
        )
    (crc,) = struct.unpack_from(">H", data, len(data) - CRC_BYTES)
    if binascii.crc_hqx(data[:-CRC_BYTES], 0xFFFF) != crc:
        raise WireFormatError("CRC mismatch: the frame was corrupted or truncated in transit")
    try:
        kind = FrameKind(kind_value)
    except ValueError:
        raise WireFormatError(
            f"unknown frame kind {kind_value}; known kinds: {[k.value for k in FrameKind]}"
        ) from None
    if channel & ~0x03 or channel == 3:
        raise WireFormatError(
            f"bad channel byte 0x{channel:02X}: channel must be 0, 1 or 2 and reserved bits zero"
        )
    payload = data[HEADER_BYTES:-CRC_BYTES]
    common = dict(kind=kind, sender=sender, channel=channel, codebook_version=cbv, version=version)
    if kind is FrameKind.TEXT:
        texts, pos = [], 0
        for i in range(count):
            if pos + 2 > len(payload):
                raise WireFormatError(f"TEXT payload truncated at message {i} of {count}")
            (n,) = struct.unpack_from(">H", payload, pos)
            raw = payload[pos + 2 : pos + 2 + n]
            if len(raw) != n:
                raise WireFormatError(f"TEXT message {i} declares {n} bytes but only {len(raw)} remain")
            try:
                texts.append(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise WireFormatError(f"TEXT message {i} is not valid UTF-8 ({exc.reason})") from None
            pos += 2 + n
        if pos != len(payload):
            raise WireFormatError(f"TEXT payload has {len(payload) - pos} unexpected trailing bytes")
        return Frame(messages=tuple(texts), **common)
    code_bits, residual_bits = bits >> 4, bits & 0x0F
    _check_layout(code_bits, residual_bits, rd)
    reader = _BitReader(payload)
    messages = []
    for i in range(count):
        code = reader.read(code_bits, f"the code of message {i}")
        keep = True
        if kind is FrameKind.HISTORY:
            keep = bool(reader.read(1, f"the residual flag of message {i}"))
        residual = (
            tuple(reader.read(residual_bits, f"residual level {j} of message {i}") for j in range(rd))
            if keep
            else ()
        )
        messages.append(SemanticMessage(code, residual))
    if reader.total - reader.pos >= 8:
        raise WireFormatError(
            f"payload is {len(payload)} bytes but {count} messages need only {(reader.pos + 7) // 8}: "
            "message count or layout fields are wrong"
        )
    return Frame(
        messages=tuple(messages),
        code_bits=code_bits,
        residual_bits=residual_bits,
        residual_dims=rd,
        **common,
    )
