"""The table's clocks: nobody waits for ever, and nobody is hurried through a decision of their own.

Three clocks, all started and stopped by `TableClocks.watch_steps` after every change of the table:
- the **grace period** (`--grace`, default 60 s) of a person who is offline: then a bot stands in for the seat;
- the **step clock** (`--step-timeout`, default 30 s) of a person who is online but has not sent a step of the
  protocol's own it owes (a signature, seed, reveal, key share, shuffle, decryption shares, an opening): then a bot
  stands in too. A person's own move (play, bid, raise, cut) has no clock: a friendly table lets people think;
- in a trustless game, the **wait for a seat away** (one grace period a hand): nobody can play, shuffle or open for
  it, so the table waits, and after each grace period its side forfeits the hand it waited for.

Why in the chain and not only on the screen, and what the verifier can check: docs/protocol-decisions.md.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from watten_net.deal.level2 import can_forfeit

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("watten.host")
DEFAULT_GRACE = 60.0  # seconds a person may be offline before a bot stands in for the seat
# Seconds a seat that is online may owe one of the protocol's own steps before a bot stands in. A client sends these
# by itself within milliseconds (a trustless shuffle takes a fraction of a second); one that stays connected but
# never sends them would otherwise hold the table for ever (docs/protocol.md step 4: "a seat that does not reveal before
# the timeout forfeits").
DEFAULT_STEP_TIMEOUT = 30.0
# What the game waits for that is a person's own decision (play, bid, raise, cut...): a friendly table has no clock.
PERSON_STEPS = frozenset({"play"})


class TableClocks:
    """The clocks of one `Table`: they read its game, seats and settings, and act through its lock."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._grace_timers: dict[int, asyncio.Task[None]] = {}
        self._step_timers: dict[int, asyncio.Task[None]] = {}
        self._away_clock: asyncio.Task[None] | None = None  # trustless: how long the table waits for a seat away
        self._answers_by_seat: dict[int, int] = {}  # envelopes accepted from each seat: has it answered meanwhile?

    def answered(self, seat: int) -> None:
        """The host accepted an envelope of `seat`'s (the step clock's sign of life)."""
        self._answers_by_seat[seat] = self._answers_by_seat.get(seat, 0) + 1

    def stop(self) -> None:
        """The match is over or the host stops: no clock may act any more."""
        for seat in list(self._grace_timers):
            self.cancel_grace(seat)
        self._cancel_step_timers()

    def start_grace(self, seat: int) -> None:
        """After the grace period offline a bot plays the seat, so that nobody waits forever."""
        table = self.table
        if table.game is None or table.game.finished or seat in self._grace_timers:
            return
        seconds = table.settings.grace

        async def expire() -> None:
            await asyncio.sleep(seconds)
            self._grace_timers.pop(seat, None)
            occupant = table.seats[seat]
            if occupant is not None and not occupant.online:
                await table.stand_in(seat, True)

        self._grace_timers[seat] = asyncio.ensure_future(expire())

    def cancel_grace(self, seat: int) -> None:
        timer = self._grace_timers.pop(seat, None)
        if timer is not None:
            timer.cancel()

    def _owing_steps(self) -> set[int]:
        """The seats online, played by a person and not stood in for, that owe one of the protocol's own steps."""
        game = self.table.game
        if game is None or game.finished or game.step_timeout_ms <= 0:  # (the header's, which every seat signed)
            return set()
        step, seats = game.waiting_for()
        if step in PERSON_STEPS:
            return set()
        return {s for s in seats if s not in game.absent and (occupant := self.table.seats[s]) is not None
                and occupant.online and not occupant.bot}

    def watch_steps(self) -> None:
        """After every change: a clock for each seat that has begun to owe a protocol step, none for the others;
        in a trustless game with a seat away, the clock of the wait for it."""
        owing = self._owing_steps()
        for seat in [s for s in self._step_timers if s not in owing]:
            self._step_timers.pop(seat).cancel()
        for seat in owing - self._step_timers.keys():
            self._arm_step_timer(seat)
        if not self._waiting_for_away():
            if self._away_clock is not None:
                self._away_clock.cancel()
                self._away_clock = None
        elif self._away_clock is None:
            self._away_clock = asyncio.ensure_future(self._wait_for_away())

    def _waiting_for_away(self) -> bool:
        """A trustless game with a seat away (and somebody there): nobody can play, shuffle or open for that seat."""
        game = self.table.game
        return (game is not None and game.trustless and not game.finished and game.phase in ("deal", "play")
                and can_forfeit(game.absent, self.table.settings.players))

    async def _wait_for_away(self) -> None:
        """In a trustless game the table waits for a seat that is away, a grace period per hand: then its side
        forfeits that hand (`HostGame.forfeit_away`) and the next hand waits again. So a person back soon loses
        nothing more, and a person who never comes back does not hold the table for ever."""
        table = self.table
        try:
            while True:
                await asyncio.sleep(table.settings.grace)
                async with table.lock:
                    if not self._waiting_for_away():
                        return
                    assert table.game is not None
                    posted = table.game.forfeit_away()
                    if not posted:
                        continue
                    if table.journal is not None:
                        table.journal.forfeit_away()
                    log.info("a seat is still away: its side forfeits the hand the table waited for")
                    await table.publish(posted)
        finally:
            if self._away_clock is asyncio.current_task():
                self._away_clock = None

    def _arm_step_timer(self, seat: int) -> None:
        answered = self._answers_by_seat.get(seat, 0)
        table = self.table

        async def expire() -> None:
            # The header's step timeout, never the settings' (a host resumed with another --step-timeout runs the
            # clock its seats signed: a shorter one would call them away before the time they agreed to)
            await asyncio.sleep(table.game.step_timeout_ms / 1000 if table.game is not None else 0.0)
            async with table.lock:
                if self._step_timers.get(seat) is not asyncio.current_task():
                    return
                del self._step_timers[seat]
                if seat not in self._owing_steps():
                    return
                if self._answers_by_seat.get(seat, 0) != answered:
                    # It answered something meanwhile and owes the next step: a fresh period for that one.
                    self._arm_step_timer(seat)
                    return
                step = table.game.waiting_for()[0] if table.game is not None else ""
                log.warning("seat %d has not sent its %s for %g s while online: a bot stands in", seat, step,
                            table.game.step_timeout_ms / 1000 if table.game is not None else 0.0)
                await table.stand_in_locked(seat, True)

        self._step_timers[seat] = asyncio.ensure_future(expire())

    def _cancel_step_timers(self) -> None:
        for timer in self._step_timers.values():
            timer.cancel()
        self._step_timers.clear()
        if self._away_clock is not None:
            self._away_clock.cancel()
            self._away_clock = None
