"""A host bot leaves the answer to a raise to the person of its side who is asked too (docs/rules-decisions.md)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import grpc
import pytest

from client.connection import Connection, Refused, open_channel
from watten_net.v1 import watten_pb2 as pb

from netutil import run_then_host_ends, start_host

pytestmark = pytest.mark.network

HOLD = 1.0  # seconds the person keeps the question open, reading its stream: far beyond a bot's immediate answer
ENDED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)


def _asked_to_answer(conn: Connection, view: Any) -> bool:
    """The other side's raise is pending and this seat may answer it."""
    raised = view.HasField("pending_raise")
    return raised and conn.seat in view.to_act and "accept" in view.legal_actions


async def _follow(conn: Connection, views: asyncio.Queue[Any]) -> None:
    async for view in conn.updates():
        await views.put(view)
        if view.table.phase in ENDED:
            return


async def _hold_then_answer(conn: Connection, views: asyncio.Queue[Any], view: Any, rng: random.Random) -> Any:
    """Keep the raise open for HOLD seconds while reading the stream: every view meanwhile still shows it pending
    and this seat still asked (no bot of its side answered); then answer. The last view seen."""
    raiser = view.pending_raise.seat
    try:
        while True:
            view = await asyncio.wait_for(views.get(), HOLD)
            assert view.HasField("pending_raise") and view.pending_raise.seat == raiser, (
                "the raise was answered without the person of the asked side")
            assert conn.seat in view.to_act, "the person is no longer asked"
    except TimeoutError:
        pass
    await conn.act(rng.choice(["accept", "fold"]))
    return view


def test_a_host_bot_partner_leaves_the_raise_to_its_person(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "4", "--bots", "3")
    held = {"raises": 0}

    async def play() -> None:
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
        await conn.join("person")
        views: asyncio.Queue[Any] = asyncio.Queue()
        follower = asyncio.ensure_future(_follow(conn, views))
        rng = random.Random(7)
        for _ in range(5000):  # a match at the host's default target: a few hundred views
            view = await views.get()
            if view.table.phase in ENDED:
                break
            if _asked_to_answer(conn, view):
                held["raises"] += 1
                await _hold_then_answer(conn, views, view, rng)
            elif conn.seat in view.to_act and view.legal_actions:
                try:  # (no raise of its own: the question here is the other side's)
                    await conn.act(rng.choice([a for a in view.legal_actions if a != "raise"] or ["raise"]))
                except Refused as err:
                    assert err.code == grpc.StatusCode.FAILED_PRECONDITION, err
        else:
            pytest.fail("the match did not end")
        await follower
        await conn.close()

    run_then_host_ends(host, play(), 240)
    assert held["raises"] > 0, "no raise of the other side came in a whole match"
