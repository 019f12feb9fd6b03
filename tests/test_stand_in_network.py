"""A person away longer than `--grace`: a bot stands in, the person comes back and takes the seat (real processes).

The "person" is a `watten-join --bot random` client (to the host it is a person's seat like any other: its
own key, its own record); it is killed with SIGKILL mid-match, stays away past the grace period while the
host's stand-in plays for it, and is started again with the same identity.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from netutil import (
    actions_of,
    clients_then_host_end,
    host_chain,
    isolated_env,
    journal_entries,
    start,
    start_host,
    verified_records,
    wait_until,
)

pytestmark = pytest.mark.network


def test_a_bot_stands_in_after_the_grace_period_and_the_person_takes_the_seat_back(tmp_path: Path) -> None:
    records = tmp_path / "records"
    env = isolated_env(tmp_path)
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1", "--grace", "1",
                            "--record", str(records), "--set", "target=15", "--bot-delay", "0.15")
    identity = str(tmp_path / "seat.key")
    args = ["--bot", "random", "--identity", identity, "--insecure", "--record", str(records), f"127.0.0.1:{port}"]
    client = start("client.main", [*args, "--seed", "1"], env)
    again = None
    try:
        seat = int(client.wait_for_line(r"seat (\d)").group(1))
        # Into the match (the host has accepted a move of the person's own), and away at once: the rest of the
        # match is what the stand-in and the person coming back have to share.
        wait_until(lambda: actions_of(journal_entries(tmp_path), seat)[0] >= 1, "the person's first move",
                   unless=client)
        client.proc.kill()
        client.proc.wait(10)
        host.wait_for_line(r"a bot stands in")
        # The stand-in has made a move for the seat (a fixed pause may pass before it gets its turn).
        wait_until(lambda: actions_of(journal_entries(tmp_path), seat)[1] >= 1, "the stand-in's first move",
                   unless=host)
        again = start("client.main", [*args, "--seed", "2"], env)
        host.wait_for_line(r"its person is back")
        clients_then_host_end([again], host, 240)
    finally:
        for p in (host, client, again):
            if p is not None:
                p.stop()
    paths = verified_records(records, 2)
    chain = host_chain(next(p for p in paths if p.name.endswith("-host.wrec")))
    stand_ins = [(int(s.payload.seat), bool(s.payload.active)) for s in chain if s.type == "StandIn"]
    assert stand_ins[:2] == [(stand_ins[0][0], True), (stand_ins[0][0], False)], stand_ins
    seat = stand_ins[0][0]
    by_bot = [s for s in chain if s.type == "ActionAccepted" and s.payload.actor == "bot" and s.payload.seat == seat]
    back = next(i for i, s in enumerate(chain) if s.type == "StandIn" and not s.payload.active)
    own_after = [s for s in chain[back:] if s.type == "ActionAccepted" and s.payload.seat == seat
                 and s.payload.action_envelope]
    assert by_bot, "the stand-in never played"
    assert own_after, "the person never played again after coming back"


def test_leaving_the_lobby_frees_the_seat_and_kills_its_token(tmp_path: Path) -> None:
    import asyncio

    import grpc.aio

    from client.connection import Connection, Refused
    from watten_net.v1 import watten_pb2 as pb

    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "3")

    async def run() -> tuple[bool, bool, str]:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            conn = Connection(channel)
            seat = await conn.join("Loisl")
            before = (await conn.table()).seats[seat].occupied
            await conn.leave()
            after = (await conn.table()).seats[seat].occupied
            try:
                await conn._call(conn.stub.Ready, pb.ReadyRequest(token=conn.token, ready=True), 5)
                reason = ""
            except Refused as err:
                reason = err.reason
            return before, after, reason

    try:
        before, after, reason = asyncio.run(asyncio.wait_for(run(), 30))
    finally:
        host.stop()
    assert before and not after
    assert reason == "bad-token"


def test_the_journal_keeps_digests_of_tokens_never_the_tokens(tmp_path: Path) -> None:
    import asyncio
    import hashlib

    from host.table import Table, TableSettings
    from watten_net.engine import Rules

    from netutil import signed_join

    async def run() -> tuple[str, str, bytes]:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        table = Table(TableSettings(Rules.preset("bavarian", players=2)))
        table.journal_path = tmp_path / "t.wjournal"
        key = Ed25519PrivateKey.generate()
        _, first = await table.join(signed_join(key, table.info()))
        await table.add_bots(1, "random")
        await table.start()
        # the same key takes its seat back: a new token, journaled as a digest too
        _, second = await table.join(signed_join(key, table.info()))
        await table.shutdown()
        return first, second, (tmp_path / "t.wjournal").read_bytes()

    first, second, journal = asyncio.run(asyncio.wait_for(run(), 30))
    assert first != second
    for token in (first, second):
        assert token.encode() not in journal
        assert hashlib.sha256(token.encode()).hexdigest().encode() in journal or \
            hashlib.sha256(token.encode()).digest() in journal
