"""What an envelope signature covers, and the hash chain link.

Protobuf serialisation is not canonical, so a verifier must never re-serialise a message to
check it: the signature covers the header fields and the payload **bytes exactly as sent**,
and the chain link is the hash of the envelope bytes exactly as received. Layouts::

    signing_bytes = framed("envelope", game_id, u64 seq, prev_hash, u8 sender_seat, ascii(type_name), payload)
    envelope_hash = SHA-256(raw envelope bytes)

``framed`` is the preimage of ``H`` (``lp(b"watten/v1/envelope") || lp(field) ...``, each
``lp`` a u32 big-endian length prefix), signed directly with Ed25519 (which hashes it
itself). ``game_id`` and ``prev_hash`` are 32 bytes; the first envelope of a game uses
:data:`GENESIS_PREV_HASH`. The host, which is not a seat, signs as :data:`HOST_SENDER`.
"""

from __future__ import annotations

import functools
import hashlib
import re
import struct

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal import identity
from watten_net.hashing import DIGEST_LEN, framed, length_prefixed, require_len, u8, u64

GENESIS_PREV_HASH = bytes(DIGEST_LEN)
"""``prev_hash`` of the first envelope of a game (32 zero bytes)."""

HOST_SENDER = 255
"""``sender_seat`` of envelopes the host signs with its own key."""

_TYPE_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.]*")


def signing_bytes(
    game_id: bytes, seq: int, prev_hash: bytes, sender_seat: int, type_name: str, payload: bytes
) -> bytes:
    """Return the exact bytes an envelope's signature covers (see the module docstring).

    ``type_name`` (e.g. ``"SeedCommit"``) is part of the signed input so a payload cannot be
    reinterpreted as another message type.

    Equal to ``framed("envelope", game_id, u64(seq), prev_hash, u8(sender_seat), ascii(type_name), payload)``, with
    the same checks (tests/test_deal_hashing.py holds the two against each other), but written out: every party
    builds these bytes twice for each envelope of the game (once to sign or check it, once more for each embedded
    envelope), so the general framing's per-field work is worth saving here.
    """
    name = _TYPE_FIELDS.get(type_name) if isinstance(type_name, str) else None
    if name is None:
        if not isinstance(type_name, str) or not _TYPE_RE.fullmatch(type_name):
            raise ValueError(f"envelope type {type_name!r} must be an ASCII identifier")
        name = length_prefixed(type_name.encode("ascii"))
        if len(_TYPE_FIELDS) < 1024:  # (the proto's type names are a few dozen; a flood of odd ones is not kept)
            _TYPE_FIELDS[type_name] = name
    if not isinstance(payload, (bytes, bytearray)):
        raise TypeError(f"payload must be bytes as sent, not {type(payload).__name__}")
    # The middle fields in one pack, after the very checks u64, require_len and u8 make (struct alone would take a
    # bool or an int-like object, and pad or cut a prev_hash of another length).
    if type(seq) is not int or type(sender_seat) is not int or type(prev_hash) not in (bytes, bytearray) or not (
            0 <= seq < _U64_END and 0 <= sender_seat < 256 and len(prev_hash) == DIGEST_LEN):
        u64(seq)
        require_len("prev_hash", prev_hash, DIGEST_LEN)
        u8(sender_seat)
    return b"".join((
        _game_field(require_len("game id", game_id, DIGEST_LEN)),
        _MIDDLE.pack(8, seq, DIGEST_LEN, prev_hash, 1, sender_seat), name, length_prefixed(bytes(payload)),
    ))


_TYPE_FIELDS: dict[str, bytes] = {}  # type names that passed _TYPE_RE once -> their framed field
# lp(u64 seq) || lp(prev_hash) || lp(u8 sender_seat): the length prefixes are constants of the layout.
_MIDDLE = struct.Struct(f">IQI{DIGEST_LEN}sIB")
_U64_END = 1 << 64


@functools.lru_cache(maxsize=16)
def _game_field(game_id: bytes) -> bytes:
    """The signing bytes up to the game id, framed: the same for every envelope of a game."""
    return framed("envelope") + length_prefixed(game_id)


def envelope_hash(envelope_bytes: bytes) -> bytes:
    """Return the chain link: SHA-256 of the raw envelope bytes as received (never re-serialised)."""
    return hashlib.sha256(envelope_bytes).digest()


def sign_envelope(
    key: Ed25519PrivateKey,
    game_id: bytes,
    seq: int,
    prev_hash: bytes,
    sender_seat: int,
    type_name: str,
    payload: bytes,
) -> bytes:
    """Return the 64-byte signature of an envelope."""
    return identity.sign(key, signing_bytes(game_id, seq, prev_hash, sender_seat, type_name, payload))


def verify_envelope(
    public_key: bytes,
    signature: bytes,
    game_id: bytes,
    seq: int,
    prev_hash: bytes,
    sender_seat: int,
    type_name: str,
    payload: bytes,
) -> bool:
    """Return whether ``signature`` signs this envelope under ``public_key``.

    Malformed header fields (a 31-byte hash, an out-of-range seat, a bad type name) make the
    envelope invalid, so they return False rather than raise.
    """
    try:
        message = signing_bytes(game_id, seq, prev_hash, sender_seat, type_name, payload)
    except (TypeError, ValueError):
        return False
    return identity.verify(public_key, signature, message)
