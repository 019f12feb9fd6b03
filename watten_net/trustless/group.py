"""The prime-order subgroup of Ed25519 through libsodium: validated points, scalars mod L, hashing into both.

Points are their canonical 32-byte encodings (the :data:`Point` NewType): equal points have equal
bytes, so comparing and hashing points is comparing and hashing bytes. Scalars are Python ints in
``[0, L)``; their arithmetic is plain ``%`` (cheaper than a libsodium call through the FFI).

libsodium's scalar multiplication refuses the identity, small-order points and a zero scalar or
result (it raises). The identity is still a legitimate intermediate value (a sum can cancel out),
so :func:`mul`, :func:`add` and :func:`sub` give it its algebraic meaning instead of calling
libsodium; every point that arrives from outside goes through :func:`decode_point`, which only
accepts canonical encodings of points of order L.

Randomness comes from a ``draw(n) -> n bytes`` function (``secrets.token_bytes`` by default) so
tests and the host's crash journal can replay a deal exactly; :func:`seeded_draw` makes one.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import NewType

import nacl.exceptions
from nacl.bindings import (
    crypto_core_ed25519_add,
    crypto_core_ed25519_from_uniform,
    crypto_core_ed25519_is_valid_point,
    crypto_core_ed25519_sub,
    crypto_scalarmult_ed25519_base_noclamp,
    crypto_scalarmult_ed25519_noclamp,
)

from watten_net.hashing import H, u8, u64
from watten_net.trustless.errors import Reason, TrustlessError

Point = NewType("Point", bytes)
Draw = Callable[[int], bytes]

L = 2**252 + 27742317777372353535851937790883648493
"""The order of the prime-order subgroup (and of the base point)."""
FIELD_P = 2**255 - 19
POINT_LEN = 32
SCALAR_LEN = 32

IDENTITY = Point(b"\x01" + bytes(31))
BASE = Point(crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(SCALAR_LEN, "little")))
"""The standard Ed25519 base point G (y = 4/5)."""

_Y_MASK = (1 << 255) - 1


def decode_point(data: bytes) -> Point:
    """Return ``data`` as a Point if it canonically encodes a point of order L; else raise ``invalid-point``."""
    if len(data) != POINT_LEN:
        raise TrustlessError(Reason.MALFORMED, f"a point is {POINT_LEN} bytes, not {len(data)}")
    # libsodium checks this too; stating it here keeps the rule independent of the library version.
    if int.from_bytes(data, "little") & _Y_MASK >= FIELD_P:
        raise TrustlessError(Reason.INVALID_POINT, "non-canonical point encoding (y >= p)")
    if not crypto_core_ed25519_is_valid_point(bytes(data)):
        raise TrustlessError(Reason.INVALID_POINT, "not a point of the prime-order subgroup (or the identity)")
    return Point(bytes(data))


def decode_scalar(data: bytes) -> int:
    """Return the little-endian scalar in ``data``; raise ``non-canonical-scalar`` unless it is below L."""
    if len(data) != SCALAR_LEN:
        raise TrustlessError(Reason.MALFORMED, f"a scalar is {SCALAR_LEN} bytes, not {len(data)}")
    value = int.from_bytes(data, "little")
    if value >= L:
        raise TrustlessError(Reason.NON_CANONICAL_SCALAR, "scalar not reduced modulo L")
    return value


def encode_scalar(value: int) -> bytes:
    """The canonical 32-byte little-endian encoding of ``value mod L``."""
    return (value % L).to_bytes(SCALAR_LEN, "little")


# --- arithmetic -------------------------------------------------------------------------------


def base_mul(scalar: int) -> Point:
    """``scalar · G``."""
    scalar %= L
    if scalar == 0:
        return IDENTITY
    return Point(crypto_scalarmult_ed25519_base_noclamp(scalar.to_bytes(SCALAR_LEN, "little")))


def mul(scalar: int, point: Point) -> Point:
    """``scalar · point`` for a point of the prime-order subgroup (the identity included)."""
    scalar %= L
    if scalar == 0 or point == IDENTITY:
        return IDENTITY
    if point == BASE:  # the fixed-base table is about five times faster
        return base_mul(scalar)
    try:
        return Point(crypto_scalarmult_ed25519_noclamp(scalar.to_bytes(SCALAR_LEN, "little"), point))
    except nacl.exceptions.RuntimeError as exc:
        # Unreachable for points that came through decode_point or arithmetic on them; kept as a
        # protocol failure rather than a crash in case an unvalidated point slips in.
        raise TrustlessError(Reason.INVALID_POINT, "point outside the prime-order subgroup") from exc


def add(p: Point, q: Point) -> Point:
    """``p + q``."""
    if p == IDENTITY:
        return q
    if q == IDENTITY:
        return p
    return Point(crypto_core_ed25519_add(p, q))


def sub(p: Point, q: Point) -> Point:
    """``p - q``."""
    if q == IDENTITY:
        return p
    return Point(crypto_core_ed25519_sub(p, q))


def neg(p: Point) -> Point:
    """``-p``."""
    return sub(IDENTITY, p)


def point_sum(points: Iterable[Point]) -> Point:
    """The sum of ``points`` (the identity for none)."""
    total = IDENTITY
    for p in points:
        total = add(total, p)
    return total


def linear_combination(scalars: Sequence[int], points: Sequence[Point]) -> Point:
    """``Σ scalars[i] · points[i]`` (equal lengths)."""
    if len(scalars) != len(points):
        raise ValueError("linear_combination needs as many scalars as points")
    return point_sum(mul(k, p) for k, p in zip(scalars, points, strict=True))


# --- hashing into the group ---------------------------------------------------------------------


def hash_to_point(name: str, *fields: bytes) -> Point:
    """A point of order L that nobody knows the logarithm of, from ``H(name, *fields)``.

    Like RFC 9380's random-oracle construction it maps two independent hashes and adds them
    (one Elligator-2 map alone reaches only about half of the points, which a simulator could tell
    apart); ``crypto_core_ed25519_from_uniform`` clears the cofactor. Two hashes of one input are
    told apart by a leading ``u8`` counter.
    """
    halves = [crypto_core_ed25519_from_uniform(H(name, u8(i), *fields)) for i in (0, 1)]
    point = Point(crypto_core_ed25519_add(halves[0], halves[1]))
    if not crypto_core_ed25519_is_valid_point(point):  # the identity, with probability about 2^-252
        raise ValueError(f"hash_to_point({name!r}) met the identity; choose another input")
    return point


def hash_to_scalar(name: str, *fields: bytes) -> int:
    """A scalar from 64 bytes of ``H`` output reduced mod L (bias about 2^-260; 32 bytes would give 2^-4).

    The 64 bytes are ``H(name, u8 0, *fields) || H(name, u8 1, *fields)``, read little-endian.
    """
    wide = H(name, u8(0), *fields) + H(name, u8(1), *fields)
    return int.from_bytes(wide, "little") % L


# --- randomness ---------------------------------------------------------------------------------


def random_scalar(draw: Draw = secrets.token_bytes) -> int:
    """A uniformly random non-zero scalar (zero would make a commitment the identity, which receivers refuse)."""
    while True:
        value = int.from_bytes(draw(64), "little") % L
        if value:
            return value


def random_below(bound: int, draw: Draw = secrets.token_bytes) -> int:
    """A uniformly random int in ``[0, bound)`` by rejection sampling over 8-byte draws (no modulo bias)."""
    if not 0 < bound < 2**32:
        raise ValueError("bound must be in [1, 2**32)")
    limit = 2**64 - 2**64 % bound
    while True:
        value = int.from_bytes(draw(8), "big")
        if value < limit:
            return value % bound


def seeded_draw(seed: bytes) -> Draw:
    """A deterministic ``draw``: the stream ``H("trustless/seeded-draw", seed, u64 0) || H(..., u64 1) || ...``.

    For tests and for replaying a deal from a secret journalled seed; a seed anybody else knows
    gives away every card, so it must be as secret as the key share itself.
    """
    buffer = bytearray()
    counter = 0

    def draw(n: int) -> bytes:
        nonlocal counter
        while len(buffer) < n:
            buffer.extend(H("trustless/seeded-draw", seed, u64(counter)))
            counter += 1
        out = bytes(buffer[:n])
        del buffer[:n]
        return out

    return draw
