"""The deck permutation ``deck/v1``: from a deck key to the deck order.

A pure function of its inputs so that every client and ``watten-verify`` recompute exactly what the host did
(the deck key itself comes from every game key: :mod:`watten_net.deal.keys`). Layout, for a canonical deck of
``n`` cards, 1 <= n <= 256::

    tag_j = HMAC-SHA256(deck_key, b"watten/v1/card-tag" || u8(j))    for j in 0..n-1
    deck  = [j for j in 0..n-1 sorted by (tag_j, j)]                 (top card first)

The tags are independent uniform 256-bit values, so all n! orders are equally likely (a
tie has probability below 2^-246); sorting by tag has no modulo bias and no Fisher-Yates
off-by-one to get wrong, and any language can reimplement it. Tags compare as byte strings
(equivalently as 256-bit big-endian integers).
"""

from __future__ import annotations

import hashlib
import hmac

from watten_net.hashing import require_len, tag, u8

DECK_VERSION = "deck/v1"
"""The permutation algorithm's name; a new algorithm gets a new version, never a silent change."""

DECK_KEY_LEN = 32
CARD_TAG_PREFIX = tag("card-tag")
MAX_DECK_SIZE = 256
"""Card indices are encoded as one byte."""
_TAG_MESSAGES = tuple(CARD_TAG_PREFIX + u8(j) for j in range(MAX_DECK_SIZE))  # what tag_j is the HMAC of


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
    tagged = [(hmac.digest(key, _TAG_MESSAGES[j], "sha256"), j) for j in range(n)]
    tagged.sort()
    return [j for _, j in tagged]
