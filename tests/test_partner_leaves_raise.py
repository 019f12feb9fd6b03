"""A host bot leaves the answer to a raise to the person of its side who is asked too (docs/rules-decisions.md), and
every screen shows the table waiting for that person alone (no ▶ on the bot's row, no bot in "waiting for"), the
bot again once the person has left (watten_net/deal/table_waits.py)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import grpc
import pytest

from client import viewmodel as vm
from client.connection import Connection, Refused, open_channel
from client.i18n import Words
from client.prompts import prompt_line, table_waits
from watten_net.v1 import watten_pb2 as pb

from netutil import run_then_host_ends, start_host

pytestmark = pytest.mark.network

HOLD = 1.0  # seconds the person keeps the question open, reading its stream: far beyond a bot's immediate answer
ENDED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
EN = Words("en")


def _asked_to_answer(conn: Connection, view: Any) -> bool:
    """The other side's raise is pending and this seat may answer it."""
    raised = view.HasField("pending_raise")
    return raised and conn.seat in view.to_act and "accept" in view.legal_actions


def _arrows(view: Any) -> list[int]:
    """The seats whose row of the terminal client's seats pane is marked ▶ (to act)."""
    rows = "".join(text for _, text in vm.seats_pane(view, EN)).splitlines()
    return [int(row[2:].split()[0]) for row in rows if row.startswith("▶ ")]


def _partner(view: Any, seat: int) -> int:
    """The other seat of `seat`'s side in this hand (four players: one)."""
    side = view.seats[seat].side
    return next(s.seat for s in view.seats if s.side == side and s.seat != seat)


async def _follow(conn: Connection, views: asyncio.Queue[Any]) -> None:
    async for view in conn.updates():
        await views.put(view)
        if view.table.phase in ENDED:
            return


async def _hold(conn: Connection, views: asyncio.Queue[Any], view: Any) -> Any:
    """Keep the raise open for HOLD seconds while reading the stream: every view meanwhile still shows it pending,
    this seat asked, and the table waiting for this seat alone (no bot of its side answered, none shown to act).
    The last view seen."""
    raiser, bot = view.pending_raise.seat, _partner(view, conn.seat)
    try:
        while True:
            assert list(view.to_act) == [conn.seat], f"the table is shown waiting for {list(view.to_act)}"
            assert _arrows(view) == [conn.seat], f"the bot {bot} is marked to act too"
            assert table_waits(view, EN) == "it is your turn to answer the raise", table_waits(view, EN)
            view = await asyncio.wait_for(views.get(), HOLD)
            assert view.HasField("pending_raise") and view.pending_raise.seat == raiser, (
                "the raise was answered without the person of the asked side")
            assert conn.seat in view.to_act, "the person is no longer asked"
    except TimeoutError:
        pass
    return view


async def _play_until_asked(conn: Connection, views: asyncio.Queue[Any], rng: random.Random) -> Any:
    """Play this seat's turns (never raising: the question here is the other side's) until it is asked to answer a
    raise; that view (None: the match ended first)."""
    for _ in range(5000):  # a match at the host's default target: a few hundred views
        view = await views.get()
        if view.table.phase in ENDED:
            return None
        if _asked_to_answer(conn, view):
            return view
        if conn.seat in view.to_act and view.legal_actions:
            try:
                await conn.act(rng.choice([a for a in view.legal_actions if a != "raise"] or ["raise"]))
            except Refused as err:
                assert err.code == grpc.StatusCode.FAILED_PRECONDITION, err
    pytest.fail("the match did not end")


@pytest.mark.parametrize("deal", ["verified", "trustless"])
def test_a_host_bot_partner_leaves_the_raise_to_its_person(tmp_path: Path, deal: str) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "4", "--bots", "3",
                            "--set", f"deal={deal}")
    held = {"raises": 0}

    async def play() -> None:
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
        await conn.join("person")
        views: asyncio.Queue[Any] = asyncio.Queue()
        follower = asyncio.ensure_future(_follow(conn, views))
        rng = random.Random(7)
        while (view := await _play_until_asked(conn, views, rng)) is not None:
            held["raises"] += 1
            await _hold(conn, views, view)
            await conn.act(rng.choice(["accept", "fold"]))
        await follower
        await conn.close()

    run_then_host_ends(host, play(), 240)
    assert held["raises"] > 0, "no raise of the other side came in a whole match"


async def _watch(conn: Connection, views: list[Any]) -> None:
    """A spectator's views, until the match is over."""
    async for view in conn.updates():
        views.append(view)
        if view.table.phase in ENDED:
            return


def test_the_table_waits_for_the_bot_again_once_its_person_has_left(tmp_path: Path) -> None:
    """A spectator sees the table wait for the person alone while they hold a raise of the other side open ("waiting
    for person", the bot's row without ▶); once the person has left (a bot stands in), for the bot too."""
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "4", "--bots", "3")

    async def play() -> tuple[int, list[Any]]:
        watcher = Connection(await open_channel("127.0.0.1", port, insecure=True))
        assert await watcher.join("watcher", spectate=True) == -1
        seen: list[Any] = []
        watching = asyncio.ensure_future(_watch(watcher, seen))
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
        await conn.join("person")
        views: asyncio.Queue[Any] = asyncio.Queue()
        follower = asyncio.ensure_future(_follow(conn, views))
        view = await _play_until_asked(conn, views, random.Random(3))
        assert view is not None, "no raise of the other side came in a whole match"
        await _hold(conn, views, view)
        await conn.leave()
        follower.cancel()
        await conn.close()
        await watching
        await watcher.close()
        return conn.seat, seen

    person, seen = run_then_host_ends(host, play(), 240)
    raises = [v for v in seen if v.HasField("pending_raise") and person in v.to_act]
    before = [v for v in raises if not v.seats[person].stand_in]
    after = [v for v in raises if v.seats[person].stand_in]
    assert before and after, "the spectator saw the raise held open, and then the person away"
    for view in before:
        assert list(view.to_act) == [person] and _arrows(view) == [person]
        shown = "".join(text for _, text in prompt_line(view, vm.ScreenState(view=view), EN))
        assert shown == "Waiting for person to answer the raise", shown
    bot = _partner(after[0], person)
    assert set(after[0].to_act) == {person, bot} and set(_arrows(after[0])) == {person, bot}
