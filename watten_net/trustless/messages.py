"""The three messages of the trustless deal, with canonical, length-checked byte encodings.

Each encoding is a kind byte followed by fixed-width fields (points and scalars are 32 bytes,
the deal id is ``game_id || u32 hand || u32 attempt``). ``from_bytes`` validates every point
and scalar and accepts only the exact length, so it raises :class:`TrustlessError` (never
anything else) for any other input, and ``from_bytes(m.to_bytes()) == m``.

    KeyShareMessage         01 | deal id | u8 seat | X | T | z                                (138 bytes)
    ShuffleMessage          02 | deal id | u8 seat | u8 N | N ciphertexts (c1 c2) | proof     (43 + 64N + 32(5N+9))
    DecryptionShareMessage  03 | deal id | u8 position | u8 seat | D | A | B | z              (171 bytes)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from watten_net.hashing import u8
from watten_net.trustless.context import DealId
from watten_net.trustless.elgamal import MAX_CARDS, Ciphertext, encode_deck, read_deck
from watten_net.trustless.errors import Reason, TrustlessError
from watten_net.trustless.group import Point
from watten_net.trustless.proofs import DleqProof, SchnorrProof
from watten_net.trustless.shuffle import ShuffleProof
from watten_net.trustless.wire import Reader

KIND_KEY_SHARE = 1
KIND_SHUFFLE = 2
KIND_DECRYPTION_SHARE = 3


@dataclass(frozen=True, slots=True)
class KeyShareMessage:
    """Seat ``seat``'s ElGamal key share ``X = x·G`` for ``deal``, with a Schnorr proof of knowledge of x."""

    deal: DealId
    seat: int
    public_key: Point
    proof: SchnorrProof

    def to_bytes(self) -> bytes:
        return u8(KIND_KEY_SHARE) + self.deal.encode() + u8(self.seat) + self.public_key + self.proof.encode()

    @staticmethod
    def from_bytes(data: bytes) -> KeyShareMessage:
        reader = Reader(data, "key share message")
        reader.expect_kind(KIND_KEY_SHARE)
        message = KeyShareMessage(reader.deal_id(), reader.u8(), reader.point(), SchnorrProof.read(reader))
        reader.finish()
        return message


@dataclass(frozen=True, slots=True)
class ShuffleMessage:
    """Seat ``seat``'s shuffled deck (its output) and the Terelius-Wikström proof that it permutes its input."""

    deal: DealId
    seat: int
    deck: tuple[Ciphertext, ...]
    proof: ShuffleProof

    def to_bytes(self) -> bytes:
        return b"".join(
            [u8(KIND_SHUFFLE), self.deal.encode(), u8(self.seat), u8(len(self.deck)), encode_deck(self.deck),
             self.proof.encode()]
        )

    @staticmethod
    def from_bytes(data: bytes) -> ShuffleMessage:
        reader = Reader(data, "shuffle message")
        reader.expect_kind(KIND_SHUFFLE)
        deal, seat, n = reader.deal_id(), reader.u8(), reader.u8()
        if not 0 < n <= MAX_CARDS:
            raise TrustlessError(Reason.MALFORMED, f"shuffle of {n} cards")
        expected = 1 + DealId.ENCODED_LEN + 2 + n * Ciphertext.ENCODED_LEN + ShuffleProof.encoded_len(n)
        if len(data) != expected:  # refuse before spending time on point validation
            raise TrustlessError(Reason.MALFORMED, f"shuffle message of {len(data)} bytes, expected {expected}")
        message = ShuffleMessage(deal, seat, read_deck(reader, n), ShuffleProof.read(reader, n))
        reader.finish()
        return message


@dataclass(frozen=True, slots=True)
class DecryptionShareMessage:
    """Seat ``seat``'s decryption share ``D = x·c1`` for deck ``position``, with a Chaum-Pedersen proof."""

    deal: DealId
    position: int
    seat: int
    share: Point
    proof: DleqProof

    def to_bytes(self) -> bytes:
        return b"".join(
            [u8(KIND_DECRYPTION_SHARE), self.deal.encode(), u8(self.position), u8(self.seat), self.share,
             self.proof.encode()]
        )

    @staticmethod
    def from_bytes(data: bytes) -> DecryptionShareMessage:
        reader = Reader(data, "decryption share message")
        reader.expect_kind(KIND_DECRYPTION_SHARE)
        message = DecryptionShareMessage(reader.deal_id(), reader.u8(), reader.u8(), reader.point(),
                                         DleqProof.read(reader))
        reader.finish()
        return message


Message = KeyShareMessage | ShuffleMessage | DecryptionShareMessage


def decode_message(data: bytes) -> Message:
    """Decode any of the three messages by its kind byte."""
    if not data:
        raise TrustlessError(Reason.MALFORMED, "empty message")
    decoders: dict[int, Callable[[bytes], Message]] = {
        KIND_KEY_SHARE: KeyShareMessage.from_bytes,
        KIND_SHUFFLE: ShuffleMessage.from_bytes,
        KIND_DECRYPTION_SHARE: DecryptionShareMessage.from_bytes,
    }
    decoder = decoders.get(data[0])
    if decoder is None:
        raise TrustlessError(Reason.MALFORMED, f"unknown message kind {data[0]}")
    return decoder(data)
