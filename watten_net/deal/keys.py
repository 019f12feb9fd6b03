"""docs/protocol.md Level 1 version 2: every seed, cut and deck of a match from game keys fixed before its first hand.

Each seat i draws a game key ``k_i`` and the host ``k_H``; their commitments are published (``K_i`` in the KeySet,
``K_H`` in the header) before anyone reveals, the seats' keys are revealed before the first hand, and ``k_H`` once
the match is over for good. So who is present never changes a deck, and no byte the host chooses enters one.
Layouts (``framed`` and ``H`` of :mod:`watten_net.hashing` with the tag prefix ``watten/v2/``; ``u32`` and
``u8`` big-endian; ``u32(MAC)`` the first 4 bytes of a MAC, big-endian)::

    K_i        = H(seat-game-key, game_id, u8 i, header_hash, k_i)
    K_H        = H(host-game-key, game_id, k_H)
    Hks        = H(key-set, game_id, header_hash, K_0, ..., K_(n-1))
    c_i(h,a)   = HMAC-SHA256(k_i, framed(seat-seed, game_id, u32 h, u32 a))
    S(h,a)     = HMAC-SHA256(k_H, framed(host-hand-seed, game_id, u32 h, u32 a))
    cut(h,a)   = 4 + u32(HMAC-SHA256(k_cutter, framed(cut, game_id, u32 h, u32 a))) mod (size - 7)
    deck_key   = HKDF-SHA256(ikm = S(h,a) || c_0(h,a) || ... || c_(n-1)(h,a), salt = Hks,
                             info = framed(deck-key, game_id, u32 h, u32 a)), 32 bytes
    deck       = deck/v1 of deck_key (watten_net.deal.deck.deck_permutation)
    dealer_0   = u32(HMAC-SHA256(deck_key(0,0), framed(first-dealer, game_id))) mod n
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from watten_net.hashing import DIGEST_LEN, SECRET_LEN, V2, H, framed, require_len, u8, u32

MIN_CUT = 4
"""docs/rules.md: the cutter lifts N cards with 4 <= N <= deck size - 4."""


def _mac(key: bytes, name: str, *fields: bytes) -> bytes:
    return hmac.digest(key, framed(name, *fields, version=V2), hashlib.sha256)


def seat_key_commitment(game_id: bytes, seat: int, header_hash: bytes, key: bytes) -> bytes:
    """``K_i``: binds the seat's game key to this game, this seat and the header it signed."""
    return H("seat-game-key", require_len("game id", game_id, DIGEST_LEN), u8(seat),
             require_len("header hash", header_hash, DIGEST_LEN), require_len("game key", key, SECRET_LEN), version=V2)


def host_key_commitment(game_id: bytes, key: bytes) -> bytes:
    """``K_H``, published in the GameHeader."""
    return H("host-game-key", require_len("game id", game_id, DIGEST_LEN),
             require_len("host game key", key, SECRET_LEN), version=V2)


def key_set_hash(game_id: bytes, header_hash: bytes, commitments: Sequence[bytes]) -> bytes:
    """``Hks``: what every seat signs, and the salt of every deck key of the match."""
    fields = [require_len(f"K_{i}", c, DIGEST_LEN) for i, c in enumerate(commitments)]
    return H("key-set", require_len("game id", game_id, DIGEST_LEN),
             require_len("header hash", header_hash, DIGEST_LEN), *fields, version=V2)


def seat_seed(key: bytes, game_id: bytes, hand: int, attempt: int) -> bytes:
    """``c_i(h,a)``, the seat's contribution to deal attempt (h, a)."""
    return _mac(key, "seat-seed", game_id, u32(hand), u32(attempt))


def host_seed(key: bytes, game_id: bytes, hand: int, attempt: int) -> bytes:
    """``S(h,a)``, the host's contribution to deal attempt (h, a); it also salts the card seals."""
    return _mac(key, "host-hand-seed", game_id, u32(hand), u32(attempt))


def cut_position(cutter_key: bytes, game_id: bytes, hand: int, attempt: int, deck_size: int) -> int:
    """The cut of attempt (h, a), 4..size-4, from the cutter's game key: fixed before anyone knew a deck."""
    if deck_size < 2 * MIN_CUT:
        raise ValueError(f"a {deck_size}-card deck is too small to cut")
    digest = _mac(cutter_key, "cut", game_id, u32(hand), u32(attempt))
    return MIN_CUT + int.from_bytes(digest[:4], "big") % (deck_size - 7)


def deck_key(host_secret: bytes, seat_seeds: Sequence[bytes], key_set: bytes, game_id: bytes,
             hand: int, attempt: int) -> bytes:
    """The deck key of attempt (h, a) from S(h,a) and every roster seat's c_i(h,a), in seat order."""
    ikm = require_len("S(h,a)", host_secret, SECRET_LEN) + b"".join(
        require_len(f"c_{i}", c, SECRET_LEN) for i, c in enumerate(seat_seeds))
    if not seat_seeds:
        raise ValueError("every roster seat's seed is needed")
    info = framed("deck-key", require_len("game id", game_id, DIGEST_LEN), u32(hand), u32(attempt), version=V2)
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=require_len("Hks", key_set, DIGEST_LEN), info=info)
    return hkdf.derive(ikm)


def first_dealer(first_deck_key: bytes, game_id: bytes, players: int) -> int:
    """The first dealer, from deck_key(0, 0) (also when hand 0 is redealt)."""
    if isinstance(players, bool) or not isinstance(players, int) or not 1 <= players <= 255:
        raise ValueError(f"number of players must be an int in 1..255, got {players!r}")
    digest = _mac(require_len("deck key", first_deck_key, 32), "first-dealer",
                  require_len("game id", game_id, DIGEST_LEN))
    return int.from_bytes(digest[:4], "big") % players


def all_seeds(keys: Sequence[bytes], game_id: bytes, hand: int, attempt: int) -> list[bytes]:
    """Every roster seat's c_i(h, a), in seat order."""
    return [seat_seed(k, game_id, hand, attempt) for k in keys]
