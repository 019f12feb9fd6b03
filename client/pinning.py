"""Trust on first use for host certificates, like SSH's known_hosts.

The flow (background/networked-card-games.md section 2.6): fetch the host's certificate with an unverified TLS
handshake, compare its fingerprint with what we stored for that `host:port` (or with a `--fingerprint` the user
typed), and then open the gRPC channel with that certificate as the only root (client/tls.py). The fetch itself
proves nothing; the pin does. A certificate that differs from the stored one is refused, never silently replaced,
because that is exactly what an impostor on the LAN would present.

known_hosts lives in `config_dir()/known_hosts`, one `host:port fingerprint` line per host (64 lowercase hex
digits); `#` comments and blank lines are kept. It is plain text on purpose so a person can read and edit it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import ssl
import tempfile
from pathlib import Path
from typing import Literal

from watten_net.fingerprints import TLS_NAME, fingerprint, normalise_fingerprint, pretty_fingerprint
from watten_net.paths import config_dir

KNOWN_HOSTS_FILE = "known_hosts"

Verdict = Literal["new", "match", "changed"]


class CertificateFetchError(ConnectionError):
    """The host could not be reached, or did not speak TLS; the message says which and what to try."""


class CertificateChanged(Exception):
    """The host presented a different certificate from the one remembered for it."""

    def __init__(self, host_port: str, known: list[str], presented: str, known_hosts: Path) -> None:
        self.host_port = host_port
        self.known = known
        self.presented = presented
        self.known_hosts = known_hosts
        remembered = ", ".join(pretty_fingerprint(fp) for fp in known)
        super().__init__(
            f"Refusing to connect: {host_port} presented a certificate with fingerprint "
            f"{pretty_fingerprint(presented)}, but the one remembered for it is {remembered}. Someone may be "
            f"impersonating the host. If the host really made a new certificate (its config directory was deleted or "
            f"it moved to another machine), compare the fingerprint the host prints at start with the new one above, "
            f"then delete the line starting with '{host_port}' from {known_hosts} and connect again."
        )


class FingerprintMismatch(Exception):
    """The certificate does not have the fingerprint the user asked for with `--fingerprint`."""

    def __init__(self, expected: str, presented: str) -> None:
        self.expected = expected
        self.presented = presented
        super().__init__(
            f"Refusing to connect: the host's certificate has fingerprint {pretty_fingerprint(presented)}, not the "
            f"{pretty_fingerprint(expected)} you gave with --fingerprint. Check for a typo against the line the "
            "host prints at start; if they really differ, this is not the host you meant."
        )


def host_port(host: str, port: int) -> str:
    """The known_hosts key for an address: lowercase host, IPv6 in brackets ("[fe80::1]:4711")."""
    host = host.strip().lower().strip("[]")
    with contextlib.suppress(ValueError):
        if isinstance(ipaddress.ip_address(host), ipaddress.IPv6Address):
            return f"[{host}]:{port}"
    return f"{host}:{port}"


def pem_fingerprint(pem: bytes) -> str:
    """Fingerprint (SHA-256 hex of the DER) of a PEM certificate."""
    return fingerprint(ssl.PEM_cert_to_DER_cert(pem.decode("ascii")))


def fetch_certificate(host: str, port: int, timeout: float = 5.0) -> bytes:
    """The certificate (PEM) `host:port` presents, from a TLS handshake that deliberately verifies nothing.

    Not a trust decision: the caller pins the result (check/remember or verify_pinned) and then connects with it as
    the only root. It offers ALPN "h2" and SNI "watten-host" like a gRPC client does, so the host sees an ordinary
    handshake. Blocking; from asyncio use `await asyncio.to_thread(fetch_certificate, ...)`.
    """
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    address = f"{host}:{port}"
    try:
        with (
            socket.create_connection((host.strip("[]"), port), timeout=timeout) as raw,
            context.wrap_socket(raw, server_hostname=TLS_NAME) as tls,
        ):
            der = tls.getpeercert(binary_form=True)
    except ssl.SSLError as error:
        raise CertificateFetchError(
            f"{address} answered, but not with TLS ({error.reason or error}). If that host was started with "
            "--insecure, connect with --insecure too; otherwise check the port."
        ) from error
    except TimeoutError as error:
        raise CertificateFetchError(
            f"{address} did not answer within {timeout:g} seconds. Check the address and that the host is running "
            "and reachable (same network, no firewall in between)."
        ) from error
    except OSError as error:
        raise CertificateFetchError(
            f"Could not reach {address}: {error.strerror or error}. Check the address and port and that watten-host "
            "is running there."
        ) from error
    if not der:
        raise CertificateFetchError(f"{address} completed a TLS handshake without presenting a certificate.")
    return ssl.DER_cert_to_PEM_cert(der).encode("ascii")


def known_hosts_path() -> Path:
    return config_dir() / KNOWN_HOSTS_FILE


def known_fingerprints(host_port: str, *, path: Path | None = None) -> list[str]:
    """The fingerprints remembered for `host_port` (normally one), in file order."""
    entries = _read_entries(path if path is not None else known_hosts_path())
    return [fp for key, fp in entries if key == host_port]


def check(host_port: str, pem: bytes, *, path: Path | None = None) -> Verdict:
    """"new" if nothing is remembered for `host_port`, "match" if `pem` is what we remembered, else "changed"."""
    known = known_fingerprints(host_port, path=path)
    if not known:
        return "new"
    return "match" if pem_fingerprint(pem) in known else "changed"


def require_not_changed(host_port: str, pem: bytes, *, path: Path | None = None) -> Literal["new", "match"]:
    """Like `check`, but a changed certificate raises `CertificateChanged` (with what to do) instead of returning."""
    path = path if path is not None else known_hosts_path()
    verdict = check(host_port, pem, path=path)
    if verdict == "changed":
        raise CertificateChanged(host_port, known_fingerprints(host_port, path=path), pem_fingerprint(pem), path)
    return verdict


def remember(host_port: str, pem: bytes, *, path: Path | None = None) -> None:
    """Store `pem` as the certificate of `host_port` (after the user accepted it).

    Refuses with `CertificateChanged` if a different one is already stored: replacing a pin is a decision the user
    makes by editing the file (or `forget`), never a side effect. Appends one line, so concurrent clients do not
    overwrite each other's entries.
    """
    path = path if path is not None else known_hosts_path()
    if require_not_changed(host_port, pem, path=path) == "match":
        return
    if any(ch.isspace() for ch in host_port) or not host_port:
        raise ValueError(f"{host_port!r} cannot be a known_hosts entry: it must be one word like 192.168.1.5:4711")
    line = f"{host_port} {pem_fingerprint(pem)}\n"
    if not _ends_with_newline(path):
        line = "\n" + line  # someone's hand edit left the last line open
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "ab") as handle:
        handle.write(line.encode("utf-8"))


def forget(host_port: str, *, path: Path | None = None) -> bool:
    """Remove every entry for `host_port`; True if there was one. Other lines, comments included, stay as they were."""
    path = path if path is not None else known_hosts_path()
    if not path.exists():
        return False
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if (entry := _parse_line(line)) is None or entry[0] != host_port]
    if len(kept) == len(lines):
        return False
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".known_hosts-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.writelines(kept)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return True


def verify_pinned(pem: bytes, expected_hex: str) -> None:
    """Raise `FingerprintMismatch` unless `pem` has the fingerprint `expected_hex` (from `--fingerprint`).

    The expected value may have spaces or colons and any case; one that is not 64 hex digits raises ValueError
    with a sentence, since accepting a prefix would make the pin guessable.
    """
    expected = normalise_fingerprint(expected_hex)
    presented = pem_fingerprint(pem)
    if presented != expected:
        raise FingerprintMismatch(expected, presented)


def _parse_line(line: str) -> tuple[str, str] | None:
    """(host_port, fingerprint) of a known_hosts line, or None for comments, blanks and lines we cannot read."""
    parts = line.split("#", 1)[0].split()
    if len(parts) != 2:
        return None
    try:
        return (parts[0], normalise_fingerprint(parts[1]))
    except ValueError:
        return None


def _read_entries(path: Path) -> list[tuple[str, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    entries: list[tuple[str, str]] = []
    for line in text.splitlines():
        parsed = _parse_line(line)
        if parsed is not None:
            entries.append(parsed)
    return entries


def _ends_with_newline(path: Path) -> bool:
    """True for a missing or empty file too: only a non-empty last line without its newline needs one added."""
    try:
        with path.open("rb") as handle:
            if handle.seek(0, os.SEEK_END) == 0:
                return True
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"
    except FileNotFoundError:
        return True
