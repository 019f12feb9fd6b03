"""Identity key files, signatures, envelope signing, game id and fingerprint."""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from watten_net.deal.envelope import (
    GENESIS_PREV_HASH,
    HOST_SENDER,
    sign_envelope,
    signing_bytes,
    verify_envelope,
)
from watten_net.deal.identity import (
    IdentityFileError,
    game_fingerprint,
    game_id,
    load_identity,
    load_or_create_identity,
    public_key_bytes,
    sign,
    verify,
)

posix_only = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


# --- key files ----------------------------------------------------------------------------------


@posix_only
def test_creates_key_with_mode_0600_and_parent_dirs(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "identity.key"
    key = load_or_create_identity(path)
    assert _mode(path) == 0o600
    assert path.read_bytes() == key.private_bytes_raw()
    assert [p.name for p in path.parent.iterdir()] == ["identity.key"]  # no temporary file left


@posix_only
def test_mode_is_0600_even_with_a_permissive_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        load_or_create_identity(tmp_path / "k")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "k") == 0o600


def test_reload_gives_the_same_key(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    first = load_or_create_identity(path)
    again = load_or_create_identity(path)
    assert public_key_bytes(first) == public_key_bytes(again)
    assert public_key_bytes(load_identity(path)) == public_key_bytes(first)
    assert len(public_key_bytes(first)) == 32


def test_existing_key_is_never_replaced(tmp_path: Path) -> None:
    path = tmp_path / "k"
    path.write_bytes(bytes(range(32)))
    path.chmod(0o600)
    key = load_or_create_identity(path)
    assert key.private_bytes_raw() == bytes(range(32))
    assert path.read_bytes() == bytes(range(32))


@posix_only
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620, 0o601, 0o666])
def test_refuses_a_key_others_can_access(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "identity.key"
    load_or_create_identity(path)
    path.chmod(mode)
    with pytest.raises(
        IdentityFileError, match=f"accessible by other users \\(mode {mode:04o}\\).*chmod 600"
    ):
        load_or_create_identity(path)
    with pytest.raises(IdentityFileError):
        load_identity(path)


@posix_only
def test_owner_only_modes_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    load_or_create_identity(path)
    path.chmod(0o400)
    load_identity(path)


def test_loads_pem(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    path = tmp_path / "id.pem"
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path.write_bytes(pem)
    path.chmod(0o600)
    assert public_key_bytes(load_identity(path)) == public_key_bytes(key)


@pytest.mark.parametrize(
    "content, message",
    [
        (bytes(31), "holds 31 bytes"),
        (bytes(33), "holds 33 bytes"),
        (b"", "holds 0 bytes"),
        (b"-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----\n", "not a readable"),
        (
            X25519PrivateKey.generate().private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            ),
            "not an Ed25519 key",
        ),
    ],
)
def test_refuses_malformed_key_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "k"
    path.write_bytes(content)
    path.chmod(0o600)
    with pytest.raises(IdentityFileError, match=message):
        load_or_create_identity(path)
    assert path.read_bytes() == content  # a broken key is reported, never overwritten


def test_refuses_a_directory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir(mode=0o700)
    with pytest.raises((IdentityFileError, IsADirectoryError)):
        load_or_create_identity(tmp_path / "d")


def test_load_identity_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_identity(tmp_path / "nope")


# --- signatures ---------------------------------------------------------------------------------

KEY = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"seat 0").digest())
PUB = public_key_bytes(KEY)
OTHER_PUB = public_key_bytes(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"seat 1").digest()))


def test_sign_and_verify() -> None:
    sig = sign(KEY, b"hello")
    assert len(sig) == 64
    assert verify(PUB, sig, b"hello")
    assert not verify(OTHER_PUB, sig, b"hello")
    assert not verify(PUB, sig, b"hello!")


@pytest.mark.parametrize("message", [b"", b"hello", bytes(range(256)) * 3])
def test_signatures_are_openssls_bytes(message: bytes) -> None:
    # `sign` signs with libsodium for speed; Ed25519 is deterministic, so its bytes must be OpenSSL's, key for key.
    for seed in (b"seat 0", b"seat 1", b"host"):
        key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed).digest())
        assert sign(key, message) == key.sign(message)


def test_each_key_object_signs_with_its_own_key() -> None:
    # The libsodium key is kept per key object: two objects of two keys, made and dropped in turn (so that an
    # object's id may be reused), never sign with each other's key.
    for i in range(300):
        key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"key %d" % i).digest())
        assert verify(public_key_bytes(key), sign(key, b"m"), b"m")
        del key


@pytest.mark.parametrize(
    "public_key, signature",
    [
        (PUB[:31], sign(KEY, b"m")),
        (PUB, sign(KEY, b"m")[:63]),
        (PUB, sign(KEY, b"m") + b"\0"),
        (b"", b""),
        (b"\xff" * 32, sign(KEY, b"m")),  # not a valid curve point encoding
        ("not bytes", sign(KEY, b"m")),
        # the neutral point as the key and as R, S = 0: "valid" for a lax verifier, refused by libsodium (small order)
        (b"\x01" + bytes(31), b"\x01" + bytes(63)),
    ],
)
def test_verify_never_raises(public_key: bytes, signature: bytes) -> None:
    assert verify(public_key, signature, b"m") is False


ENVELOPE = {
    "game_id": hashlib.sha256(b"gid").digest(),
    "seq": 41,
    "prev_hash": hashlib.sha256(b"prev").digest(),
    "sender_seat": 0,
    "type_name": "KeyReveal",
    "payload": b"\x0a\x20" + bytes(32) + b"\x12\x02\x01\x0c",
}


def test_signatures_fail_on_any_flipped_byte_of_the_signing_input() -> None:
    message = signing_bytes(**ENVELOPE)  # type: ignore[arg-type]
    sig = sign(KEY, message)
    assert verify(PUB, sig, message)
    for i in range(len(message)):
        for bit in (0x01, 0x80):
            tampered = message[:i] + bytes([message[i] ^ bit]) + message[i + 1 :]
            assert not verify(PUB, sig, tampered), f"byte {i} bit {bit:#x}"


def test_signatures_fail_on_any_flipped_byte_of_the_signature() -> None:
    message = signing_bytes(**ENVELOPE)  # type: ignore[arg-type]
    sig = sign(KEY, message)
    for i in range(len(sig)):
        assert not verify(PUB, sig[:i] + bytes([sig[i] ^ 1]) + sig[i + 1 :], message), f"byte {i}"


def test_envelope_sign_and_verify() -> None:
    sig = sign_envelope(KEY, **ENVELOPE)  # type: ignore[arg-type]
    assert verify_envelope(PUB, sig, **ENVELOPE)  # type: ignore[arg-type]
    assert not verify_envelope(OTHER_PUB, sig, **ENVELOPE)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "field, value",
    [
        ("game_id", hashlib.sha256(b"other game").digest()),
        ("seq", 42),
        ("prev_hash", GENESIS_PREV_HASH),
        ("sender_seat", 1),
        ("sender_seat", HOST_SENDER),
        ("type_name", "KeyCommit"),
        ("payload", b""),
        # malformed fields make the envelope invalid instead of raising
        ("game_id", b"short"),
        ("seq", -1),
        ("sender_seat", 300),
        ("type_name", "no spaces"),
    ],
)
def test_envelope_fails_on_any_changed_field(field: str, value: object) -> None:
    sig = sign_envelope(KEY, **ENVELOPE)  # type: ignore[arg-type]
    assert not verify_envelope(PUB, sig, **{**ENVELOPE, field: value})  # type: ignore[arg-type]


# --- game id and fingerprint --------------------------------------------------------------------


def test_game_id_layout_and_order() -> None:
    host = bytes([1]) * 32
    joins = [bytes([i]) * 32 for i in (2, 3, 4)]
    framed = b"".join(len(x).to_bytes(4, "big") + x for x in (b"watten/v1/game-id", host, *joins))
    assert game_id(host, joins) == hashlib.sha256(framed).digest()
    assert game_id(host, joins) != game_id(host, [joins[1], joins[0], joins[2]])
    assert game_id(host, joins) != game_id(host, joins[:2])
    with pytest.raises(ValueError, match="join nonce of seat 1"):
        game_id(host, [joins[0], bytes(16)])
    with pytest.raises(ValueError, match="host nonce"):
        game_id(b"", joins)


def test_fingerprint_format_and_value() -> None:
    header = b'{"roster":["..."],"rules":"..."}'
    fp = game_fingerprint(header)
    assert re.fullmatch(r"[0-9a-f]{4}( [0-9a-f]{4}){3}", fp)
    framed = b"\x00\x00\x00\x15watten/v1/fingerprint" + len(header).to_bytes(4, "big") + header
    digits = hashlib.sha256(framed).hexdigest()[:16]
    assert fp == f"{digits[0:4]} {digits[4:8]} {digits[8:12]} {digits[12:16]}"
    assert game_fingerprint(header + b" ") != fp


def test_losing_a_creation_race_keeps_the_winners_key(tmp_path: Path) -> None:
    from watten_net.deal import identity

    path = tmp_path / "k"
    winner = load_or_create_identity(path)
    identity._write_new_key(path, bytes(32))  # a second process that found no file a moment ago
    assert load_identity(path).private_bytes_raw() == winner.private_bytes_raw()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k"]
