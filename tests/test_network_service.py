"""The service's standard parts and its shutdown: health, reflection, and a clean stop on SIGTERM."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from client.connection import Connection, open_channel
from watten_net.deal.commitments import seal_deck
from watten_net.deal.deck import deck_permutation
from watten_net.deal.keys import all_seeds, deck_key, host_key_commitment, host_seed, key_set_hash
from watten_net.deal.protocol import header_hash, parse_envelope
from watten_net.engine import Rules, canonical_deck

from netutil import host_chain, isolated_env, run_then_host_ends, start, start_host

pytestmark = pytest.mark.network


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

    run_then_host_ends(host, sit_until_asked_to_play(), 60, exit_code=130, end_within=30)
    assert "revealing the host's game key and closing the records" in host.output()
    [record] = list(records.glob("*-host.wrec"))
    types = host_chain(record)
    ends = [s for s in types if s.type == "MatchEnd"]
    assert ends and ends[0].payload.reason == "host-shutdown"
    # Level 1 version 2: the host's game key k_H, revealed once after the MatchEnd, opens every seed it used.
    header = types[0].payload
    [key] = [s for s in types if s.type == "HostKeyReveal"]
    assert types.index(key) > types.index(ends[0])
    k_h = bytes(key.payload.key)
    game_id = bytes(header.game_id)
    assert host_key_commitment(game_id, k_h) == bytes(header.host_key_commitment)
    seat_keys = {int(r.seat): bytes(r.key) for r in _relayed(types, "KeyReveal")}
    assert sorted(seat_keys) == [0, 1]
    [key_set] = [s for s in types if s.type == "KeySet"]
    hks = key_set_hash(game_id, header_hash(types[0].raw), [
        bytes(parse_envelope(bytes(e.envelope), host=False).payload.commitment) for e in key_set.payload.commits])
    canonical = canonical_deck(Rules.from_json(header.rules_json).deck)
    sealed = [s.payload for s in types if s.type == "DeckSealed"]
    assert sealed
    for deck_sealed in sealed:
        h, a = int(deck_sealed.hand), int(deck_sealed.attempt)
        secret = host_seed(k_h, game_id, h, a)
        dk = deck_key(secret, all_seeds([seat_keys[0], seat_keys[1]], game_id, h, a), hks, game_id, h, a)
        cards = [canonical[j].text for j in deck_permutation(dk, len(canonical))]
        assert seal_deck(secret, game_id, h, a, cards) == list(deck_sealed.card_commitments), (
            "every seed the host used is opened by its revealed key")


def _relayed(types: list[Any], inner_type: str) -> list[Any]:
    inner = [parse_envelope(bytes(s.payload.envelope), host=False) for s in types if s.type == "Relay"]
    return [i.payload for i in inner if i.type == inner_type]


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
