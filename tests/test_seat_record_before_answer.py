"""Every answer a seat sends (its protocol steps and its actions, each a SubmitEnvelope) leaves only once the seat's
record on disk holds everything the seat has checked: the record is written once per stream event now
(client/connection.py `_flush_record`), and an answer must never get ahead of it (a seat killed right after it
sent something would otherwise have no record of what it answered)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import grpc
import pytest

from client.connection import Connection, Refused, open_channel
from watten_net.record import read_record
from watten_net.v1 import watten_pb2 as pb

from netutil import start_host

pytestmark = pytest.mark.network

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
MAX_VIEWS = 3000  # a bound on the loop: a match to 11 against one bot takes a few hundred


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
            # (an answer made before the game's header has no record yet: nothing to hold)
            if conn.record_path is not None and conn.game is not None:
                seen["answers"] += 1
                _, on_disk = read_record(conn.record_path)
                if [(e.kind, e.data) for e in on_disk] != [(e.kind, e.data) for e in conn.game.record]:
                    seen["ahead"] += 1
            return submit(request, **kwargs)

        conn.stub.SubmitEnvelope = watched
        rng = random.Random(5)
        async for view in conn.updates():
            seen["views"] += 1
            assert seen["views"] < MAX_VIEWS, "the match did not end"
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
    assert seen["answers"] > 20, seen  # (the keys, the signatures of every deal, the checkpoints, the actions)
    assert seen["ahead"] == 0, f"{seen['ahead']} of {seen['answers']} answers left before the record held them"
