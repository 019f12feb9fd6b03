"""Every answer a seat sends (its protocol steps and its actions, each a SubmitEnvelope) leaves only once the seat's
record on disk holds everything the seat has checked: the record is written once per stream event now
(client/connection.py `_flush_record`), and an answer must never get ahead of it (a seat killed right after it
sent something would otherwise have no record of what it answered)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from client.connection import Connection, open_channel

from netutil import play_randomly_to_the_end, record_on_disk_behind, run_then_host_ends, start_host

pytestmark = pytest.mark.network


def test_no_answer_of_the_seat_leaves_before_its_record_holds_what_it_checked(tmp_path: Path) -> None:
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--record", str(records), "--set", "target=11")
    seen = {"answers": 0, "ahead": 0, "views": 0}

    async def play() -> None:
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True), record_dir=records)
        await conn.join("writer")
        submit = conn.stub.SubmitEnvelope

        def watched(request: Any, **kwargs: Any) -> Any:
            behind = record_on_disk_behind(conn)
            if behind is not None:  # (an answer made before the game's header has no record yet: nothing to hold)
                seen["answers"] += 1
                seen["ahead"] += behind
            return submit(request, **kwargs)

        conn.stub.SubmitEnvelope = watched
        seen["views"] = await play_randomly_to_the_end(conn, random.Random(5))
        await conn.close()

    run_then_host_ends(host, play(), 120)
    assert seen["answers"] > 20, seen  # (the keys, the signatures of every deal, the checkpoints, the actions)
    assert seen["ahead"] == 0, f"{seen['ahead']} of {seen['answers']} answers left before the record held them"
