"""The Ed25519 subgroup layer: which encodings are refused, the identity/zero edge cases, hashing and randomness."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.bindings import crypto_core_ed25519_add, crypto_core_ed25519_scalar_reduce

from watten_net.trustless.errors import Reason, TrustlessError
from watten_net.trustless.group import (
    BASE,
    FIELD_P,
    IDENTITY,
    L,
    add,
    base_mul,
    decode_point,
    decode_scalar,
    encode_scalar,
    hash_to_point,
    hash_to_scalar,
    linear_combination,
    mul,
    neg,
    point_sum,
    random_below,
    random_scalar,
    seeded_draw,
    sub,
)

# The eight points of order dividing 8 (RFC 8032's "small order" set); the test below checks each.
SMALL_ORDER = [
    "0100000000000000000000000000000000000000000000000000000000000000",  # identity
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # order 2
    "0000000000000000000000000000000000000000000000000000000000000000",  # order 4
    "0000000000000000000000000000000000000000000000000000000000000080",  # order 4
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
]
scalars = st.integers(min_value=0, max_value=L - 1)


def _reason(data: bytes) -> Reason:
    with pytest.raises(TrustlessError) as info:
        decode_point(data)
    return info.value.reason


@pytest.mark.parametrize("encoding", SMALL_ORDER)
def test_small_order_points_are_refused(encoding: str) -> None:
    point = bytes.fromhex(encoding)
    multiple = point
    for _ in range(7):  # 8·P by additions, which libsodium allows for any point on the curve
        multiple = crypto_core_ed25519_add(multiple, point)
    assert multiple == IDENTITY, "the fixture must really be a small-order point"
    assert _reason(point) is Reason.INVALID_POINT


def test_a_point_with_a_torsion_component_is_refused() -> None:
    torsioned = crypto_core_ed25519_add(BASE, bytes.fromhex(SMALL_ORDER[4]))
    assert _reason(torsioned) is Reason.INVALID_POINT


@pytest.mark.parametrize("y", [FIELD_P, FIELD_P + 1, FIELD_P + 4, 2**255 - 1])
@pytest.mark.parametrize("sign", [0, 1])
def test_non_canonical_encodings_are_refused(y: int, sign: int) -> None:
    data = (y | sign << 255).to_bytes(32, "little")
    with pytest.raises(TrustlessError, match="non-canonical") as info:
        decode_point(data)
    assert info.value.reason is Reason.INVALID_POINT


def test_a_point_off_the_curve_is_refused() -> None:
    assert _reason((2).to_bytes(32, "little")) is Reason.INVALID_POINT  # y = 2 has no x on edwards25519


@pytest.mark.parametrize("length", [0, 31, 33, 64])
def test_wrong_length_is_malformed(length: int) -> None:
    assert _reason(bytes(BASE[:1]) * length) is Reason.MALFORMED


def test_valid_points_decode_to_themselves() -> None:
    for point in (BASE, base_mul(12345), hash_to_point("trustless/test", b"x")):
        assert decode_point(point) == point


@settings(max_examples=300)
@given(st.binary(min_size=32, max_size=32))
def test_random_bytes_either_decode_or_are_refused_cleanly(data: bytes) -> None:
    try:
        point = decode_point(data)
    except TrustlessError as exc:
        assert exc.reason is Reason.INVALID_POINT
    else:
        assert mul(L - 1, point) == neg(point)  # of order L


# --- scalars ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [L, L + 1, 2**253, 2**256 - 1])
def test_unreduced_scalars_are_refused(value: int) -> None:
    with pytest.raises(TrustlessError) as info:
        decode_scalar(value.to_bytes(32, "little"))
    assert info.value.reason is Reason.NON_CANONICAL_SCALAR


def test_scalar_lengths_are_checked() -> None:
    with pytest.raises(TrustlessError) as info:
        decode_scalar(bytes(31))
    assert info.value.reason is Reason.MALFORMED


@given(scalars)
def test_scalar_encoding_round_trips(value: int) -> None:
    assert decode_scalar(encode_scalar(value)) == value


# --- arithmetic, including what libsodium refuses ---------------------------------------------------


def test_identity_and_zero_never_reach_libsodium() -> None:
    p = base_mul(7)
    assert mul(0, p) == IDENTITY
    assert mul(L, p) == IDENTITY
    assert mul(5, IDENTITY) == IDENTITY
    assert base_mul(0) == IDENTITY
    assert sub(p, p) == IDENTITY
    assert add(p, neg(p)) == IDENTITY
    assert add(IDENTITY, p) == p == add(p, IDENTITY)
    assert point_sum([]) == IDENTITY
    assert mul(3, base_mul(0)) == IDENTITY


@settings(max_examples=40)
@given(scalars, scalars)
def test_arithmetic_is_consistent(a: int, b: int) -> None:
    p = hash_to_point("trustless/test", b"arith")
    assert add(mul(a, p), mul(b, p)) == mul(a + b, p)
    assert mul(a, mul(b, p)) == mul(a * b, p)
    assert mul(a, BASE) == base_mul(a)
    assert sub(mul(a, p), mul(b, p)) == mul(a - b, p)
    assert linear_combination([a, b], [p, BASE]) == add(mul(a, p), base_mul(b))


def test_linear_combination_needs_matching_lengths() -> None:
    with pytest.raises(ValueError):
        linear_combination([1, 2], [BASE])


# --- hashing -------------------------------------------------------------------------------------------


def test_hash_to_point_is_a_valid_point_and_separates_its_inputs() -> None:
    points = {hash_to_point("trustless/test", bytes([i])) for i in range(20)}
    points.add(hash_to_point("trustless/other", bytes([0])))
    assert len(points) == 21
    for point in points:
        assert decode_point(point) == point


@settings(max_examples=50)
@given(st.binary(max_size=80))
def test_hash_to_scalar_is_the_wide_reduction_libsodium_computes(field: bytes) -> None:
    from watten_net.hashing import H, u8

    wide = H("trustless/test", u8(0), field) + H("trustless/test", u8(1), field)
    expected = int.from_bytes(crypto_core_ed25519_scalar_reduce(wide), "little")
    assert hash_to_scalar("trustless/test", field) == expected


# --- randomness ------------------------------------------------------------------------------------------


def test_seeded_draw_is_a_stream() -> None:
    one, two = seeded_draw(b"s"), seeded_draw(b"s")
    assert one(10) + one(50) + one(4) == two(64)
    assert seeded_draw(b"t")(64) != seeded_draw(b"s")(64)


def test_random_scalar_skips_zero() -> None:
    draws = iter([L.to_bytes(64, "little"), (5).to_bytes(64, "little")])  # L reduces to 0: drawn again
    assert random_scalar(lambda n: next(draws)) == 5


def test_random_below_rejects_the_biased_tail() -> None:
    draws = iter([(2**64 - 1).to_bytes(8, "big"), (7).to_bytes(8, "big")])  # 2^64-1 is in the tail for 3
    assert random_below(3, lambda n: next(draws)) == 1


@settings(max_examples=50)
@given(st.integers(min_value=1, max_value=2**32 - 1), st.binary(min_size=1, max_size=8))
def test_random_below_stays_in_range(bound: int, seed: bytes) -> None:
    assert 0 <= random_below(bound, seeded_draw(seed)) < bound
