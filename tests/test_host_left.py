"""A host that is stopped ends every stream with UNAVAILABLE `host-left` (issue 13 item 8): a joined client learns
that the host has left (not "reconnecting") and keeps trying quietly; here in the lobby of a headless host stopped
with SIGTERM (a real host process, the client library over real gRPC)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from client.connection import Connection, open_channel

from netutil import start_host

pytestmark = pytest.mark.network


def test_a_stopped_host_tells_a_joined_client_that_it_has_left(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--no-announce")
    states: list[str] = []

    async def wait_in_the_lobby() -> None:
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
        await conn.join("early")
        stream = conn.follow(on_state=states.append, give_up_after=5)
        await anext(stream)  # in the lobby, following the table
        host.proc.send_signal(signal.SIGTERM)

        async def follow() -> None:
            async for _ in stream:
                pass

        async def until_told() -> None:
            while "host-left" not in states:
                await asyncio.sleep(0.05)

        following = asyncio.ensure_future(follow())
        await asyncio.wait_for(until_told(), 60)
        await asyncio.sleep(1.0)  # (still trying quietly: it neither ends nor says anything else)
        assert not following.done(), following
        following.cancel()
        await conn.close()

    try:
        asyncio.run(wait_in_the_lobby())
        assert host.wait(30) == 130, host.output()
    finally:
        host.stop()
    assert states[0] == "host-left", states  # never "reconnecting" first: it said why the stream ended
