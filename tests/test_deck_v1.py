"""deck/v1 and the Level 1 version 2 deck keys: known-answer vectors, independent reimplementations, properties
and uniformity.

deck/v1 (the permutation, watten_net.deal.deck) is unchanged by version 2; the deck key and the first dealer come from
every game key (watten_net.deal.keys), with the known answers of docs/vectors/level1_v2.json.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from watten_net.deal.deck import DECK_VERSION, deck_permutation
from watten_net.deal.keys import (
    all_seeds,
    cut_position,
    deck_key,
    first_dealer,
    host_key_commitment,
    host_seed,
    key_set_hash,
    seat_key_commitment,
)

VECTORS = json.loads((Path(__file__).parent.parent / "docs" / "vectors" / "deck_v1.json").read_text())
LEVEL1_V2 = json.loads((Path(__file__).parent.parent / "docs" / "vectors" / "level1_v2.json").read_text())
GAME_ID = hashlib.sha256(b"deck tests game").digest()


# --- independent straight-line reimplementations (hmac + sorted, RFC 5869 by hand) -------------


def reference_deck(key: bytes, n: int) -> list[int]:
    tags = []
    for j in range(n):
        t = hmac.new(key, b"watten/v1/card-tag" + bytes([j]), hashlib.sha256).digest()
        tags.append((int.from_bytes(t, "big"), j))
    tags.sort()
    return [j for _, j in tags]


def _lp(x: bytes) -> bytes:
    return len(x).to_bytes(4, "big") + x


def _pre(name: str, *fields: bytes) -> bytes:
    return _lp(b"watten/v2/" + name.encode("ascii")) + b"".join(_lp(f) for f in fields)


def _u32(x: int) -> bytes:
    return x.to_bytes(4, "big")


def _mac(key: bytes, name: str, *fields: bytes) -> bytes:
    return hmac.new(key, _pre(name, *fields), hashlib.sha256).digest()


def reference_first_dealer(key: bytes, game_id: bytes, n: int) -> int:
    return int.from_bytes(_mac(key, "first-dealer", game_id)[:4], "big") % n


def reference_deck_key(s: bytes, seeds: list[bytes], key_set: bytes, game_id: bytes, h: int, a: int) -> bytes:
    prk = hmac.new(key_set, s + b"".join(seeds), hashlib.sha256).digest()  # HKDF-Extract, salt Hks
    info = _pre("deck-key", game_id, _u32(h), _u32(a))
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()  # HKDF-Expand, 1 block


def reference_level1(game_id: bytes, header_hash: bytes, seat_keys: list[bytes], host_key: bytes, size: int,
                     attempts: list[tuple[int, int]]) -> dict[str, Any]:
    """Everything a Level 1 v2 match derives from its keys, straight from PROTOCOL.md (the vectors' generator)."""
    commitments = [hashlib.sha256(_pre("seat-game-key", game_id, bytes([i]), header_hash, k)).digest()
                   for i, k in enumerate(seat_keys)]
    key_set = hashlib.sha256(_pre("key-set", game_id, header_hash, *commitments)).digest()
    out: dict[str, Any] = {
        "seat_commitments": [c.hex() for c in commitments],
        "host_commitment": hashlib.sha256(_pre("host-game-key", game_id, host_key)).digest().hex(),
        "key_set_hash": key_set.hex(),
        "attempts": [],
    }
    for h, a in attempts:
        seeds = [_mac(k, "seat-seed", game_id, _u32(h), _u32(a)) for k in seat_keys]
        s = _mac(host_key, "host-hand-seed", game_id, _u32(h), _u32(a))
        dk = reference_deck_key(s, seeds, key_set, game_id, h, a)
        cuts = [4 + int.from_bytes(_mac(k, "cut", game_id, _u32(h), _u32(a))[:4], "big") % (size - 7)
                for k in seat_keys]
        out["attempts"].append({"hand": h, "attempt": a, "seat_seeds": [c.hex() for c in seeds], "host_seed": s.hex(),
                                "cuts": cuts, "deck_key": dk.hex(), "deck": reference_deck(dk, size)})
        if (h, a) == (0, 0):
            out["first_dealer"] = reference_first_dealer(dk, game_id, len(seat_keys))
    return out


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


def test_level1_v2_vector_file_shape() -> None:
    vectors = LEVEL1_V2["vectors"]
    assert LEVEL1_V2["deck_algorithm"] == DECK_VERSION
    assert len(vectors) >= 3
    assert {len(v["seat_keys"]) for v in vectors} >= {2, 3, 4}
    assert {v["deck_size"] for v in vectors} >= {32, 33, 36}
    assert any((a["hand"], a["attempt"]) == (0, 1) for v in vectors for a in v["attempts"])  # a redeal of hand 0
    assert all((v["attempts"][0]["hand"], v["attempts"][0]["attempt"]) == (0, 0) for v in vectors)


@pytest.mark.parametrize("vector", LEVEL1_V2["vectors"], ids=lambda v: v["description"])
def test_level1_v2_known_answers(vector: dict[str, Any]) -> None:
    game_id, header_hash = bytes.fromhex(vector["game_id"]), bytes.fromhex(vector["header_hash"])
    seat_keys = [bytes.fromhex(k) for k in vector["seat_keys"]]
    host_key = bytes.fromhex(vector["host_key"])
    size = vector["deck_size"]
    attempts = [(a["hand"], a["attempt"]) for a in vector["attempts"]]
    want = {k: vector[k] for k in ("seat_commitments", "host_commitment", "key_set_hash", "attempts", "first_dealer")}
    assert reference_level1(game_id, header_hash, seat_keys, host_key, size, attempts) == want, (
        "the vector itself disagrees with the spec")
    commitments = [seat_key_commitment(game_id, i, header_hash, k) for i, k in enumerate(seat_keys)]
    assert [c.hex() for c in commitments] == vector["seat_commitments"]
    assert host_key_commitment(game_id, host_key).hex() == vector["host_commitment"]
    key_set = key_set_hash(game_id, header_hash, commitments)
    assert key_set.hex() == vector["key_set_hash"]
    for expected in vector["attempts"]:
        h, a = expected["hand"], expected["attempt"]
        seeds = all_seeds(seat_keys, game_id, h, a)
        assert [c.hex() for c in seeds] == expected["seat_seeds"]
        s = host_seed(host_key, game_id, h, a)
        assert s.hex() == expected["host_seed"]
        assert [cut_position(k, game_id, h, a, size) for k in seat_keys] == expected["cuts"]
        dk = deck_key(s, seeds, key_set, game_id, h, a)
        assert dk.hex() == expected["deck_key"]
        assert deck_permutation(dk, size) == expected["deck"]
        if (h, a) == (0, 0):
            assert first_dealer(dk, game_id, len(seat_keys)) == vector["first_dealer"]


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
        first_dealer(key, GAME_ID, 4)


@pytest.mark.parametrize("n", [0, 257, -1, True])
def test_deck_size_is_checked(n: int) -> None:
    with pytest.raises(ValueError, match="deck size"):
        deck_permutation(bytes(32), n)


@pytest.mark.parametrize("n", [0, 256, True])
def test_player_count_is_checked(n: int) -> None:
    with pytest.raises(ValueError, match="number of players"):
        first_dealer(bytes(32), GAME_ID, n)


def test_first_dealer_is_roughly_uniform() -> None:
    counts = [0] * 4
    for i in range(4000):
        counts[first_dealer(hashlib.sha256(b"fd" + i.to_bytes(4, "big")).digest(), GAME_ID, 4)] += 1
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


@pytest.mark.slow
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


# --- deck key (version 2: S(h,a) and every seat's c_i(h,a), salted with Hks) ------------------------


def _key_inputs() -> tuple[bytes, list[bytes], bytes]:
    s = bytes(range(32))
    seeds = [bytes([i]) * 32 for i in range(1, 5)]
    return s, seeds, hashlib.sha256(b"key-set").digest()


def _flip(b: bytes, i: int = 0) -> bytes:
    return b[:i] + bytes([b[i] ^ 1]) + b[i + 1 :]


def test_deck_key_changes_when_any_input_changes() -> None:
    s, seeds, hks = _key_inputs()
    base = deck_key(s, seeds, hks, GAME_ID, 2, 1)
    assert base == reference_deck_key(s, seeds, hks, GAME_ID, 2, 1)
    variants = [
        deck_key(_flip(s, 31), seeds, hks, GAME_ID, 2, 1),
        deck_key(s, seeds, _flip(hks, 5), GAME_ID, 2, 1),
        deck_key(s, seeds, hks, _flip(GAME_ID, 3), 2, 1),
        deck_key(s, seeds, hks, GAME_ID, 3, 1),
        deck_key(s, seeds, hks, GAME_ID, 2, 0),
        deck_key(s, seeds, hks, GAME_ID, 1, 2),  # hand and attempt do not trade places
    ]
    for i in range(len(seeds)):
        variants.append(deck_key(s, [*seeds[:i], _flip(seeds[i], 7), *seeds[i + 1 :]], hks, GAME_ID, 2, 1))
    # Seat order matters, and a deck from a subset of the roster's seeds is another deck.
    variants.append(deck_key(s, [seeds[1], seeds[0], *seeds[2:]], hks, GAME_ID, 2, 1))
    variants.append(deck_key(s, seeds[:3], hks, GAME_ID, 2, 1))
    assert base not in variants
    assert len(set(variants)) == len(variants)
    assert len(base) == 32


def test_deck_key_validates_inputs() -> None:
    s, seeds, hks = _key_inputs()
    with pytest.raises(ValueError, match=r"S\(h,a\) must be exactly 32 bytes"):
        deck_key(s[:31], seeds, hks, GAME_ID, 0, 0)
    with pytest.raises(ValueError, match="c_2 must be exactly 32 bytes"):
        deck_key(s, [*seeds[:2], bytes(16), seeds[3]], hks, GAME_ID, 0, 0)
    with pytest.raises(ValueError, match="Hks must be exactly 32 bytes"):
        deck_key(s, seeds, hks + b"\x00", GAME_ID, 0, 0)
    with pytest.raises(ValueError, match="game id must be exactly 32 bytes"):
        deck_key(s, seeds, hks, GAME_ID[:8], 0, 0)
    with pytest.raises(ValueError, match="every roster seat's seed"):
        deck_key(s, [], hks, GAME_ID, 0, 0)
    with pytest.raises(TypeError, match="c_0 must be bytes"):
        deck_key(s, ["x", *seeds[1:]], hks, GAME_ID, 0, 0)  # type: ignore[list-item]
