"""The one exception type of the trustless deal, and its machine-readable reasons.

Every way a received message can be wrong ends in :class:`TrustlessError` with a :class:`Reason` (the one enum of
watten_net/refusal.py) and, once the session layer knows who sent it, the seat to blame. Nothing a remote party
sends may surface as a libsodium error, an IndexError or a crash: the lead turns these into a protocol verdict
("seat 2 cheated: bad-shuffle-proof").
"""

from __future__ import annotations

from watten_net.refusal import Reason

__all__ = ["DealStateError", "Reason", "TrustlessError"]
# The maths' reasons (MALFORMED, INVALID_POINT, NON_CANONICAL_SCALAR, WRONG_CONTEXT, OUT_OF_TURN,
# CONFLICTING_MESSAGE, BAD_KEY_PROOF, BAD_SHUFFLE_PROOF, BAD_DECRYPTION_PROOF, DEGENERATE_KEY, NOT_A_CARD) are members
# of the one Reason: they reach the wire and the records verbatim (watten_net/deal/level2.py `trustless_error`).


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
