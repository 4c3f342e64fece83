"""HCP wire format: round trips and malformed frames rejected with a message naming the problem."""

import struct

import pytest

from agents.protocol.wire import (
    OVERHEAD_BYTES,
    Frame,
    FrameKind,
    SemanticMessage,
    WireFormatError,
    decode_frame,
    encode_frame,
    semantic_frame_bytes,
)


def _semantic(n=5, code_bits=7, dims=3, bits=2):
    msgs = tuple(
        SemanticMessage(code=(i * 37) % (1 << code_bits), residual=tuple((i + j) % 4 for j in range(dims)))
        for i in range(n)
    )
    return Frame(
        FrameKind.SEMANTIC,
        sender=513,
        messages=msgs,
        channel=0,
        codebook_version=9,
        code_bits=code_bits,
        residual_dims=dims,
        residual_bits=bits,
    )


def test_semantic_round_trip_and_exact_size():
    frame = _semantic()
    data = encode_frame(frame)
    assert (
        len(data) == semantic_frame_bytes(5, 7, 3, 2) == OVERHEAD_BYTES + 9
    )  # 5 × 13 bits = 65 bits → 9 bytes
    back = decode_frame(data)
    assert back == frame


def test_text_and_history_round_trip():
    text = Frame(FrameKind.TEXT, sender=1, messages=("hello", "wo\u00efrld", ""), channel=2)
    assert decode_frame(encode_frame(text)) == text
    hist = Frame(
        FrameKind.HISTORY,
        sender=2,
        messages=(SemanticMessage(3, (1, 2)), SemanticMessage(4, ())),
        channel=2,
        codebook_version=1,
        code_bits=4,
        residual_dims=2,
        residual_bits=2,
    )
    back = decode_frame(encode_frame(hist))
    assert back.messages == hist.messages
    # 2 × (4 code + 1 flag) + 1 × 4 residual bits = 14 bits → 2 bytes
    assert len(encode_frame(hist)) == OVERHEAD_BYTES + 2


def _recrc(body: bytes) -> bytes:
    import binascii

    return body + struct.pack(">H", binascii.crc_hqx(body, 0xFFFF))


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda d: d[:5], "header and CRC alone"),
        (lambda d: _recrc(b"\x00" + d[1:-2]), "bad magic"),
        (lambda d: _recrc(d[:1] + bytes([(7 << 4) | 1]) + d[2:-2]), "unsupported wire version 7"),
        (lambda d: d[:-1] + bytes([d[-1] ^ 0xFF]), "CRC mismatch"),
        (lambda d: _recrc(d[:1] + bytes([(1 << 4) | 9]) + d[2:-2]), "unknown frame kind 9"),
        (lambda d: _recrc(d[:2] + b"\x03" + d[3:-2]), "channel"),
        (lambda d: _recrc(d[:-4]), "truncated"),
        (lambda d: _recrc(d[:-2] + b"\x00\x00"), "message count or layout"),
        (lambda d: _recrc(d[:9] + bytes([0x02]) + d[10:-2]), "code_bits must be"),
    ],
)
def test_malformed_frames_are_rejected_with_a_clear_error(mutate, match):
    data = encode_frame(_semantic())
    with pytest.raises(WireFormatError, match=match):
        decode_frame(mutate(data))


def test_wire_format_error_is_a_value_error_and_encoding_checks_fields():
    assert issubclass(WireFormatError, ValueError)
    with pytest.raises(WireFormatError, match="does not fit in 7 bits"):
        encode_frame(
            Frame(
                FrameKind.SEMANTIC,
                0,
                (SemanticMessage(200, (0, 0, 0)),),
                code_bits=7,
                residual_dims=3,
                residual_bits=2,
            )
        )
    with pytest.raises(WireFormatError, match="sender must fit"):
        encode_frame(Frame(FrameKind.TEXT, 70000, ("x",)))
    with pytest.raises(WireFormatError, match="must be bytes"):
        decode_frame("not bytes")
    with pytest.raises(WireFormatError, match="not valid UTF-8"):
        good = encode_frame(Frame(FrameKind.TEXT, 1, ("ab",)))
        decode_frame(_recrc(good[:-4] + b"\xff\xfe"))
