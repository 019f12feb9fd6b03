"""Reading the canonical, fixed-layout byte encodings of the trustless messages.

Every layout is a fixed sequence of fixed-width fields whose counts are known from the
header, so a reader either consumes the input exactly or refuses it: no two byte strings decode
to the same message, and a receiver never re-serialises what it was sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from watten_net.trustless.context import DealId
from watten_net.trustless.errors import Reason, TrustlessError
from watten_net.trustless.group import POINT_LEN, SCALAR_LEN, Point, decode_point, decode_scalar, encode_scalar


def encode_points(points: Sequence[Point]) -> bytes:
    """The points' 32-byte encodings, concatenated."""
    return b"".join(points)


def encode_scalars(scalars: Sequence[int]) -> bytes:
    """The scalars' canonical 32-byte encodings, concatenated."""
    return b"".join(encode_scalar(s) for s in scalars)


class Reader:
    """Consumes a byte string field by field; every shortfall or leftover is ``malformed``."""

    def __init__(self, data: bytes, what: str) -> None:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TrustlessError(Reason.MALFORMED, f"{what} must be bytes, not {type(data).__name__}")
        self._data = bytes(data)
        self._at = 0
        self._what = what

    def take(self, n: int) -> bytes:
        if self._at + n > len(self._data):
            raise TrustlessError(Reason.MALFORMED, f"{self._what} is truncated ({len(self._data)} bytes)")
        out = self._data[self._at : self._at + n]
        self._at += n
        return out

    def expect_kind(self, kind: int) -> None:
        got = self.u8()
        if got != kind:
            raise TrustlessError(Reason.MALFORMED, f"{self._what}: message kind {got}, expected {kind}")

    def u8(self) -> int:
        return self.take(1)[0]

    def u32(self) -> int:
        return int.from_bytes(self.take(4), "big")

    def deal_id(self) -> DealId:
        game_id = self.take(32)
        hand = self.u32()
        return DealId(game_id, hand, self.u32())

    def point(self) -> Point:
        return decode_point(self.take(POINT_LEN))

    def points(self, count: int) -> tuple[Point, ...]:
        return tuple(self.point() for _ in range(count))

    def scalar(self) -> int:
        return decode_scalar(self.take(SCALAR_LEN))

    def scalars(self, count: int) -> tuple[int, ...]:
        return tuple(self.scalar() for _ in range(count))

    def finish(self) -> None:
        """Refuse trailing bytes: the encoding is canonical only if it is consumed exactly."""
        if self._at != len(self._data):
            raise TrustlessError(Reason.MALFORMED, f"{self._what} has {len(self._data) - self._at} trailing bytes")
