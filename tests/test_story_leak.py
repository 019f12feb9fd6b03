"""No seat's log ever holds an event that seat may not see: four seats of a Blind match over loopback gRPC, each with
its own `Connection` and its own table log (client/story.py), played by bots to the end of a short match.

What a seat may see (docs/rules.md, docs/protocol.md section 8): its own dealt and shown cards only; in Blind the Schlag
and the trump only if it is an announcer of the hand (the others get `announced`, without the rank, until the
`announcement` at the hand's end); a signal only if it is the sender's partner.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import grpc.aio
import pytest

from client.connection import Connection
from client.i18n import RANK_DE, Words
from client.story import Story
from watten_net.bots import make_bot
from watten_net.v1 import watten_pb2 as pb

from netutil import bot_turn, start_host

pytestmark = [pytest.mark.network, pytest.mark.slow]

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
OWN_ONLY = {"deal", "see", "took"}


class Seat:
    """One seat: its connection, every event it received (with the hand and its view's announcers) and its log."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.story = Story(Words("en"))
        self.received: list[tuple[int, Any, tuple[int, ...]]] = []  # (hand, event, announcers of that hand)
        self.view: Any = None
        conn.on_update = self.hear

    def hear(self, update: Any) -> None:
        if update.HasField("snapshot"):
            view, events = update.snapshot.view, update.snapshot.recent_events
            self.story.snapshot(view, events)
        else:
            view, events = update.event.view, update.event.events
            self.story.events(events, view if view.ByteSize() else None)
        if view.ByteSize():
            self.view = view
        for event in events:
            hand = int(self.view.hand) if self.view is not None else -1
            announcers = tuple(self.view.announcers) if self.view is not None else ()
            self.received.append((hand, event, announcers))


async def play(seat: Seat, seed: int) -> None:
    bot = make_bot("heuristic", seed)
    async for view in seat.conn.follow(give_up_after=30):
        if view is None:
            continue
        if int(view.table.phase) in FINISHED:
            break
        await bot_turn(seat.conn, bot, view)


def test_no_seats_log_holds_an_event_it_may_not_see(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "4", "--rules", "blind",
                            "--set", "target=7")

    async def scenario() -> list[Seat]:
        seats = [Seat(Connection(grpc.aio.insecure_channel(f"127.0.0.1:{port}"))) for _ in range(4)]
        try:
            for i, seat in enumerate(seats):
                await seat.conn.join(f"P{i}")
            await asyncio.wait_for(asyncio.gather(*(play(s, i) for i, s in enumerate(seats))), 240)
        finally:
            for seat in seats:
                await seat.conn.close()
        return seats

    try:
        seats = asyncio.run(scenario())
    finally:
        host.stop()
    hidden_lines = 0
    for me, seat in enumerate(seats):
        assert seat.received, f"seat {me} heard nothing"
        for hand, event, announcers in seat.received:
            if event.kind in OWN_ONLY:
                assert event.seat == me, (me, event)
            if event.kind in ("schlag", "trump"):
                assert me in announcers, f"seat {me} saw {event.kind} of hand {hand} it does not announce"
            if event.kind == "signal":
                assert (event.seat - me) % 2 == 0, f"seat {me} saw the opponent's signal {event}"
        hidden_lines += _check_log(me, seat)
    assert hidden_lines, "in a whole Blind match some seat should have seen a hidden announcement"


def _check_log(me: int, seat: Seat) -> int:
    """A non-announcer's log names no rank before the hand's announcement; the log's own-card lines are its own."""
    hidden = 0
    for line in seat.story.lines:
        if "(hidden: Blind)" in line.text:
            hidden += 1
            assert not any(f"({name})" in line.text for name in RANK_DE.values()), line
        if line.kind in ("see", "took"):
            assert line.text.startswith("You"), line
    seen = [json.loads(e.fields["rank"]) for _, e, _ in seat.received if e.kind == "schlag"]
    assert all(rank in RANK_DE for rank in seen)
    return hidden
