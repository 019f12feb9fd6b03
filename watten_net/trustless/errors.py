"""The one exception type of the trustless deal, and its machine-readable reasons.

Every way a received message can be wrong ends in :class:`TrustlessError` with a
:class:`Reason` and, once the session layer knows who sent it, the seat to blame. Nothing a
remote party sends may surface as a libsodium error, an IndexError or a crash: the lead turns
these into a protocol verdict ("seat 2 cheated: bad-shuffle-proof").
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Why a message was refused (the string values are stable and go into logs and records)."""

    MALFORMED = "malformed"
    """Wrong length, wrong message kind, wrong count or trailing bytes."""
    INVALID_POINT = "invalid-point"
    """Not a canonical encoding of a point of the prime-order subgroup (identity and small order included)."""
    NON_CANONICAL_SCALAR = "non-canonical-scalar"
    """A scalar encoding that is not reduced modulo the group order L."""
    WRONG_CONTEXT = "wrong-context"
    """The message names another game, hand, attempt, seat or position than the one expected."""
    OUT_OF_TURN = "out-of-turn"
    """A message that does not belong in the deal's current phase, or from a seat whose turn it is not."""
    CONFLICTING_MESSAGE = "conflicting-message"
    """A second, different key share from a seat that already published one."""
    BAD_KEY_PROOF = "bad-key-proof"
    BAD_SHUFFLE_PROOF = "bad-shuffle-proof"
    BAD_DECRYPTION_PROOF = "bad-decryption-proof"
    DEGENERATE_KEY = "degenerate-key"
    """The joint key is the identity: it would encrypt nothing (impossible with honest key proofs)."""
    NOT_A_CARD = "not-a-card"
    """A fully decrypted point is no card of the deck (impossible once every proof has verified)."""


class TrustlessError(Exception):
    """A refused message or a failed check: ``reason``, the ``seat`` to blame (None if unknown) and a ``detail``."""

    def __init__(self, reason: Reason, detail: str = "", seat: int | None = None) -> None:
        self.reason = reason
        self.detail = detail
        self.seat = seat
        blame = "" if seat is None else f" (seat {seat})"
        super().__init__(f"{reason.value}{blame}: {detail}" if detail else f"{reason.value}{blame}")

    def blaming(self, seat: int) -> TrustlessError:
        """The same failure attributed to ``seat`` (the authenticated sender of the refused message)."""
        return TrustlessError(self.reason, self.detail, seat)


class DealStateError(RuntimeError):
    """A local call out of order (a joint key before all key shares, a card before its shares): a bug, not a cheat."""
