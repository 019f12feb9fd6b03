"""The seats a host plays itself: each bot with its own key and SeatGame, moved by one worker task per table."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.bots import Bot, BotView, make_bot
from watten_net.deal.host_game import Posted
from watten_net.deal.own_hand import complete_seat_view
from watten_net.deal.seat import SeatGame

from .journal import Draws, Journal

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("watten.host")


@dataclass
class HostBot:
    """A seat played inside the host process: its own key, its own SeatGame, a policy seeing only its view."""

    seat: int
    key: Ed25519PrivateKey
    policy: Bot
    game: SeatGame | None = None


def _report_bot_failure(task: asyncio.Future[None]) -> None:
    """The bot worker ended on an error: no bot of the table moves any more and the game waits for them for ever, so
    say why (an unread task error is shown only when the task is collected, if at all)."""
    if not task.cancelled() and (err := task.exception()) is not None:
        log.error("the host's bots stopped: %s", err, exc_info=err)


class BotWorker:
    """The host's bots at one `Table`: they answer the protocol at once and make their game moves one by one."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.bots: dict[int, HostBot] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Future[None] | None = None

    def add(self, seat: int, key: Ed25519PrivateKey, level: str) -> None:
        self.bots[seat] = HostBot(seat, key, make_bot(level))

    def make_games(self, journal: Callable[[], Journal | None], replay: dict[int, list[bytes]]) -> None:
        """Each bot's SeatGame, its random draws journaled (or replayed on a resume)."""
        for bot in self.bots.values():
            bot.game = SeatGame(bot.seat, bot.key, random_bytes=Draws(bot.seat, journal, replay.get(bot.seat)))

    def forget_games(self) -> None:
        for bot in self.bots.values():
            bot.game = None

    def feed(self, posted: list[Posted]) -> None:
        for bot in self.bots.values():
            assert bot.game is not None
            for p in posted:
                p.deliver_to(bot.game)

    def wake(self) -> None:
        self._wake.set()

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())
        self._task.add_done_callback(_report_bot_failure)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _run(self) -> None:
        """Each step under the table's lock, with `bot_delay` between game moves so that people at the table can
        follow."""
        table = self.table
        while table.game is not None and not table.game.finished:
            self._wake.clear()
            async with table.lock:
                moved = await self.step()
            if moved == "move" and table.settings.bot_delay:
                await asyncio.sleep(table.settings.bot_delay)
            elif moved:
                # A step that never awaited (the reference stand-in decides at once) must still let the streams
                # and the other requests run: taking an unlocked asyncio.Lock again does not yield.
                await asyncio.sleep(0)
            else:
                await self._wake.wait()

    def _apply(self, bot: HostBot, raw: bytes) -> list[Posted]:
        """A bot's envelope applied and journaled (on disk once the change that carries it is published)."""
        game = self.table.game
        assert game is not None and bot.game is not None
        posted = game.submit(bot.seat, raw)
        if self.table.journal is not None:
            self.table.journal.submit(bot.seat, raw)
        bot.game.accepted(raw)
        return posted

    async def _submit(self, bot: HostBot, raw: bytes) -> None:
        await self.table.publish(self._apply(bot, raw))

    async def step(self) -> str:
        """One step: every automatic protocol envelope the bots owe ('protocol'), or one game move ('move')."""
        game = self.table.game
        if game is None or game.finished:
            return ""
        # Every protocol step the bots owe, each bot reading the others' at once: one change, one fsync (three
        # bots co-signing a checkpoint are one event on each stream).
        moved, posted = "", []
        try:
            for bot in self.bots.values():
                assert bot.game is not None
                while (raw := bot.game.next_automatic()) is not None:
                    steps = self._apply(bot, raw)
                    self.feed(steps)
                    posted += steps
                    moved = "protocol"
        finally:  # (a step refused: what was applied before it is still published)
            if moved:
                await self.table.publish(posted, bots_fed=True)
        if moved:
            return moved
        # (the seats the table waits for: not a bot that leaves the answer to a raise to its person, table_waits.py)
        phase, waiting = game.waiting_for()
        if phase != "play" or (game.public if game.trustless else game.match) is None:
            return ""
        for seat in waiting:
            if seat in game.absent:
                # (trustless: nobody can act for it; the table waits, see TableClocks._wait_for_away)
                return "" if game.trustless else await self._stand_in_move(seat)
            if seat not in self.bots:
                continue
            bot = self.bots[seat]
            # A strong bot thinks for up to a quarter of a second: in a thread, so the streams keep flowing.
            action = await asyncio.to_thread(bot.policy.choose, self._view(seat))
            if action is None:
                continue
            assert bot.game is not None
            await self._submit(bot, bot.game.action(action))
            return "move"
        return ""

    def _view(self, seat: int) -> BotView:
        """What a host-run bot sees: its observation; in a trustless game the public view and its own cards (the
        host's engine knows none), exactly as a remote bot sees them."""
        game = self.table.game
        assert game is not None
        if not game.trustless:
            assert game.match is not None
            return BotView.from_observation(game.match.observe(seat))
        from .views import table_view

        bot_game = self.bots[seat].game
        assert bot_game is not None
        view = table_view(self.table, seat)
        complete_seat_view(view, bot_game)
        return BotView.from_table_view(view)

    async def _stand_in_move(self, seat: int) -> str:
        """The reference stand-in's move for a person who is away: a function of that seat's observation alone, which
        every seat's `watten-verify` recomputes (the host chooses nothing)."""
        game = self.table.game
        assert game is not None and game.match is not None
        action = game.stand_in_move(seat)
        posted = game.act_for(seat, action)
        if self.table.journal is not None:
            self.table.journal.bot_action(seat, action)
        await self.table.publish(posted)
        return "move"
