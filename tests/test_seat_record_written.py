"""A seat's record is on disk after every stream event (before its answers leave), written once per event."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from client.connection import Connection, open_channel
from watten_net.record import RecordWriter, read_record
from watten_net.verify import verify_file

from netutil import play_randomly_to_the_end, record_on_disk_behind, run_then_host_ends, start_host

pytestmark = pytest.mark.network


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

        def check_the_record(_view: Any) -> None:
            seen["behind"] += bool(record_on_disk_behind(conn))

        seen["views"] = await play_randomly_to_the_end(conn, random.Random(3), check_the_record)
        await conn.close()

    run_then_host_ends(host, play(), 120)
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
