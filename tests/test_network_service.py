"""The service's standard parts and its shutdown: health, reflection, and a clean stop on SIGTERM."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from client.connection import Connection, open_channel

from netutil import host_chain, isolated_env, start, start_host


def test_health_and_reflection_answer(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2")

    async def ask() -> tuple[list[int], list[str]]:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            statuses = [
                (await health.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)).status
                for name in ("", "watten_net.v1.WattenTable")
            ]
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            names: list[str] = []
            async for answer in stub.ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5
            ):
                names += [s.name for s in answer.list_services_response.service]
            return statuses, names

    try:
        statuses, names = asyncio.run(ask())
    finally:
        host.stop()
    assert statuses == [health_pb2.HealthCheckResponse.SERVING] * 2
    assert "watten_net.v1.WattenTable" in names and "grpc.health.v1.Health" in names


def test_sigterm_mid_hand_reveals_the_seeds_and_closes_the_record(tmp_path: Path) -> None:
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--record", str(records))

    async def sit_until_asked_to_play() -> None:
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
        await conn.join("patient")
        async for view in conn.updates():
            if view is not None and view.legal_actions:  # a deal is under way and it waits for us
                break
        host.proc.send_signal(signal.SIGTERM)
        try:
            async for _ in conn.updates():  # co-sign what the host sends while it closes
                pass
        except Exception:
            pass  # the host is gone
        await conn.close()

    try:
        asyncio.run(asyncio.wait_for(sit_until_asked_to_play(), 60))
        assert host.wait(30) == 130, host.output()
    finally:
        host.stop()
    assert "revealing the seeds used and closing the records" in host.output()
    [record] = list(records.glob("*-host.wrec"))
    types = host_chain(record)
    ends = [s for s in types if s.type == "MatchEnd"]
    assert ends and ends[0].payload.reason == "host-shutdown"
    opened = {(s.payload.hand, s.payload.attempt) for s in types if s.type == "HandOpen"}
    revealed = {(s.payload.hand, s.payload.attempt) for s in types if s.type == "HostSeedReveal"}
    assert opened and opened == revealed, "every seed the host used is revealed"


def test_a_second_host_on_a_port_in_use_refuses_to_start_instead_of_sharing_it(tmp_path: Path) -> None:
    """(gRPC's default SO_REUSEPORT let two hosts listen on one port, the kernel splitting the connections.)"""
    host, port = start_host(tmp_path / "first", "--headless", "--insecure", "--players", "2")
    try:
        second = start("host.main", ["--headless", "--insecure", "--players", "2", "--bind", "127.0.0.1", "--port",
                                     str(port)], isolated_env(tmp_path / "second"))
        assert second.wait(60) == 1, second.output()
        assert f"cannot listen on 127.0.0.1:{port}" in second.output()
        assert host.proc.poll() is None
    finally:
        host.stop()
