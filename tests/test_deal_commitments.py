"""Level 1 (version 2) card seals and game keys: layouts against a reference, and failure on any changed field."""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Callable
from typing import Any

import pytest

from watten_net.deal.commitments import (
    CommitmentError,
    card_commitment,
    card_matches,
    card_salt,
    check_card,
    seal_deck,
    seal_deck_with_salts,
)
from watten_net.deal.keys import (
    all_seeds,
    cut_position,
    deck_key,
    first_dealer,
    host_key_commitment,
    host_seed,
    key_set_hash,
    seat_key_commitment,
    seat_seed,
)

GAME_ID = hashlib.sha256(b"game").digest()
S = hashlib.sha256(b"host secret").digest()
C = hashlib.sha256(b"client seed").digest()


def _framed(name: str, *fields: bytes) -> bytes:
    t = b"watten/v2/" + name.encode()
    return b"".join(struct.pack(">I", len(x)) + x for x in (t, *fields))


def _flip(b: bytes, i: int = 0) -> bytes:
    return b[:i] + bytes([b[i] ^ 0x80]) + b[i + 1 :]


# --- layouts against an independent reference ---------------------------------------------------


def test_card_salt_and_commitment_layout() -> None:
    salt = hmac.new(
        S, _framed("card-salt", GAME_ID, b"\0\0\0\2", b"\0\0\0\1", b"\x07"), hashlib.sha256
    ).digest()
    assert card_salt(S, GAME_ID, 2, 1, 7) == salt
    want = hashlib.sha256(
        _framed("card-commit", GAME_ID, b"\0\0\0\2", b"\0\0\0\1", b"\x07", b"L10", salt)
    ).digest()
    assert card_commitment(GAME_ID, 2, 1, 7, "L10", salt) == want


# --- game keys (watten_net.deal.keys) against an independent reference --------------------------
# The reference below is written from PROTOCOL.md Level 1 and keys.py's docstring with hashlib and hmac only (its
# HKDF is RFC 5869's, not `cryptography`'s), so a layout change on either side shows.

K0, K1, K2 = (hashlib.sha256(b"seat key %d" % i).digest() for i in range(3))
KH = hashlib.sha256(b"host game key").digest()
HEADER = hashlib.sha256(b"GameHeader envelope").digest()


def _ref_h(name: str, *fields: bytes) -> bytes:
    return hashlib.sha256(_framed(name, *fields)).digest()


def _ref_mac(key: bytes, name: str, *fields: bytes) -> bytes:
    return hmac.new(key, _framed(name, *fields), hashlib.sha256).digest()


def _ref_hkdf(ikm: bytes, salt: bytes, info: bytes, length: int = 32) -> bytes:
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    okm, block, counter = b"", b"", 1
    while len(okm) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        okm += block
        counter += 1
    return okm[:length]


def _ref_deck_key(s: bytes, seeds: list[bytes], hks: bytes, h: int, a: int) -> bytes:
    info = _framed("deck-key", GAME_ID, struct.pack(">I", h), struct.pack(">I", a))
    return _ref_hkdf(s + b"".join(seeds), hks, info)


def test_seat_key_commitment_layout() -> None:
    want = _ref_h("seat-game-key", GAME_ID, b"\x02", HEADER, K2)
    assert seat_key_commitment(GAME_ID, 2, HEADER, K2) == want


def test_host_key_commitment_layout() -> None:
    assert host_key_commitment(GAME_ID, KH) == _ref_h("host-game-key", GAME_ID, KH)


def test_key_set_hash_layout() -> None:
    commitments = [seat_key_commitment(GAME_ID, i, HEADER, k) for i, k in enumerate((K0, K1, K2))]
    want = _ref_h("key-set", GAME_ID, HEADER, *commitments)
    assert key_set_hash(GAME_ID, HEADER, commitments) == want


def test_seat_and_host_seed_layouts() -> None:
    h, a = b"\0\0\0\x05", b"\0\0\0\x02"
    assert seat_seed(K1, GAME_ID, 5, 2) == _ref_mac(K1, "seat-seed", GAME_ID, h, a)
    assert host_seed(KH, GAME_ID, 5, 2) == _ref_mac(KH, "host-hand-seed", GAME_ID, h, a)
    assert all_seeds([K0, K1, K2], GAME_ID, 5, 2) == [_ref_mac(k, "seat-seed", GAME_ID, h, a) for k in (K0, K1, K2)]


@pytest.mark.parametrize("size", [32, 33, 8])
def test_cut_layout(size: int) -> None:
    digest = _ref_mac(K2, "cut", GAME_ID, b"\0\0\0\x07", b"\0\0\0\x01")
    assert cut_position(K2, GAME_ID, 7, 1, size) == 4 + int.from_bytes(digest[:4], "big") % (size - 7)


def test_deck_key_layout() -> None:
    s = host_seed(KH, GAME_ID, 3, 1)
    seeds = [_ref_mac(k, "seat-seed", GAME_ID, b"\0\0\0\x03", b"\0\0\0\x01") for k in (K0, K1, K2)]
    hks = key_set_hash(GAME_ID, HEADER, [seat_key_commitment(GAME_ID, i, HEADER, k) for i, k in
                                         enumerate((K0, K1, K2))])
    assert deck_key(s, seeds, hks, GAME_ID, 3, 1) == _ref_deck_key(s, seeds, hks, 3, 1)


def test_first_dealer_layout() -> None:
    dk = hashlib.sha256(b"deck key 0 0").digest()
    digest = _ref_mac(dk, "first-dealer", GAME_ID)
    for n in (2, 3, 4):
        assert first_dealer(dk, GAME_ID, n) == int.from_bytes(digest[:4], "big") % n


def test_version_2_tags_differ_from_version_1() -> None:
    # a hash of version 1 can never pass for one of version 2: the tag's prefix is part of every preimage
    v1 = hashlib.sha256(_framed("host-game-key", GAME_ID, KH).replace(b"watten/v2/", b"watten/v1/")).digest()
    assert host_key_commitment(GAME_ID, KH) != v1


# Every input of every derivation is bound: changing any one changes the output.
KEY_FUNCTIONS: dict[str, tuple[Callable[..., Any], dict[str, Any], list[tuple[str, Any]]]] = {
    "K_i": (seat_key_commitment, {"game_id": GAME_ID, "seat": 1, "header_hash": HEADER, "key": K1},
            [("game_id", _flip(GAME_ID, 31)), ("seat", 2), ("header_hash", _flip(HEADER, 5)), ("key", _flip(K1))]),
    "K_H": (host_key_commitment, {"game_id": GAME_ID, "key": KH}, [("game_id", _flip(GAME_ID)), ("key", _flip(KH, 9))]),
    "Hks": (key_set_hash, {"game_id": GAME_ID, "header_hash": HEADER, "commitments": [K0, K1]},
            [("game_id", _flip(GAME_ID)), ("header_hash", _flip(HEADER)), ("commitments", [K1, K0]),
             ("commitments", [K0, _flip(K1, 31)]), ("commitments", [K0, K1, K2]), ("commitments", [K0])]),
    "c_i": (seat_seed, {"key": K0, "game_id": GAME_ID, "hand": 4, "attempt": 0},
            [("key", _flip(K0)), ("game_id", _flip(GAME_ID)), ("hand", 5), ("attempt", 1)]),
    "S": (host_seed, {"key": KH, "game_id": GAME_ID, "hand": 4, "attempt": 0},
          [("key", _flip(KH)), ("game_id", _flip(GAME_ID)), ("hand", 3), ("attempt", 1)]),
    "deck_key": (deck_key, {"host_secret": S, "seat_seeds": [C, K0], "key_set": HEADER, "game_id": GAME_ID,
                            "hand": 2, "attempt": 1},
                 [("host_secret", _flip(S)), ("seat_seeds", [K0, C]), ("seat_seeds", [C, _flip(K0)]),
                  ("seat_seeds", [C]), ("key_set", _flip(HEADER)), ("game_id", _flip(GAME_ID)), ("hand", 3),
                  ("attempt", 0)]),
}


@pytest.mark.parametrize("name, field, value", [
    (name, field, value) for name, (_, _, changes) in KEY_FUNCTIONS.items() for field, value in changes
])
def test_key_derivations_change_with_any_field(name: str, field: str, value: Any) -> None:
    function, args, _ = KEY_FUNCTIONS[name]
    assert function(**{**args, field: value}) != function(**args)


@pytest.mark.parametrize("call, message", [
    (lambda: seat_key_commitment(GAME_ID, 0, HEADER, K0[:31]), "game key must be exactly 32 bytes"),
    (lambda: seat_key_commitment(GAME_ID[:16], 0, HEADER, K0), "game id must be exactly 32 bytes"),
    (lambda: seat_key_commitment(GAME_ID, 0, b"", K0), "header hash must be exactly 32 bytes"),
    (lambda: seat_key_commitment(GAME_ID, 256, HEADER, K0), "does not fit"),
    (lambda: host_key_commitment(GAME_ID, KH + b"\0"), "host game key must be exactly 32 bytes"),
    (lambda: key_set_hash(GAME_ID, HEADER, [K0, K1[:5]]), "K_1 must be exactly 32 bytes"),
    (lambda: deck_key(S, [], HEADER, GAME_ID, 0, 0), "every roster seat's seed"),
    (lambda: deck_key(S, [C[:31]], HEADER, GAME_ID, 0, 0), "c_0 must be exactly 32 bytes"),
    (lambda: deck_key(S[:31], [C], HEADER, GAME_ID, 0, 0), r"S\(h,a\) must be exactly 32 bytes"),
    (lambda: deck_key(S, [C], HEADER[:31], GAME_ID, 0, 0), "Hks must be exactly 32 bytes"),
    (lambda: seat_seed(K0, GAME_ID, -1, 0), "does not fit"),
    (lambda: first_dealer(K0[:16], GAME_ID, 4), "deck key must be exactly 32 bytes"),
    (lambda: cut_position(K0, GAME_ID, 0, 0, 7), "too small to cut"),
])
def test_key_derivations_refuse_malformed_input(call: Callable[[], Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_cuts_are_legal_and_cover_the_range() -> None:
    # docs/rules.md: 4 <= N <= size - 4, every such cut reachable (the cut follows from the cutter's key alone)
    for size in (32, 33):
        cuts = {cut_position(hashlib.sha256(b"%d" % i).digest(), GAME_ID, 0, 0, size) for i in range(3000)}
        assert cuts == set(range(4, size - 3))
    cuts = {cut_position(K0, GAME_ID, h, a, 32) for h in range(200) for a in range(3)}
    assert len(cuts) > 20  # one key gives different cuts in different attempts


def test_first_dealer_covers_every_seat() -> None:
    dealers = {first_dealer(hashlib.sha256(b"dk %d" % i).digest(), GAME_ID, 4) for i in range(200)}
    assert dealers == {0, 1, 2, 3}


# --- card seals ---------------------------------------------------------------------------------

DECK = ["HK", "S7", "E7", "L10", "SA", "EU", "HO", "S6"]


def test_salts_are_distinct_and_bound_to_context() -> None:
    salts = {card_salt(S, GAME_ID, 0, 0, k) for k in range(33)}
    assert len(salts) == 33
    base = card_salt(S, GAME_ID, 1, 1, 5)
    others = [
        card_salt(_flip(S), GAME_ID, 1, 1, 5),
        card_salt(S, _flip(GAME_ID), 1, 1, 5),
        card_salt(S, GAME_ID, 2, 1, 5),
        card_salt(S, GAME_ID, 1, 2, 5),
        card_salt(S, GAME_ID, 1, 1, 6),
    ]
    assert base not in others


def test_sealed_deck_opens_card_by_card() -> None:
    sealed = seal_deck(S, GAME_ID, 2, 0, DECK)
    assert len(sealed) == len(DECK) == len(set(sealed))
    for k, card in enumerate(DECK):
        salt = card_salt(S, GAME_ID, 2, 0, k)
        check_card(sealed[k], GAME_ID, 2, 0, k, card, salt)
        assert card_matches(sealed[k], GAME_ID, 2, 0, k, card, salt)


def test_sealed_deck_keeps_the_salts_it_used() -> None:
    sealed, salts = seal_deck_with_salts(S, GAME_ID, 2, 1, DECK)
    assert sealed == seal_deck(S, GAME_ID, 2, 1, DECK)
    assert salts == [card_salt(S, GAME_ID, 2, 1, k) for k in range(len(DECK))]


CARD_ARGS: dict[str, Any] = {"game_id": GAME_ID, "hand": 2, "attempt": 0, "k": 3, "card": "L10"}


@pytest.mark.parametrize(
    "field, value",
    [
        ("game_id", _flip(GAME_ID, 1)),
        ("hand", 1),
        ("attempt", 1),
        ("k", 4),
        ("card", "L1"),
        ("card", "HK"),
        ("salt", card_salt(S, GAME_ID, 2, 0, 4)),
        ("salt", _flip(card_salt(S, GAME_ID, 2, 0, 3), 31)),
    ],
)
def test_card_fails_on_any_changed_field(field: str, value: Any) -> None:
    salt = card_salt(S, GAME_ID, 2, 0, 3)
    d_k = seal_deck(S, GAME_ID, 2, 0, DECK)[3]
    args = {**CARD_ARGS, "salt": salt, field: value}
    with pytest.raises(CommitmentError) as err:
        check_card(d_k, **args)
    assert err.value.reason == "card-commit-mismatch"
    assert not card_matches(d_k, **args)


@pytest.mark.parametrize("card", ["", "hk ", "H K", "HÖ", "H-K"])
def test_malformed_card_strings(card: str) -> None:
    salt = card_salt(S, GAME_ID, 2, 0, 3)
    d_k = seal_deck(S, GAME_ID, 2, 0, DECK)[3]
    with pytest.raises(CommitmentError) as err:
        check_card(d_k, **{**CARD_ARGS, "card": card, "salt": salt})
    assert err.value.reason == "malformed-opening"
    assert not card_matches(d_k, **{**CARD_ARGS, "card": card, "salt": salt})


def test_short_salt_is_malformed() -> None:
    d_k = seal_deck(S, GAME_ID, 2, 0, DECK)[3]
    with pytest.raises(CommitmentError, match="salt of position 3 must be exactly 32 bytes"):
        check_card(d_k, **{**CARD_ARGS, "salt": bytes(16)})


@pytest.mark.parametrize("hand, attempt", [(0, 0), (3, 1), (2**32 - 1, 2**32 - 1)])
def test_seal_deck_equals_the_per_card_definition(hand: int, attempt: int) -> None:
    cards = [s + r for s in "ELHS" for r in ("7", "8", "9", "10", "U", "O", "K", "A")] + ["S6"]
    want = [
        card_commitment(GAME_ID, hand, attempt, k, c, card_salt(S, GAME_ID, hand, attempt, k))
        for k, c in enumerate(cards)
    ]
    assert seal_deck(S, GAME_ID, hand, attempt, cards) == want


def test_card_commitment_made_on_a_hands_prefix_is_the_framed_definition() -> None:
    """card_commitment makes the framed prefix of (game, hand, attempt) once; every hand and position still gives
    H("card-commit", ...) itself, and bad input is refused as before (a bool is not a hand number)."""
    salt = hashlib.sha256(b"salt").digest()
    for hand, attempt, k in [(1, 0, 0), (2, 0, 5), (1, 0, 32), (1, 1, 5), (2**32 - 1, 7, 255), (1, 0, 5)]:
        want = _ref_h("card-commit", GAME_ID, hand.to_bytes(4, "big"), attempt.to_bytes(4, "big"), bytes([k]),
                      b"EA", salt)
        assert card_commitment(GAME_ID, hand, attempt, k, "EA", salt) == want
        assert card_commitment(bytearray(GAME_ID), hand, attempt, k, "EA", salt) == want
    card_commitment(GAME_ID, 1, 0, 0, "EA", salt)
    for bad in (True, -1, 2**32):
        with pytest.raises((TypeError, ValueError)):
            card_commitment(GAME_ID, bad, 0, 0, "EA", salt)
        with pytest.raises((TypeError, ValueError)):
            card_commitment(GAME_ID, 1, bad, 0, "EA", salt)
    with pytest.raises(ValueError, match="game id"):
        card_commitment(GAME_ID[:31], 1, 0, 0, "EA", salt)


def test_seal_deck_validates() -> None:
    with pytest.raises(ValueError, match="host secret S"):
        seal_deck(S[:16], GAME_ID, 0, 0, DECK)
    with pytest.raises(ValueError, match="card 'H K'"):
        seal_deck(S, GAME_ID, 0, 0, ["H K"])
    with pytest.raises(ValueError, match="one-byte positions"):
        seal_deck(S, GAME_ID, 0, 0, ["HK"] * 257)
