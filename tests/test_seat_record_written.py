"""A seat's record is on disk after every stream event (before its answers leave), written once per event."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import grpc
import pytest

from client.connection import Connection, Refused, open_channel
from watten_net.record import RecordWriter, read_record
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_file

from netutil import start_host

pytestmark = pytest.mark.network

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
MAX_VIEWS = 3000  # a bound on the loop: a match to 11 against one bot takes a few hundred


def test_the_seat_record_holds_every_entry_after_each_event_in_one_write_per_event(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--record", str(records), "--set", "target=11")
    writes: list[int] = []  # entries per RecordWriter.extend call
    plain_extend = RecordWriter.extend

    def counted(self: RecordWriter, entries: Any) -> None:
        entries = list(entries)
        writes.append(len(entries))
        plain_extend(self, entries)

    monkeypatch.setattr(RecordWriter, "extend", counted)
    seen: dict[str, int] = {"views": 0, "submitted": 0, "behind": 0}

    async def play() -> None:
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True), record_dir=records)
        conn.on_submitted = lambda _kind, _seconds: seen.__setitem__("submitted", seen["submitted"] + 1)
        await conn.join("writer")
        rng = random.Random(3)
        async for view in conn.updates():
            seen["views"] += 1
            assert seen["views"] < MAX_VIEWS, "the match did not end"
            if conn.record_path is not None and conn.game is not None:
                _, on_disk = read_record(conn.record_path)  # another reader, the writer still open
                if [(e.kind, e.data) for e in on_disk] != [(e.kind, e.data) for e in conn.game.record]:
                    seen["behind"] += 1
            if view.table.phase in FINISHED:
                break
            if conn.seat in view.to_act and view.legal_actions:
                try:
                    await conn.act(rng.choice(list(view.legal_actions)))
                except Refused as err:
                    assert err.code == grpc.StatusCode.FAILED_PRECONDITION, err
        await conn.close()

    try:
        asyncio.run(asyncio.wait_for(play(), 120))
        assert host.wait(60) == 0, host.output()
    finally:
        host.stop()
    assert seen["behind"] == 0, f"{seen['behind']} views came before the seat's record held what it had checked"
    # One write per stream event that brought entries (and one per accepted envelope of the seat's own), not one per
    # entry: some events bring several entries (a deal, a hand's end), each such event still one write.
    entries = sum(writes) - 1  # (the metadata entry is written on its own when the record is made)
    assert len(writes) <= seen["views"] + seen["submitted"] + 1, (len(writes), seen)
    assert max(writes) > 1 and len(writes) < entries, writes
    seat_record = [p for p in records.glob("*.wrec") if read_record(p)[0].get("written_by") == "watten-join"]
    assert len(seat_record) == 1, seat_record
    report = verify_file(str(seat_record[0]))
    assert report.ok, [p.sentence() for p in report.errors]
