"""Which deal a message or proof belongs to: ``(game_id, hand, attempt)``.

Every proof's Fiat-Shamir challenge starts with these fields, so a proof made for one game,
hand or attempt (a ``bessere`` redeal is a new attempt) never verifies in another.

A game that shuffles its decks ahead (watten_net.deal.level2) does not know, when it prepares a deck,
which hand or attempt will use it: it binds deck ``d`` to :meth:`DealId.prepared` instead, that is
``hand = d`` and ``attempt = PREPARED``. No attempt number reaches ``PREPARED``, so such an id never
equals a ``(hand, attempt)`` one, and the 40-byte encoding (and every proof format) stays the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from watten_net.hashing import DIGEST_LEN, require_len, u32

PREPARED = 0xFFFF_FFFF
"""The ``attempt`` field of a deck prepared ahead (:meth:`DealId.prepared`)."""


@dataclass(frozen=True, slots=True)
class DealId:
    """The deal a message belongs to. ``game_id`` is the 32-byte id of docs/protocol.md; hand and attempt are u32."""

    game_id: bytes
    hand: int
    attempt: int

    ENCODED_LEN = DIGEST_LEN + 8

    def __post_init__(self) -> None:
        require_len("game_id", self.game_id, DIGEST_LEN)
        u32(self.hand)  # raises unless 0 <= hand < 2**32
        u32(self.attempt)

    @classmethod
    def prepared(cls, game_id: bytes, deck: int) -> DealId:
        """The id of deck number ``deck`` of a game whose decks are prepared ahead of their attempts."""
        return cls(game_id, deck, PREPARED)

    @property
    def deck(self) -> int | None:
        """The deck number of a prepared deck's id (None for a ``(hand, attempt)`` id)."""
        return self.hand if self.attempt == PREPARED else None

    def describe(self) -> str:
        """``deck 3`` or ``hand/attempt 2/0``, for messages."""
        deck = self.deck
        return f"deck {deck}" if deck is not None else f"hand/attempt {self.hand}/{self.attempt}"

    def fields(self) -> tuple[bytes, bytes, bytes]:
        """The hash fields ``(game_id, u32 hand, u32 attempt)``."""
        return (bytes(self.game_id), u32(self.hand), u32(self.attempt))

    def encode(self) -> bytes:
        """``game_id || u32 hand || u32 attempt`` (40 bytes), the wire form."""
        return b"".join(self.fields())
