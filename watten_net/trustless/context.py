"""Which deal a message or proof belongs to: ``(game_id, hand, attempt)``.

Every proof's Fiat-Shamir challenge starts with these fields, so a proof made for one game,
hand or attempt (a ``bessere`` redeal is a new attempt) never verifies in another.
"""

from __future__ import annotations

from dataclasses import dataclass

from watten_net.deal.hashing import DIGEST_LEN, require_len, u32


@dataclass(frozen=True, slots=True)
class DealId:
    """The deal a message belongs to. ``game_id`` is the 32-byte id of PROTOCOL.md; hand and attempt are u32."""

    game_id: bytes
    hand: int
    attempt: int

    ENCODED_LEN = DIGEST_LEN + 8

    def __post_init__(self) -> None:
        require_len("game_id", self.game_id, DIGEST_LEN)
        u32(self.hand)  # raises unless 0 <= hand < 2**32
        u32(self.attempt)

    def fields(self) -> tuple[bytes, bytes, bytes]:
        """The hash fields ``(game_id, u32 hand, u32 attempt)``."""
        return (bytes(self.game_id), u32(self.hand), u32(self.attempt))

    def encode(self) -> bytes:
        """``game_id || u32 hand || u32 attempt`` (40 bytes), the wire form."""
        return b"".join(self.fields())
