"""Play again at the same table, and the lobby the host arranges (issue 13 items 3 and 4): a real headless host and
in-process `Connection`s over loopback gRPC.

Two whole matches at one table (same id, same seats, a new game id; every record verifies); a person leaving between
matches frees the seat and a newcomer takes it; ChooseSeat and SetName, and each of their refusals.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import grpc
import grpc.aio
import pytest

from client.connection import Connection, Refused
from watten_net.bots import make_bot
from watten_net.deal.series import Series
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import check_series, verify_file

from netutil import bot_turn, isolated_env, start, start_host

pytestmark = pytest.mark.network

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
TARGET = "target=3"  # short matches


async def _play(conn: Connection, seed: int, after: bytes = b"") -> tuple[int, bytes]:
    """Play the seat with a random bot until its match (not the game `after`) is over; (the final phase, its id)."""
    phase, game_id, _ = await _play_to_end(conn, seed, after)
    return phase, game_id


async def _play_to_end(conn: Connection, seed: int, after: bytes = b"") -> tuple[int, bytes, list[int]]:
    """`_play`, and the series' Bummerl per side that the last view showed."""
    bot = make_bot("random", seed)
    async for view in conn.follow(give_up_after=30):
        if view is None:
            continue
        if view.table.phase in FINISHED and view.table.game_id not in (b"", after):
            await conn.send_automatic()
            return int(view.table.phase), bytes(view.table.game_id), [side.bummerl for side in view.sides]
        await bot_turn(conn, bot, view)
    raise AssertionError("the stream ended before the match did")


async def _refusal(call: object) -> tuple[grpc.StatusCode, str]:
    try:
        await call  # type: ignore[misc]
    except Refused as err:
        return err.code, err.reason
    return grpc.StatusCode.OK, ""


async def _wait_phase(conn: Connection, table_id: str, phase: int) -> pb.TableInfo:
    for _ in range(600):
        info = await conn.table(table_id)
        if info.phase == phase:
            return info
        await asyncio.sleep(0.05)
    raise AssertionError(f"table never reached phase {phase}")


def test_two_matches_at_one_table_new_game_id_every_record_verifies(tmp_path: Path) -> None:
    """Both people ask for another match ([n] is Ready after the end): the same table plays it, same seats, a new
    game id; each person follows into it on its connection with a new record; all six records verify. The score's
    Bummerl go on from the first match's (PROTOCOL.md: the next match carries the Bummerl over): the second match's
    signed header names the first game and those Bummerl, checked by each seat and by watten-verify."""
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "4", "--bots", "2", "--matches", "2",
                            "--record", str(records), "--set", TARGET)
    target = f"127.0.0.1:{port}"

    marks: list[tuple[list[int], list[int]]] = []

    async def person(name: str, seed: int, first_seen: list[bytes]) -> list[bytes]:
        conn = Connection(grpc.aio.insecure_channel(target), record_dir=records)
        try:
            await conn.join(name)
            seat, table_id = conn.seat, conn.table_id
            phase, first, first_marks = await asyncio.wait_for(_play_to_end(conn, seed), 180)
            assert phase == pb.TABLE_PHASE_MATCH_OVER
            first_seen.append(first)
            first_record = conn.record_path
            await conn.again()
            phase, second, second_marks = await asyncio.wait_for(_play_to_end(conn, seed + 10, first), 180)
            assert phase == pb.TABLE_PHASE_MATCH_OVER
            marks.append((first_marks, second_marks))
            # The second match's signed header names the first game and the Bummerl it left, and this seat, which
            # played the first match, compared them with what it saw (else it would have refused the header).
            assert conn.game is not None and conn.game.follows == Series(first, tuple(first_marks))
            header = conn.game.header
            assert bytes(header.previous_game_id) == first and list(header.bummerl_carried) == first_marks
            assert (conn.seat, conn.table_id) == (seat, table_id)  # the same seat at the same table
            assert conn.record_path != first_record and first_record is not None
            return [first, second]
        finally:
            await conn.close()

    async def both() -> list[list[bytes]]:
        seen: list[bytes] = []
        return list(await asyncio.gather(person("Resi", 1, seen), person("Hias", 2, seen)))

    try:
        games = asyncio.run(both())
        assert host.wait(60) == 0, host.output()
    finally:
        host.stop()
    assert games[0] == games[1] and games[0][0] != games[0][1], games  # one table, two games
    for first_marks, second_marks in marks:  # each match gives the losers a Bummerl; the second adds to the first's
        assert len(first_marks) == len(second_marks) == 2 and sum(first_marks) >= 1, marks
        assert all(b >= a for a, b in zip(first_marks, second_marks, strict=True)), marks
        assert sum(second_marks) > sum(first_marks), marks
    output = host.output()
    assert output.count("match over") == 2 and "opened (in place" not in output, output
    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == 6, paths  # per match: the host's record and both people's
    reports = {path: verify_file(str(path)) for path in paths}
    check_series(list(reports.values()))  # (watten-verify given them all: each next match carries the last's on)
    assert sorted(r.series.previous_game_id for r in reports.values()) == [b""] * 3 + [games[0][0]] * 3
    for game_id in games[0]:  # (a record is named by its game's fingerprint; the report names the game id)
        assert sum(r.game_id == game_id.hex() for r in reports.values()) == 3, (game_id.hex(), paths)
    for path, report in reports.items():
        assert report.ok, (path.name, [e.sentence() for e in report.errors])


def test_leaving_between_matches_frees_the_seat_and_a_newcomer_takes_it(tmp_path: Path) -> None:
    """After the match one person leaves: the table is back in its lobby with that seat free (the other's "again"
    kept); a newcomer joins it and says Ready, and the same table plays its second match."""
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--matches", "2",
                            "--record", str(records), "--set", TARGET)
    target = f"127.0.0.1:{port}"

    async def scenario() -> None:
        stays = Connection(grpc.aio.insecure_channel(target), record_dir=records)
        goes = Connection(grpc.aio.insecure_channel(target), record_dir=records)
        late = Connection(grpc.aio.insecure_channel(target), record_dir=records)
        try:
            await stays.join("Resi")
            await goes.join("Loisl")
            table_id = stays.table_id
            first = await asyncio.gather(_play(stays, 1), _play(goes, 2))
            await stays.again()
            await goes.leave()
            info = await _wait_phase(stays, table_id, pb.TABLE_PHASE_LOBBY)
            assert not info.seats[goes.seat].occupied and info.seats[stays.seat].ready and not info.game_id
            # The seat is free: the newcomer takes it (a Join at a table that played already); the headless host
            # starts the full table.
            assert await late.join("Burgi", table_id=table_id) == goes.seat
            second = await asyncio.gather(_play(stays, 3, first[0][1]), _play(late, 4, first[0][1]))
            assert second[0] == second[1] and second[0][1] != first[0][1]
            assert (await stays.table(table_id)).seats[goes.seat].name == "Burgi"
        finally:
            for conn in (stays, goes, late):
                await conn.close()

    try:
        asyncio.run(scenario())
        assert host.wait(60) == 0, host.output()
    finally:
        host.stop()
    for path in sorted(records.glob("*.wrec")):
        assert verify_file(str(path)).ok, path.name


def test_a_host_killed_between_matches_keeps_the_table_and_plays_the_next_match(tmp_path: Path) -> None:
    """kill -9 after the first match: the journal holds the table between matches (its seats, tokens, bots); a plain
    restart opens the same table in its lobby, the person's token still holds the seat, "again" starts match 2."""
    records = tmp_path / "records"
    journals = tmp_path / "data" / "journal"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1", "--matches", "2",
                            "--record", str(records), "--set", TARGET)
    target = f"127.0.0.1:{port}"
    conn: list[Connection] = []

    async def first_match() -> tuple[bytes, str]:
        conn.append(Connection(grpc.aio.insecure_channel(target), record_dir=records))
        await conn[0].join("Resi")
        _, game = await asyncio.wait_for(_play(conn[0], 1), 180)
        return game, conn[0].table_id

    async def second_match(first: bytes) -> bytes:
        me = conn[0]
        try:
            await me.again()  # the same token, at the restarted host
            _, game = await asyncio.wait_for(_play(me, 2, first), 180)
            return game
        finally:
            await me.close()

    loop = asyncio.new_event_loop()
    try:
        first, table_id = loop.run_until_complete(first_match())
        lobby = journals / f"{table_id}-lobby.wjournal"
        for _ in range(100):
            if lobby.exists():
                break
            loop.run_until_complete(asyncio.sleep(0.05))
        assert lobby.exists(), sorted(journals.iterdir())
        host.proc.send_signal(signal.SIGKILL)
        host.proc.wait(10)
        host = start("host.main", ["--headless", "--insecure", "--bind", "127.0.0.1", "--matches", "2"],
                     isolated_env(tmp_path))
        host.wait_for_line(rf"on port {port}")
        second = loop.run_until_complete(second_match(first))
    finally:
        loop.close()
        host.stop()
    assert second != first
    from host.journal import read_journal

    # After the second match the restarted host (--matches 2: it may play one more) keeps the table between matches.
    meta, _ = read_journal(lobby)
    assert meta["between_matches"] and meta["match"] == 2 and meta["table_id"] == table_id
    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == 4, paths  # per match: the host's record and the person's
    for path in paths:
        assert verify_file(str(path)).ok, path.name


def test_choose_seat_and_set_name_and_every_refusal(tmp_path: Path) -> None:
    """ChooseSeat moves a person to a free seat (the stream follows to the new seat), SetName renames; refused:
    a seat taken, a seat out of range, a bad name, no token or a token the host never gave, and both once the game
    has started. A refusal changes nothing."""
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "4", "--set", TARGET)
    target = f"127.0.0.1:{port}"

    async def scenario() -> None:
        a = Connection(grpc.aio.insecure_channel(target))
        b = Connection(grpc.aio.insecure_channel(target))
        try:
            assert await a.join("Resi") == 0 and await b.join("Hias") == 1
            assert await a.choose_seat(2) == 2
            await a.set_name("Theres")
            info = await a.table(a.table_id)
            assert [s.name for s in info.seats] == ["", "Hias", "Theres", ""]
            assert await a.choose_seat(2) == 2  # the same seat: nothing changes
            before = await a.table(a.table_id)
            refusals = [
                (a.choose_seat(1), (grpc.StatusCode.FAILED_PRECONDITION, "seat-taken")),
                (a.choose_seat(4), (grpc.StatusCode.INVALID_ARGUMENT, "bad-seat")),
                (a.choose_seat(-1), (grpc.StatusCode.INVALID_ARGUMENT, "bad-seat")),
                (a.set_name(""), (grpc.StatusCode.INVALID_ARGUMENT, "bad-name")),
                (a.set_name("\u202e\x1b"), (grpc.StatusCode.INVALID_ARGUMENT, "bad-name")),
                (a.set_name("x" * 33), (grpc.StatusCode.INVALID_ARGUMENT, "bad-name")),
            ]
            for call, expected in refusals:
                assert await _refusal(call) == expected
            stub = a.stub
            no_token = stub.ChooseSeat(pb.ChooseSeatRequest(token="", seat=3))
            bad_token = stub.SetName(pb.SetNameRequest(token="not-a-token", name="Sepp"))
            for call, reason in ((no_token, "no-token"), (bad_token, "bad-token")):
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await call
                assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED, reason
            after = await a.table(a.table_id)
            assert list(after.seats) == list(before.seats)  # nothing changed
            # The stream follows the move: the view is seat 2's.
            async for view in a.follow(give_up_after=10):
                if view is not None:
                    assert view.your_seat == 2
                    break
            c = Connection(grpc.aio.insecure_channel(target))
            d = Connection(grpc.aio.insecure_channel(target))
            try:
                await c.join("Vroni")
                await d.join("Burgi")  # full: the headless host starts
                await _wait_phase(a, a.table_id, pb.TABLE_PHASE_STARTING)  # (nobody signs: it stays there)
                assert await _refusal(a.choose_seat(3)) == (grpc.StatusCode.FAILED_PRECONDITION, "game-started")
                assert await _refusal(a.set_name("Sepp")) == (grpc.StatusCode.FAILED_PRECONDITION, "game-started")
            finally:
                await c.close()
                await d.close()
        finally:
            await a.close()
            await b.close()

    try:
        asyncio.run(scenario())
    finally:
        host.stop()
