"""The host's self-signed TLS certificate: made on first start, kept, and shown as a fingerprint.

Why self-signed and kept: a LAN host has no name a public CA would certify, so clients trust it on first use (see
client/pinning.py), exactly like SSH host keys. That only works if the certificate stays the same across restarts,
so it is stored in `config_dir()/host/` and reused; a new one makes every client that knew the host refuse it.

Choices, each for a reason:

* EC P-256, not Ed25519: grpc's BoringSSL refuses an Ed25519 server certificate (the handshake fails with
  NO_COMMON_SIGNATURE_ALGORITHMS, checked with grpcio 1.85), and P-256 is understood by grpcurl, openssl and browsers.
* The name "watten-host" (CN and SAN): clients connect by IP address, which changes with the network, and gRPC
  checks the peer name. The client pins this exact certificate as its only root and tells gRPC to check the name
  "watten-host" (`grpc.ssl_target_name_override`), so any address works while a different certificate still fails.
  "localhost", 127.0.0.1, ::1 and the machine's hostname are in the SAN too, for tools that do not override the name.
* Ten years' validity: expiry on a home LAN is only a chance to break the pin; an expired one is replaced
  (keeping the key) because gRPC would refuse it anyway.
* Writes are atomic and exclusive (temporary file, then a hard link that fails if the target exists): a crash never
  leaves half a key, and two hosts started at once in one config directory end up with the same pair.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import logging
import os
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

import grpc
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from watten_net.fingerprints import TLS_NAME, fingerprint
from watten_net.paths import config_dir, ensure_private_dir

log = logging.getLogger(__name__)

CERT_FILE = "cert.pem"
KEY_FILE = "key.pem"
VALIDITY = datetime.timedelta(days=3652)
BACKDATE = datetime.timedelta(days=1)
"""Start validity a day early so a client whose clock is behind the host's still accepts a brand-new certificate."""


class CertificateFilesMismatch(Exception):
    """The stored certificate does not belong to the stored key (edited or copied by hand)."""


@dataclass(frozen=True)
class HostCertificate:
    """The host's key and certificate, both PEM, as gRPC wants them."""

    cert_pem: bytes
    key_pem: bytes

    @property
    def cert_der(self) -> bytes:
        return x509.load_pem_x509_certificate(self.cert_pem).public_bytes(serialization.Encoding.DER)

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the certificate's DER, lowercase hex: what the host shows and clients pin."""
        return fingerprint(self.cert_der)


def load_or_create(directory: Path | None = None, *, now: datetime.datetime | None = None) -> HostCertificate:
    """The host's certificate from `directory` (default `config_dir()/host`), made there on first use.

    Reused as long as it is valid, so the fingerprint clients pinned stays the same. `now` exists for tests.
    """
    directory = ensure_private_dir(directory if directory is not None else config_dir() / "host")
    when = now if now is not None else datetime.datetime.now(datetime.UTC)
    key_path, cert_path = directory / KEY_FILE, directory / CERT_FILE

    if not key_path.exists():
        fresh = ec.generate_private_key(ec.SECP256R1())
        _publish_new(key_path, _private_key_pem(fresh), mode=0o600)  # loses to a concurrent writer: we read theirs
    _tighten_key_mode(key_path)
    key_pem = key_path.read_bytes()
    key = serialization.load_pem_private_key(key_pem, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise CertificateFilesMismatch(
            f"{key_path} does not hold an EC key as watten-host makes them. Move it away (and {cert_path} with it) "
            "and start the host again to make a new certificate; clients will then see it as changed."
        )

    if not cert_path.exists():
        _publish_new(cert_path, _make_certificate(key, when), mode=0o644)
    cert_pem = cert_path.read_bytes()
    cert = x509.load_pem_x509_certificate(cert_pem)
    if cert.public_key() != key.public_key():
        raise CertificateFilesMismatch(
            f"The certificate {cert_path} does not belong to the key {key_path}. Restore the pair you had, or delete "
            "both files to make a new certificate (every client will then have to accept it anew)."
        )
    if cert.not_valid_after_utc <= when:
        log.warning("TLS certificate %s expired on %s; making a new one with the same key", cert_path,
                    cert.not_valid_after_utc.date())
        cert_pem = _make_certificate(key, when)
        _replace_atomically(cert_path, cert_pem, mode=0o644)
    return HostCertificate(cert_pem=cert_pem, key_pem=key_pem)


def server_credentials(certificate: HostCertificate | None = None) -> grpc.ServerCredentials:
    """gRPC server credentials for `certificate` (default: the stored one, made on first use)."""
    cert = certificate if certificate is not None else load_or_create()
    return grpc.ssl_server_credentials([(cert.key_pem, cert.cert_pem)])


def _make_certificate(key: ec.EllipticCurvePrivateKey, now: datetime.datetime) -> bytes:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, TLS_NAME)])
    public_key = key.public_key()
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.SubjectAlternativeName(_subject_alt_names()), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=False, crl_sign=False, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(public_key), critical=False)
    )
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)


def _subject_alt_names() -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = [
        x509.DNSName(TLS_NAME),
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.IPAddress(ipaddress.ip_address("::1")),
    ]
    hostname = _dns_safe_hostname()
    if hostname and hostname not in (TLS_NAME, "localhost"):
        names.append(x509.DNSName(hostname))
    return names


def _dns_safe_hostname() -> str | None:
    """The machine's hostname if it can go into a DNSName (ASCII letters, digits, '-', '.'), else None.

    Hostnames are whatever the owner typed ("Anna's MacBook" exists); an unusable one is left out rather than
    failing the host's start, since clients check "watten-host" anyway.
    """
    name = socket.gethostname().strip().rstrip(".").lower()
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789-.")
    if not name or len(name) > 253 or any(ch not in allowed for ch in name):
        return None
    if any(not label or len(label) > 63 or label.startswith("-") or label.endswith("-") for label in name.split(".")):
        return None
    return name


def _private_key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _write_temp(directory: Path, data: bytes, mode: int) -> Path:
    """Write `data` to a new file in `directory` (same file system as the target, so link/replace are atomic)."""
    fd, name = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".pem")
    try:
        if hasattr(os, "fchmod"):  # mkstemp makes 0600; a certificate is public, so it may be widened
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    return Path(name)


def _publish_new(target: Path, data: bytes, *, mode: int) -> None:
    """Make `target` hold `data` unless it already exists; whoever exists first wins, and is never half-written."""
    temp = _write_temp(target.parent, data, mode)
    try:
        os.link(temp, target)
    except FileExistsError:
        pass
    except OSError:
        # A file system without hard links: fall back to an atomic (but not exclusive) rename.
        if not target.exists():
            os.replace(temp, target)
            return
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


def _replace_atomically(target: Path, data: bytes, *, mode: int) -> None:
    temp = _write_temp(target.parent, data, mode)
    try:
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _tighten_key_mode(key_path: Path) -> None:
    """Make the key owner-only again if someone loosened it (as ssh would complain about)."""
    if os.name != "posix":
        return
    mode = key_path.stat().st_mode & 0o777
    if mode & 0o077:
        log.warning("TLS key %s was readable by others (mode %o); setting it to 0600", key_path, mode)
        os.chmod(key_path, 0o600)
