"""Hostile input against a real host process: a property-based fuzz of the service, names, tokens, the rate limit.

The fuzz (tests/fuzzing.py) sends at least 10,000 requests (100,000 with `pytest --long`) drawn by hypothesis over
the watten_net.v1 request messages and envelopes, plus random bytes, bytes of the wrong message type, oversized
messages, replayed envelopes and envelopes for another game, hand or attempt, while two seats of this test play a
match against two host bots. Every answer must be OK or a documented status with a machine-readable reason (never
UNKNOWN or INTERNAL); around every batch everything both seats can see must stay exactly the same; afterwards the
host still serves, the match finishes, every record verifies, and no token shows up in the host's log or a record.
"""

from __future__ import annotations

import asyncio
import base64
import re
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from grpc import StatusCode as SC
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import given, settings

from client.connection import Connection, open_channel
from host.server import RateLimiter
from host.table import MAX_NAME, TableRefusal, clean_name
from watten_net.deal.identity import INSECURE, join_proof, new_nonce, public_key_bytes
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_file

from fuzzing import Harness, Tally, drive, fuzz_channels, names, send
from netutil import Proc, isolated_env, run_then_host_ends, signed_join, start, start_host

FUZZ_CI = 10_000
FUZZ_LONG = 100_000
BATCH = 100  # requests in flight at once, spread over the harness's 16 connections


@dataclass
class Fuzzed:
    tally: Tally
    elapsed: float
    alive: bool
    serving: tuple[Any, Any]
    exit_code: int | None
    output: str
    records: Path
    tokens: list[str]
    refusals: list[Any]


async def _serving(port: int) -> tuple[Any, Any]:
    """GetTable and the health check over a fresh connection."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        info = await Connection(channel).table()
        health = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="watten_net.v1.WattenTable"), timeout=10)
    return info, health


async def _fuzz(host: Proc, port: int, records: Path, total: int) -> Fuzzed:
    per_point = max(BATCH, total // 12 // BATCH * BATCH)  # a dozen points: every step of the first hand
    harness = Harness(port, records, total=total, per_point=per_point, batch=BATCH)
    await harness.start()
    try:
        started = time.monotonic()
        await asyncio.to_thread(drive, harness, asyncio.get_running_loop())
        elapsed = time.monotonic() - started
        alive = host.proc.poll() is None
        serving = await _serving(port)
        if not harness.tally.failure:
            await harness.finish()
        return Fuzzed(harness.tally, elapsed, alive, serving, None, "", records, [harness.a.token, harness.b.token],
                      harness.a.refusals + harness.b.refusals)
    finally:
        await harness.close()


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Fuzzed:
    total = FUZZ_LONG if request.config.getoption("--long") else FUZZ_CI
    tmp = tmp_path_factory.mktemp("fuzz")
    records = tmp / "records"
    # --step-timeout 0: the harness holds seat A silent on a protocol step at every point while it fires (minutes
    # on a loaded machine); with the default 30 s step clock a bot would stand in for A and the match would move on.
    host, port = start_host(tmp, "--headless", "--insecure", "--players", "4", "--bots", "2", "--record",
                            str(records), "--step-timeout", "0", "-v")
    try:
        result = asyncio.run(asyncio.wait_for(_fuzz(host, port, records, total), 600 + total / 20))
        result.exit_code = host.wait(60) if not result.tally.failure else None
    finally:
        host.stop()
    result.output = host.output()
    print(f"\nfuzz: {result.tally.sent} requests in {result.elapsed:.1f} s at {result.tally.points} points "
          f"({sorted(result.tally.steps)}); answers {result.tally.codes}; reasons {result.tally.reasons}")
    return result


@pytest.mark.network
def test_every_fuzzed_request_got_a_documented_answer_and_changed_nothing(fuzzed: Fuzzed) -> None:
    assert not fuzzed.tally.failure, fuzzed.tally.failure
    assert fuzzed.tally.sent >= FUZZ_CI
    assert "UNKNOWN" not in fuzzed.tally.codes and "INTERNAL" not in fuzzed.tally.codes


@pytest.mark.network
def test_the_fuzz_reached_every_step_of_a_hand(fuzzed: Fuzzed) -> None:
    assert {"header", "key-commit", "key-set", "key-reveal", "sealed", "play"} <= fuzzed.tally.steps


@pytest.mark.network
def test_the_fuzz_went_deep(fuzzed: Fuzzed) -> None:
    """Not everything stopped at the door: protocol, engine and retry answers were reached too."""
    reasons = fuzzed.tally.reasons
    for reason in ("bad-envelope", "bad-signature", "wrong-game", "stale-envelope-seq", "wrong-seat", "bad-token",
                   "no-token", "unexpected-message", "game-started", "bad-request", "resource-exhausted"):
        assert reasons.get(reason), f"no request was refused with {reason!r}: {reasons}"
    assert fuzzed.tally.codes.get("OK", 0) > 100  # retries, GetTable, Subscribe
    assert any(reasons.get(r) for r in ("wrong-hand", "wrong-hash", "malformed", "not-your-turn", "bad-chain-head"))


@pytest.mark.network
def test_the_host_still_serves_after_the_fuzz(fuzzed: Fuzzed) -> None:
    info, health = fuzzed.serving
    assert fuzzed.alive
    assert info.phase == pb.TABLE_PHASE_PLAYING
    assert health.status == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.network
def test_the_match_finishes_and_every_record_verifies(fuzzed: Fuzzed) -> None:
    assert fuzzed.exit_code == 0, fuzzed.output[-3000:]
    paths = sorted(fuzzed.records.glob("*.wrec"))
    assert len(paths) == 3, paths  # the host's and both seats'
    reports = [verify_file(str(p)) for p in paths]
    for report in reports:
        assert report.ok, [p.sentence() for p in report.errors]
    assert len({r.game_id for r in reports}) == 1 and len({tuple(r.final_scores) for r in reports}) == 1


@pytest.mark.network
def test_no_token_in_the_host_log_or_any_record(fuzzed: Fuzzed) -> None:
    assert re.search(r"seat \d taken by fuzz A", fuzzed.output)  # -v: the host did log the seats
    records = [p.read_bytes() for p in fuzzed.records.glob("*.wrec")]
    assert records
    for token in fuzzed.tokens:
        assert len(token) >= 22
        assert token not in fuzzed.output
        for data in records:
            assert token.encode() not in data
            assert base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)) not in data


@pytest.mark.network
def test_normal_play_is_never_rate_limited(fuzzed: Fuzzed) -> None:
    assert not [r for r in fuzzed.refusals if r.reason == "rate-limited"], fuzzed.refusals
    # The fuzz itself, spread over 16 connections like a room of clients, stays (nearly) under the limit too.
    assert fuzzed.tally.rate_limited <= fuzzed.tally.sent // 100, fuzzed.tally


# --------------------------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------------------------


def _printable(name: str) -> bool:
    return all(unicodedata.category(ch)[0] != "C" and unicodedata.category(ch) not in ("Zl", "Zp") for ch in name)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(names())
def test_clean_name_keeps_a_clean_name_and_never_passes_control_characters(name: str) -> None:
    try:
        cleaned = clean_name(name)
    except TableRefusal as err:
        assert (err.code, err.reason) == ("invalid", "bad-name")
        return
    assert 1 <= len(cleaned) <= MAX_NAME
    assert _printable(cleaned) and cleaned == cleaned.strip()
    if _printable(name) and name == name.strip() and 1 <= len(name) <= MAX_NAME \
            and unicodedata.is_normalized("NFC", name):
        assert cleaned == name  # shown as given


LIVE_NAMES = {  # name sent -> name shown (None: refused with INVALID_ARGUMENT bad-name)
    "\x00\x07": None,
    "   \t\n": None,
    "\u200b\u202e\u2028": None,
    "a" * 33: None,  # longer than 32 characters: refused, not cut
    "a" * 3_000: None,
    "\u202eevil\u202c": "evil",
    "Zoe\u0301": "Zo\u00e9",  # NFC: one code point
    "👨\u200d👩\u200d👧 Resi\nline": "👨👩👧 Resiline",
    "שלום مرحبا": "שלום مرحبا",
    "x\u2028y\x1b[2J": "xy[2J",
}


@pytest.mark.network
def test_names_with_control_characters_long_names_and_unicode_over_the_wire(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "6", "-v")

    async def run() -> tuple[dict[str, Any], list[str], Any, Any]:
        results: dict[str, Any] = {}
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub_conn = Connection(channel)
            lobby = await stub_conn.table()
            for name in LIVE_NAMES:
                request = signed_join(Ed25519PrivateKey.generate(), lobby, name=name)
                answer = await send(channel, "Join", request.SerializeToString())
                results[name] = answer
            info = await stub_conn.table()
            # A name that is not UTF-8 cannot even be parsed: a documented refusal, not UNKNOWN.
            not_utf8 = await send(channel, "Join", b"\x08\x01\x12\x03\xff\xfe\xfd")
            huge = await send(channel, "Join", pb.JoinRequest(name="x" * (2 << 20)).SerializeToString())
        return results, [s.name for s in info.seats if s.occupied], not_utf8, huge

    try:
        results, shown, not_utf8, huge = asyncio.run(asyncio.wait_for(run(), 60))
    finally:
        host.stop()
    for name, expected in LIVE_NAMES.items():
        answer = results[name]
        if expected is None:
            assert (answer.code, answer.reason) == (SC.INVALID_ARGUMENT, "bad-name"), (name, answer)
        else:
            assert answer.code == SC.OK, (name, answer)
            assert expected == clean_name(name)
    assert sorted(shown) == sorted(v for v in LIVE_NAMES.values() if v is not None)
    assert all(len(n) <= MAX_NAME and _printable(n) for n in shown)
    assert (not_utf8.code, not_utf8.reason) == (SC.INVALID_ARGUMENT, "bad-request")
    assert huge.code == SC.RESOURCE_EXHAUSTED
    output = host.output()
    assert "\x1b" not in output and "\x00" not in output and "Traceback" not in output


# --------------------------------------------------------------------------------------------------------------
# Tokens
# --------------------------------------------------------------------------------------------------------------


@pytest.mark.network
def test_tokens_carry_at_least_128_random_bits_and_a_rejoin_revokes_the_old_one(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "-v")
    count = 200

    async def run() -> tuple[list[str], dict[str, tuple[SC, str]]]:
        found: dict[str, tuple[SC, str]] = {}
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            conn = Connection(channel)
            tokens = []
            for _ in range(count):  # the same key rejoining with its proof: a fresh token each time
                await conn.join("Resi", 0)
                tokens.append(conn.token)
            for label, token in (("old token", tokens[0]), ("current token", tokens[-1])):
                answer = await send(channel, "Start", pb.StartRequest(token=token).SerializeToString())
                found[label] = (answer.code, answer.reason)
            # The (public) key alone does not take a seat over: no stealing a seat, connected or not.
            stream = conn.stub.Subscribe(pb.SubscribeRequest(token=conn.token))
            await stream.read()
            request = pb.JoinRequest(protocol_version=2, name="thief", public_key=public_key_bytes(conn.key),
                                     join_nonce=new_nonce())
            answer = await send(channel, "Join", request.SerializeToString())
            found["key of a connected seat"] = (answer.code, answer.reason)
            info = await conn.stub.GetTable(pb.GetTableRequest())
            request.tls_fingerprint = INSECURE
            request.key_proof = join_proof(Ed25519PrivateKey.generate(), info.table_id, info.host_public_key, INSECURE,
                                           request.join_nonce)
            answer = await send(channel, "Join", request.SerializeToString())
            found["key with another key's proof"] = (answer.code, answer.reason)
            request.key_proof = join_proof(conn.key, info.table_id, info.host_public_key, INSECURE, conn.join_nonce)
            request.join_nonce = conn.join_nonce
            answer = await send(channel, "Join", request.SerializeToString())
            found["a proof replayed"] = (answer.code, answer.reason)
            answer = await send(channel, "Start", pb.StartRequest(token=conn.token).SerializeToString())
            found["owner after the attempt"] = (answer.code, answer.reason)
            stream.cancel()
        return tokens, found

    try:
        tokens, found = asyncio.run(asyncio.wait_for(run(), 60))
    finally:
        host.stop()
    assert len(set(tokens)) == count
    for token in tokens:
        assert re.fullmatch(r"[A-Za-z0-9_-]{22,}", token), token
        assert len(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))) >= 16  # 128 bits or more
    raw = [base64.urlsafe_b64decode(t + "=" * (-len(t) % 4)) for t in tokens]
    bits = len(raw[0]) * 8
    for bit in range(bits):  # every bit is a fair coin (a counter or a clock in the token would fail this)
        ones = sum(r[bit // 8] >> (bit % 8) & 1 for r in raw)
        assert 0.3 * count < ones < 0.7 * count, (bit, ones)
    assert found["old token"] == (SC.UNAUTHENTICATED, "bad-token")
    assert found["current token"] == (SC.FAILED_PRECONDITION, "not-enough-players")
    assert found["key of a connected seat"] == (SC.PERMISSION_DENIED, "proof-required")
    assert found["key with another key's proof"] == (SC.PERMISSION_DENIED, "bad-key-proof")
    assert found["a proof replayed"] == (SC.PERMISSION_DENIED, "nonce-used")
    assert found["owner after the attempt"] == (SC.FAILED_PRECONDITION, "not-enough-players")
    output = host.output()
    assert not [t for t in tokens if t in output]


# --------------------------------------------------------------------------------------------------------------
# The per-connection rate limit
# --------------------------------------------------------------------------------------------------------------


def test_the_rate_limiter_is_a_token_bucket_per_connection() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=200, burst=400, clock=lambda: now[0])
    assert all(limiter.allow("ipv4:10.0.0.2:5000") for _ in range(400))
    assert not limiter.allow("ipv4:10.0.0.2:5000")
    assert limiter.allow("ipv4:10.0.0.2:5001")  # another connection has its own bucket
    now[0] += 0.5  # half a second refills 100
    assert sum(limiter.allow("ipv4:10.0.0.2:5000") for _ in range(150)) == 100
    for port in range(6000, 6000 + 3 * RateLimiter.MAX_TRACKED):  # connections come and go, 100 a second
        now[0] += 0.01
        assert limiter.allow(f"ipv4:10.0.0.3:{port}")
    assert len(limiter.buckets) <= RateLimiter.MAX_TRACKED + 400  # idle ones are forgotten


@pytest.mark.network
def test_a_flood_is_rate_limited_and_other_connections_are_still_served(tmp_path: Path) -> None:
    # A host with a lower limit (tests/limited_host.py): a flood must arrive faster than the host refills the bucket,
    # and a host on a loaded machine may answer fewer calls a second than its own limit of 200.
    from limited_host import BURST, RATE

    host = start("tests.limited_host", ["--port", "0", "--bind", "127.0.0.1", "--headless", "--insecure",
                                        "--players", "2", "-v"], isolated_env(tmp_path))
    port = int(host.wait_for_line(r"on port (\d+)").group(1))
    flood = 1500

    async def run() -> tuple[list[Any], Any, Any, Any]:
        [flooding, other] = fuzz_channels(port, 2)
        try:
            request = pb.GetTableRequest().SerializeToString()
            answers: list[Any] = []
            for _ in range(flood // 300):  # waves of 300 calls at once, as fast as the host answers
                answers += await asyncio.gather(*(send(flooding, "GetTable", request) for _ in range(300)))
            meanwhile = await send(other, "GetTable", request)
            await asyncio.sleep(BURST / RATE + 0.5)  # the bucket refills
            later = await send(flooding, "GetTable", request)
            health = await health_pb2_grpc.HealthStub(other).Check(health_pb2.HealthCheckRequest(), timeout=10)
        finally:
            for channel in (flooding, other):
                await channel.close()
        return answers, meanwhile, later, health

    try:
        answers, meanwhile, later, health = asyncio.run(asyncio.wait_for(run(), 120))
    finally:
        host.stop()
    served = [a for a in answers if a.code == SC.OK]
    limited = [a for a in answers if a.code != SC.OK]
    assert len(served) >= BURST and limited
    for answer in limited:
        assert (answer.code, answer.reason) == (SC.RESOURCE_EXHAUSTED, "rate-limited"), answer
        assert "slow down" in answer.message
    assert meanwhile.code == SC.OK and later.code == SC.OK
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert host.output().count("rate limit") == 1  # one log line for the flood, not one per refusal


@pytest.mark.network
def test_a_seat_playing_normally_is_not_rate_limited(tmp_path: Path) -> None:
    """A whole match at full speed (no bot delay) by a client of the library: never `rate-limited`."""
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--set", "target=11")

    async def play() -> None:
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
        await conn.join("quick")
        async for view in conn.updates():
            if view is None or view.table.phase in (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED):
                if view is not None:
                    break
                continue
            if conn.seat in view.to_act and view.legal_actions:
                await conn.act(view.legal_actions[0])
        await conn.send_automatic()
        await conn.close()

    run_then_host_ends(host, play(), 120)
