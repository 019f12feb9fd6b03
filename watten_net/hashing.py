"""Domain-separated hashing and fixed-width integer encoders for the deal protocol.

Every hash in the protocol is ``H(name, *fields)``; giving each use its own tag and
length-prefixing every field means no two different inputs (or two different uses) can
produce the same preimage, whatever the fields contain (docs/protocol.md section 2). Reimplement it like this:

    lp(x)     = u32_be(len(x)) || x                   (4-byte big-endian length, then the bytes)
    tag(name) = b"watten/v1/" || ascii(name)          (e.g. b"watten/v1/envelope"; Level 1 version 2: b"watten/v2/")
    preimage  = lp(tag(name)) || lp(field_0) || ... || lp(field_{m-1})
    H         = SHA-256(preimage)                     (32 bytes)

Integers enter as fields of fixed width, big-endian: ``u8`` (1 byte), ``u32`` (4 bytes),
``u64`` (8 bytes). Example: ``H("test")`` with no fields is
``SHA-256(00 00 00 0e || "watten/v1/test")``.

``framed(name, *fields)`` returns the preimage itself; it is what HMAC and signatures are
computed over where the protocol needs a keyed function or a signature instead of a hash.
"""

from __future__ import annotations

import functools
import hashlib
import re

TAG_PREFIX = "watten/v1/"
"""Every tag starts with this; bumping the protocol version changes every hash."""

V2 = 2
"""docs/protocol.md Level 1 version 2 derives its keys, seeds, decks and card seals under tags ``watten/v2/<name>``, so
that no hash of version 1 can be mistaken for one of version 2 (pass ``version=V2``)."""

SECRET_LEN = 32
"""Bytes in every fresh secret (host seed S, client seeds c_i, nonces): 256 bits from ``secrets``."""

DIGEST_LEN = 32
"""Bytes in every SHA-256 output (game id, commitments, chain links, transcript hashes)."""

_NAME_RE = re.compile(r"[a-z0-9][a-z0-9/-]*")
_MAX_FIELD = 2**32 - 1
_BYTES_LIKE = (bytes, bytearray, memoryview)


def tag(name: str, version: int = 1) -> bytes:
    """Return the ASCII domain tag ``watten/v<version>/<name>``.

    Names are restricted to lowercase letters, digits, ``-`` and ``/`` so a tag never
    depends on a text encoding or normalisation.
    """
    if not _NAME_RE.fullmatch(name):
        raise ValueError(f"tag name {name!r} must match [a-z0-9][a-z0-9/-]*")
    if version not in (1, V2):
        raise ValueError(f"no tags of version {version}")
    return f"watten/v{version}/{name}".encode("ascii")


def length_prefixed(data: bytes) -> bytes:
    """Return ``u32_be(len(data)) || data``: the framing of one field."""
    if len(data) > _MAX_FIELD:
        raise ValueError(f"field of {len(data)} bytes is too long for a u32 length prefix")
    return len(data).to_bytes(4, "big") + data


@functools.lru_cache(maxsize=128)
def _framed_tag(name: str, version: int) -> bytes:
    # Tags are few and constant; building and checking each once keeps hashing cheap.
    return length_prefixed(tag(name, version))


def framed(name: str, *fields: bytes, version: int = 1) -> bytes:
    """Return the preimage of ``H(name, *fields)``: the framed tag followed by the framed fields."""
    parts = [_framed_tag(name, version)]
    for i, field in enumerate(fields):
        if not isinstance(field, _BYTES_LIKE):
            raise TypeError(f"field {i} of {name!r} must be bytes, not {type(field).__name__}")
        parts.append(length_prefixed(bytes(field)))
    return b"".join(parts)


def H(name: str, *fields: bytes, version: int = 1) -> bytes:
    """SHA-256 over the framed tag and fields; see the module docstring for the layout."""
    return hashlib.sha256(framed(name, *fields, version=version)).digest()


def _uint(value: int, width: int) -> bytes:
    # Exactly int: bool is an int subclass, and a True where a seat number belongs is a bug, not a 1.
    if type(value) is not int:
        raise TypeError(f"expected an int, not {type(value).__name__}")
    if not 0 <= value < 1 << (8 * width):
        raise ValueError(f"{value} does not fit in an unsigned {8 * width}-bit integer")
    return value.to_bytes(width, "big")


def u8(value: int) -> bytes:
    """Encode 0 <= value < 2**8 as 1 byte."""
    return _uint(value, 1)


def u32(value: int) -> bytes:
    """Encode 0 <= value < 2**32 as 4 bytes, big-endian."""
    return _uint(value, 4)


def u64(value: int) -> bytes:
    """Encode 0 <= value < 2**64 as 8 bytes, big-endian."""
    return _uint(value, 8)


def require_len(name: str, value: bytes, length: int) -> bytes:
    """Return ``value`` if it is bytes of exactly ``length``; otherwise raise a ValueError naming it.

    Fixed-size secrets and hashes are checked at every entry point so a truncated or
    hex-encoded value fails loudly instead of yielding a different, "valid" hash.
    """
    if not isinstance(value, (bytes, bytearray)):
        raise TypeError(f"{name} must be bytes, not {type(value).__name__}")
    if len(value) != length:
        raise ValueError(f"{name} must be exactly {length} bytes, got {len(value)}")
    return bytes(value)
