"""A dropped connection: the client says it is reconnecting, resumes the stream where it left, plays on."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import grpc
import pytest

from client.connection import Connection, Refused, open_channel
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_file

from netutil import Proxy, run_then_host_ends, start_host

pytestmark = pytest.mark.network

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)


def test_a_dropped_connection_is_resumed_and_the_match_finishes_verified(tmp_path: Path) -> None:
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--record", str(records), "--set", "target=11")
    states: list[str] = []

    async def play() -> None:
        proxy = Proxy(port)
        await proxy.start()
        conn = Connection(await open_channel("127.0.0.1", proxy.port, insecure=True), record_dir=records)
        await conn.join("commuter")
        rng = random.Random(7)
        cut_done = False
        async for view in conn.follow(on_state=states.append, give_up_after=30):
            if view is None:
                continue
            if view.table.phase in FINISHED:
                break
            if not cut_done and view.tricks:
                cut_done = True  # mid-hand: the line goes down for a moment
                proxy.cut()
                asyncio.get_running_loop().call_later(1.5, proxy.restore)
                continue
            if conn.seat in view.to_act and view.legal_actions:
                try:
                    await conn.act(rng.choice(list(view.legal_actions)))
                except Refused as err:
                    assert err.code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNAVAILABLE), err
        await conn.send_automatic()
        await conn.close()

    run_then_host_ends(host, play(), 120)
    assert states[:2] == ["reconnecting", "connected"], states
    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == 2, paths  # the host's record and the reconnecting seat's
    reports = [verify_file(str(path)) for path in paths]
    for report in reports:
        assert report.ok, [p.sentence() for p in report.errors]
    assert [r.seat is None for r in reports].count(True) == 1, [r.seat for r in reports]  # one is the host's
    assert len({r.game_id for r in reports}) == 1 and reports[0].hands >= 1
