"""The host derives the next deal ahead once a hand, not after every change: `Table.publish` schedules
`HostGame.prepare_next_deal` only after a change that leaves a deal to derive (`HostGame.next_deal_ahead`: with
GameHeader.next_deal = with-checkpoint, the start of a hand's play), and the next hand's HandOpen and DeckSealed still
go out with a deal derived ahead. A whole match of host bots on a real Table, in process."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import host.table
from host.changelog import LogItem
from host.table import Table, TableSettings
from watten_net.engine import Rules

from host_bots import Append, play_bot_match


class Watched:
    """What one match did: its changes, the calls of prepare_next_deal, and each attempt opened (hand, attempt,
    whether its deal was derived ahead)."""

    def __init__(self) -> None:
        self.changes = 0
        self.prepares = 0
        self.opened: list[tuple[int, int, bool]] = []

    def watch(self, table: Table) -> None:
        game = table.game
        assert game is not None and game.verified_dealing is not None
        dealing = game.verified_dealing
        prepare, open_attempt = game.prepare_next_deal, dealing.open_attempt

        def counted_prepare() -> None:
            self.prepares += 1
            prepare()

        def counted_open(hand: int, attempt: int, dealer: int | None) -> list[Any]:
            self.opened.append((hand, attempt, not dealing.wants(hand, attempt)))
            return open_attempt(hand, attempt, dealer)

        game.prepare_next_deal = counted_prepare  # type: ignore[method-assign]
        dealing.open_attempt = counted_open  # type: ignore[method-assign]


async def _match() -> Watched:
    table = Table(TableSettings(Rules.preset("bavarian", 4), next_deal="with-checkpoint"))
    watched = Watched()

    async def around(item: LogItem, append: Append) -> None:
        if table.game is not None:  # (not the lobby's changes, the bots sitting down)
            if watched.changes == 0:  # (the match's first change: its game exists now)
                watched.watch(table)
            watched.changes += 1
        await append(item)

    await play_bot_match(table, around)
    return watched


def test_the_next_deal_is_derived_ahead_once_a_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    # (at the next turn of the event loop, as soon as it may: whether it beats the hand's end is then not a matter of
    # how fast the machine is)
    monkeypatch.setattr(host.table, "PREPARE_AFTER", 0.0)
    watched = asyncio.run(_match())
    firsts = [ahead for hand, attempt, ahead in watched.opened if hand > 0 and attempt == 0]
    assert firsts and all(firsts), watched.opened
    # Scheduled once a hand (twice at most, when two changes come before the loop's next turn), not at each of the
    # hand's changes: every hand here takes more than a dozen.
    assert 0 < watched.prepares <= 2 * len(watched.opened), (watched.prepares, watched.opened)
    assert watched.changes > 6 * watched.prepares, (watched.changes, watched.prepares)
