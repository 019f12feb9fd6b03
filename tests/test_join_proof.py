"""Join proofs (PROTOCOL.md, Transport): every Join proves the key, bound to the host's TLS certificate and a nonce
accepted once (a restart included); a Leave during a game is signed by the seat's key.

Real hosts over real gRPC on 127.0.0.1: host processes (TLS, killed and resumed), a relaying host in this process
with a certificate of its own, and in-process tables served over TLS where the test needs the table's state.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import ssl
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from grpc import StatusCode as SC

from client import pinning
from client.connection import Connection, Refused
from client.errors import refusal_from_error
from client.tls import secure_channel
from host import tls as host_tls
from host.server import start_server, stop_server
from host.table import Table, TableSettings
from watten_net.deal.identity import (
    INSECURE,
    join_proof,
    join_proof_message,
    leave_proof,
    new_nonce,
    public_key_bytes,
)
from watten_net.engine import Rules
from watten_net.hashing import framed
from watten_net.v1 import watten_pb2 as pb

from netutil import isolated_env, signed_join, start, start_host, wait_until

SERVICE = "/watten_net.v1.WattenTable/"


async def raw_call(channel: grpc.aio.Channel, method: str, data: bytes, timeout: float = 10.0) -> tuple[SC, str, bytes]:
    """Send `data` as they are (no serialising on our side): (code, reason, reply bytes)."""
    call = channel.unary_unary(SERVICE + method)
    try:
        return SC.OK, "", await call(data, timeout=timeout)
    except grpc.aio.AioRpcError as err:
        info = refusal_from_error(err)
        return info.code, info.reason, b""


def der_fingerprint(pem: bytes) -> bytes:
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem.decode("ascii"))).digest()


class Relay:
    """A second host: its own self-signed certificate (made by host/tls.py, as any host's), and it answers GetTable
    and ListTables with the real host's tables (so the real table id and host key) and forwards every JoinRequest's
    bytes unchanged to the real host (or, with `rewrite`, with tls_fingerprint replaced by the real host's)."""

    def __init__(self, upstream_port: int, upstream_pem: bytes, cert_dir: Path) -> None:
        self.cert = host_tls.load_or_create(cert_dir)
        self.upstream_port = upstream_port
        self.upstream_pem = upstream_pem
        self.rewrite: bytes | None = None
        self.joins: list[bytes] = []  # the JoinRequests the relay received, as received
        self.refusals: list[str] = []  # the real host's answers to the forwarded Joins
        self.tokens: list[str] = []  # seat tokens the relay got (must stay empty)
        self.port = 0
        self.server: Any = None
        self.upstream: Any = None

    async def start(self) -> None:
        self.upstream = secure_channel(f"127.0.0.1:{self.upstream_port}", self.upstream_pem)
        handlers = {name: grpc.unary_unary_rpc_method_handler(self._forwarder(name))
                    for name in ("GetTable", "ListTables", "Join")}
        self.server = grpc.aio.server()
        self.server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("watten_net.v1.WattenTable",
                                                                                     handlers),))
        self.port = self.server.add_secure_port("127.0.0.1:0", host_tls.server_credentials(self.cert))
        await self.server.start()

    def _forwarder(self, method: str) -> Any:
        async def forward(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            if method == "Join":
                self.joins.append(request)
                if self.rewrite is not None:
                    parsed = pb.JoinRequest.FromString(request)
                    parsed.tls_fingerprint = self.rewrite
                    request = parsed.SerializeToString()
            try:
                reply: bytes = await self.upstream.unary_unary(SERVICE + method)(request, timeout=10)
            except grpc.aio.AioRpcError as err:
                if method == "Join":
                    self.refusals.append(refusal_from_error(err).reason)
                trailers = tuple(err.trailing_metadata() or ())  # the host's ErrorDetail, passed on to the client
                await context.abort(err.code(), err.details() or "", trailing_metadata=trailers)
                raise
            if method == "Join":
                self.tokens.append(pb.JoinResponse.FromString(reply).token)
            return reply

        return forward

    async def stop(self) -> None:
        await self.server.stop(0)
        await self.upstream.close()


# --------------------------------------------------------------------------------------------------------------
# The layout
# --------------------------------------------------------------------------------------------------------------


def test_the_join_proof_signs_table_host_key_certificate_key_and_nonce() -> None:
    key = Ed25519PrivateKey.generate()
    host, fp, nonce = bytes(range(32)), bytes(range(32, 64)), bytes(range(64, 96))
    message = join_proof_message("t1", host, fp, public_key_bytes(key), nonce)
    assert message == framed("join", b"t1", host, fp, public_key_bytes(key), nonce)
    assert join_proof_message("t1", host, b"insecure", public_key_bytes(key), nonce) == framed(
        "join", b"t1", host, b"insecure", public_key_bytes(key), nonce)
    for bad in (b"", fp[:31], fp + b"\0", b"INSECURE"):
        with pytest.raises(ValueError):
            join_proof_message("t1", host, bad, public_key_bytes(key), nonce)


# --------------------------------------------------------------------------------------------------------------
# (a) A relaying host
# --------------------------------------------------------------------------------------------------------------


@pytest.mark.network
def test_a_join_relayed_through_another_host_is_refused_and_the_seat_keeps_its_token(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--players", "2")

    async def run() -> dict[str, Any]:
        out: dict[str, Any] = {}
        pem = await asyncio.to_thread(pinning.fetch_certificate, "127.0.0.1", port)
        alice_key = Ed25519PrivateKey.generate()
        alice = Connection(secure_channel(f"127.0.0.1:{port}", pem), key=alice_key)
        out["alice binds"] = alice.tls_fingerprint == der_fingerprint(pem)
        out["alice seat"] = await alice.join("Alice")
        relay = Relay(port, pem, tmp_path / "relay")
        await relay.start()
        try:
            # Alice's client, restarted, reaches the relay instead of her host and pins the relay's certificate. The
            # relay shows the real table (her key is in its roster), so her client asks to take her seat back.
            for label, key in (("relayed reclaim", alice_key), ("relayed first join", Ed25519PrivateKey.generate())):
                victim = Connection(secure_channel(f"127.0.0.1:{relay.port}", relay.cert.cert_pem), key=key)
                out[f"{label} binds"] = victim.tls_fingerprint == der_fingerprint(relay.cert.cert_pem)
                with pytest.raises(Refused) as refused:
                    await victim.join("Alice")
                out[label] = (refused.value.code, refused.value.reason)
                await victim.close()
            # A relay that puts the real host's fingerprint into the request breaks the signature instead.
            relay.rewrite = der_fingerprint(pem)
            victim = Connection(secure_channel(f"127.0.0.1:{relay.port}", relay.cert.cert_pem), key=alice_key)
            with pytest.raises(Refused) as refused:
                await victim.join("Alice")
            out["relayed, fingerprint rewritten"] = (refused.value.code, refused.value.reason)
            await victim.close()
        finally:
            await relay.stop()
        out["relay"] = (len(relay.joins), relay.refusals, relay.tokens)
        # Alice's own seat and token are untouched.
        ack = await alice._call(alice.stub.Ready, pb.ReadyRequest(token=alice.token, ready=True), 5)
        out["alice token"] = int(ack.seat)
        info = await alice.table()
        out["seats"] = [(s.occupied, bytes(s.public_key) == public_key_bytes(alice_key)) for s in info.seats]
        await alice.close()
        return out

    try:
        out = asyncio.run(asyncio.wait_for(run(), 60))
    finally:
        host.stop()
    assert out["alice binds"] and out["relayed reclaim binds"] and out["relayed first join binds"]
    assert out["alice seat"] == 0
    assert out["relayed reclaim"] == (SC.PERMISSION_DENIED, "wrong-certificate")
    assert out["relayed first join"] == (SC.PERMISSION_DENIED, "wrong-certificate")
    assert out["relayed, fingerprint rewritten"] == (SC.PERMISSION_DENIED, "bad-key-proof")
    # The real host saw every relayed Join and refused each one itself; the relay got no token.
    assert out["relay"] == (3, ["wrong-certificate", "wrong-certificate", "bad-key-proof"], [])
    assert out["alice token"] == 0
    assert out["seats"] == [(True, True), (False, False)]
    assert "Traceback" not in host.output()


# --------------------------------------------------------------------------------------------------------------
# (b) Replays, in the lobby, in the game, after a restart
# --------------------------------------------------------------------------------------------------------------


def _kill_and_resume(host: Any, port: int, env: dict[str, str], *extra: str) -> Any:
    host.proc.send_signal(signal.SIGKILL)
    host.proc.wait(10)
    fresh = start("host.main", ["--headless", "--bind", "127.0.0.1", "--grace", "600", *extra], env)
    fresh.wait_for_line(rf"on port {port}")
    return fresh


@pytest.mark.network
def test_joins_and_leaves_replayed_later_are_refused_in_the_lobby_the_game_and_after_restarts(tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    host, port = start_host(tmp_path, "--headless", "--players", "2", "--grace", "600")
    journals = tmp_path / "data" / "journal"
    target = f"127.0.0.1:{port}"
    alice_key, bob_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    out: dict[str, Any] = {}

    async def lobby_and_game() -> tuple[bytes, bytes, bytes, str]:
        pem = await asyncio.to_thread(pinning.fetch_certificate, "127.0.0.1", port)
        fp = der_fingerprint(pem)
        async with secure_channel(target, pem) as channel:
            probe = Connection(channel)
            info = await probe.table()
            first = signed_join(alice_key, info, fingerprint=fp, name="Alice", seat=0).SerializeToString()
            code, _, reply = await raw_call(channel, "Join", first)
            out["first join"] = code
            token = pb.JoinResponse.FromString(reply).token
            out["first join replayed, seated"] = (await raw_call(channel, "Join", first))[:2]
            ready = pb.ReadyRequest(token=token, ready=True).SerializeToString()
            out["token after the replay"] = (await raw_call(channel, "Ready", ready))[0]
            leave = pb.LeaveRequest(token=token).SerializeToString()  # the lobby: the token alone frees the seat
            out["lobby leave"] = (await raw_call(channel, "Leave", leave))[0]
            out["first join replayed, seat freed"] = (await raw_call(channel, "Join", first))[:2]
            out["seat 0 after"] = (await probe.table()).seats[0].occupied
            alice = Connection(channel, key=alice_key)
            bob = Connection(channel, key=bob_key)
            out["fresh joins"] = (await alice.join("Alice"), await bob.join("Bob"))  # full: the game starts
            await asyncio.to_thread(wait_until, lambda: bool(list(journals.glob("*.wjournal"))), "the start")
            newcomer = signed_join(Ed25519PrivateKey.generate(), info, fingerprint=fp, name="Carol")
            out["newcomer"] = (await raw_call(channel, "Join", newcomer.SerializeToString()))[:2]
            reclaim = signed_join(alice_key, info, fingerprint=fp, name="Alice").SerializeToString()
            code, _, reply = await raw_call(channel, "Join", reclaim)
            out["reclaim in the game"] = code
            token = pb.JoinResponse.FromString(reply).token
            out["reclaim replayed"] = (await raw_call(channel, "Join", reclaim))[:2]
            unsigned = pb.LeaveRequest(token=token).SerializeToString()
            out["unsigned leave in the game"] = (await raw_call(channel, "Leave", unsigned))[:2]
            return first, reclaim, fp, token

    async def after_restart(first: bytes, reclaim: bytes, fp: bytes) -> bytes:
        pem = await asyncio.to_thread(pinning.fetch_certificate, "127.0.0.1", port)
        out["same certificate"] = der_fingerprint(pem) == fp
        async with secure_channel(target, pem) as channel:
            out["first join replayed after the restart"] = (await raw_call(channel, "Join", first))[:2]
            out["reclaim replayed after the restart"] = (await raw_call(channel, "Join", reclaim))[:2]
            alice = Connection(channel, key=alice_key)
            out["fresh join after the restart"] = await alice.join("Alice")
            info = await alice.table()
            game_id, host_key = bytes(info.game_id), bytes(info.host_public_key)
            nonce = new_nonce()
            wrong = leave_proof(bob_key, info.table_id, host_key, game_id, 0, nonce)
            forged = pb.LeaveRequest(token=alice.token, nonce=nonce, leave_proof=wrong).SerializeToString()
            out["leave signed by another key"] = (await raw_call(channel, "Leave", forged))[:2]
            signed = pb.LeaveRequest(token=alice.token, nonce=nonce, leave_proof=leave_proof(
                alice_key, info.table_id, host_key, game_id, 0, nonce)).SerializeToString()
            out["signed leave"] = (await raw_call(channel, "Leave", signed))[0]
            out["signed leave replayed"] = (await raw_call(channel, "Leave", signed))[:2]
            await alice.leave()  # the client's own Leave signs (a fresh nonce)
            out["client leave"] = True
            return signed

    async def after_second_restart(signed: bytes, fp: bytes) -> None:
        # Resumed with --insecure this time: proofs bind what the host serves now, not what the game began with.
        async with grpc.aio.insecure_channel(target) as channel:
            out["signed leave replayed after the restart"] = (await raw_call(channel, "Leave", signed))[:2]
            info = await Connection(channel).table()
            tls_bound = signed_join(alice_key, info, fingerprint=fp, name="Alice").SerializeToString()
            out["TLS proof at the plaintext host"] = (await raw_call(channel, "Join", tls_bound))[:2]
            out["plaintext join after the restart"] = await Connection(channel, key=alice_key).join("Alice")

    try:
        first, reclaim, fp, _ = asyncio.run(asyncio.wait_for(lobby_and_game(), 90))
        host = _kill_and_resume(host, port, env)
        signed = asyncio.run(asyncio.wait_for(after_restart(first, reclaim, fp), 60))
        host = _kill_and_resume(host, port, env, "--insecure")
        asyncio.run(asyncio.wait_for(after_second_restart(signed, fp), 60))
    finally:
        host.stop()
    used = (SC.PERMISSION_DENIED, "nonce-used")
    assert out["first join"] == SC.OK
    assert out["first join replayed, seated"] == used
    assert out["token after the replay"] == SC.OK
    assert out["lobby leave"] == SC.OK
    assert out["first join replayed, seat freed"] == used
    assert out["seat 0 after"] is False
    assert out["fresh joins"] == (0, 1)
    assert out["newcomer"] == (SC.FAILED_PRECONDITION, "game-started")
    assert out["reclaim in the game"] == SC.OK
    assert out["reclaim replayed"] == used
    assert out["unsigned leave in the game"] == (SC.PERMISSION_DENIED, "proof-required")
    assert out["same certificate"]
    assert out["first join replayed after the restart"] == used
    assert out["reclaim replayed after the restart"] == used
    assert out["fresh join after the restart"] == 0
    assert out["leave signed by another key"] == (SC.PERMISSION_DENIED, "bad-key-proof")
    assert out["signed leave"] == SC.OK
    assert out["signed leave replayed"] == used
    assert out["client leave"]
    assert out["signed leave replayed after the restart"] == used
    assert out["TLS proof at the plaintext host"] == (SC.PERMISSION_DENIED, "wrong-certificate")
    assert out["plaintext join after the restart"] == 0
    assert "Traceback" not in host.output()


# --------------------------------------------------------------------------------------------------------------
# (c)-(f) Every other refusal, against a table whose state the test can see
# --------------------------------------------------------------------------------------------------------------


@pytest.mark.network
def test_joins_without_a_valid_proof_are_refused_with_their_reasons_and_no_seat_changes(tmp_path: Path) -> None:
    async def run() -> dict[str, Any]:
        out: dict[str, Any] = {}
        cert = host_tls.load_or_create(tmp_path / "host")
        fp = bytes.fromhex(cert.fingerprint)
        table = Table(TableSettings(Rules.preset("bavarian", players=2), tls_fingerprint=fp))
        server, port = await start_server(table, 0, host_tls.server_credentials(cert), "127.0.0.1")
        alice_key, bob_key = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
        try:
            async with secure_channel(f"127.0.0.1:{port}", cert.cert_pem) as channel:
                alice = Connection(channel, key=alice_key)
                await alice.join("Alice", 0)
                alice_token = alice.token
                info = table.info()

                async def join(request: Any) -> tuple[SC, str]:
                    return (await raw_call(channel, "Join", request.SerializeToString()))[:2]

                bare = pb.JoinRequest(protocol_version=2, name="Bob", public_key=public_key_bytes(bob_key),
                                      join_nonce=new_nonce(), table_id=info.table_id, tls_fingerprint=fp)
                out["no proof"] = await join(bare)
                out["insecure proof"] = await join(signed_join(bob_key, info, fingerprint=INSECURE))
                out["another certificate"] = await join(signed_join(bob_key, info, fingerprint=os.urandom(32)))
                short = signed_join(bob_key, info, fingerprint=fp)
                short.tls_fingerprint = fp[:31]
                out["fingerprint of 31 bytes"] = await join(short)
                short = signed_join(bob_key, info, fingerprint=fp)
                short.join_nonce = short.join_nonce[:31]
                out["nonce of 31 bytes"] = await join(short)
                long = signed_join(bob_key, info, fingerprint=fp, nonce=os.urandom(33))
                out["nonce of 33 bytes"] = await join(long)
                other_table = signed_join(bob_key, info, fingerprint=fp)
                other_table.key_proof = join_proof(bob_key, "another-table", info.host_public_key, fp,
                                                   other_table.join_nonce)
                out["proof for another table"] = await join(other_table)
                other_host = signed_join(bob_key, info, fingerprint=fp)
                other_host.key_proof = join_proof(bob_key, info.table_id, os.urandom(32), fp, other_host.join_nonce)
                out["proof for another host key"] = await join(other_host)
                # (f) Nobody else can take or revoke Alice's lobby seat: not with her public key and their own
                # signature, not by asking for her seat.
                thief = signed_join(bob_key, info, fingerprint=fp)
                thief.public_key = public_key_bytes(alice_key)
                out["Alice's key, another key's proof"] = await join(thief)
                out["Alice's seat asked for"] = await join(signed_join(bob_key, info, fingerprint=fp, seat=0))
                out["nobody seated but Alice"] = [s is not None for s in table.seats] == [True, False]
                ready = pb.ReadyRequest(token=alice_token, ready=True).SerializeToString()
                out["Alice's token"] = (await raw_call(channel, "Ready", ready))[0]
                out["Alice's key"] = table.seats[0] is not None and table.seats[0].public_key == public_key_bytes(
                    alice_key)
                # (e) A new key at a full table, then once the game has started.
                bob = Connection(channel, key=bob_key)
                out["Bob"] = await bob.join("Bob")
                carol = Ed25519PrivateKey.generate()
                out["table full"] = await join(signed_join(carol, info, fingerprint=fp))
                await table.start()
                out["game started"] = await join(signed_join(carol, info, fingerprint=fp))
                # A Leave in the game is signed by the seat's key; a token alone is refused.
                unsigned = pb.LeaveRequest(token=alice_token).SerializeToString()
                out["unsigned leave"] = (await raw_call(channel, "Leave", unsigned))[:2]
                out["alice in the game"] = 0 not in table.game.absent if table.game else None
                await alice.leave()
                # (Level 1 version 2: before the first hand nobody stands in, so she is away, not yet stood in for)
                game = table.game
                out["alice left"] = game is not None and 0 in game.absent | game.away_before_first_deal
        finally:
            await table.shutdown()
            await stop_server(server, 0)
        return out

    out = asyncio.run(asyncio.wait_for(run(), 60))
    assert out["no proof"] == (SC.PERMISSION_DENIED, "proof-required")
    assert out["insecure proof"] == (SC.PERMISSION_DENIED, "insecure-proof")
    assert out["another certificate"] == (SC.PERMISSION_DENIED, "wrong-certificate")
    assert out["fingerprint of 31 bytes"] == (SC.INVALID_ARGUMENT, "bad-fingerprint")
    assert out["nonce of 31 bytes"] == (SC.INVALID_ARGUMENT, "bad-nonce")
    assert out["nonce of 33 bytes"] == (SC.INVALID_ARGUMENT, "bad-nonce")
    assert out["proof for another table"] == (SC.PERMISSION_DENIED, "bad-key-proof")
    assert out["proof for another host key"] == (SC.PERMISSION_DENIED, "bad-key-proof")
    assert out["Alice's key, another key's proof"] == (SC.PERMISSION_DENIED, "bad-key-proof")
    assert out["Alice's seat asked for"] == (SC.FAILED_PRECONDITION, "seat-taken")
    assert out["nobody seated but Alice"] and out["Alice's key"]
    assert out["Alice's token"] == SC.OK
    assert out["Bob"] == 1
    assert out["table full"] == (SC.FAILED_PRECONDITION, "table-full")
    assert out["game started"] == (SC.FAILED_PRECONDITION, "game-started")
    assert out["unsigned leave"] == (SC.PERMISSION_DENIED, "proof-required")
    assert out["alice in the game"] is True
    assert out["alice left"] is True


@pytest.mark.network
def test_a_plaintext_host_takes_insecure_proofs_only() -> None:
    async def run() -> dict[str, Any]:
        out: dict[str, Any] = {}
        table = Table(TableSettings(Rules.preset("bavarian", players=2)))
        server, port = await start_server(table, 0, None, "127.0.0.1")
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                info = table.info()
                key = Ed25519PrivateKey.generate()
                tls_proof = signed_join(key, info, fingerprint=os.urandom(32)).SerializeToString()
                out["a TLS proof"] = (await raw_call(channel, "Join", tls_proof))[:2]
                conn = Connection(channel, key=key)
                out["binds"] = conn.tls_fingerprint
                out["seat"] = await conn.join("Resi")
        finally:
            await table.shutdown()
            await stop_server(server, 0)
        return out

    out = asyncio.run(asyncio.wait_for(run(), 30))
    assert out["a TLS proof"] == (SC.PERMISSION_DENIED, "wrong-certificate")
    assert out["binds"] == INSECURE
    assert out["seat"] == 0


def test_the_nonces_a_table_keeps_are_bounded_and_churn_cannot_lock_a_seat_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from host import lobby as lobby_module
    from host import table as table_module

    monkeypatch.setattr(lobby_module, "MAX_NONCES", 3)

    async def run() -> list[str]:
        table = Table(TableSettings(Rules.preset("bavarian", players=4)))
        info = table.info()
        answers = []
        keys = [Ed25519PrivateKey.generate() for _ in range(4)]
        for key in keys:
            try:
                seat, _ = await table.join(signed_join(key, info))
                answers.append(f"seat {seat}")
            except table_module.TableRefusal as err:
                answers.append(err.reason)
        for _ in range(4):  # the seated keep taking their seats back, up to twice the cap
            try:
                seat, _ = await table.join(signed_join(keys[0], info))
                answers.append(f"seat {seat}")
            except table_module.TableRefusal as err:
                answers.append(err.reason)
        return answers

    answers = asyncio.run(run())
    assert answers == ["seat 0", "seat 1", "seat 2", "too-many-joins", "seat 0", "seat 0", "seat 0", "too-many-joins"]
