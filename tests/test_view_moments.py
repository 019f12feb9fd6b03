"""Each change's views are built from one shared part plus each seat's own (host/views.py `Moment`, `SeatViews`):
over whole matches of host bots on a real Table, in process, every seat's and a spectator's view after every change
equals the view as it was built before, each seat's whole view on its own (tests/reference_views.py); and a seat
whose view did not change keeps the very BuiltView it had (no protobuf built for it).
"""

from __future__ import annotations

import asyncio

import pytest
from reference_views import reference_view

from host.changelog import LogItem
from host.chat import ChatLimiter, say
from host.table import Table, TableSettings
from host.views import BuiltView, SeatViews, table_view
from watten_net.engine import Rules

from host_bots import Append, bot_table, parts_shown, play_bot_match, seat_person

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
FP = b"\x22" * 32  # (the certificate a join proof binds)
FAST = {("bavarian", 4, "verified"), ("south-tyrolean", 2, "trustless")}


class Checker:
    """Holds every seat's cheap view against the reference after each change of one table."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.views = SeatViews(table)
        self.seats = [*range(table.n), -1]
        self.last: dict[int, BuiltView] = {}
        self.changes = 0
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
            elif last is not None:
                assert last.key != got.key  # (a stream compares keys: a changed view never has its last one's)
            self.last[seat] = got
            self.seen |= parts_shown(got.view)
        self.changes += 1


async def _whole_match(preset: str, players: int, deal: str) -> Checker:
    table = bot_table(preset, players, deal)
    checker = Checker(table)

    async def checked(item: LogItem, append: Append) -> None:
        checker.check()  # (the table as this change left it: what the streams' views are built from)
        await append(item)

    await play_bot_match(table, checked, at_end=checker.check)
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


def test_signals_and_a_schlecken_card_come_up_in_the_compared_views() -> None:
    """The fast cases' neighbours show signals and a Schlecken card, so that the comparison above is known to have
    held its own parts of a seat's view too (whatever the random bots happen to play)."""
    seen: set[str] = set()
    for preset, players, deal in [("tyrolean", 4, "verified"), ("bavarian", 4, "verified")]:
        seen |= asyncio.run(_whole_match(preset, players, deal)).seen
    assert {"signals", "schlecken"} <= seen


def test_a_change_that_leaves_a_seats_view_as_it_was_builds_nothing_for_it() -> None:
    """A chat line changes no view: every seat keeps its very BuiltView (and the lobby's views mark only the seat
    itself); a seat getting ready changes every seat's view, and each gets a new one."""

    async def body() -> None:
        table = Table(TableSettings(Rules.preset("bavarian", players=4), tls_fingerprint=FP))
        try:
            anna = await seat_person(table, "Anna", 0, FP)
            await table.add_bots(2, "random")
            views = SeatViews(table)
            before = views.build([0, 1, 2, 3, -1])
            for seat, built in before.items():
                assert built.view == reference_view(table, seat, with_table=False)
                assert [row.you for row in built.view.seats] == [s == seat for s in range(4)]
            await say(table, anna, "servus", ChatLimiter())
            after_chat = views.build([0, 1, 2, 3, -1])
            assert all(after_chat[seat] is before[seat] for seat in before)
            await table.set_ready(0, True)
            after_ready = views.build([0, 1, 2, 3, -1])
            for seat, built in after_ready.items():
                assert built is not before[seat] and built.key != before[seat].key
                assert built.view == reference_view(table, seat, with_table=False)
        finally:
            await table.shutdown()

    asyncio.run(body())
