"""Known answers for the trustless deal: group constants, card points, commitment generators, whole messages.

``docs/vectors/trustless_group.json`` fixes the base point, the card points M_j, the shuffle
commitment generators h_0..h_33 and small hashing/randomness outputs; ``trustless_messages.json``
fixes the bytes of every message of a seeded 2-seat deal, which pins the whole algorithm (the order
in which randomness is drawn included). The card points and generators are also regenerated here
by straight-line code from their published tags, without the module.

Regenerate (only when the protocol version changes): ``.venv/bin/python tests/test_trustless_vectors.py --write``.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from pathlib import Path
from typing import Any

from nacl.bindings import crypto_core_ed25519_add, crypto_core_ed25519_from_uniform

from watten_net.trustless.elgamal import card_point
from watten_net.trustless.group import BASE, encode_scalar, hash_to_scalar, random_scalar, seeded_draw
from watten_net.trustless.shuffle import GENERATOR_TAG, commitment_generators, generators_digest, random_permutation

from trustless_table import Table, make_setup

VECTOR_DIR = Path(__file__).parent.parent / "docs" / "vectors"
GROUP_FILE = VECTOR_DIR / "trustless_group.json"
MESSAGES_FILE = VECTOR_DIR / "trustless_messages.json"
N_GENERATORS = 33
DECK_ATTEMPT = 0xFFFFFFFF  # a deck's deal id names no real attempt (docs/trustless.md §T4)


def _reference_hash_to_point(name: str, *fields: bytes) -> bytes:
    """hash_to_point by the documented recipe: from_uniform(H(name, u8 0, ...)) + from_uniform(H(name, u8 1, ...))."""

    def h(*parts: bytes) -> bytes:
        tag = b"watten/v1/" + name.encode("ascii")
        data = b"".join(struct.pack(">I", len(x)) + x for x in (tag, *parts))
        return hashlib.sha256(data).digest()

    return crypto_core_ed25519_add(crypto_core_ed25519_from_uniform(h(b"\x00", *fields)),
                                   crypto_core_ed25519_from_uniform(h(b"\x01", *fields)))


def compute_group_vectors() -> dict[str, Any]:
    draw = seeded_draw(b"vector seed")
    return {
        "description": "Level 2 group constants. hash_to_point(name, *f) = from_uniform(H(name, u8 0, *f)) + "
        "from_uniform(H(name, u8 1, *f)); card j = hash_to_point('trustless/card-point', u8 j); "
        "h_i = hash_to_point('trustless/shuffle-generator', u32 i), h = h_0.",
        "base_point": BASE.hex(),
        "card_points": [card_point(j).hex() for j in range(33)],
        "generator_tag": GENERATOR_TAG,
        "generators": [g.hex() for g in commitment_generators(N_GENERATORS)],
        "generators_digest": {str(n): generators_digest(n).hex() for n in (32, 33)},
        "hash_to_scalar": {
            "no-fields": encode_scalar(hash_to_scalar("trustless/test")).hex(),
            "abc": encode_scalar(hash_to_scalar("trustless/test", b"abc")).hex(),
        },
        "seeded_draw_64": seeded_draw(b"vector seed")(64).hex(),
        "random_scalar": encode_scalar(random_scalar(draw)).hex(),
        "random_permutation_33": list(random_permutation(33, seeded_draw(b"vector seed"))),
    }


def compute_message_vectors() -> dict[str, Any]:
    """Deck 0 of the game "vector game", as a trustless game deals it (docs/trustless.md §T4: deal id
    ``game_id || u32 0 || ff ff ff ff``, positions before the cut, no rotation): both key shares, both shuffles in
    full, the ciphertext at position 4, and both seats' shares of it, so every proof and the card check from the
    documents alone."""
    table = Table(make_setup(2, 32, game=b"vector game", hand=0, attempt=DECK_ATTEMPT), seed=b"vector seed")
    keys = table.exchange_keys()
    shuffles = table.shuffle_all()
    table.cut(0)
    share = table.seats[1].delivery_share(4, recipient=0)
    table.broadcast(1, share)
    card = table.seats[0].receive_card(4)
    own = table.seats[0].opening_share(4)
    ciphertext = table.observer.deck[4]
    return {
        "description": "Deck 0 of a 2-seat, 32-card trustless game: game_id = sha256('vector game'), deal id = "
        "game_id || u32 0 || ff ff ff ff; seat s draws from seeded_draw('vector seed' || u8 s); both key shares, "
        "both shuffles (seat 0, then seat 1), the ciphertext (c1 || c2) at position 4 of the shuffled deck, seat 1's "
        "share of position 4 for seat 0, seat 0's own share of it (as when it plays the card), and the card index "
        "they decrypt to.",
        "key_shares": [k.to_bytes().hex() for k in keys],
        "shuffles": [m.to_bytes().hex() for m in shuffles],
        "ciphertext_at_4": ciphertext.encode().hex(),
        "decryption_share": share.to_bytes().hex(),
        "opening_share": own.to_bytes().hex(),
        "card_at_4_for_seat_0": card,
    }


def test_group_vectors() -> None:
    assert compute_group_vectors() == json.loads(GROUP_FILE.read_text())


def test_message_vectors() -> None:
    assert compute_message_vectors() == json.loads(MESSAGES_FILE.read_text())


def test_generators_regenerate_from_their_published_seed() -> None:
    stored = json.loads(GROUP_FILE.read_text())
    assert stored["generator_tag"] == "trustless/shuffle-generator"
    regenerated = [_reference_hash_to_point(stored["generator_tag"], struct.pack(">I", i)).hex()
                   for i in range(N_GENERATORS + 1)]
    assert regenerated == stored["generators"]
    assert len(set(regenerated)) == N_GENERATORS + 1


def test_card_points_regenerate_from_their_tag() -> None:
    stored = json.loads(GROUP_FILE.read_text())
    regenerated = [_reference_hash_to_point("trustless/card-point", bytes([j])).hex() for j in range(33)]
    assert regenerated == stored["card_points"]
    assert not set(regenerated) & set(stored["generators"])


def test_base_point_is_the_ed25519_base_point() -> None:
    assert BASE.hex() == "5866666666666666666666666666666666666666666666666666666666666666"


if __name__ == "__main__" and "--write" in sys.argv:
    GROUP_FILE.write_text(json.dumps(compute_group_vectors(), indent=1) + "\n")
    MESSAGES_FILE.write_text(json.dumps(compute_message_vectors(), indent=1) + "\n")
    print(f"wrote {GROUP_FILE} and {MESSAGES_FILE}")
