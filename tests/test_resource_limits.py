"""What one client can make the host spend is bounded (issue #19, items 5 and 6), each limit attacked over real gRPC.

One host process per test on 127.0.0.1 (`--limit-loopback` makes this machine's address count like any other, with
small limits set by flags); the attacks use bounded counts and look only at what comes back, never at the clock.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import grpc.aio

from client.connection import Connection
from client.errors import refusal_from_error
from watten_net.v1 import watten_pb2 as pb
from watten_net.v1 import watten_pb2_grpc as pb_grpc

from netutil import Proc, start_host

OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]  # each channel its own TCP connection (no sharing)


def _channel(port: int) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=OWN_CONNECTION)


def _stub(channel: grpc.aio.Channel) -> Any:
    return pb_grpc.WattenTableStub(channel)  # type: ignore[no-untyped-call]


async def _seated(port: int, name: str) -> Connection:
    conn = Connection(_channel(port))
    await conn.join(name)
    return conn


async def _ends_with(call: Any) -> tuple[grpc.StatusCode, str]:
    """Read a stream to its end: its status code and reason."""
    try:
        while await call.read() is not grpc.aio.EOF:
            pass
    except grpc.aio.AioRpcError as err:
        info = refusal_from_error(err)
        return info.code, info.reason
    return grpc.StatusCode.OK, ""


def _host(tmp_path: Path, *args: str) -> tuple[Proc, int]:
    return start_host(tmp_path, "--insecure", "--headless", *args)


def _run(coro: Any, timeout: float = 120) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout))


# ---------------------------------------------------------------------------------------------- one stream per seat
def test_a_new_subscribe_ends_the_old_stream_with_stream_replaced(tmp_path: Path) -> None:
    host, port = _host(tmp_path, "--players", "4")

    async def attack() -> None:
        me = await _seated(port, "me")
        stub = _stub(me.channel)
        first = stub.Subscribe(pb.SubscribeRequest(token=me.token))
        assert (await first.read()).HasField("snapshot")
        second = stub.Subscribe(pb.SubscribeRequest(token=me.token))
        assert (await second.read()).HasField("snapshot")
        assert await _ends_with(first) == (grpc.StatusCode.ABORTED, "stream-replaced")
        # The new stream is the seat's stream: it carries what happens next (another person sits down).
        other = await _seated(port, "other")
        update = await second.read()
        assert any(e.kind == "seat-taken" and e.seat == other.seat for e in update.event.events), update
        second.cancel()
        # Many streams opened one after the other, none read after its snapshot: each is replaced by the next, so
        # only the last one is left (the host keeps one per token, not thirty).
        calls = []
        for _ in range(30):
            call = stub.Subscribe(pb.SubscribeRequest(token=me.token))
            assert (await call.read()).HasField("snapshot")
            calls.append(call)
        endings = await asyncio.gather(*(_ends_with(c) for c in calls[:-1]))
        assert set(endings) == {(grpc.StatusCode.ABORTED, "stream-replaced")}, endings
        info = await other.table()
        assert info.seats[me.seat].online
        calls[-1].cancel()
        await me.close()
        await other.close()

    try:
        _run(attack())
    finally:
        host.stop()
    assert "Traceback" not in host.output()


def test_opening_and_closing_a_stream_again_and_again_tells_the_other_seats_nothing(tmp_path: Path) -> None:
    host, port = _host(tmp_path, "--players", "4")

    async def attack() -> int:
        watcher = await _seated(port, "watcher")
        churner = await _seated(port, "churner")
        seen: list[Any] = []
        watch = _stub(watcher.channel).Subscribe(pb.SubscribeRequest(token=watcher.token))

        async def read() -> None:
            while (update := await watch.read()) is not grpc.aio.EOF:
                seen.append(update)

        reader = asyncio.ensure_future(read())
        stub = _stub(churner.channel)
        for _ in range(60):
            call = stub.Subscribe(pb.SubscribeRequest(token=churner.token))
            assert (await call.read()).HasField("snapshot")
            call.cancel()
        # A marker after the churn: once the watcher has it, it has everything the churn caused before it.
        marker = await _seated(port, "marker")
        for _ in range(400):
            if any(e.kind == "seat-taken" and e.seat == marker.seat for u in seen for e in u.event.events):
                break
            await asyncio.sleep(0.05)
        reader.cancel()
        presence = [e for u in seen for e in u.event.events
                    if e.seat == churner.seat and e.kind in ("online", "offline")]
        for conn in (watcher, churner, marker):
            await conn.close()
        return len(presence)

    try:
        presence = _run(attack())
    finally:
        host.stop()
    # 60 opens and closes: the seat came online once (its first stream), and at most went offline once since.
    assert presence <= 2, presence
