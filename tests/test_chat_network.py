"""Table chat (issue 13 item 6) between a real host process and clients that join as `watten-join` does: a line
reaches every seat and every spectator cleaned, a line over 200 characters and the sixth line in ten seconds are
refused, and no record holds any of it (every record still verifies, with watten-verify too)."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from client.connection import Connection, Refused, open_channel
from watten_net.v1 import watten_pb2 as pb

from netutil import start_host, verified_records

pytestmark = pytest.mark.network

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
SAID = [  # (sent by seat 0, what everyone must see)
    ("\x1b[2J\x1b[31mrot\x1b[0m gwinnt", "rot gwinnt"),
    ("\u202eexe.txt\u202c hoppla", "exe.txt hoppla"),
    ("glei\x07 \x00da\nbin i", "glei da bin i"),
]
FROM_THE_RAIL = "Servus vom Zaun"


def _chat(heard: list[Any]) -> list[tuple[int, str, str]]:
    return [(e.seat, json.loads(e.fields["name"]), json.loads(e.fields["text"]))
            for u in heard if u.HasField("event") for e in u.event.events if e.kind == "chat"]


async def _seat(port: int, seat: int, records: Path, heard: list[Any], said: asyncio.Event) -> None:
    """A seat playing random legal moves; seat 0 says the SAID lines once the first hand is played."""
    rng = random.Random(seat)
    conn = Connection(await open_channel("127.0.0.1", port, insecure=True), record_dir=records)
    conn.on_update = heard.append
    try:
        await conn.join(f"Seat{seat}", seat)
        async for view in conn.follow(give_up_after=30):
            if seat == 0 and view.hand_phase == "play" and not said.is_set():
                for text, _ in SAID:
                    await conn.say(text)
                said.set()
            if view.table.phase in FINISHED:
                break
            if seat in view.to_act and view.legal_actions:
                await asyncio.sleep(0.05)  # (the chat goes out while the hand is played)
                try:
                    await conn.act(rng.choice(view.legal_actions))
                except Refused as err:
                    assert err.code == grpc.StatusCode.FAILED_PRECONDITION, err
    finally:
        await conn.close()


async def _follow(conn: Connection) -> None:
    async for view in conn.follow(give_up_after=30):
        if view.table.phase in FINISHED:
            return


async def _say_all(port: int, records: Path) -> dict[str, Any]:
    heard: dict[str, list[Any]] = {"seat 0": [], "seat 1": [], "Zaungast": [], "Plauscher": []}
    out: dict[str, Any] = {"heard": heard, "refused": [], "rate": []}
    said = asyncio.Event()
    watchers = []
    for name in ("Zaungast", "Plauscher"):  # two spectators, each with its own rate
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
        conn.on_update = heard[name].append
        await conn.join(name, spectate=True)
        watchers.append(conn)
    rail, talker = watchers
    tasks = [*(asyncio.create_task(_follow(conn)) for conn in watchers),
             *(asyncio.create_task(_seat(port, s, records, heard[f"seat {s}"], said)) for s in (0, 1))]
    try:
        async with asyncio.timeout(300):
            await said.wait()
            for text in ("x" * 201, "\x1b[31m\u202e"):
                try:
                    await rail.say(text)
                except Refused as err:
                    out["refused"].append((err.code, err.reason))
            await rail.say(FROM_THE_RAIL)
            for i in range(6):
                try:
                    await talker.say(f"Plausch {i}")
                    out["rate"].append("ok")
                except Refused as err:
                    out["rate"].append((err.code, err.reason))
            await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for conn in watchers:
            await conn.close()
    return out


@pytest.mark.slow
def test_chat_reaches_every_seat_and_spectator_cleaned_limited_and_in_no_record(tmp_path: Path) -> None:
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--set", "target=5",
                            "--record", str(records))
    try:
        out = asyncio.run(_say_all(port, records))
        assert host.wait(60) == 0, host.output()
    finally:
        host.stop()
    assert out["refused"] == [(grpc.StatusCode.INVALID_ARGUMENT, "bad-chat")] * 2
    assert out["rate"] == ["ok"] * 5 + [(grpc.StatusCode.RESOURCE_EXHAUSTED, "chat-rate-limited")]
    expected = [*((0, "Seat0", shown) for _, shown in SAID), (-1, "Zaungast", FROM_THE_RAIL),
                *((-1, "Plauscher", f"Plausch {i}") for i in range(5))]
    for who, heard in out["heard"].items():
        assert _chat(heard) == expected, who
    paths = verified_records(records, 3)  # the host's and both seats'
    for path in paths:
        data = path.read_bytes()
        for text in (FROM_THE_RAIL, "Plausch", *(shown for _, shown in SAID)):
            assert text.encode() not in data, (path.name, text)
    cli = subprocess.run([sys.executable, "-m", "watten_net.verify", *map(str, paths)], capture_output=True,
                         text=True, timeout=120)
    assert cli.returncode == 0, cli.stdout + cli.stderr
