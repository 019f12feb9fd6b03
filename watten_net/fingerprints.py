"""How a host's TLS certificate is named and shown: shared by the host that makes it and the clients that pin it.

A LAN host's certificate is self-signed and trusted on first use by its SHA-256 fingerprint (host/tls.py makes it,
client/pinning.py pins it); both sides must agree on the name it is made out to and on how a fingerprint is written.
"""

from __future__ import annotations

import hashlib

TLS_NAME = "watten-host"
"""The name the certificate is made out to and the name clients check (see client/tls.py)."""

def fingerprint(cert_der: bytes) -> str:
    """SHA-256 of a DER certificate as 64 lowercase hex digits (the form stored in known_hosts)."""
    return hashlib.sha256(cert_der).hexdigest()


def normalise_fingerprint(text: str) -> str:
    """Lowercase hex without separators, from however a person typed or copied it.

    Accepts spaces, colons, dashes and any case, because fingerprints get read aloud, copied from a terminal that
    wrapped them, or pasted from OpenSSH-style `AB:CD:...` output. Refuses anything that is not 64 hex digits with a
    sentence, since a truncated fingerprint would silently weaken the pin.
    """
    cleaned = "".join(ch for ch in text if ch not in " :-\t\n").lower()
    if len(cleaned) != 64 or any(ch not in "0123456789abcdef" for ch in cleaned):
        raise ValueError(
            f"{text.strip()!r} is not a SHA-256 fingerprint: expected 64 hexadecimal digits (spaces and colons "
            "between them are fine). Copy it from the line the host prints at start."
        )
    return cleaned


def pretty_fingerprint(hex_digest: str, separator: str = " ") -> str:
    """The fingerprint in groups of four, e.g. "3f9a 0c12 ...": easy to read aloud and compare by eye."""
    cleaned = normalise_fingerprint(hex_digest)
    return separator.join(cleaned[i : i + 4] for i in range(0, len(cleaned), 4))
