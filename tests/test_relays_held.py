"""Co-signature relays ride with the change that completes their step (host/changelog.py `held_back`).

A real gRPC host in this process (so that the test can count the changes the host makes) and real
`client.connection.Connection`s over loopback, each checking every chain entry as it arrives (a relay's signature
and its link to the chain: a bad or missing one raises `HostBrokeProtocol` and ends the test).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import host.changelog
from client.connection import Connection
from host.changelog import CO_SIGNING
from host.server import WattenTableService, start_server, stop_server
from host.table import Table, TableSettings
from watten_net.bots import make_bot
from watten_net.deal.host_game import Posted
from watten_net.deal.steps import DealStep
from watten_net.engine import Rules

from netutil import bot_turn

pytestmark = pytest.mark.network

WAIT = 120.0  # seconds: a bound on each whole scenario, far above what a loaded machine needs
LATE = 3  # the seat that signs each co-signing step last (once the host waits for nobody else)


class Seats:
    """Four persons' connections to one in-process host, and what each one's stream carried: for every event, the
    types of its chain entries in order."""

    def __init__(self, table: Table, port: int) -> None:
        self.table = table
        self.conns = [Connection(grpc.aio.insecure_channel(f"127.0.0.1:{port}")) for _ in range(4)]
        self.events: list[list[list[str]]] = [[] for _ in range(4)]

    def listen(self, index: int) -> None:
        conn = self.conns[index]

        def note(update: Any) -> None:
            if update.HasField("event") and update.event.chain:
                self.events[index].append([self._type(entry) for entry in update.event.chain])

        conn.on_update = note

    def _type(self, entry: Any) -> str:
        game = self.table.game
        assert game is not None
        return game.chain[int(entry.chain_seq) - 1].type


def _counting_changes(table: Table) -> list[list[Posted]]:
    """Every change the host publishes (what was one stream event per seat before relays were held back)."""
    changes: list[list[Posted]] = []
    publish = table.publish

    async def counted(posted: list[Posted], *, bots_fed: bool = False) -> None:
        changes.append(list(posted))
        await publish(posted, bots_fed=bots_fed)

    table.publish = counted  # type: ignore[method-assign]
    return changes


def _signs_last(conn: Connection, table: Table) -> None:
    """The seat sends a co-signature only once the host waits for nobody else: the others' relays are held then."""
    send = conn.send_automatic

    async def last() -> None:
        for _ in range(20_000):  # (10 ms each, bounded)
            game = table.game
            if game is None or game.finished:
                break
            step, seats = game.waiting_for()
            if step not in CO_SIGNING or set(seats) <= {conn.seat}:
                break
            await asyncio.sleep(0.01)
        await send()

    conn.send_automatic = last  # type: ignore[method-assign]


async def _serve(table: Table, scenario: Callable[[Seats], Awaitable[None]]) -> None:
    server, port = await start_server(WattenTableService(table), 0, None, bind="127.0.0.1")
    seats = Seats(table, port)
    try:
        await scenario(seats)
    finally:
        for conn in seats.conns:
            await conn.close()
        await stop_server(server, 0)
        await table.shutdown()


def _table(tmp_path: Path, target: str, **settings: Any) -> Table:
    rules = Rules.preset("bavarian", 4).with_flag("target", target)
    table = Table(TableSettings(rules, host_key=Ed25519PrivateKey.generate(), **settings))
    table.journal_path = tmp_path / "held.wjournal"  # (every change fsync'd before it leaves, as on a real host)
    return table


@pytest.mark.parametrize("next_deal", ["", "with-checkpoint"])
def test_a_change_of_deal_reaches_each_seat_in_fewer_events_with_every_relay_checked_in_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, next_deal: str) -> None:
    # Held until the step completes, however slow the machine is today: the count below does not hang on timing.
    monkeypatch.setattr(host.changelog, "RELAY_HOLD", 600.0)
    table = _table(tmp_path, "21", next_deal=next_deal)
    changes = _counting_changes(table)

    async def scenario(seats: Seats) -> None:
        for index, conn in enumerate(seats.conns):
            await conn.join(f"Seat{index}")
            seats.listen(index)
        _signs_last(seats.conns[LATE], table)
        await table.start()

        async def play(index: int) -> None:
            conn, bot = seats.conns[index], make_bot("random", 11 + index)
            async for view in conn.updates():
                if (view is not None and view.hand >= 4) or table.finished.is_set():
                    return
                if view is not None:
                    await bot_turn(conn, bot, view)

        await asyncio.wait_for(asyncio.gather(*(play(i) for i in range(4))), WAIT)
        _check(seats, changes)

    asyncio.run(_serve(table, scenario))


def _check(seats: Seats, changes: list[list[Posted]]) -> None:
    game = seats.table.game
    assert game is not None
    for index, conn in enumerate(seats.conns):
        assert conn.game is not None
        held = conn.game.chain_seq
        # Every chain entry, relays included, reached the seat once and in order, each checked as it arrived: the
        # seat's chain is the host's.
        assert conn.game.chain_hashes == [p.hash for p in game.chain[:held]]
        relays = sum(1 for p in game.chain[:held] if p.type == "Relay")
        assert relays >= 4 * 4 and conn.game.chain_types.count("Relay") == relays  # (header, KeySet, 2+ hands)
        # Before, every change of the game was one event to every seat; now a change of relays alone rides with the
        # next one.
        made = sum(1 for posted in changes if posted and posted[-1].seq <= held)
        got = seats.events[index]
        assert len(got) < made, (index, len(got), made)
        # ... such as the checkpoint's signatures with the HandOpen/DeckSealed that the last of them brought, and the
        # seals' signatures with the first move of the deal (the cut).
        together = [kinds for kinds in got if kinds[:4] == ["Relay"] * 4 and kinds[-1] != "Relay"]
        if not game.next_deal:
            assert any(kinds[4:] == ["HandOpen", "DeckSealed"] for kinds in together), got
            assert any(kinds[4] == "ActionAccepted" for kinds in together), got
            continue
        # With the next deal sealed in the checkpoint's round: the Checkpoint, HandOpen and DeckSealed in one event,
        # and all eight co-signatures (4 checkpoint, 4 seal) with the cut that the last of them brought.
        assert any(kinds[-3:] == ["Checkpoint", "HandOpen", "DeckSealed"] for kinds in got), got
        assert any(kinds[:8] == ["Relay"] * 8 and kinds[8] == "ActionAccepted" for kinds in got if len(kinds) > 8), got


def test_a_seat_that_never_signs_still_lets_the_others_see_the_first_signatures(tmp_path: Path) -> None:
    # (no step clock: the silent seat is not stood in for, the step stays open for as long as the test looks)
    table = _table(tmp_path, "11", step_timeout=0.0)

    async def scenario(seats: Seats) -> None:
        await table.add_bots(2, "random")
        signing, silent = seats.conns[0], seats.conns[1]
        await signing.join("Loisl")
        await silent.join("Vroni")

        async def never() -> None:
            return

        silent.send_automatic = never  # type: ignore[method-assign]
        await table.start()
        game = table.game
        assert game is not None

        def own_relay_seen() -> bool:
            # The signing seat's own HeaderSignature relayed back to it while the host still waits for the silent
            # seat: no change completes the step, so only the held change's own wake-up can have carried it.
            assert signing.game is not None
            return signing.game.chain_types.count("Relay") >= 3

        watcher = asyncio.ensure_future(_follow(silent, lambda: False))
        try:
            await asyncio.wait_for(_follow(signing, own_relay_seen), WAIT)
        finally:
            watcher.cancel()
        assert game.waiting_for() == (DealStep.HEADER, (silent.seat,))
        assert game.header_signed == {signing.seat, *table.bots}
        # The relays the signing seat holds are the three signatures, each checked against its sender's key.
        assert signing.game is not None and signing.game.chain_types[:4] == ["GameHeader", "Relay", "Relay", "Relay"]

    asyncio.run(_serve(table, scenario))


def test_a_stream_opened_while_relays_are_held_gets_them_in_its_snapshot_and_never_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table(tmp_path, "11", step_timeout=0.0, grace=600.0)

    async def scenario(seats: Seats) -> None:
        await table.add_bots(2, "random")
        early, late = seats.conns[0], seats.conns[1]
        await early.join("Loisl")
        await late.join("Vroni")
        sends, snapshots = [early.send_automatic, late.send_automatic], []

        async def not_yet() -> None:
            return

        early.send_automatic = late.send_automatic = not_yet  # type: ignore[method-assign]
        await table.start()
        game = table.game
        assert game is not None
        streams = [asyncio.ensure_future(_follow(conn, lambda: False)) for conn in (early, late)]
        try:
            # Both streams online and up to date with the bots' signatures (no lobby change to come); then, its
            # signature held for as long as the test looks, the early seat signs the header.
            await asyncio.wait_for(_until(lambda: all(
                conn.game is not None and conn.game.chain_seq == 3 and table.seats[conn.seat].online
                for conn in (early, late))), WAIT)
            monkeypatch.setattr(host.changelog, "RELAY_HOLD", 600.0)
            await sends[0]()
            # Its signature is held: no stream has sent it, or it would be sealed.
            held = table.changes.held
            assert held is not None and [p.type for p in held.posted] == ["Relay"]
            # The late seat, online all along, opens a new stream for a full snapshot (no lobby change): the
            # snapshot counts the held relays, and its own signature's change that follows reaches both streams
            # with nothing twice and nothing missing (each seat checks every chain link).
            streams[1].cancel()
            late.last_seq = 0
            late.on_update = lambda update: snapshots.append(update.snapshot) if update.HasField("snapshot") else None
            late.send_automatic = sends[1]  # type: ignore[method-assign]
            await asyncio.wait_for(_follow(late, lambda: late.game is not None and late.game.chain_seq >= 5), WAIT)
            await asyncio.wait_for(_until(lambda: early.game is not None and early.game.chain_seq >= 5), WAIT)
        finally:
            for stream in streams:
                stream.cancel()
        assert len(snapshots) == 1 and not snapshots[0].resumed
        assert "Relay" in [seats._type(entry) for entry in snapshots[0].chain]
        for conn in (early, late):
            assert conn.game is not None
            assert conn.game.chain_hashes == [p.hash for p in game.chain[:conn.game.chain_seq]]
            assert conn.game.chain_types[:5] == ["GameHeader"] + ["Relay"] * 4

    asyncio.run(_serve(table, scenario))


async def _follow(conn: Connection, until: Callable[[], bool]) -> None:
    async for _ in conn.updates():
        if until():
            return


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():  # (bounded by the caller's wait_for)
        await asyncio.sleep(0.01)
