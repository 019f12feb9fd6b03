"""The tagged hash H, the integer encoders and the envelope signing layout, checked byte for byte."""

from __future__ import annotations

import hashlib
import json
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from watten_net.deal.envelope import GENESIS_PREV_HASH, HOST_SENDER, envelope_hash, signing_bytes
from watten_net.deal.protocol import compact_json
from watten_net.hashing import H, framed, length_prefixed, require_len, tag, u8, u32, u64


def _reference_h(name: str, *fields: bytes) -> bytes:
    """Straight-line reimplementation of the documented layout, independent of the module."""
    t = b"watten/v1/" + name.encode("ascii")
    data = struct.pack(">I", len(t)) + t
    for f in fields:
        data += struct.pack(">I", len(f)) + f
    return hashlib.sha256(data).digest()


def test_h_without_fields_is_sha256_of_the_framed_tag() -> None:
    assert H("test") == hashlib.sha256(b"\x00\x00\x00\x0ewatten/v1/test").digest()


def test_h_known_answer() -> None:
    # Frozen: changing the layout must break this test, not silently change every commitment.
    preimage = b"\x00\x00\x00\x0ewatten/v1/test" + b"\x00\x00\x00\x03abc" + b"\x00\x00\x00\x00"
    assert framed("test", b"abc", b"") == preimage
    assert H("test", b"abc", b"") == hashlib.sha256(preimage).digest()


@pytest.mark.parametrize(
    "name, fields",
    [
        ("host-seed", (bytes(32), b"\x00\x00\x00\x01", b"\xff")),
        ("card-commit", (b"", b"HK", bytes(range(200)))),
        ("game-id", ()),
        ("a/b-c9", (b"x" * 70000,)),
    ],
)
def test_h_matches_reference(name: str, fields: tuple[bytes, ...]) -> None:
    assert H(name, *fields) == _reference_h(name, *fields)


def test_length_prefixing_prevents_boundary_shifts() -> None:
    assert H("t", b"ab", b"c") != H("t", b"a", b"bc")
    assert H("t", b"abc") != H("t", b"ab", b"c")
    assert H("t", b"") != H("t")
    assert H("t", b"", b"") != H("t", b"")


def test_tags_separate_domains() -> None:
    assert H("host-seed", b"x") != H("client-seed", b"x")
    assert tag("deck-key") == b"watten/v1/deck-key"


@pytest.mark.parametrize("bad", ["", "Upper", "with space", "ümlaut", "-lead", "dot.ted"])
def test_bad_tag_names_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="tag name"):
        tag(bad)


def test_fields_must_be_bytes() -> None:
    with pytest.raises(TypeError, match="field 1"):
        H("t", b"ok", "text")  # type: ignore[arg-type]
    assert H("t", bytearray(b"ab")) == H("t", b"ab")  # type: ignore[arg-type]


def test_length_prefixed() -> None:
    assert length_prefixed(b"") == b"\x00\x00\x00\x00"
    assert length_prefixed(b"\x01" * 258) == b"\x00\x00\x01\x02" + b"\x01" * 258


def test_integer_encoders_are_big_endian_fixed_width() -> None:
    assert u8(0) == b"\x00"
    assert u8(255) == b"\xff"
    assert u32(1) == b"\x00\x00\x00\x01"
    assert u32(0x01020304) == b"\x01\x02\x03\x04"
    assert u32(2**32 - 1) == b"\xff" * 4
    assert u64(2**64 - 1) == b"\xff" * 8
    assert u64(0x0102030405060708) == bytes(range(1, 9))


@pytest.mark.parametrize(
    "encoder, value", [(u8, 256), (u8, -1), (u32, 2**32), (u32, -1), (u64, 2**64), (u64, -5)]
)
def test_integer_encoders_check_the_range(encoder: object, value: int) -> None:
    assert callable(encoder)
    with pytest.raises(ValueError, match="does not fit"):
        encoder(value)


@pytest.mark.parametrize("value", [True, 1.0, "1", None])
def test_integer_encoders_refuse_non_ints(value: object) -> None:
    with pytest.raises(TypeError):
        u32(value)  # type: ignore[arg-type]


def test_require_len() -> None:
    assert require_len("x", b"ab", 2) == b"ab"
    with pytest.raises(ValueError, match="x must be exactly 32 bytes, got 31"):
        require_len("x", bytes(31), 32)
    with pytest.raises(TypeError):
        require_len("x", "ab", 2)  # type: ignore[arg-type]


def test_envelope_signing_bytes_layout() -> None:
    gid = bytes(range(32))
    prev = b"\xaa" * 32
    got = signing_bytes(gid, 7, prev, 2, "KeyCommit", b"\x08\x01")
    want = (
        b"\x00\x00\x00\x12watten/v1/envelope"
        + b"\x00\x00\x00\x20" + gid
        + b"\x00\x00\x00\x08" + (7).to_bytes(8, "big")
        + b"\x00\x00\x00\x20" + prev
        + b"\x00\x00\x00\x01" + b"\x02"
        + b"\x00\x00\x00\x09KeyCommit"
        + b"\x00\x00\x00\x02" + b"\x08\x01"
    )  # fmt: skip
    assert got == want


@pytest.mark.parametrize("seq, sender, type_name, payload", [
    (1, HOST_SENDER, "GameHeader", b""), (2**64 - 1, 0, "ActionAccepted", bytes(range(256)) * 40),
    (7, 254, "a.B_9", b"\x00"),
])
def test_envelope_signing_bytes_are_the_framing(seq: int, sender: int, type_name: str, payload: bytes) -> None:
    # signing_bytes writes the framing out by hand for speed: it must stay exactly framed("envelope", ...).
    gid, prev = bytes(range(32)), b"\xaa" * 32
    want = framed("envelope", gid, u64(seq), prev, u8(sender), type_name.encode("ascii"), payload)
    assert signing_bytes(gid, seq, prev, sender, type_name, payload) == want
    assert signing_bytes(gid, seq, prev, sender, type_name, bytearray(payload)) == want


def test_envelope_fields_are_all_bound() -> None:
    gid, prev = bytes(32), GENESIS_PREV_HASH
    base = signing_bytes(gid, 1, prev, HOST_SENDER, "HandOpen", b"p")
    variants = [
        signing_bytes(b"\x01" + bytes(31), 1, prev, HOST_SENDER, "HandOpen", b"p"),
        signing_bytes(gid, 2, prev, HOST_SENDER, "HandOpen", b"p"),
        signing_bytes(gid, 1, b"\x01" * 32, HOST_SENDER, "HandOpen", b"p"),
        signing_bytes(gid, 1, prev, 0, "HandOpen", b"p"),
        signing_bytes(gid, 1, prev, HOST_SENDER, "KeyReveal", b"p"),
        signing_bytes(gid, 1, prev, HOST_SENDER, "HandOpen", b"q"),
    ]
    assert len({base, *variants}) == len(variants) + 1


@pytest.mark.parametrize(
    "kwargs, exc",
    [
        ({"game_id": bytes(31)}, ValueError),
        ({"prev_hash": bytes(33)}, ValueError),
        ({"seq": -1}, ValueError),
        ({"sender_seat": 256}, ValueError),
        ({"type_name": "Seed Commit"}, ValueError),
        ({"type_name": ""}, ValueError),
        ({"type_name": "Play\n"}, ValueError),
        ({"type_name": b"Play"}, ValueError),
        ({"sender_seat": True}, TypeError),
        ({"payload": "text"}, TypeError),
    ],
)
def test_envelope_signing_bytes_validation(kwargs: dict[str, object], exc: type[Exception]) -> None:
    args: dict[str, object] = {
        "game_id": bytes(32),
        "seq": 0,
        "prev_hash": GENESIS_PREV_HASH,
        "sender_seat": 0,
        "type_name": "Play",
        "payload": b"",
    }
    args.update(kwargs)
    with pytest.raises(exc):
        signing_bytes(**args)  # type: ignore[arg-type]


def test_envelope_hash_is_sha256_of_the_raw_bytes() -> None:
    raw = b"\x0a\x20" + bytes(32) + b"\x10\x01"
    assert envelope_hash(raw) == hashlib.sha256(raw).digest()


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                    max_leaves=8))
def test_event_fields_are_compact_json(value: object) -> None:
    # Event fields are signed on the wire: the fast path for ints and strings must write json.dumps's very text.
    assert compact_json(value) == json.dumps(value, separators=(",", ":"), sort_keys=True)
