"""Ed25519 identities, the game id and the game fingerprint.

Each installation (and the host) keeps one long-lived Ed25519 key; every envelope it sends
is signed with it, so no seat can deny its actions and nobody can act for it. The key file
holds the raw 32-byte private seed (PEM PKCS#8 is also accepted on load), is created with
mode 0600 atomically, and is refused when group or others may access it: a key someone
else can read is no identity.

Layouts::

    game_id     = H("game-id", host_nonce, join_nonce_0, ..., join_nonce_{n-1})  (32-byte nonces, seat order)
    fingerprint = hex(H("fingerprint", header_bytes))[0:16], as four space-separated groups of 4
    join proof  = sign(framed("join", table_id, host key, TLS fingerprint or b"insecure", own key, nonce))
    leave proof = sign(framed("leave", table_id, host key, game_id, seat, nonce))

The fingerprint is read aloud in the room: it stops a host from showing each client a
different roster, which signatures alone cannot (the host relays every key).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import stat
from collections.abc import Sequence
from pathlib import Path

import nacl.bindings
import nacl.exceptions
import nacl.signing
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.hashing import SECRET_LEN, H, framed, require_len

PUBLIC_KEY_LEN = 32
SIGNATURE_LEN = 64
NONCE_LEN = SECRET_LEN
_PEM_MARKER = b"-----BEGIN"


class IdentityFileError(Exception):
    """The key file is unsafe or unreadable; the message says what to do."""


def load_or_create_identity(path: str | os.PathLike[str]) -> Ed25519PrivateKey:
    """Load the Ed25519 key at ``path``, creating it (and its parent directories) if missing.

    Creation writes a temporary file with mode 0600 in the same directory and hard-links it
    into place, so a reader never sees a half-written key and two processes starting at once
    end up with the same key (the loser loads the winner's; on filesystems without hard
    links it falls back to an atomic rename, where the last writer wins).
    """
    p = Path(path)
    try:
        return load_identity(p)
    except FileNotFoundError:
        pass
    p.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    _write_new_key(p, key.private_bytes_raw())
    return load_identity(p)


def load_identity(path: str | os.PathLike[str]) -> Ed25519PrivateKey:
    """Load an existing key file (raw 32-byte seed or unencrypted PEM PKCS#8).

    Raises FileNotFoundError if it does not exist and :class:`IdentityFileError` if it is
    accessible by group or others, not a regular file, or not an Ed25519 key.
    """
    p = Path(path)
    fd = os.open(p, os.O_RDONLY)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())  # the same file we read, not a name that may have changed
        if not stat.S_ISREG(st.st_mode):
            raise IdentityFileError(f"identity key {p} is not a regular file; move it away and start again")
        if os.name == "posix" and st.st_mode & 0o077:
            raise IdentityFileError(
                f"identity key {p} is accessible by other users (mode {stat.S_IMODE(st.st_mode):04o}); "
                f"run `chmod 600 {p}`, or delete it to make a new identity"
            )
        data = f.read()
    return _parse_key(p, data)


def _parse_key(p: Path, data: bytes) -> Ed25519PrivateKey:
    if data.lstrip().startswith(_PEM_MARKER):
        try:
            key = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise IdentityFileError(f"identity key {p} is not a readable unencrypted PEM key: {exc}") from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise IdentityFileError(f"identity key {p} is a {type(key).__name__}, not an Ed25519 key")
        return key
    if len(data) != 32:
        raise IdentityFileError(
            f"identity key {p} holds {len(data)} bytes; expected a raw 32-byte Ed25519 seed or a PEM key"
        )
    return Ed25519PrivateKey.from_private_bytes(data)


def _write_new_key(p: Path, seed: bytes) -> None:
    tmp = p.with_name(f".{p.name}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            if hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), 0o600)  # the umask can only narrow, but be explicit
            f.write(seed)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, p)  # atomic and never replaces a key another process just created
        except FileExistsError:
            pass
        except OSError:
            os.replace(tmp, p)  # filesystems without hard links: still atomic
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def public_key_bytes(key: Ed25519PrivateKey) -> bytes:
    """Return the raw 32-byte public key, as it appears in the roster."""
    return key.public_key().public_bytes_raw()


def sign(key: Ed25519PrivateKey, message: bytes) -> bytes:
    """Return the 64-byte Ed25519 signature of ``message``.

    Signed by libsodium (PyNaCl): 17 µs against OpenSSL's 22 µs here, and the host signs some 51 envelopes a hand.
    Ed25519 signatures are deterministic (RFC 8032), so both libraries give the very same bytes for the same key and
    message (tests/test_identity.py holds them against each other); the key stays a `cryptography` object
    everywhere else.
    """
    return _signing_key(key).sign(message).signature


def _signing_key(key: Ed25519PrivateKey) -> nacl.signing.SigningKey:
    # One libsodium key per key object, made once: the seed is read out of OpenSSL only the first time. Keyed by the
    # object (cryptography's keys hash by identity), with the object kept alive beside it so that its id is never
    # reused for another key while the entry stands.
    entry = _SIGNING_KEYS.get(id(key))
    if entry is None or entry[0] is not key:
        if len(_SIGNING_KEYS) >= _SIGNING_KEYS_MAX:
            _SIGNING_KEYS.clear()
        entry = (key, nacl.signing.SigningKey(key.private_bytes_raw()))
        _SIGNING_KEYS[id(key)] = entry
    return entry[1]


_SIGNING_KEYS: dict[int, tuple[Ed25519PrivateKey, nacl.signing.SigningKey]] = {}
_SIGNING_KEYS_MAX = 256


def verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Return whether ``signature`` is valid for ``message`` under the raw ``public_key``.

    Never raises for bad input: a wrong signature, a wrong-length signature or an invalid
    public key all return False, so a verifier reports a failure instead of crashing.
    """
    if (
        not isinstance(public_key, bytes)
        or not isinstance(signature, bytes)
        or not isinstance(message, bytes)
    ):
        return False
    if len(public_key) != PUBLIC_KEY_LEN or len(signature) != SIGNATURE_LEN:
        return False
    # libsodium (PyNaCl) verifies in about half the time OpenSSL takes here (54 µs against 104 µs), and every
    # party verifies every envelope; it is also the stricter of the two (it refuses small-order keys), and
    # every party uses this same function, so all verifiers agree. Signing stays with `cryptography`:
    # Ed25519 signatures are deterministic, so both libraries produce the same bytes.
    # Straight to libsodium's crypto_sign_open, as `nacl.signing.VerifyKey.verify` calls it after the very length
    # checks made above (its own layer cost some 2 µs of the check's 45; every seat checks every envelope).
    try:
        nacl.bindings.crypto_sign_open(signature + message, public_key)
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.CryptoError, ValueError, TypeError):
        return False
    return True


INSECURE = b"insecure"
"""What a join or leave proof binds instead of a certificate fingerprint when the client talks plaintext (8 ASCII
bytes; a fingerprint is always 32 bytes, so the two cannot be mistaken for each other)."""
FINGERPRINT_LEN = 32


def certificate_fingerprint(cert_der: bytes) -> bytes:
    """SHA-256 of a TLS certificate's DER bytes, raw (32 bytes): what a join proof binds."""
    return hashlib.sha256(bytes(cert_der)).digest()


def require_proof_fingerprint(tls_fingerprint: bytes) -> bytes:
    """`tls_fingerprint` if it is a field a proof may bind (32 bytes, or exactly ``b"insecure"``), else ValueError."""
    value = bytes(tls_fingerprint)
    if value != INSECURE and len(value) != FINGERPRINT_LEN:
        raise ValueError(f"a proof binds a 32-byte certificate fingerprint or b'insecure', not {len(value)} bytes")
    return value


def join_proof_message(table_id: str, host_public_key: bytes, tls_fingerprint: bytes, public_key: bytes,
                       join_nonce: bytes) -> bytes:
    """What `JoinRequest.key_proof` signs (every Join, the first one included)::

        framed("join", table_id (UTF-8), host public key (32), tls_fingerprint, own public key (32), join nonce (32))

    `tls_fingerprint` is the 32 raw bytes of SHA-256 over the DER bytes of the host certificate the client pinned
    and verified on this connection, or the 8 ASCII bytes ``b"insecure"`` when the client talks plaintext
    (`INSECURE`); the client sends the same bytes in `JoinRequest.tls_fingerprint`. The proof shows the client holds
    the private key of the seat it claims, for this table of this host reached through this certificate only: a
    host with another certificate that relays the Join gets a proof the real host refuses (`wrong-certificate`).
    The fresh nonce makes each proof good once (the host refuses a nonce it has accepted before, after a restart
    too).
    """
    return framed("join", table_id.encode("utf-8"), bytes(host_public_key), require_proof_fingerprint(tls_fingerprint),
                  bytes(public_key), bytes(join_nonce))


def join_proof(key: Ed25519PrivateKey, table_id: str, host_public_key: bytes, tls_fingerprint: bytes,
               join_nonce: bytes) -> bytes:
    return sign(key, join_proof_message(table_id, host_public_key, tls_fingerprint, public_key_bytes(key),
                                        join_nonce))


def leave_proof_message(table_id: str, host_public_key: bytes, game_id: bytes, seat: int, nonce: bytes) -> bytes:
    """What `LeaveRequest.leave_proof` signs during a game::

        framed("leave", table_id (UTF-8), host public key (32), game id (32), seat (1 byte), nonce (32))

    signed with the seat's own key: a stolen or leaked token alone cannot make a seat leave (a bot stands in for
    it), and the proof is good for this game and this seat only, once (the host refuses a nonce it has seen).
    """
    if not 0 <= seat < 256:
        raise ValueError("a seat number fits one byte")
    return framed("leave", table_id.encode("utf-8"), bytes(host_public_key), bytes(game_id), bytes([seat]),
                  bytes(nonce))


def leave_proof(key: Ed25519PrivateKey, table_id: str, host_public_key: bytes, game_id: bytes, seat: int,
                nonce: bytes) -> bytes:
    return sign(key, leave_proof_message(table_id, host_public_key, game_id, seat, nonce))


def new_nonce() -> bytes:
    """Return a fresh 32-byte host or join nonce."""
    return secrets.token_bytes(NONCE_LEN)


def game_id(host_nonce: bytes, join_nonces: Sequence[bytes]) -> bytes:
    """Return ``H("game-id", host_nonce, *join_nonces)``: new for every game, chosen by no single party."""
    fields = [require_len("host nonce", host_nonce, NONCE_LEN)]
    fields += [require_len(f"join nonce of seat {i}", n, NONCE_LEN) for i, n in enumerate(join_nonces)]
    return H("game-id", *fields)


def game_fingerprint(header_bytes: bytes) -> str:
    """Return the fingerprint people compare aloud, e.g. ``"3f2a 9c01 77de 0b4e"``."""
    digits = H("fingerprint", header_bytes).hex()[:16]
    return " ".join(digits[i : i + 4] for i in range(0, 16, 4))
