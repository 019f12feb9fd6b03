"""A resumed Snapshot tells the seat where its own envelope chain stands, as a full one does (over real gRPC)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from client.connection import Connection, open_channel
from watten_net.v1 import watten_pb2 as pb
from watten_net.v1 import watten_pb2_grpc as pb_grpc

from netutil import start_host

pytestmark = pytest.mark.network


def test_a_resumed_snapshot_names_the_seats_last_accepted_envelope(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1")

    async def run() -> tuple[pb.Snapshot, pb.Snapshot, int, bytes]:
        channel = await open_channel("127.0.0.1", port, insecure=True)
        conn = Connection(channel)
        await conn.join("resumer")
        async for view in conn.updates():
            if view is not None and view.legal_actions and conn.game is not None and conn.game.my_seq >= 4:
                break  # the header signed, the key ceremony and a DeckSealed signature behind us
        assert conn.game is not None
        mine = (conn.game.my_seq, conn.game.my_head)
        stub = pb_grpc.WattenTableStub(channel)
        snapshots = []
        for from_seq, known in ((conn.last_seq, conn.game.chain_seq), (0, 0)):
            stream = stub.Subscribe(pb.SubscribeRequest(token=conn.token, from_seq=from_seq, known_chain_seq=known))
            async for update in stream:
                snapshots.append(update.snapshot)
                break
            stream.cancel()
        await channel.close()
        return snapshots[0], snapshots[1], *mine

    try:
        resumed, full, seq, head = asyncio.run(asyncio.wait_for(run(), 60))
    finally:
        host.stop()
    assert resumed.resumed and not full.resumed
    assert seq >= 4 and len(head) == 32
    assert (resumed.your_envelope_seq, resumed.your_envelope_hash) == (seq, head)
    assert (full.your_envelope_seq, full.your_envelope_hash) == (seq, head)
