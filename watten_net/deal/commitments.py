"""Level 1 commitments: host seed, client seeds (with the committed cut), and per-card seals.

A commitment fixes a value before anyone may learn it and lets everyone check the opening
later. Each binds its context (game, hand ``h``, attempt ``a``, seat or position) so an
opening can never be replayed into another game, hand, attempt, seat or position.
All hashes are ``H`` of :mod:`watten_net.deal.hashing`; ``game_id`` and hashes are 32 bytes,
seeds ``S`` and ``c_i`` are 32 bytes. Layouts (fields in order)::

    C_S    = H("host-seed",   game_id, u32 h, u32 a, u8 dealer, S)
             (dealer = 255 in hand 0, where the dealer is drawn from the deck key)
    C_i    = H("client-seed", game_id, u32 h, u32 a, u8 seat, hand_open_hash, c_i, extra_i)
    extra  = u8 version (= 1) || u8 cut                   (exactly 2 bytes)
    salt_k = HMAC-SHA256(key = S, msg = framed("card-salt", game_id, u32 h, u32 a, u8 k))
    D_k    = H("card-commit", game_id, u32 h, u32 a, u8 k, ascii(card), salt_k)

``framed`` is the preimage of ``H`` (the framed tag and fields, unhashed). The salts come
from ``S`` so that revealing ``S`` later opens every position, while until then each salt
(256 bits) hides its card: without it the 33 possible cards would be brute-forced at once.

Every seat commits a cut in its ``extra``; only the cutter's is used. It must be fixed
before anyone can know the deck, or a cutter colluding with the host could choose the cut.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from watten_net.deal.hashing import DIGEST_LEN, SECRET_LEN, H, framed, length_prefixed, require_len, u8, u32

DEALER_UNKNOWN = 255
"""The dealer field of the hand-0 host commitment: the dealer is not known before the reveals."""

EXTRA_VERSION = 1
EXTRA_LEN = 2
MIN_CUT = 4
"""RULES.md: the cutter lifts N cards with 4 <= N <= deck size - 4."""


class CommitmentError(ValueError):
    """An opening does not match its commitment, or is malformed.

    ``reason`` is machine-readable (``host-seed-mismatch``, ``client-seed-mismatch``,
    ``card-commit-mismatch``, ``malformed-opening``, ``bad-extra``); the message says what and where.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


# --- host seed -------------------------------------------------------------------------------


def host_seed_commitment(game_id: bytes, hand: int, attempt: int, dealer: int, host_secret: bytes) -> bytes:
    """Return ``C_S``, published in HandOpen before any client chooses its seed."""
    return H(
        "host-seed",
        require_len("game id", game_id, DIGEST_LEN),
        u32(hand),
        u32(attempt),
        u8(dealer),
        require_len("host secret S", host_secret, SECRET_LEN),
    )


def check_host_seed(
    commitment: bytes, game_id: bytes, hand: int, attempt: int, dealer: int, host_secret: bytes
) -> None:
    """Raise :class:`CommitmentError` unless ``host_secret`` opens ``commitment`` in this context."""
    try:
        expected = host_seed_commitment(game_id, hand, attempt, dealer, host_secret)
    except (TypeError, ValueError) as exc:
        raise CommitmentError(
            "malformed-opening", f"host seed opening for hand {hand}/{attempt}: {exc}"
        ) from exc
    if not hmac.compare_digest(expected, commitment):
        raise CommitmentError(
            "host-seed-mismatch", f"revealed host seed does not match C_S of hand {hand} attempt {attempt}"
        )


# --- client seeds and the committed cut ------------------------------------------------------


@dataclass(frozen=True)
class SeedExtra:
    """The choices a seat commits with its seed: today only its cut position."""

    cut: int

    def encode(self) -> bytes:
        """Return the canonical 2-byte encoding ``u8 version || u8 cut``."""
        return encode_extra(self.cut)


def encode_extra(cut: int) -> bytes:
    """Return ``u8 1 || u8 cut``; the range against the deck size is checked by :func:`parse_extra`."""
    return u8(EXTRA_VERSION) + u8(cut)


def parse_extra(extra: bytes, deck_size: int | None = None) -> SeedExtra:
    """Parse and validate a committed ``extra``; with ``deck_size``, also check 4 <= cut <= size - 4.

    Only the exact canonical encoding is accepted, so one choice has one commitment.
    """
    if not isinstance(extra, (bytes, bytearray)) or len(extra) != EXTRA_LEN:
        raise CommitmentError("bad-extra", f"extra must be exactly {EXTRA_LEN} bytes (version, cut)")
    version, cut = extra[0], extra[1]
    if version != EXTRA_VERSION:
        raise CommitmentError(
            "bad-extra", f"extra version {version} is not supported (expected {EXTRA_VERSION})"
        )
    if deck_size is not None and not MIN_CUT <= cut <= deck_size - MIN_CUT:
        raise CommitmentError(
            "bad-extra", f"cut {cut} is outside {MIN_CUT}..{deck_size - MIN_CUT} for a {deck_size}-card deck"
        )
    return SeedExtra(cut=cut)


def random_cut(deck_size: int) -> int:
    """Draw a uniform legal cut with ``secrets``, for bots and for seats that never cut by hand."""
    if deck_size < 2 * MIN_CUT:
        raise ValueError(f"a {deck_size}-card deck is too small to cut")
    return MIN_CUT + secrets.randbelow(deck_size - 2 * MIN_CUT + 1)


def new_secret() -> bytes:
    """Return a fresh 32-byte secret (host seed S or client seed c_i) from the OS CSPRNG."""
    return secrets.token_bytes(SECRET_LEN)


def client_seed_commitment(
    game_id: bytes,
    hand: int,
    attempt: int,
    seat: int,
    hand_open_hash: bytes,
    client_seed: bytes,
    extra: bytes,
) -> bytes:
    """Return ``C_i``; binding ``hand_open_hash`` ties the seed to the host's C_S already published."""
    if not isinstance(extra, (bytes, bytearray)):
        raise TypeError(f"extra must be bytes, not {type(extra).__name__}")
    return H(
        "client-seed",
        require_len("game id", game_id, DIGEST_LEN),
        u32(hand),
        u32(attempt),
        u8(seat),
        require_len("HandOpen hash", hand_open_hash, DIGEST_LEN),
        require_len(f"client seed of seat {seat}", client_seed, SECRET_LEN),
        bytes(extra),
    )


def check_client_seed(
    commitment: bytes,
    game_id: bytes,
    hand: int,
    attempt: int,
    seat: int,
    hand_open_hash: bytes,
    client_seed: bytes,
    extra: bytes,
) -> None:
    """Raise :class:`CommitmentError` unless ``(client_seed, extra)`` opens ``commitment``.

    The extra's own format is checked separately by :func:`parse_extra` (only the cutter's
    cut is used, but every seat's must open its commitment).
    """
    try:
        expected = client_seed_commitment(game_id, hand, attempt, seat, hand_open_hash, client_seed, extra)
    except (TypeError, ValueError) as exc:
        raise CommitmentError("malformed-opening", f"seed opening of seat {seat}: {exc}") from exc
    if not hmac.compare_digest(expected, commitment):
        raise CommitmentError(
            "client-seed-mismatch",
            f"revealed seed of seat {seat} does not match its commitment (hand {hand} attempt {attempt})",
        )


# --- per-card seals --------------------------------------------------------------------------


def card_salt(host_secret: bytes, game_id: bytes, hand: int, attempt: int, k: int) -> bytes:
    """Return ``salt_k``, the 32-byte salt of deck position ``k``, derived from ``S``."""
    msg = framed("card-salt", require_len("game id", game_id, DIGEST_LEN), u32(hand), u32(attempt), u8(k))
    return hmac.digest(require_len("host secret S", host_secret, SECRET_LEN), msg, hashlib.sha256)


def _card_bytes(card: str) -> bytes:
    if not isinstance(card, str) or not card.isascii() or not card.isalnum():
        raise ValueError(f"card {card!r} must be a non-empty ASCII card string like 'HK' or 'L10'")
    return card.encode("ascii")


def card_commitment(game_id: bytes, hand: int, attempt: int, k: int, card: str, salt: bytes) -> bytes:
    """Return ``D_k``, the seal of the card at deck position ``k``."""
    return H(
        "card-commit",
        require_len("game id", game_id, DIGEST_LEN),
        u32(hand),
        u32(attempt),
        u8(k),
        _card_bytes(card),
        require_len(f"salt of position {k}", salt, SECRET_LEN),
    )


def seal_deck(
    host_secret: bytes, game_id: bytes, hand: int, attempt: int, cards: Sequence[str]
) -> list[bytes]:
    """Return ``[D_0, ..., D_{N-1}]`` for the deck ``cards`` (top card first), as in DeckSealed.

    Equal to :func:`card_commitment` over :func:`card_salt` for every ``k`` (the tests check
    it), but about 3x faster: the framed prefix shared by all positions is built and absorbed
    into the HMAC state once, which is sound because a framed preimage is the plain
    concatenation of its framed fields.
    """
    require_len("game id", game_id, DIGEST_LEN)
    require_len("host secret S", host_secret, SECRET_LEN)
    if len(cards) > 256:
        raise ValueError(f"a deck of {len(cards)} cards does not fit one-byte positions")
    context = (bytes(game_id), u32(hand), u32(attempt))
    salt_mac = hmac.new(bytes(host_secret), framed("card-salt", *context), hashlib.sha256)
    commit_prefix = framed("card-commit", *context)
    sealed = []
    for k, card in enumerate(cards):
        position = length_prefixed(u8(k))
        mac = salt_mac.copy()
        mac.update(position)
        salt = mac.digest()
        tail = length_prefixed(_card_bytes(card)) + length_prefixed(salt)
        sealed.append(hashlib.sha256(commit_prefix + position + tail).digest())
    return sealed


def check_card(
    commitment: bytes, game_id: bytes, hand: int, attempt: int, k: int, card: str, salt: bytes
) -> None:
    """Raise :class:`CommitmentError` unless ``(card, salt)`` opens ``D_k``.

    Checked on arrival of every dealt card and on every play; which seat may hold ``k`` is
    the deal map's business, not this function's.
    """
    try:
        expected = card_commitment(game_id, hand, attempt, k, card, salt)
    except (TypeError, ValueError) as exc:
        raise CommitmentError("malformed-opening", f"opening of position {k}: {exc}") from exc
    if not hmac.compare_digest(expected, commitment):
        raise CommitmentError(
            "card-commit-mismatch",
            f"card {card!r} does not open the commitment of position {k} (hand {hand} attempt {attempt})",
        )


def card_matches(
    commitment: bytes, game_id: bytes, hand: int, attempt: int, k: int, card: str, salt: bytes
) -> bool:
    """Return whether ``(card, salt)`` opens ``D_k``; the bool form of :func:`check_card`."""
    try:
        check_card(commitment, game_id, hand, attempt, k, card, salt)
    except CommitmentError:
        return False
    return True
