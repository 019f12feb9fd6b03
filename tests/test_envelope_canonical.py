"""parse_envelope takes an envelope only in its one canonical encoding (protocol.py): every other way of writing the
same fields (an unknown field anywhere, a field twice, a field out of order or of the wrong wire type, a default or a
varint written out longer than it must be) is refused, and the canonical bytes are taken as they are."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.protocol import ProtocolError, make_envelope, parse_envelope
from watten_net.refusal import Reason
from watten_net.v1 import watten_pb2 as pb

GAME, PREV = b"\x07" * 32, b"\x09" * 32


def _good() -> bytes:
    payload = pb.CheckpointSignature(hand=3, seat=1, chain_seq=77, chain_head=b"\x05" * 32)
    return make_envelope(Ed25519PrivateKey.generate(), GAME, 4, PREV, 1, payload)


def _field(number: int, wire: int, body: bytes) -> bytes:
    return bytes([number << 3 | wire]) + body


def _variants(good: bytes) -> dict[str, bytes]:
    env = pb.Envelope.FromString(good)
    first = pb.Envelope(game_id=env.game_id).SerializeToString()
    rest = good[len(first):]
    seq_field = pb.Envelope(seq=env.seq).SerializeToString()  # (seq 4: a one-byte varint)
    assert seq_field in good
    return {
        "an unknown field at the end": good + _field(9, 0, b"\x01"),
        "an unknown field in the middle": first + _field(12, 2, b"\x02ab") + rest,
        "game_id written twice (the last one counts)": first + good,
        "seq as a length-delimited field": good.replace(seq_field, _field(2, 2, b"\x01\x04"), 1),
        "seq as a longer varint than it needs": good.replace(seq_field, _field(2, 0, b"\x84\x00"), 1),
        "sender_seat 0 written out": good + _field(4, 0, b"\x00"),
        "the signature first": pb.Envelope(signature=env.signature).SerializeToString() + good.replace(
            pb.Envelope(signature=env.signature).SerializeToString(), b""),
    }


def test_the_canonical_encoding_is_taken_as_it_is() -> None:
    good = _good()
    signed = parse_envelope(good, host=False)
    assert signed.raw == good and signed.type == "CheckpointSignature" and signed.payload.chain_seq == 77


@pytest.mark.parametrize("what", list(_variants(_good())))
def test_every_other_encoding_of_the_same_envelope_is_refused(what: str) -> None:
    good = _good()
    raw = _variants(good)[what]
    assert raw != good
    with pytest.raises(ProtocolError) as refused:
        parse_envelope(raw, host=False)
    assert refused.value.reason == Reason.BAD_ENVELOPE, refused.value
