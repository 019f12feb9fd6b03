"""The event stream sends each seat only what changed (host/stream_events.py), and the client rebuilds the whole view
from it (client.connection.keep_table_info): in process, on a real Table, every Event through its wire bytes.

An Event's view is left out when the seat's view did not change (a chat line), and its TableInfo (the rules JSON is
about half a view) when it is the one the stream carried last apart from seq; after every change the client's
rebuilt view is exactly the host's whole view of that moment.
"""

from __future__ import annotations

import asyncio
from typing import Any

from client.connection import keep_table_info
from host.chat import ChatLimiter, say
from host.stream_events import Sent, seat_event
from host.table import Table, TableSettings
from host.views import snapshot, table_view
from watten_net.engine import Rules
from watten_net.v1 import watten_pb2 as pb

from host_bots import seat_person

FP = b"\x22" * 32


class Follower:
    """One seat's stream and its client: a snapshot, then every Event of the log as the wire carries it."""

    def __init__(self, table: Table, seat: int) -> None:
        self.table, self.seat = table, seat
        self.sent = Sent()
        self.cursor = len(table.log)
        snap = pb.Snapshot.FromString(snapshot(table, seat, self.cursor, 0).SerializeToString())
        self.sent.snapshot(snap.view)
        self.view: Any = snap.view
        self.events = self.views = self.tables = 0

    def read(self) -> None:
        """Every Event since the last read, applied as the client applies it."""
        while self.cursor < len(self.table.log):
            item = self.table.log[self.cursor]
            self.cursor += 1
            wire = pb.Event.FromString(seat_event(self.table, item, self.seat, self.sent).SerializeToString())
            self.events += 1
            self.views += wire.HasField("view")
            self.tables += wire.view.HasField("table")
            view = wire.view
            keep_table_info(view, self.view, int(wire.seq))
            if view.ByteSize():
                self.view = view

    def matches_the_host(self) -> None:
        """The client's view is the host's whole view now (TableInfo.seq aside: it is the seq of the last Event
        that carried a view, and a chat line carries none)."""
        whole = table_view(self.table, self.seat)
        whole.table.seq = self.view.table.seq
        assert self.view == whole


def test_a_stream_carries_the_table_info_when_it_changes_and_the_client_always_has_the_whole_view() -> None:
    async def body() -> None:
        table = Table(TableSettings(Rules.preset("bavarian", players=4), tls_fingerprint=FP))
        try:
            anna = await seat_person(table, "Anna", 0, FP)
            await seat_person(table, "Sepp", 1, FP)
            follower = Follower(table, 0)
            steps: list[tuple[str, Any]] = [
                ("chat", lambda: say(table, anna, "servus", ChatLimiter())),
                ("bots", lambda: table.add_bots(2, "random")),
                ("chat again", lambda: say(table, anna, "auf geht's", ChatLimiter())),
                ("sepp away", lambda: table.set_online(1, False)),
                ("sepp back", lambda: table.set_online(1, True)),
                ("anna ready", lambda: table.set_ready(0, True)),
                ("sepp ready", lambda: table.set_ready(1, True)),
                ("start", table.start),
            ]
            for name, step in steps:
                before = (follower.events, follower.views, follower.tables)
                await step()
                follower.read()
                assert follower.events > before[0], name
                if name.startswith("chat"):  # nothing of the seat's view changed: no view, no TableInfo
                    assert (follower.views, follower.tables) == before[1:], name
                else:  # the seats' names, readiness, who is online, the phase: the TableInfo changed, and came along
                    assert follower.tables > before[2], name
                follower.matches_the_host()
            assert follower.tables < follower.events
        finally:
            await table.shutdown()

    asyncio.run(asyncio.wait_for(body(), 30))


def test_the_client_keeps_the_last_table_info_at_the_events_seq_and_takes_a_new_one_whole() -> None:
    last = pb.TableView(your_seat=1, table=pb.TableInfo(table_id="t1", rules_json='{"target":21}', seq=7))
    without = pb.TableView(your_seat=1, hand=2)
    keep_table_info(without, last, 9)
    assert without.table.table_id == "t1" and without.table.rules_json == '{"target":21}' and without.table.seq == 9
    fresh = pb.TableView(your_seat=1, table=pb.TableInfo(table_id="t2", seq=10))
    keep_table_info(fresh, last, 10)
    assert fresh.table == pb.TableInfo(table_id="t2", seq=10)
    absent = pb.TableView()
    keep_table_info(absent, last, 11)
    assert not absent.ByteSize()  # (no view at all: the client keeps its last whole one)
