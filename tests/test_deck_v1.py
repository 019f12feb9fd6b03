"""deck/v1: known-answer vectors, an independent reimplementation, properties and uniformity."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from watten_net.deal.deck import DECK_VERSION, deck_permutation, derive_deck_key, first_dealer

VECTORS = json.loads((Path(__file__).parent / "vectors" / "deck_v1.json").read_text())


# --- independent straight-line reimplementations (hmac + sorted, RFC 5869 by hand) -------------


def reference_deck(key: bytes, n: int) -> list[int]:
    tags = []
    for j in range(n):
        t = hmac.new(key, b"watten/v1/card-tag" + bytes([j]), hashlib.sha256).digest()
        tags.append((int.from_bytes(t, "big"), j))
    tags.sort()
    return [j for _, j in tags]


def reference_first_dealer(key: bytes, n: int) -> int:
    d = hmac.new(key, b"watten/v1/first-dealer", hashlib.sha256).digest()
    return int.from_bytes(d[:4], "big") % n


def reference_deck_key(s: bytes, seeds: list[bytes], extras: list[bytes], transcript: bytes) -> bytes:
    ikm = s + b"".join(seeds) + b"".join(len(e).to_bytes(4, "big") + e for e in extras)
    prk = hmac.new(transcript, ikm, hashlib.sha256).digest()  # HKDF-Extract
    return hmac.new(prk, b"watten/v1/deck-key" + b"\x01", hashlib.sha256).digest()  # HKDF-Expand, 1 block


# --- known answers ------------------------------------------------------------------------------


def test_vector_file_shape() -> None:
    assert VECTORS["algorithm"] == DECK_VERSION
    vectors = VECTORS["vectors"]
    assert len(vectors) >= 8
    assert {v["n"] for v in vectors} >= {32, 33, 36}
    keys = {v["deck_key"] for v in vectors}
    assert "00" * 32 in keys
    assert "ff" * 32 in keys
    assert hashlib.sha256(b"watten").hexdigest() in keys


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: f"{v['key_description']}-n{v['n']}")
def test_known_answer_vectors(vector: dict[str, Any]) -> None:
    key = bytes.fromhex(vector["deck_key"])
    n = vector["n"]
    assert deck_permutation(key, n) == vector["deck"]
    assert reference_deck(key, n) == vector["deck"], "the vector itself disagrees with the spec"
    for players, dealer in vector["first_dealer"].items():
        assert first_dealer(key, int(players)) == dealer
        assert reference_first_dealer(key, int(players)) == dealer


def test_deck_key_known_answer() -> None:
    s = hashlib.sha256(b"S").digest()
    seeds = [hashlib.sha256(b"c%d" % i).digest() for i in range(4)]
    extras = [b"\x01\x10", b"\x01\x04", b"", b"\x01\x1c"]
    transcript = hashlib.sha256(b"transcript").digest()
    got = derive_deck_key(s, seeds, extras, transcript)
    assert got == reference_deck_key(s, seeds, extras, transcript)
    assert got.hex() == "3b14389dab178d538b1c6122f4655e6c1a47182acf410e0d211af0b9ba042cd5"


# --- properties ---------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(key=st.binary(min_size=32, max_size=32), n=st.integers(min_value=1, max_value=256))
def test_permutation_properties(key: bytes, n: int) -> None:
    deck = deck_permutation(key, n)
    assert sorted(deck) == list(range(n))
    assert deck == deck_permutation(key, n)
    assert deck == reference_deck(key, n)


def test_sizes_share_a_prefix_order() -> None:
    # The tags of cards 0..31 do not depend on n, so adding the Weli (index 32) only inserts it.
    key = hashlib.sha256(b"prefix").digest()
    assert [j for j in deck_permutation(key, 33) if j != 32] == deck_permutation(key, 32)


def test_different_keys_give_different_decks() -> None:
    decks = {tuple(deck_permutation(hashlib.sha256(i.to_bytes(4, "big")).digest(), 33)) for i in range(200)}
    assert len(decks) == 200


@pytest.mark.parametrize("key", [bytes(31), bytes(33), b""])
def test_deck_key_length_is_checked(key: bytes) -> None:
    with pytest.raises(ValueError, match="deck key must be exactly 32 bytes"):
        deck_permutation(key, 32)
    with pytest.raises(ValueError, match="deck key must be exactly 32 bytes"):
        first_dealer(key, 4)


@pytest.mark.parametrize("n", [0, 257, -1, True])
def test_deck_size_is_checked(n: int) -> None:
    with pytest.raises(ValueError, match="deck size"):
        deck_permutation(bytes(32), n)


@pytest.mark.parametrize("n", [0, 256])
def test_player_count_is_checked(n: int) -> None:
    with pytest.raises(ValueError, match="number of players"):
        first_dealer(bytes(32), n)


def test_first_dealer_is_roughly_uniform() -> None:
    counts = [0] * 4
    for i in range(4000):
        counts[first_dealer(hashlib.sha256(b"fd" + i.to_bytes(4, "big")).digest(), 4)] += 1
    assert all(850 < c < 1150 for c in counts), counts


# --- uniformity ---------------------------------------------------------------------------------

N_KEYS = 20_000
# Per card: positions are chi-square with 31 degrees of freedom (mean 31, sd 7.9). 80 is about
# 6 sd above the mean (p ~ 4e-6 per card); the keys are fixed, so the outcome is deterministic.
PER_CARD_BOUND = 80.0
# The whole 32 x 32 table: 31 * 31 = 961 degrees of freedom (sd 44); the bound is 8 sd above.
TABLE_BOUND = 961 + 8 * 44


def position_counts(decks: list[list[int]], n: int) -> list[list[int]]:
    counts = [[0] * n for _ in range(n)]
    for deck in decks:
        for position, card in enumerate(deck):
            counts[card][position] += 1
    return counts


def chi_square_rows(counts: list[list[int]]) -> list[float]:
    expected = sum(counts[0]) / len(counts[0])
    return [sum((c - expected) ** 2 / expected for c in row) for row in counts]


def test_each_card_position_is_uniform() -> None:
    n = 32
    decks = [deck_permutation(hashlib.sha256(i.to_bytes(4, "big")).digest(), n) for i in range(N_KEYS)]
    counts = position_counts(decks, n)
    per_card = chi_square_rows(counts)
    per_position = chi_square_rows([list(col) for col in zip(*counts, strict=True)])
    assert max(per_card) < PER_CARD_BOUND, per_card
    assert max(per_position) < PER_CARD_BOUND, per_position
    assert sum(per_card) < TABLE_BOUND


def test_the_uniformity_test_catches_a_biased_shuffle() -> None:
    # The classic broken shuffle (swap each position with any position) must fail the same bound,
    # or the test above would prove nothing.
    n = 32
    decks = []
    for i in range(N_KEYS):
        stream = hashlib.shake_256(i.to_bytes(4, "big")).digest(n)  # one byte per draw; 256 % 32 == 0
        deck = list(range(n))
        for a in range(n):
            b = stream[a] % n
            deck[a], deck[b] = deck[b], deck[a]
        decks.append(deck)
    assert max(chi_square_rows(position_counts(decks, n))) > PER_CARD_BOUND


# --- deck key -----------------------------------------------------------------------------------


def _key_inputs() -> tuple[bytes, list[bytes], list[bytes], bytes]:
    s = bytes(range(32))
    seeds = [bytes([i]) * 32 for i in range(1, 5)]
    extras = [b"\x01\x05", b"\x01\x06", b"\x01\x07", b"\x01\x08"]
    return s, seeds, extras, hashlib.sha256(b"commit-set").digest()


def _flip(b: bytes, i: int = 0) -> bytes:
    return b[:i] + bytes([b[i] ^ 1]) + b[i + 1 :]


def test_deck_key_changes_when_any_input_changes() -> None:
    s, seeds, extras, t = _key_inputs()
    base = derive_deck_key(s, seeds, extras, t)
    assert base == reference_deck_key(s, seeds, extras, t)
    variants = [
        derive_deck_key(_flip(s, 31), seeds, extras, t),
        derive_deck_key(s, seeds, extras, _flip(t, 5)),
    ]
    for i in range(len(seeds)):
        variants.append(derive_deck_key(s, [*seeds[:i], _flip(seeds[i], 7), *seeds[i + 1 :]], extras, t))
        variants.append(derive_deck_key(s, seeds, [*extras[:i], _flip(extras[i], 1), *extras[i + 1 :]], t))
    # Seat order matters, and moving bytes between extras must not collide (they are length-prefixed).
    variants.append(derive_deck_key(s, [seeds[1], seeds[0], *seeds[2:]], extras, t))
    variants.append(derive_deck_key(s, seeds, [b"\x01\x05\x01", b"\x06", *extras[2:]], t))
    assert base not in variants
    assert len(set(variants)) == len(variants)
    assert len(base) == 32


def test_deck_key_validates_inputs() -> None:
    s, seeds, extras, t = _key_inputs()
    with pytest.raises(ValueError, match="host secret S must be exactly 32 bytes"):
        derive_deck_key(s[:31], seeds, extras, t)
    with pytest.raises(ValueError, match="client seed c_2 must be exactly 32 bytes"):
        derive_deck_key(s, [*seeds[:2], bytes(16), seeds[3]], extras, t)
    with pytest.raises(ValueError, match="transcript hash"):
        derive_deck_key(s, seeds, extras, t + b"\x00")
    with pytest.raises(ValueError, match="one per seat"):
        derive_deck_key(s, seeds, extras[:3], t)
    with pytest.raises(ValueError, match="at least one"):
        derive_deck_key(s, [], [], t)
    with pytest.raises(TypeError, match="extra_0"):
        derive_deck_key(s, seeds, ["x", *extras[1:]], t)  # type: ignore[list-item]
