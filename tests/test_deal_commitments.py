"""Level 1 commitments: layouts against a reference, and failure on any changed field."""

from __future__ import annotations

import hashlib
import hmac
import struct
from typing import Any

import pytest

from watten_net.deal.commitments import (
    DEALER_UNKNOWN,
    CommitmentError,
    SeedExtra,
    card_commitment,
    card_matches,
    card_salt,
    check_card,
    check_client_seed,
    check_host_seed,
    client_seed_commitment,
    encode_extra,
    host_seed_commitment,
    new_secret,
    parse_extra,
    random_cut,
    seal_deck,
)

GAME_ID = hashlib.sha256(b"game").digest()
S = hashlib.sha256(b"host secret").digest()
C = hashlib.sha256(b"client seed").digest()
HAND_OPEN = hashlib.sha256(b"HandOpen envelope").digest()


def _framed(name: str, *fields: bytes) -> bytes:
    t = b"watten/v1/" + name.encode()
    return b"".join(struct.pack(">I", len(x)) + x for x in (t, *fields))


def _flip(b: bytes, i: int = 0) -> bytes:
    return b[:i] + bytes([b[i] ^ 0x80]) + b[i + 1 :]


# --- layouts against an independent reference ---------------------------------------------------


def test_host_seed_layout() -> None:
    want = hashlib.sha256(_framed("host-seed", GAME_ID, b"\0\0\0\3", b"\0\0\0\1", b"\2", S)).digest()
    assert host_seed_commitment(GAME_ID, 3, 1, 2, S) == want
    hand0 = hashlib.sha256(_framed("host-seed", GAME_ID, bytes(4), bytes(4), b"\xff", S)).digest()
    assert host_seed_commitment(GAME_ID, 0, 0, DEALER_UNKNOWN, S) == hand0


def test_client_seed_layout() -> None:
    extra = b"\x01\x09"
    want = hashlib.sha256(
        _framed("client-seed", GAME_ID, b"\0\0\0\5", b"\0\0\0\0", b"\3", HAND_OPEN, C, extra)
    ).digest()
    assert client_seed_commitment(GAME_ID, 5, 0, 3, HAND_OPEN, C, extra) == want


def test_card_salt_and_commitment_layout() -> None:
    salt = hmac.new(
        S, _framed("card-salt", GAME_ID, b"\0\0\0\2", b"\0\0\0\1", b"\x07"), hashlib.sha256
    ).digest()
    assert card_salt(S, GAME_ID, 2, 1, 7) == salt
    want = hashlib.sha256(
        _framed("card-commit", GAME_ID, b"\0\0\0\2", b"\0\0\0\1", b"\x07", b"L10", salt)
    ).digest()
    assert card_commitment(GAME_ID, 2, 1, 7, "L10", salt) == want


# --- host seed ----------------------------------------------------------------------------------

HOST_ARGS: dict[str, Any] = {"game_id": GAME_ID, "hand": 4, "attempt": 0, "dealer": 1, "host_secret": S}
HOST_CHANGES: list[tuple[str, Any]] = [
    ("game_id", _flip(GAME_ID, 31)),
    ("hand", 5),
    ("attempt", 1),
    ("dealer", 2),
    ("dealer", DEALER_UNKNOWN),
    ("host_secret", _flip(S, 10)),
]


def test_host_seed_opens() -> None:
    c_s = host_seed_commitment(**HOST_ARGS)
    check_host_seed(c_s, **HOST_ARGS)


@pytest.mark.parametrize("field, value", HOST_CHANGES)
def test_host_seed_fails_on_any_changed_field(field: str, value: Any) -> None:
    c_s = host_seed_commitment(**HOST_ARGS)
    with pytest.raises(CommitmentError) as err:
        check_host_seed(c_s, **{**HOST_ARGS, field: value})
    assert err.value.reason == "host-seed-mismatch"


def test_host_seed_fails_on_a_changed_commitment() -> None:
    c_s = host_seed_commitment(**HOST_ARGS)
    with pytest.raises(CommitmentError, match="does not match C_S of hand 4 attempt 0"):
        check_host_seed(_flip(c_s, 3), **HOST_ARGS)


def test_host_seed_malformed_opening() -> None:
    c_s = host_seed_commitment(**HOST_ARGS)
    with pytest.raises(CommitmentError) as err:
        check_host_seed(c_s, **{**HOST_ARGS, "host_secret": S[:31]})
    assert err.value.reason == "malformed-opening"
    assert "must be exactly 32 bytes" in str(err.value)


# --- client seed --------------------------------------------------------------------------------

CLIENT_ARGS: dict[str, Any] = {
    "game_id": GAME_ID,
    "hand": 4,
    "attempt": 2,
    "seat": 3,
    "hand_open_hash": HAND_OPEN,
    "client_seed": C,
    "extra": encode_extra(12),
}
CLIENT_CHANGES: list[tuple[str, Any]] = [
    ("game_id", _flip(GAME_ID)),
    ("hand", 3),
    ("attempt", 3),
    ("seat", 0),
    ("hand_open_hash", _flip(HAND_OPEN, 20)),
    ("client_seed", _flip(C, 31)),
    ("extra", encode_extra(13)),
    ("extra", encode_extra(12) + b"\0"),
    ("extra", b""),
]


def test_client_seed_opens() -> None:
    check_client_seed(client_seed_commitment(**CLIENT_ARGS), **CLIENT_ARGS)


@pytest.mark.parametrize("field, value", CLIENT_CHANGES)
def test_client_seed_fails_on_any_changed_field(field: str, value: Any) -> None:
    c_i = client_seed_commitment(**CLIENT_ARGS)
    with pytest.raises(CommitmentError, match="seat") as err:
        check_client_seed(c_i, **{**CLIENT_ARGS, field: value})
    assert err.value.reason == "client-seed-mismatch"


def test_client_seed_malformed_opening() -> None:
    c_i = client_seed_commitment(**CLIENT_ARGS)
    for field, value in [("client_seed", C + b"\0"), ("hand_open_hash", b""), ("seat", 256), ("hand", -1)]:
        with pytest.raises(CommitmentError) as err:
            check_client_seed(c_i, **{**CLIENT_ARGS, field: value})
        assert err.value.reason == "malformed-opening", field


# --- extra (the committed cut) ------------------------------------------------------------------


def test_extra_roundtrip() -> None:
    assert encode_extra(4) == b"\x01\x04"
    assert SeedExtra(cut=17).encode() == b"\x01\x11"
    assert parse_extra(b"\x01\x11") == SeedExtra(cut=17)
    assert parse_extra(b"\x01\x1d", deck_size=33) == SeedExtra(cut=29)


@pytest.mark.parametrize(
    "extra, deck_size, message",
    [
        (b"", None, "exactly 2 bytes"),
        (b"\x01", None, "exactly 2 bytes"),
        (b"\x01\x04\x00", None, "exactly 2 bytes"),
        (b"\x02\x04", None, "version 2"),
        (b"\x01\x03", 32, r"cut 3 is outside 4\.\.28"),
        (b"\x01\x1d", 32, r"cut 29 is outside 4\.\.28"),
    ],
)
def test_extra_rejects(extra: bytes, deck_size: int | None, message: str) -> None:
    with pytest.raises(CommitmentError, match=message) as err:
        parse_extra(extra, deck_size)
    assert err.value.reason == "bad-extra"


def test_encode_extra_range() -> None:
    with pytest.raises(ValueError):
        encode_extra(256)


def test_random_cut_is_legal() -> None:
    cuts = {random_cut(33) for _ in range(2000)}
    assert cuts == set(range(4, 30))
    with pytest.raises(ValueError):
        random_cut(7)


def test_new_secret() -> None:
    a, b = new_secret(), new_secret()
    assert len(a) == 32
    assert a != b


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


def test_seal_deck_validates() -> None:
    with pytest.raises(ValueError, match="host secret S"):
        seal_deck(S[:16], GAME_ID, 0, 0, DECK)
    with pytest.raises(ValueError, match="card 'H K'"):
        seal_deck(S, GAME_ID, 0, 0, ["H K"])
    with pytest.raises(ValueError, match="one-byte positions"):
        seal_deck(S, GAME_ID, 0, 0, ["HK"] * 257)
