"""Several tables on one host (`watten-host --tables N`): listed, joined by id or by default, played side by side,
kept apart (a seat token acts only at its own table), and resumed together after a crash.

Real processes on 127.0.0.1: the host, `watten-join --bot` clients, and in-process `Connection`s where the test
needs a token of its own.
"""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest

from client.connection import Connection, Refused
from watten_net.bots import make_bot
from watten_net.record import KIND_OWN
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_file

from netutil import bot_turn, isolated_env, start, start_host, wait_until

pytestmark = pytest.mark.network

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
TARGET = "target=5"  # short matches: a few hands each


async def _play(conn: Connection, seed: int) -> int:
    """Play the seat with a random bot until the match is over (as `watten-join --bot` does); the final phase."""
    bot = make_bot("random", seed)
    phase = 0
    async for view in conn.follow(give_up_after=30):
        if view is None:
            continue
        phase = int(view.table.phase)
        if phase in FINISHED:
            break
        await bot_turn(conn, bot, view)
    await conn.send_automatic()
    return phase


async def _refusal(call: object) -> tuple[grpc.StatusCode, str]:
    try:
        await call  # type: ignore[misc]
    except Refused as err:
        return err.code, err.reason
    return grpc.StatusCode.OK, ""


def test_three_tables_two_matches_side_by_side_tokens_stay_at_their_table(tmp_path: Path) -> None:
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--tables", "3", "--players", "2",
                            "--record", str(records), "--set", TARGET)
    env = isolated_env(tmp_path)
    clients = []

    async def scenario() -> tuple[str, str]:
        target = f"127.0.0.1:{port}"
        x = Connection(grpc.aio.insecure_channel(target), record_dir=records)
        y = Connection(grpc.aio.insecure_channel(target), record_dir=records)
        try:
            tables = await x.list_tables()
            assert len(tables) == 3
            ids = [t.table_id for t in tables]
            assert len(set(ids)) == 3 and all(ids)
            assert all(t.phase == pb.TABLE_PHASE_LOBBY and t.player_count == 2 for t in tables)
            a, b, _c = ids

            # An id the host does not run: refused with the documented reason, by GetTable and Join alike.
            assert await _refusal(x.table("no-such-table")) == (grpc.StatusCode.FAILED_PRECONDITION, "unknown-table")
            assert await _refusal(x.join("x", table_id="no-such-table")) == (
                grpc.StatusCode.FAILED_PRECONDITION, "unknown-table")
            assert (await x.table(b)).table_id == b

            # No id: the first table still in its lobby with a free seat (here the first); an id: that table.
            assert await x.join("x") == 0 and x.table_id == a
            assert await y.join("y", table_id=b) == 0 and y.table_id == b
            # The bots: one names table B; one names none and so lands at A, the first with a free seat.
            clients.append(start("client.main", ["--bot", "random", "--seed", "1", "--insecure", "--record",
                                                 str(records), "--table", b, target], env))
            clients.append(start("client.main", ["--bot", "random", "--seed", "2", "--insecure", "--record",
                                                 str(records), target], env))
            plays = [asyncio.ensure_future(_play(x, 3)), asyncio.ensure_future(_play(y, 4))]

            # Once both games have begun: Y's own accepted envelope, sent with X's token, goes to X's table,
            # which refuses it (another game); sent with Y's token it is the harmless retry the proto promises.
            # X's match may well be over before table B's bot process has even started (a loaded CI machine), so
            # this waits for both games, stopping early only when a play has failed (its error is the one to see).
            deadline = time.monotonic() + 90
            while not (_own(x) and _own(y)) and time.monotonic() < deadline:
                failed = [p for p in plays if p.done() and p.exception() is not None]
                if failed:
                    await failed[0]
                await asyncio.sleep(0.02)
            assert _own(x) and _own(y), "both games should have begun within 90 s"
            envelope = _own(y)[-1]
            crossed = x._call(x.stub.SubmitEnvelope, pb.SubmitEnvelopeRequest(token=x.token, envelope=envelope), 5)
            assert await _refusal(crossed) == (grpc.StatusCode.FAILED_PRECONDITION, "wrong-game")
            own = y._call(y.stub.SubmitEnvelope, pb.SubmitEnvelopeRequest(token=y.token, envelope=envelope), 5)
            assert await _refusal(own) == (grpc.StatusCode.OK, "")
            # Every token-only call finds the caller's own table.
            ready = x._call(x.stub.Ready, pb.ReadyRequest(token=y.token, ready=True), 5)
            assert await _refusal(ready) == (grpc.StatusCode.FAILED_PRECONDITION, "game-started")
            assert await _refusal(x._call(x.stub.Start, pb.StartRequest(token="made-up"), 5)) == (
                grpc.StatusCode.UNAUTHENTICATED, "bad-token")

            phases = await asyncio.wait_for(asyncio.gather(*plays), 120)
            assert phases == [pb.TABLE_PHASE_MATCH_OVER] * 2
            assert x.view.table.table_id == a and y.view.table.table_id == b
            after = {t.table_id: t.phase for t in await x.list_tables()}
            assert after == {a: pb.TABLE_PHASE_MATCH_OVER, b: pb.TABLE_PHASE_MATCH_OVER, _c: pb.TABLE_PHASE_LOBBY}
            return a, b
        finally:
            await x.close()
            await y.close()

    try:
        a, b = asyncio.run(scenario())
        for client in clients:
            assert client.wait(60) == 0, client.output()
    finally:
        for p in (host, *clients):
            p.stop()

    # Two games, three records each (host, two seats), named by table id on the host's side; all verify.
    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == 6, paths
    reports = {p.name: verify_file(str(p)) for p in paths}
    for name, report in reports.items():
        assert report.ok, (name, [e.sentence() for e in report.errors])
    games = {r.game_id for r in reports.values()}
    assert len(games) == 2
    for game in games:
        same = [r for r in reports.values() if r.game_id == game]
        assert len(same) == 3 and len({tuple(r.final_scores) for r in same}) == 1
        assert max(same[0].final_scores) >= 5
    host_records = [n for n in reports if n.endswith("-host.wrec")]
    assert {n.split("-table-")[1].removesuffix("-host.wrec") for n in host_records} == {a, b}


def accepted(journal: Path) -> list[Any]:
    """A running game's journal's entries (none while its metadata is not written yet, or once it is moved aside)."""
    from host.journal import JournalError, read_journal

    try:
        return list(read_journal(journal)[1])
    except (OSError, JournalError):
        return []


def _own(conn: Connection) -> list[bytes]:
    return [] if conn.game is None else [e.data for e in conn.game.record if e.kind == KIND_OWN]


def test_a_crashed_host_resumes_every_table_it_was_playing(tmp_path: Path) -> None:
    """kill -9 while two all-bot tables play; a plain restart resumes both journals; both records verify."""
    records = tmp_path / "records"
    env = isolated_env(tmp_path)
    host, port = start_host(tmp_path, "--headless", "--insecure", "--tables", "2", "--players", "2", "--bots", "2",
                            "--record", str(records), "--set", "target=11", "--bot-delay", "0.02")
    journals = tmp_path / "data" / "journal"
    try:
        # Some way into both games (a condition, not a fixed pause: on a busy machine 0.3 s was the start alone)
        wait_until(lambda: len(list(journals.glob("*.wjournal"))) == 2 and all(
            len(accepted(path)) > 12 for path in journals.glob("*.wjournal")), "both games under way", unless=host)
        host.proc.send_signal(signal.SIGKILL)
        host.proc.wait(10)
        host = start("host.main", ["--headless", "--insecure", "--bind", "127.0.0.1", "--bot-delay", "0.02"], env)
        host.wait_for_line(rf"on port {port}")
        assert host.wait(120) == 0, host.output()
    finally:
        host.stop()
    output = host.output()
    assert output.count("resuming the unfinished game") == 2, output
    assert output.count("match over") == 2, output
    paths = sorted(records.glob("*-host.wrec"))
    assert len(paths) == 2, paths
    for path in paths:
        report = verify_file(str(path))
        assert report.ok, [e.sentence() for e in report.errors]
        assert max(report.final_scores) >= 11


def test_a_host_with_matches_opens_a_fresh_table_in_place_of_each_finished_one(tmp_path: Path) -> None:
    """`--tables 2 --matches 2` (the bounded form of --keep-serving): after each table's match a fresh table, with a
    new id, takes its place in ListTables; the finished table is gone (its id unknown, its tokens refused); the fresh
    tables play the second matches; the host exits 0 after them; all eight records verify."""
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--tables", "2", "--players", "2", "--bots", "1",
                            "--matches", "2", "--record", str(records), "--set", TARGET)
    env = isolated_env(tmp_path)
    target = f"127.0.0.1:{port}"
    first = list(host.wait_for_line(r"2 tables: (\w+) (\w+)").groups())
    clients = []

    def bot(seed: int, table_id: str) -> None:
        clients.append(start("client.main", ["--bot", "random", "--seed", str(seed), "--insecure", "--record",
                                             str(records), "--table", table_id, target], env))

    async def scenario() -> list[str]:
        x = Connection(grpc.aio.insecure_channel(target), record_dir=records)
        try:
            assert await x.join("x", table_id=first[0]) == 1  # seat 0 is the host's bot
            bot(1, first[1])
            assert await asyncio.wait_for(_play(x, 2), 120) == pb.TABLE_PHASE_MATCH_OVER
            # The other table's match (its bot client started after X joined) may still be on; and a fresh table is
            # listed a moment before the host's bot has taken its seat: wait for both places to be ready.
            fresh: list[str] = []
            listed: list[Any] = []
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                listed = await x.list_tables()
                fresh = [t.table_id for t in listed if t.table_id not in first]
                if len(fresh) == 2 and all(t.seats[0].bot for t in listed):
                    break
                await asyncio.sleep(0.05)
            # Both places hold fresh tables now, in the same order, in their lobbies with the host's bot seated.
            assert [t.table_id for t in listed] == fresh and len(set(fresh)) == 2, (first, listed)
            assert all(t.phase == pb.TABLE_PHASE_LOBBY and t.seats[0].bot and not t.seats[1].occupied
                       for t in listed)
            # The finished table is released: unknown by id, and a seat token of it is refused.
            assert await _refusal(x.table(first[0])) == (grpc.StatusCode.FAILED_PRECONDITION, "unknown-table")
            ready = x._call(x.stub.Ready, pb.ReadyRequest(token=x.token, ready=True), 5)
            assert await _refusal(ready) == (grpc.StatusCode.UNAUTHENTICATED, "bad-token")
            return fresh
        finally:
            await x.close()

    try:
        fresh = asyncio.run(scenario())
        for seed, table_id in enumerate(fresh, start=3):
            bot(seed, table_id)
        assert host.wait(120) == 0, host.output()  # two bot clients start, then both second matches
        for client in clients:
            assert client.wait(30) == 0, client.output()
    finally:
        for p in (host, *clients):
            p.stop()
    output = host.output()
    assert output.count("match over") == 4 and output.count("opened (in place of a finished one)") == 2, output

    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == 8, paths  # four matches: the host's record and one seat's each (seat 0 is the host's bot)
    for path in paths:
        report = verify_file(str(path))
        assert report.ok, (path.name, [e.sentence() for e in report.errors])
        assert max(report.final_scores) >= 5
    hosts = [p.name for p in paths if p.name.endswith("-host.wrec")]
    assert {name.split("-table-")[1].removesuffix("-host.wrec") for name in hosts} == {*first, *fresh}


def test_a_released_table_keeps_only_its_final_info_and_its_successor_its_settings(tmp_path: Path) -> None:
    """In process: an all-bot table plays to the end; `successor()` copies rules and every setting under a new id;
    `release()` drops the log, the game and the bots' games, and `info()` still tells how the table ended."""
    from host.server import WattenTableService
    from host.table import Table, TableSettings
    from watten_net.engine import Rules

    async def scenario() -> None:
        table = Table(TableSettings(Rules.preset("bavarian", 2).with_flag("target", "5"), preset="bavarian",
                                    reveal="hand-end", record_dir=tmp_path, host_name="here", grace=7.0,
                                    step_timeout=9.0))
        table.autostart, table.index, table.port, table.host_run = True, 3, 4242, "run"
        table.journal_path = tmp_path / "journal" / f"{table.table_id}.wjournal"
        service = WattenTableService([table])
        await table.add_bots(2, "random")
        await asyncio.wait_for(table.finished.wait(), 60)
        assert table.people_saw_end()  # nobody but the host's bots
        before = table.info()
        assert before.phase == pb.TABLE_PHASE_MATCH_OVER and table.log and table.game is not None

        fresh = table.successor()
        assert fresh.table_id != table.table_id and fresh.rules == table.rules
        settings = fresh.settings
        assert settings.host_key is table.settings.host_key
        assert (settings.preset, settings.reveal, settings.record_dir, settings.host_name, settings.grace,
                settings.step_timeout) == ("bavarian", "hand-end", tmp_path, "here", 7.0, 9.0)
        assert (fresh.index, fresh.port, fresh.host_run, fresh.autostart) == (3, 4242, "run", True)
        assert fresh.journal_path == tmp_path / "journal" / f"{fresh.table_id}.wjournal"
        assert fresh.info().phase == pb.TABLE_PHASE_LOBBY and not any(s.occupied for s in fresh.info().seats)

        service.replace(table, fresh)
        await table.release()
        assert service.tables == [fresh] and table.table_id not in service.by_id
        assert table.log == [] and table.game is None and all(b.game is None for b in table.bots.values())
        assert table.info() == before
        await table.set_online(0, False)  # a straggler's change is dropped, not logged
        assert table.log == []

    asyncio.run(scenario())
