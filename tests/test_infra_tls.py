"""TLS trust on first use over real gRPC on 127.0.0.1: certificate made and kept, pinned, refused when different.

Also the per-user directories (watten_net.paths) the certificate and known_hosts live in.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import os
import socket
import stat
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from client import pinning
from client.tls import TARGET_NAME_OPTION, channel_credentials, channel_options, secure_channel
from host import tls
from watten_net import fingerprints, paths
from watten_net.v1 import watten_pb2, watten_pb2_grpc

DEADLINE = 5.0
posix_only = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own config and data directories; nothing touches the real home."""
    monkeypatch.setenv("WATTEN_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("WATTEN_DATA_DIR", str(tmp_path / "data"))
    yield tmp_path


class TinyTable(watten_pb2_grpc.WattenTableServicer):
    """Only GetTable, reporting the fingerprint of the certificate the server was started with."""

    def __init__(self, fingerprint_hex: str) -> None:
        self.fingerprint_hex = fingerprint_hex

    async def GetTable(self, request: watten_pb2.GetTableRequest, context: Any) -> watten_pb2.TableInfo:
        return watten_pb2.TableInfo(
            protocol_version=1, host_name="test table", host_tls_fingerprint=bytes.fromhex(self.fingerprint_hex)
        )


async def start_server(certificate: tls.HostCertificate | None = None, address: str = "127.0.0.1") -> tuple[Any, int]:
    """A TLS grpc.aio server with TinyTable on a free port of `address` (default: the stored certificate)."""
    cert = certificate if certificate is not None else tls.load_or_create()
    server = grpc.aio.server()
    watten_pb2_grpc.add_WattenTableServicer_to_server(TinyTable(cert.fingerprint), server)
    port = server.add_secure_port(f"{address}:0", tls.server_credentials(cert))
    await server.start()
    return server, port


async def get_table(target: str, pem: bytes) -> watten_pb2.TableInfo:
    async with secure_channel(target, pem) as channel:
        reply: watten_pb2.TableInfo = await watten_pb2_grpc.WattenTableStub(channel).GetTable(
            watten_pb2.GetTableRequest(client="test"), timeout=DEADLINE
        )
        return reply


# --- watten_net.paths ----------------------------------------------------------------------------------------------


def test_dirs_follow_the_watten_variables_and_are_private(isolated_dirs: Path) -> None:
    config, data = paths.config_dir(), paths.data_dir()
    assert config == isolated_dirs / "config"
    assert data == isolated_dirs / "data"
    assert config.is_dir() and data.is_dir()
    if os.name == "posix":
        assert stat.S_IMODE(config.stat().st_mode) == 0o700
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert paths.config_dir() == config  # idempotent


def test_xdg_variables_apply_when_no_watten_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WATTEN_CONFIG_DIR")
    monkeypatch.delenv("WATTEN_DATA_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    assert paths.config_dir() == tmp_path / "xdg-config" / "watten-net"
    assert paths.data_dir() == tmp_path / "xdg-data" / "watten-net"


@pytest.mark.parametrize(
    ("platform", "environ", "expected_config", "expected_data"),
    [
        ("linux", {}, "home/.config/watten-net", "home/.local/share/watten-net"),
        ("linux", {"XDG_CONFIG_HOME": "relative"}, "home/.config/watten-net", "home/.local/share/watten-net"),
        ("darwin", {}, "home/Library/Application Support/watten-net", "home/Library/Application Support/watten-net"),
        ("win32", {"APPDATA": "/roaming"}, "/roaming/watten-net", "/roaming/watten-net"),
        ("win32", {}, "home/AppData/Roaming/watten-net", "home/AppData/Roaming/watten-net"),
        ("darwin", {"XDG_CONFIG_HOME": "/xdg"}, "/xdg/watten-net", "home/Library/Application Support/watten-net"),
        ("win32", {"WATTEN_CONFIG_DIR": "/mine", "WATTEN_DATA_DIR": "/ours"}, "/mine", "/ours"),
    ],
)
def test_platform_defaults(platform: str, environ: dict[str, str], expected_config: str, expected_data: str) -> None:
    home = Path("home")
    config = paths.resolve_dir("WATTEN_CONFIG_DIR", "XDG_CONFIG_HOME", Path(".config"), environ=environ,
                               platform=platform, home=home)
    data = paths.resolve_dir("WATTEN_DATA_DIR", "XDG_DATA_HOME", Path(".local", "share"), environ=environ,
                             platform=platform, home=home)
    assert config == Path(expected_config)
    assert data == Path(expected_data)


# --- host.tls: the certificate -------------------------------------------------------------------------------------


def test_certificate_contents() -> None:
    cert = x509.load_pem_x509_certificate(tls.load_or_create().cert_pem)
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "watten-host"
    assert cert.issuer == cert.subject
    public_key = cert.public_key()
    assert isinstance(public_key, ec.EllipticCurvePublicKey) and public_key.curve.name == "secp256r1"
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    dns_names = san.get_values_for_type(x509.DNSName)
    assert {"watten-host", "localhost"} <= set(dns_names)
    assert ipaddress.ip_address("127.0.0.1") in san.get_values_for_type(x509.IPAddress)
    hostname = socket.gethostname().lower()
    if hostname.replace("-", "").replace(".", "").isalnum() and hostname.isascii():
        assert hostname in dns_names
    lifetime = cert.not_valid_after_utc - cert.not_valid_before_utc
    assert datetime.timedelta(days=3650) <= lifetime <= datetime.timedelta(days=3660)


def test_certificate_is_kept_and_key_is_private(isolated_dirs: Path) -> None:
    first = tls.load_or_create()
    second = tls.load_or_create()
    assert second == first
    key_file = isolated_dirs / "config" / "host" / "key.pem"
    assert key_file.read_bytes() == first.key_pem
    assert (isolated_dirs / "config" / "host" / "cert.pem").read_bytes() == first.cert_pem
    assert not [p.name for p in key_file.parent.iterdir() if p.name.startswith(".tmp")]  # no temp files left
    if os.name == "posix":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700


@posix_only
def test_loosened_key_mode_is_tightened(isolated_dirs: Path) -> None:
    tls.load_or_create()
    key_file = isolated_dirs / "config" / "host" / "key.pem"
    key_file.chmod(0o644)
    tls.load_or_create()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_hosts_starting_together_agree_on_one_pair(tmp_path: Path) -> None:
    """The first writer wins and everyone else reads its files: no host serves a pair that is not the stored one."""
    directory = tmp_path / "shared-config"
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: tls.load_or_create(directory), range(16)))
    assert all(result == results[0] for result in results)
    assert tls.load_or_create(directory) == results[0]
    assert sorted(p.name for p in directory.iterdir()) == ["cert.pem", "key.pem"]


def test_lost_certificate_is_remade_with_the_same_key(isolated_dirs: Path) -> None:
    first = tls.load_or_create()
    (isolated_dirs / "config" / "host" / "cert.pem").unlink()
    again = tls.load_or_create()
    assert again.key_pem == first.key_pem and again.fingerprint != first.fingerprint


def test_expired_certificate_is_replaced_keeping_the_key() -> None:
    first = tls.load_or_create()
    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=3660)
    renewed = tls.load_or_create(now=later)
    assert renewed.key_pem == first.key_pem and renewed.fingerprint != first.fingerprint
    assert x509.load_pem_x509_certificate(renewed.cert_pem).not_valid_after_utc > later
    assert tls.load_or_create(now=later) == renewed


def test_certificate_of_another_key_is_refused(tmp_path: Path) -> None:
    tls.load_or_create()
    other = tls.load_or_create(tmp_path / "other")
    (paths.config_dir() / "host" / "cert.pem").write_bytes(other.cert_pem)
    with pytest.raises(tls.CertificateFilesMismatch, match="does not belong to the key"):
        tls.load_or_create()


def test_fingerprint_formats() -> None:
    cert = tls.load_or_create()
    assert cert.fingerprint == fingerprints.fingerprint(cert.cert_der) == pinning.pem_fingerprint(cert.cert_pem)
    assert len(cert.fingerprint) == 64 and cert.fingerprint == cert.fingerprint.lower()
    pretty = fingerprints.pretty_fingerprint(cert.fingerprint)
    groups = pretty.split(" ")
    assert len(groups) == 16 and all(len(group) == 4 for group in groups)
    assert "".join(groups) == cert.fingerprint
    assert fingerprints.pretty_fingerprint(cert.fingerprint.upper(), separator=":").count(":") == 15
    assert fingerprints.pretty_fingerprint(pretty) == pretty  # idempotent
    with pytest.raises(ValueError, match="64 hexadecimal digits"):
        fingerprints.pretty_fingerprint(cert.fingerprint[:-1])


# --- real gRPC over TLS ---------------------------------------------------------------------------------------------


@pytest.mark.network
def test_client_pinning_the_fetched_certificate_gets_an_answer() -> None:
    async def scenario() -> None:
        server, port = await start_server()
        try:
            pem = await asyncio.to_thread(pinning.fetch_certificate, "127.0.0.1", port, DEADLINE)
            assert pinning.pem_fingerprint(pem) == tls.load_or_create().fingerprint
            key = pinning.host_port("127.0.0.1", port)
            assert pinning.check(key, pem) == "new"
            pinning.remember(key, pem)
            assert pinning.check(key, pem) == "match"
            reply = await get_table(f"127.0.0.1:{port}", pem)
            assert reply.host_name == "test table"
            assert reply.host_tls_fingerprint.hex() == pinning.pem_fingerprint(pem)
        finally:
            await server.stop(None)

    asyncio.run(scenario())


@pytest.mark.network
def test_name_override_lets_any_address_through() -> None:
    """127.0.0.2 is in no SAN: only the "watten-host" override makes it work, as a LAN address would."""
    if not sys.platform.startswith("linux"):
        pytest.skip("only Linux routes all of 127.0.0.0/8 to loopback")

    async def scenario() -> None:
        try:
            server, port = await start_server(address="127.0.0.2")
        except RuntimeError:
            pytest.skip("cannot bind 127.0.0.2 here")
        try:
            pem = await asyncio.to_thread(pinning.fetch_certificate, "127.0.0.2", port, DEADLINE)
            assert (await get_table(f"127.0.0.2:{port}", pem)).host_name == "test table"
            # The same credentials without the override fail: the address is not in the certificate.
            async with grpc.aio.secure_channel(f"127.0.0.2:{port}", channel_credentials(pem)) as channel:
                with pytest.raises(grpc.aio.AioRpcError) as failure:
                    await watten_pb2_grpc.WattenTableStub(channel).GetTable(
                        watten_pb2.GetTableRequest(), timeout=DEADLINE
                    )
            assert failure.value.code() == grpc.StatusCode.UNAVAILABLE
        finally:
            await server.stop(None)

    asyncio.run(scenario())


@pytest.mark.network
def test_fingerprint_is_stable_across_restarts() -> None:
    async def fetch_once() -> str:
        server, port = await start_server()  # loads the stored certificate each time, as a restarted host would
        try:
            pem = await asyncio.to_thread(pinning.fetch_certificate, "127.0.0.1", port, DEADLINE)
            assert (await get_table(f"127.0.0.1:{port}", pem)).host_name == "test table"
            return pinning.pem_fingerprint(pem)
        finally:
            await server.stop(None)

    first = asyncio.run(fetch_once())
    second = asyncio.run(fetch_once())
    assert first == second == tls.load_or_create().fingerprint


@pytest.mark.network
def test_client_pinned_to_another_certificate_cannot_connect(tmp_path: Path) -> None:
    impostor_view = tls.load_or_create(tmp_path / "somewhere-else")  # what the client pinned earlier

    async def scenario() -> None:
        server, port = await start_server()
        try:
            with pytest.raises(grpc.aio.AioRpcError) as failure:
                await get_table(f"127.0.0.1:{port}", impostor_view.cert_pem)
            assert failure.value.code() == grpc.StatusCode.UNAVAILABLE
            # And the pin check would have said so before trying:
            pem = await asyncio.to_thread(pinning.fetch_certificate, "127.0.0.1", port, DEADLINE)
            with pytest.raises(pinning.FingerprintMismatch):
                pinning.verify_pinned(pem, impostor_view.fingerprint)
        finally:
            await server.stop(None)

    asyncio.run(scenario())


def test_channel_options_always_end_with_the_override() -> None:
    options = channel_options([("grpc.ssl_target_name_override", "elsewhere"), ("grpc.keepalive_time_ms", 10_000)])
    assert options == [("grpc.keepalive_time_ms", 10_000), TARGET_NAME_OPTION]
    assert TARGET_NAME_OPTION == ("grpc.ssl_target_name_override", fingerprints.TLS_NAME)


def test_fetch_from_a_closed_port_explains() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound but not listening: connection refused
        with pytest.raises(pinning.CertificateFetchError, match=f"127.0.0.1:{port}.*watten-host"):
            pinning.fetch_certificate("127.0.0.1", port, timeout=DEADLINE)


@pytest.mark.network
def test_fetch_from_a_plaintext_host_explains() -> None:
    async def scenario() -> None:
        server = grpc.aio.server()
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            with pytest.raises(pinning.CertificateFetchError, match="--insecure"):
                await asyncio.to_thread(pinning.fetch_certificate, "127.0.0.1", port, DEADLINE)
        finally:
            await server.stop(None)

    asyncio.run(scenario())


# --- known_hosts and --fingerprint ---------------------------------------------------------------------------------


def test_known_hosts_new_match_changed(tmp_path: Path) -> None:
    ours = tls.load_or_create().cert_pem
    theirs = tls.load_or_create(tmp_path / "impostor").cert_pem
    key = "192.168.1.5:4711"
    assert pinning.check(key, ours) == "new"
    assert pinning.require_not_changed(key, ours) == "new"
    pinning.remember(key, ours)
    pinning.remember(key, ours)  # remembering again is harmless
    known_hosts = paths.config_dir() / "known_hosts"
    assert known_hosts.read_text().splitlines() == [f"{key} {pinning.pem_fingerprint(ours)}"]
    assert pinning.check(key, ours) == "match"
    assert pinning.check(key, theirs) == "changed"
    assert pinning.check("192.168.1.5:4712", theirs) == "new"  # keyed by host AND port

    with pytest.raises(pinning.CertificateChanged) as changed:
        pinning.require_not_changed(key, theirs)
    message = str(changed.value)
    assert key in message and str(known_hosts) in message
    assert fingerprints.pretty_fingerprint(pinning.pem_fingerprint(theirs)) in message
    assert fingerprints.pretty_fingerprint(pinning.pem_fingerprint(ours)) in message
    assert "delete the line" in message and "new certificate" in message

    with pytest.raises(pinning.CertificateChanged):
        pinning.remember(key, theirs)  # never silently replaced
    assert pinning.check(key, theirs) == "changed"

    assert pinning.forget(key) is True
    assert pinning.forget(key) is False
    pinning.remember(key, theirs)
    assert pinning.check(key, theirs) == "match"


def test_known_hosts_tolerates_hand_edits(tmp_path: Path) -> None:
    pem = tls.load_or_create().cert_pem
    fp = pinning.pem_fingerprint(pem)
    path = tmp_path / "known_hosts"
    path.write_text(
        "# my hosts\n\nkitchen:4711 " + fingerprints.pretty_fingerprint(fp, ":").upper() + "  # Anna's laptop\n"
        "garbage line with words\nlast:1 " + "0" * 64
    )
    assert pinning.check("kitchen:4711", pem, path=path) == "match"
    assert pinning.check("last:1", pem, path=path) == "changed"
    pinning.remember("[::1]:4711", pem, path=path)  # appended on its own line although the file had no final newline
    lines = path.read_text().splitlines()
    assert lines[-1] == f"[::1]:4711 {fp}" and lines[-2] == "last:1 " + "0" * 64
    assert pinning.forget("kitchen:4711", path=path)
    assert path.read_text().startswith("# my hosts\n\ngarbage line")


def test_host_port_keys() -> None:
    assert pinning.host_port("Kitchen.LAN", 4711) == "kitchen.lan:4711"
    assert pinning.host_port("fe80::1", 4711) == "[fe80::1]:4711"
    assert pinning.host_port("[::1]", 1) == "[::1]:1"
    assert pinning.host_port("10.0.0.7", 80) == "10.0.0.7:80"


def test_verify_pinned_accepts_any_spelling(tmp_path: Path) -> None:
    pem = tls.load_or_create().cert_pem
    fp = pinning.pem_fingerprint(pem)
    pretty = fingerprints.pretty_fingerprint
    for spelling in (fp, fp.upper(), pretty(fp), pretty(fp, ":").upper(),
                     ":".join(fp[i : i + 2] for i in range(0, 64, 2)), f"  {fp}\n"):
        pinning.verify_pinned(pem, spelling)
    other = tls.load_or_create(tmp_path / "other").cert_pem
    with pytest.raises(pinning.FingerprintMismatch, match="--fingerprint"):
        pinning.verify_pinned(other, fp)
    with pytest.raises(ValueError, match="64 hexadecimal digits"):
        pinning.verify_pinned(pem, fp[:16])  # a prefix is not a pin
    with pytest.raises(ValueError, match="64 hexadecimal digits"):
        pinning.verify_pinned(pem, "z" * 64)
