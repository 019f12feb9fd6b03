"""One table on the host: the façade the gRPC servicer talks to. Its parts live in their own modules: the seats and
who may take them (`lobby.py`), the log of changes and the game record (`changelog.py`), the host's bots
(`botworker.py`), the clocks that see that nobody waits for ever (`clocks.py`), a resume from the journal
(`resume.py`), and its settings (`settings.py`).

Everything that changes the table runs under one asyncio lock, in this order: check, change, journal, append to
the log, wake the streams. The journal's fsync runs in a thread (`Table.publish`): meanwhile the table's state is a
change ahead of what may leave the host, and what reads it without the lock waits (`Table.settled`). The gRPC
servicer (`server.py`) only translates calls; the rules live in the engine and the deal protocol in `HostGame`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.host_game import HostGame, Posted, Seat
from watten_net.deal.protocol import ProtocolError
from watten_net.engine import Rules
from watten_net.refusal import Code, Reason
from watten_net.v1 import watten_pb2 as pb

from .arrange import Arrangement
from .botworker import BotWorker, HostBot
from .changelog import LOBBY_KEPT, ChangeLog, LogItem
from .clocks import DEFAULT_GRACE, DEFAULT_STEP_TIMEOUT, TableClocks
from .eventlog import EventLog
from .journal import HOST, Draws, Journal
from .lobby import MAX_NAME, Lobby, Occupant, clean_name
from .refusal import TableRefusal
from .rematch import Rematch
from .settings import TableSettings, header_step_timeout_ms
from .spectators import Spectators
from .submissions import Submissions
from .views import table_info

# What the callers of this module find here, wherever it lives now.
__all__ = ["LOBBY_KEPT", "MAX_NAME", "Table", "TableRefusal", "TableSettings", "clean_name"]
log = logging.getLogger("watten.host")
# How long after a change the host works out the next deal ahead (0.4-0.6 ms of CPU, `HostGame.prepare_next_deal`):
# run at the next turn of the loop it came before the last seat's Checkpoint event in about half the hands (traced on
# bench/newhand.py). Four streams are out within about 2 ms of the change here; the first checkpoint signature comes
# back 5 ms or more after it (a round trip, a check and a signature). (Overlapping it with the change's fsync does
# not work: the fsync's thread needs the GIL to start, which the work holds.) Scheduled only after a change that
# leaves a deal to derive (`HostGame.next_deal_ahead`: once a hand), not after every change; a signature that comes
# back before it ran finds the same bytes worked out on the spot.
PREPARE_AFTER = 0.003  # seconds


async def _to_the_end(awaitable: Awaitable[None]) -> bool:
    """Await it to the end even if the caller is cancelled meanwhile (a bot worker or a clock stopped while a change
    waits for its fsync must not leave the change applied but never published); True if the caller was."""
    task = asyncio.ensure_future(awaitable)
    cancelled = False
    while True:
        try:
            await asyncio.shield(task)
            return cancelled
        except asyncio.CancelledError:
            if task.cancelled():
                raise
            cancelled = True


class Settled(asyncio.Event):
    """Set unless a change of the table waits for its journal's fsync: the game has changed, but nothing of it may
    leave the host yet."""

    def __init__(self) -> None:
        super().__init__()
        self.set()
        self.before_read: Callable[[], None] | None = None  # (the table's log seals a change it holds back)

    async def reached(self) -> None:
        """Until no change waits for its fsync: for what reads the game without the table's lock (a snapshot, a view
        of the table as it is now, TableInfo). At once, without yielding, when none waits: the caller must then read
        before its next await. A change the log holds back (co-signature relays, `ChangeLog.append`) is final from
        here on: what the caller reads counts it."""
        while not self.is_set():
            await self.wait()
        if self.before_read is not None:
            self.before_read()

    def read_now(self) -> bool:
        """`reached` without a coroutine when no change waits for its fsync (a stream's every item): True, and a
        held change sealed, when the caller may read now; False when it must await `reached`."""
        if not self.is_set():
            return False
        if self.before_read is not None:
            self.before_read()
        return True


class StreamWake:
    """How the table's event streams learn of its next change: each waits (`wait`), `wake` sends them all on.

    Each waiter holds a future of its own (a stream cancelled while it waits takes nothing from the others), and
    waking them passes no lock from one stream to the next (an asyncio.Condition made each woken stream take the
    lock back in turn, a step of the event loop each). A stream looks at the log and then waits with no await in
    between, so no change can slip past it. The futures are kept here rather than in an asyncio.Event: a wait is
    then one future, not two coroutines and the Event's own bookkeeping, at every change for every stream."""

    PRUNE_AT = 64  # waiters kept before those already done (cancelled streams) are dropped without a wake

    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[None]] = []
        self._prune_at = self.PRUNE_AT

    def wait(self) -> asyncio.Future[None]:
        """A future that the next `wake` resolves (a wake before this call is not kept)."""
        if len(self._waiters) >= self._prune_at:  # (streams cancelled while no change came: do not pile them up)
            self._waiters = [waiter for waiter in self._waiters if not waiter.done()]
            self._prune_at = max(self.PRUNE_AT, 2 * len(self._waiters))  # (many streams waiting: seldom)
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        return waiter

    def kept(self) -> int:
        """How many waiters it holds now, cancelled ones not yet dropped included (what a test bounds)."""
        return len(self._waiters)

    def wake(self) -> None:
        waiters, self._waiters = self._waiters, []  # (the next wait is for the next change)
        for waiter in waiters:
            if not waiter.done():  # (a stream cancelled while it waited)
                waiter.set_result(None)


async def _durable(table: Table) -> bool:
    """The table's journal on disk before anything of its change leaves the host: the fsync in a thread while the
    other tables go on, the table's state hidden meanwhile (`Table.settled`). True if the caller was cancelled
    meanwhile: the change is published all the same."""
    journal = table.journal
    if journal is None or journal.durable:
        return False
    if journal.syncs_on_the_loop():  # (a host of one table: nothing else to serve meanwhile, see journal.py)
        journal.sync_now()
        return False
    table.settled.clear()
    try:
        return await _to_the_end(journal.sync())
    finally:
        table.settled.set()


class Table:
    def __init__(self, settings: TableSettings) -> None:
        self.settings = settings
        self._rules_json = settings.rules.to_json()  # info() runs at every change of every table: serialise once
        # The certificate this host serves now, when it may differ from the game's (a table resumed from a journal,
        # whose header keeps the fingerprint of its start): what join proofs must be bound to. None: the settings'.
        self.serving_tls: bytes | None = None
        self.table_id = secrets.token_hex(8)
        # Its host run and place among that run's tables (`--tables N`), journaled: a restart resumes them in order.
        self.host_run = ""
        self.index = 0
        self.port = 0
        # The key of the person the host seats itself: host-run (docs/protocol.md Level 1), its game key goes first.
        self.own_person_key = b""
        self.autostart = False
        self.on_notice: Callable[[str], None] | None = None  # one line for the host's operator (headless)
        self.game: HostGame | None = None
        self.lock = asyncio.Lock()
        self.streams_wake = StreamWake()  # (`wake_streams`: the log changed, or a stream must look at its state)
        self.settled = Settled()  # (clear while a change waits for its journal's fsync)
        self.finished = asyncio.Event()
        self.journal: Journal | None = None
        self.journal_path: Path | None = None  # where to keep the journal (None: no crash recovery)
        self.lobby = Lobby(self)
        self.changes = ChangeLog(self)
        self.settled.before_read = self.changes.seal
        self.bot_worker = BotWorker(self)
        self.clocks = TableClocks(self)
        self.submissions = Submissions(self)
        self.rematch = Rematch(self)  # another match at this table once everyone agrees (rematch.py)
        self.arrange = Arrangement(self)  # seat moves and names in the lobby (arrange.py)
        self.spectators = Spectators(self)  # who watches, seat -1 (spectators.py)
        # Once the match is over: the seats whose event stream delivered the whole log, the end included (a person
        # who has seen the end needs nothing more from this table); and whether `release()` has dropped the match.
        self.saw_end: set[int] = set()
        self.end_seq = 0  # the log item whose change ended the match (0: not over)
        self.released = False
        self._final_info: Any = None

    # ------------------------------------------------------------------ its parts, as the callers know them
    @property
    def rules(self) -> Rules:
        return self.settings.rules

    @property
    def n(self) -> int:
        return self.settings.players

    @property
    def seats(self) -> list[Occupant | None]:
        return self.lobby.seats

    @property
    def bots(self) -> dict[int, HostBot]:
        return self.bot_worker.bots

    @property
    def log(self) -> EventLog[LogItem]:
        return self.changes.items

    @property
    def record_path(self) -> Path | None:
        return self.changes.record_path

    # ------------------------------------------------------------------ public info
    def phase(self) -> Any:
        if self.game is None:
            return pb.TABLE_PHASE_LOBBY
        if self.game.finished:
            return pb.TABLE_PHASE_MATCH_OVER if self.game.end_reason == "target-reached" else pb.TABLE_PHASE_ABANDONED
        if self.game.phase == "header":
            return pb.TABLE_PHASE_STARTING
        return pb.TABLE_PHASE_PLAYING

    def info(self) -> Any:
        if self._final_info is not None:
            return self._final_info  # released: what the table was when its match ended
        return table_info(self, self._rules_json)

    def stood_in(self, seat: int) -> bool:
        return self.game is not None and seat in self.game.absent

    def has_free_lobby_seat(self) -> bool:
        """Still in the lobby with a seat nobody holds (where a Join without a table id goes)."""
        return self.game is None and bool(self.lobby.free_seats())

    def holds_key(self, public_key: bytes) -> bool:
        return self.lobby.holds_key(public_key)

    def seat_of(self, token: str) -> int:
        return self.lobby.seat_of(token)

    def may_start(self, seat: int) -> bool:
        return self.lobby.may_start(seat)

    def wake_streams(self) -> None:
        """Every event stream of the table looks again: at the log (a change was appended), or at whether it is
        replaced or the host is leaving. The one way the streams are woken."""
        self.streams_wake.wake()

    # ------------------------------------------------------------------ the lobby (see lobby.py)
    async def join(self, request: Any) -> tuple[int, str]:
        """A seat and its token; a spectator's place (seat -1) when the request says `spectate`."""
        if request.spectate:
            return -1, await self.spectators.join(request)
        return await self.lobby.join(request)

    async def add_bots(self, count: int, level: str) -> None:
        await self.lobby.add_bots(count, level)

    async def set_deal(self, deal: str) -> None:
        await self.lobby.set_deal(deal)

    async def set_ready(self, seat: int, ready: bool) -> None:
        await self.lobby.set_ready(seat, ready)

    async def set_online(self, seat: int, online: bool) -> None:
        await self.lobby.set_online(seat, online)

    async def leave(self, seat: int, nonce: bytes = b"", proof: bytes = b"") -> None:
        await self.lobby.leave(seat, nonce, proof)

    # ------------------------------------------------------------------ people away: a bot stands in
    async def stand_in(self, seat: int, active: bool) -> None:
        async with self.lock:
            await self.stand_in_locked(seat, active)

    async def stand_in_locked(self, seat: int, active: bool) -> None:
        game = self.game
        if game is None or game.finished or active == (seat in game.absent):
            return
        posted = game.stand_in(seat, active)
        if self.journal is not None:
            self.journal.stand_in(seat, active)
        if not posted:
            # (Level 1, before the first hand: nobody stands in while the game keys are fixed; the table waits)
            await self.publish(posted)
            return
        occupant = self.seats[seat]
        who = f"seat {seat} ({occupant.name if occupant else '?'})"
        notice = f"{who} is away: a bot stands in" if active else f"{who}: its person is back and plays again"
        log.info("%s", notice)
        if self.on_notice is not None:
            self.on_notice(notice)
        await self.publish(posted)

    # ------------------------------------------------------------------ the game
    async def start(self) -> None:
        async with self.lock:
            if self.game is not None or self.released:
                raise TableRefusal(Code.PRECONDITION, Reason.GAME_STARTED, "the game has already started")
            if any(s is None for s in self.seats):
                raise TableRefusal(Code.PRECONDITION, Reason.NOT_ENOUGH_PLAYERS, "wait until every seat is taken")
            await self.start_locked()

    async def start_locked(self) -> None:
        """The match starts (under the lock): the header, the record, the journal, the bots."""
        host_nonce = os.urandom(32)
        self.rematch.matches += 1
        if self.journal_path is not None:
            from .resume import journal_meta

            self.journal = Journal(self.rematch.journal_path(self.journal_path), journal_meta(self, host_nonce))
            self.rematch.drop_lobby()  # (the match's journal holds the seats from now on)
        for occupant in self.seats:  # readiness belongs to the lobby: after this match, "again" is asked afresh
            if occupant is not None and not occupant.bot:
                occupant.ready = False
        game = self.make_game(host_nonce, {})
        self.changes.open_record()
        posted = game.start()
        log.info("game %s started, fingerprint %s", game.game_id.hex()[:12], game.fingerprint)
        await self.publish(posted)
        self.bot_worker.start()
        for seat, occupant in enumerate(self.seats):  # a person whose line dropped in the lobby: clock starts
            if occupant is not None and not occupant.bot and not occupant.online:
                self.clocks.start_grace(seat)

    def make_game(self, host_nonce: bytes, replay: dict[int, list[bytes]]) -> HostGame:
        """The HostGame and the bots' SeatGames, their random draws journaled (or replayed on a resume)."""
        seats = [Seat(s.public_key, s.name, s.join_nonce, s.bot, host_run=s.bot or s.public_key == self.own_person_key)
                 for s in self.seats if s is not None]

        def journal() -> Journal | None:  # read at draw time: the journal is opened after the game is made
            return self.journal

        settings = self.settings
        self.game = HostGame(settings.rules, seats, settings.host_key, reveal=settings.reveal, deal=settings.deal,
                             next_deal=settings.next_deal if settings.deal == "verified" else "",
                             preset=settings.preset, tls_fingerprint=settings.tls_fingerprint, host_nonce=host_nonce,
                             random_bytes=Draws(HOST, journal, replay.get(HOST)), series=self.rematch.next,
                             step_timeout_ms=header_step_timeout_ms(settings.step_timeout))
        self.bot_worker.make_games(journal, replay)
        return self.game

    @classmethod
    async def resume(cls, path: Path, host_key: Ed25519PrivateKey, *, bot_delay: float = 0.0,
                     grace: float = DEFAULT_GRACE, step_timeout: float = DEFAULT_STEP_TIMEOUT) -> Table:
        """Rebuild the table of an unfinished game from its journal (see resume.py)."""
        from .resume import resume_table

        return await resume_table(path, host_key, bot_delay=bot_delay, grace=grace, step_timeout=step_timeout)

    async def publish(self, posted: list[Posted], *, bots_fed: bool = False) -> None:
        """A change of the game (under the lock): journaled, recorded, shown to the bots (unless `bots_fed`: the bot
        worker has shown them already), logged for the streams."""
        cancelled = await _durable(self)  # (no await from here to the log's append: nothing can read in between)
        assert self.game is not None
        item = self.changes.new_item()
        item.posted = posted
        item.events = self.game.drain_events()
        self.changes.write(posted)
        if not bots_fed:
            self.bot_worker.feed(posted)
        await self.changes.append(item)
        self.bot_worker.wake()
        self.clocks.watch_steps()
        if self.game.next_deal_ahead() is not None:  # (the next deal's deck and seals, once a hand: PREPARE_AFTER)
            asyncio.get_running_loop().call_later(PREPARE_AFTER, self.game.prepare_next_deal)
        if self.game.finished:
            self.end_seq = self.end_seq or len(self.log)
            self.changes.close_records()
            if self.journal is not None:
                self.journal.finish()
                self.journal = None
            self.rematch.save_lobby()  # (a crash between matches keeps the table, its seats and tokens)
            self.finished.set()
        if cancelled:
            raise asyncio.CancelledError  # (the change is out whole: now the caller may stop)

    # ------------------------------------------------------------------ after the match: a fresh table in its place
    def people_saw_end(self) -> bool:
        """Every person's seat (not the host's bots) has had the whole log of the finished match streamed."""
        return self.finished.is_set() and all(
            occupant is None or occupant.bot or s in self.saw_end for s, occupant in enumerate(self.seats))

    def successor(self) -> Table:
        """A fresh table for this one's place at the host: a new id, an empty lobby, the same settings; the place
        (host run, index, port), start policy and operator notices too."""
        settings = self.settings
        if self.serving_tls is not None:  # (a resumed table's journal names the certificate of its start)
            settings = replace(settings, tls_fingerprint=self.serving_tls)
        fresh = Table(settings)
        fresh.host_run, fresh.index, fresh.port = self.host_run, self.index, self.port
        fresh.own_person_key = self.own_person_key
        fresh.autostart, fresh.on_notice = self.autostart, self.on_notice
        if self.journal_path is not None:
            fresh.journal_path = self.journal_path.with_name(f"{fresh.table_id}.wjournal")
        return fresh

    async def release(self) -> None:
        """Drop the finished match from memory: the log (events, chain entries, views), the game and its chain,
        the bots' SeatGames, the answers to past envelopes. The record and the journal are closed on disk already.

        Only the public TableInfo of the end stays (`info()`); a stream still open wakes up, finds nothing more to
        send, and ends. The host lists the table no more (see ListTables in the proto).
        """
        async with self.lock:
            if self.released:
                return
            self.rematch.drop_lobby()
            self._final_info = self.info()
            self.released = True
            self.changes.forget()
            self.game = None
            self.bot_worker.forget_games()
            self.submissions.forget()
            self.lobby.used_nonces.clear()
            self.changes.close_records()
            self.bot_worker.stop()
        self.clocks.stop()
        self.finished.set()  # (already set: a released table never plays again)
        self.wake_streams()

    async def end_match(self) -> None:
        """End the match early (the host stops): MatchEnd, k_H and a closing checkpoint, which the bots co-sign at
        once; a person still connected can co-sign it too before `shutdown` closes the records."""
        async with self.lock:
            if self.game is not None and not self.game.finished:
                # Journaled before it posts (as every input is): the closing checkpoint's signatures that follow
                # are journaled too, and a restart could not replay them on a match it did not know was abandoned.
                if self.journal is not None and not self.game.end_reason and self.game.phase != "new":
                    self.journal.abandon("host-shutdown")
                posted = self.game.abandon("host-shutdown")
                if posted:
                    await self.publish(posted)
                with contextlib.suppress(ProtocolError):
                    await self.bot_worker.step()  # the bots co-sign the closing checkpoint

    async def shutdown(self) -> None:
        """Ctrl-C / SIGTERM: end the match early (`end_match`), close the records."""
        await self.end_match()
        async with self.lock:
            self.changes.close_records()
            self.rematch.drop_lobby()  # (a stop, not a crash: the evening is over)
        self.bot_worker.stop()
        self.clocks.stop()
