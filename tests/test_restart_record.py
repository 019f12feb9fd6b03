"""A restarted client keeps what it recorded before: the host cannot rewrite a seat's history behind a restart.

A seat's record is its evidence against the host: two host envelopes signed at one chain seq are a proven dispute
(PROTOCOL.md, Disputes). A restarted `watten-join` opens the record of the game it rejoins under the same name (the
game's fingerprint and the seat) and writes it anew from the host's catch-up; it used to truncate the old file
first, so a host that showed the seat one envelope at a seq before the restart and another one after it left no
trace, and the seat played on in the history the host rewrote. The host here is real (a process, over gRPC); what
it showed the victim before the restart is written into the victim's record with the host's own key, as a host
that equivocates would have shown it (the victim's client cannot tell the difference).
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import grpc
import pytest

from client.connection import Connection, Refused, open_channel
from watten_net.deal.envelope import envelope_hash
from watten_net.deal.identity import load_or_create_identity
from watten_net.deal.protocol import HOST_SEAT, make_envelope, parse_envelope
from watten_net.record import KIND_HOST, KIND_NOTE, Entry, encode_entries, read_record
from watten_net.refusal import HostBrokeProtocol
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import EXIT_CODES, FAILED, verify_file
from watten_net.verify import main as verify_main

from netutil import start_host

pytestmark = pytest.mark.network

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)


async def _play(conn: Connection, rng: random.Random, until_tricks: bool) -> None:
    """Follow and play randomly; `until_tricks`: stop (as a killed client stops) once a trick is on the table."""
    async for view in conn.follow(give_up_after=30):
        if view is None:
            continue
        if view.table.phase in FINISHED or (until_tricks and view.tricks):
            return
        if conn.seat in view.to_act and view.legal_actions:
            try:
                await conn.act(rng.choice(list(view.legal_actions)))
            except Refused as err:
                assert err.code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNAVAILABLE), err


def _other_envelope_at_the_last_seq(path: Path, host_key_path: Path, victim: int) -> bytes:
    """The victim's record as a host that equivocated left it: its last chain envelope replaced by another one the
    host signed at the same seq on the same head (a StandIn of the victim). Returns that envelope's hash."""
    meta, entries = read_record(path)
    last = max(i for i, e in enumerate(entries) if e.kind == KIND_HOST)
    was = parse_envelope(entries[last].data, host=True).envelope
    other = make_envelope(load_or_create_identity(host_key_path), bytes(was.game_id), int(was.seq),
                          bytes(was.prev_hash), HOST_SEAT, pb.StandIn(seat=victim, active=True))
    path.write_bytes(encode_entries(meta, [*entries[:last], Entry(KIND_HOST, other)]))
    return envelope_hash(other)


def test_a_restarted_seat_keeps_its_record_and_stops_at_a_rewritten_history(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records, secrets = tmp_path / "records", tmp_path / "secrets"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--record", str(records), "--set", "target=11", "--grace", "60")
    key = load_or_create_identity(tmp_path / "victim.key")
    caught: list[HostBrokeProtocol] = []

    async def connect() -> Connection:
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True), key=key, record_dir=records)
        conn.secrets_dir = secrets
        await conn.join("victim")
        return conn

    async def scenario() -> tuple[Path, bytes]:
        first = await connect()
        await _play(first, random.Random(1), until_tricks=True)
        await first.close()  # (killed: nothing more of it; its record holds what it received)
        assert first.record_path is not None
        shown = _other_envelope_at_the_last_seq(first.record_path, tmp_path / "config" / "host" / "identity.key",
                                                first.seat)
        again = await connect()
        try:
            await _play(again, random.Random(2), until_tricks=False)
        except HostBrokeProtocol as err:
            caught.append(err)
        await again.close()
        return first.record_path, shown

    try:
        path, shown = asyncio.run(asyncio.wait_for(scenario(), 120))
    finally:
        host.stop()
    assert caught and caught[0].reason == "fork", "the restarted seat played on in the history the host rewrote"
    kept = sorted(records.glob(f"{path.stem}.before-restart*.wrec"))
    assert len(kept) == 1, kept  # the record of before the restart, not overwritten: the host's other envelope
    _, entries = read_record(kept[0])
    assert shown in {envelope_hash(e.data) for e in entries if e.kind == KIND_HOST}
    assert not verify_file(str(path)).ok  # (the new record stops at the fork, before the match's end)
    # the records folder given to watten-verify: the seat's two records hold two host envelopes at one seq
    assert verify_main([str(records)]) == EXIT_CODES[FAILED]
    assert "it showed two different chains" in capsys.readouterr().out


def test_an_honest_restart_leaves_one_record_that_keeps_the_seats_notes(tmp_path: Path) -> None:
    """The same history after the restart: the file aside goes once the catch-up has matched it, and what only the
    seat wrote there (here a note, as a claimed dispute leaves one) is in the new record, which verifies."""
    records, secrets = tmp_path / "records", tmp_path / "secrets"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--record", str(records), "--set", "target=11", "--grace", "60")
    key = load_or_create_identity(tmp_path / "seat.key")
    note = pb.SeatNote(chain_seq=3, says="the host says this seat is away, but it is connected")

    async def connect() -> Connection:
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True), key=key, record_dir=records)
        conn.secrets_dir = secrets
        await conn.join("back again")
        return conn

    async def scenario() -> Path:
        first = await connect()
        await _play(first, random.Random(3), until_tricks=True)
        await first.close()
        assert first.record_path is not None
        meta, entries = read_record(first.record_path)
        first.record_path.write_bytes(encode_entries(meta, [*entries, Entry(KIND_NOTE, note.SerializeToString())]))
        again = await connect()
        await _play(again, random.Random(4), until_tricks=False)
        await again.send_automatic()
        await again.close()
        return first.record_path

    try:
        path = asyncio.run(asyncio.wait_for(scenario(), 120))
        assert host.wait(60) == 0, host.output()
    finally:
        host.stop()
    assert not list(records.glob("*.before-restart*")), list(records.iterdir())
    report = verify_file(str(path))
    assert report.verdict == "disputed-claimed", (report.verdict, [e.sentence() for e in report.errors])
    assert any(note.says in said for said in report.notes), report.notes
