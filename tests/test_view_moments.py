"""Each change's views are built from one shared part plus each seat's own (host/views.py `Moment`, `SeatViews`):
over whole matches of host bots on a real Table, in process, every seat's and a spectator's view after every change
equals the view as it was built before, each seat's whole view on its own (tests/reference_views.py); and a seat
whose view did not change keeps the very BuiltView it had (no protobuf built for it).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from reference_views import reference_view

from host.changelog import LogItem
from host.table import Table, TableSettings
from host.views import BuiltView, SeatViews, table_view
from watten_net.engine import Rules
from watten_net.v1 import watten_pb2 as pb

CASES = [  # (preset, players, deal): signals, Schlecken, Blind and three- and six-player seating among them
    ("bavarian", 4, "verified"),
    ("tyrolean", 4, "verified"),
    ("blind", 2, "verified"),
    ("bavarian-11", 3, "verified"),
    ("austrian", 6, "verified"),
    ("south-tyrolean", 2, "trustless"),
    ("bavarian", 4, "trustless"),
    ("blind", 4, "verified"),
    ("tyrolean", 3, "trustless"),
    ("south-tyrolean", 6, "trustless"),
]
FAST = {("bavarian", 4, "verified"), ("south-tyrolean", 2, "trustless")}


class Checker:
    """Holds every seat's cheap view against the reference after each change of one table."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.views = SeatViews(table)
        self.seats = [*range(table.n), -1]
        self.last: dict[int, BuiltView] = {}
        self.changes = self.kept = 0
        self.seen: set[str] = set()  # what the views showed on the way (so that the matches covered it)

    def check(self) -> None:
        built = self.views.build(self.seats)
        for seat in self.seats:
            expected = reference_view(self.table, seat, with_table=False)
            got = built[seat]
            assert got.view == expected, f"seat {seat} after change {self.changes}"
            assert table_view(self.table, seat) == reference_view(self.table, seat)
            assert BuiltView.now(self.table, seat) == got  # (the stream's own, for a seat the log has no view of)
            last = self.last.get(seat)
            if last is not None and last.view == got.view:
                assert last is got  # unchanged: the same BuiltView, nothing rebuilt
                self.kept += 1
            elif last is not None:
                assert last.key != got.key  # (a stream compares keys: a changed view never has its last one's)
            self.last[seat] = got
            self._note(got.view)
        self.changes += 1

    def _note(self, view: Any) -> None:
        self.seen.update(name for name, on in [
            ("signals", bool(view.signals)), ("hidden", view.announcement_hidden),
            ("schlecken", "schlecken_card" in view.extra), ("hand", bool(view.your_hand)),
            ("legal", bool(view.legal_actions)), ("tricks", bool(view.tricks)),
        ] if on)


async def _whole_match(preset: str, players: int, deal: str) -> Checker:
    table = Table(TableSettings(Rules.preset(preset, players=players), deal=deal))
    checker = Checker(table)
    append = table.changes.append

    async def checked(item: LogItem) -> None:
        checker.check()  # (the table as this change left it: what the streams' views are built from)
        await append(item)

    table.changes.append = checked  # type: ignore[method-assign]
    try:
        await table.add_bots(players, "random")
        await table.start()
        await asyncio.wait_for(table.finished.wait(), 240)
        checker.check()
    finally:
        await table.shutdown()
    assert table.game is not None and table.game.end_reason == "target-reached"
    return checker


@pytest.mark.parametrize(("preset", "players", "deal"), [
    case if case in FAST else pytest.param(*case, marks=pytest.mark.slow) for case in CASES])
def test_the_cheap_views_equal_each_seats_whole_view_over_a_whole_match(preset: str, players: int,
                                                                          deal: str) -> None:
    checker = asyncio.run(_whole_match(preset, players, deal))
    assert checker.changes > 20
    assert {"tricks", "legal"} <= checker.seen
    if deal == "verified":
        assert "hand" in checker.seen
    if preset == "blind":
        assert "hidden" in checker.seen


def test_signals_schlecken_and_reused_views_come_up_over_the_cases() -> None:
    """The cases above between them show signals, a Schlecken card and views kept unchanged (checked once here
    on the fast cases' neighbours, so that a change of the bots cannot leave the comparison without them)."""
    seen: set[str] = set()
    kept = 0
    for preset, players, deal in [("tyrolean", 4, "verified"), ("bavarian", 4, "verified")]:
        checker = asyncio.run(_whole_match(preset, players, deal))
        seen |= checker.seen
        kept += checker.kept
    assert {"signals", "schlecken"} <= seen
    assert kept > 0


def test_a_lobby_view_marks_only_the_seat_itself() -> None:
    async def body() -> None:
        table = Table(TableSettings(Rules.preset("bavarian", players=4)))
        try:
            await table.add_bots(2, "random")
            views = SeatViews(table).build([0, 1, 2, 3, -1])
            for seat, built in views.items():
                assert built.view == reference_view(table, seat, with_table=False)
                assert [row.you for row in built.view.seats] == [s == seat for s in range(4)]
            assert views[-1].view.your_seat == -1 and isinstance(views[-1].view, pb.TableView)
        finally:
            await table.shutdown()

    asyncio.run(body())
