"""Deck derivation ``deck/v1``: from the revealed seeds to the deck order and the first dealer.

Everything here is a pure function of its inputs so that every client and ``watten-verify``
recompute exactly what the host did. Layouts (``||`` is concatenation, ``lp`` the u32
big-endian length prefix of :mod:`watten_net.deal.hashing`):

deck key (HKDF-SHA256, RFC 5869, 32 bytes of output)::

    ikm  = S || c_0 || ... || c_{n-1} || lp(extra_0) || ... || lp(extra_{n-1})
    salt = transcript hash (32 bytes: the hash of the transcript up to the all-signed CommitSet)
    info = b"watten/v1/deck-key"

``S`` and every ``c_i`` are exactly 32 bytes, so they need no prefix; the extras vary in
length and are prefixed. Seeds and extras are in seat order.

deck order (``deck/v1``), for a canonical deck of ``n`` cards, 1 <= n <= 256::

    tag_j = HMAC-SHA256(deck_key, b"watten/v1/card-tag" || u8(j))    for j in 0..n-1
    deck  = [j for j in 0..n-1 sorted by (tag_j, j)]                 (top card first)

The tags are independent uniform 256-bit values, so all n! orders are equally likely (a
tie has probability below 2^-246); sorting by tag has no modulo bias and no Fisher-Yates
off-by-one to get wrong, and any language can reimplement it. Tags compare as byte strings
(equivalently as 256-bit big-endian integers).

first dealer (hand 0 only)::

    dealer = u32_be(HMAC-SHA256(deck_key, b"watten/v1/first-dealer")[0:4]) mod n_players

(the bias of a 32-bit value mod at most 256 is below 2^-24 and favours no party anyone can choose).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from watten_net.deal.hashing import DIGEST_LEN, SECRET_LEN, length_prefixed, require_len, tag, u8

DECK_VERSION = "deck/v1"
"""The permutation algorithm's name; a new algorithm gets a new version, never a silent change."""

DECK_KEY_LEN = 32
DECK_KEY_INFO = tag("deck-key")
CARD_TAG_PREFIX = tag("card-tag")
FIRST_DEALER_LABEL = tag("first-dealer")
MAX_DECK_SIZE = 256
"""Card indices are encoded as one byte."""


def derive_deck_key(
    host_secret: bytes,
    client_seeds: Sequence[bytes],
    extras: Sequence[bytes],
    transcript_hash: bytes,
) -> bytes:
    """Derive the 32-byte deck key from every committed input (see the module docstring).

    The salt is the hash of the transcript up to the all-signed CommitSet: it binds the game,
    roster, rules, hand, attempt and dealer without letting the host add anything it writes
    after seeing the reveals (it could otherwise grind free fields to choose a deck).
    """
    require_len("host secret S", host_secret, SECRET_LEN)
    require_len("transcript hash", transcript_hash, DIGEST_LEN)
    if not client_seeds:
        raise ValueError("at least one client seed is required")
    if len(client_seeds) != len(extras):
        raise ValueError(f"got {len(client_seeds)} client seeds but {len(extras)} extras; need one per seat")
    parts = [bytes(host_secret)]
    parts += [require_len(f"client seed c_{i}", c, SECRET_LEN) for i, c in enumerate(client_seeds)]
    for i, extra in enumerate(extras):
        if not isinstance(extra, (bytes, bytearray)):
            raise TypeError(f"extra_{i} must be bytes, not {type(extra).__name__}")
        parts.append(length_prefixed(bytes(extra)))
    hkdf = HKDF(
        algorithm=hashes.SHA256(), length=DECK_KEY_LEN, salt=bytes(transcript_hash), info=DECK_KEY_INFO
    )
    return hkdf.derive(b"".join(parts))


def card_tag(deck_key: bytes, j: int) -> bytes:
    """Return ``tag_j = HMAC-SHA256(deck_key, b"watten/v1/card-tag" || u8(j))``."""
    require_len("deck key", deck_key, DECK_KEY_LEN)
    return hmac.digest(deck_key, CARD_TAG_PREFIX + u8(j), hashlib.sha256)


def deck_permutation(deck_key: bytes, n: int) -> list[int]:
    """Return the deck order (top card first) as canonical card indices, ``deck/v1``.

    ``result[p]`` is the canonical index of the card at position ``p``; it is a permutation
    of ``range(n)``.
    """
    require_len("deck key", deck_key, DECK_KEY_LEN)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_DECK_SIZE:
        raise ValueError(f"deck size must be an int in 1..{MAX_DECK_SIZE}, got {n!r}")
    key = bytes(deck_key)
    tagged = [(hmac.digest(key, CARD_TAG_PREFIX + bytes((j,)), hashlib.sha256), j) for j in range(n)]
    tagged.sort()
    return [j for _, j in tagged]


def first_dealer(deck_key: bytes, n_players: int) -> int:
    """Return the first dealer's seat, drawn from the hand-0 deck key (see the module docstring)."""
    require_len("deck key", deck_key, DECK_KEY_LEN)
    if isinstance(n_players, bool) or not isinstance(n_players, int) or not 1 <= n_players <= 255:
        raise ValueError(f"number of players must be an int in 1..255, got {n_players!r}")
    digest = hmac.digest(bytes(deck_key), FIRST_DEALER_LABEL, hashlib.sha256)
    return int.from_bytes(digest[:4], "big") % n_players


STAND_IN_CUT_LABEL = tag("stand-in-cut")


def stand_in_cut(deck_key: bytes, deck_size: int) -> int:
    """The cut when the cutter was away (a stand-in) when the seeds were committed, so it committed no cut.

    Like every committed cut it is fixed before anyone can know the deck, and nobody chooses it:
    ``4 + u32_be(HMAC-SHA256(deck_key, b"watten/v1/stand-in-cut")[0:4]) mod (deck_size - 7)``, i.e. 4..size-4.
    """
    require_len("deck key", deck_key, DECK_KEY_LEN)
    if deck_size < 8:
        raise ValueError(f"a {deck_size}-card deck is too small to cut")
    digest = hmac.digest(bytes(deck_key), STAND_IN_CUT_LABEL, hashlib.sha256)
    return 4 + int.from_bytes(digest[:4], "big") % (deck_size - 7)
