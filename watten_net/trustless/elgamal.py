"""ElGamal over the Ed25519 subgroup with a joint key: card points, (re-)encryption, threshold decryption.

A ciphertext of the point ``M`` under the joint key ``PK = Σ X_i`` (``X_i = x_i · G``) is
``(c1, c2) = (r·G, M + r·PK)``. Re-encryption adds ``(r'·G, r'·PK)``; seat i's decryption share
is ``D_i = x_i · c1``, and ``M = c2 - Σ D_i`` once every seat's share is in.

Card j of the canonical deck is ``M_j = hash_to_point("trustless/card-point", u8 j)``: points
with no known logarithms and no known relations between them, so a ciphertext leaks nothing
about which card it holds.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from watten_net.hashing import u8
from watten_net.trustless.errors import Reason, TrustlessError
from watten_net.trustless.group import BASE, POINT_LEN, Point, add, hash_to_point, mul, point_sum, sub
from watten_net.trustless.wire import Reader

MAX_CARDS = 64
"""Card points are defined for indices below this (Watten uses 32 or 33)."""


@dataclass(frozen=True, slots=True)
class Ciphertext:
    """``c1 = r·G`` (the randomness part) and ``c2 = M + r·PK`` (the masked card)."""

    c1: Point
    c2: Point

    ENCODED_LEN = 2 * POINT_LEN

    def encode(self) -> bytes:
        return self.c1 + self.c2


def card_point(index: int) -> Point:
    """``M_j``, the point that stands for card ``index`` of the canonical deck."""
    return _card_points(MAX_CARDS)[index]


@functools.cache
def _card_points(count: int) -> tuple[Point, ...]:
    return tuple(hash_to_point("trustless/card-point", u8(j)) for j in range(count))


@functools.cache
def _card_lookup(n_cards: int) -> dict[Point, int]:
    return {point: j for j, point in enumerate(_card_points(MAX_CARDS)[:n_cards])}


def card_index(point: Point, n_cards: int) -> int:
    """The index j < ``n_cards`` with ``M_j == point``; ``not-a-card`` if there is none."""
    index = _card_lookup(n_cards).get(point)
    if index is None:
        raise TrustlessError(Reason.NOT_A_CARD, f"decrypted point {point.hex()} is none of the {n_cards} cards")
    return index


def trivial_encryption(message: Point, joint_key: Point) -> Ciphertext:
    """The public encryption of ``message`` with randomness r = 1: ``(G, M + PK)``.

    Not r = 0, whose ``(O, M)`` would put the identity on the wire, which every receiver refuses
    (and libsodium cannot multiply). Anybody can recompute it; the shuffles add the secrecy.
    """
    return Ciphertext(BASE, add(message, joint_key))


def initial_deck(n_cards: int, joint_key: Point) -> tuple[Ciphertext, ...]:
    """The canonical deck, card j at position j, trivially encrypted under ``joint_key``."""
    return tuple(trivial_encryption(card_point(j), joint_key) for j in range(n_cards))


def reencrypt(ciphertext: Ciphertext, joint_key: Point, randomness: int) -> Ciphertext:
    """The same plaintext under fresh randomness: ``(c1 + r'·G, c2 + r'·PK)``."""
    return Ciphertext(
        add(ciphertext.c1, mul(randomness, BASE)),
        add(ciphertext.c2, mul(randomness, joint_key)),
    )


def decryption_share(ciphertext: Ciphertext, secret: int) -> Point:
    """Seat i's share ``D_i = x_i · c1``."""
    return mul(secret, ciphertext.c1)


def finish_decryption(ciphertext: Ciphertext, shares: Iterable[Point]) -> Point:
    """``c2 - Σ D_i``: the card point, once the shares of all seats are given."""
    return sub(ciphertext.c2, point_sum(shares))


def encode_deck(deck: Sequence[Ciphertext]) -> bytes:
    """The ciphertexts' 64-byte encodings, concatenated in deck order (no count: the reader knows it)."""
    return b"".join(c.encode() for c in deck)


def read_deck(reader: Reader, n_cards: int) -> tuple[Ciphertext, ...]:
    """Read ``n_cards`` validated ciphertexts."""
    return tuple(Ciphertext(reader.point(), reader.point()) for _ in range(n_cards))
