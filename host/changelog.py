"""A table's log of changes (what the event streams send, each with the views built for it) and its game record."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from watten_net.cardwords import record_name
from watten_net.deal.host_game import HostGame, Posted
from watten_net.deal.steps import DealStep
from watten_net.engine.events import Event
from watten_net.record import KIND_HOST, RecordWriter

from .eventlog import EventLog
from .stream_events import public_info
from .views import SeatViews, table_info_key

if TYPE_CHECKING:
    from pathlib import Path

    from .stream_events import Shared
    from .table import Table
    from .views import BuiltView

VIEWS_KEPT = 128  # log items that keep the views built for them (see ChangeLog.append)
LOBBY_KEPT = 256  # log items a table in its lobby keeps (join/leave churn must not grow it without end)
# How long a change holding only co-signature relays of an unfinished step waits for the next change to carry it
# (see `held_back`). Long enough for the other seats' signatures of the same step, which follow within a few ms on a
# LAN, so that the step's relays and what completes it reach each seat as one event; short enough that a person
# watching a slow seat ("waiting for Loisl") sees the first signatures come in at once, as far as eyes can tell.
RELAY_HOLD = 0.03  # seconds
# The steps whose every seat signs the same thing (docs/protocol.md, "Co-signatures"): nothing waits for one relay.
CO_SIGNING = frozenset({DealStep.HEADER, DealStep.KEY_SIGN, DealStep.SEAL_SIGN, DealStep.CHECKPOINT})


def held_back(game: HostGame, posted: list[Posted], events: list[Event]) -> bool:
    """A change of nothing but relays of a co-signing step that still waits for a seat: nobody needs them before the
    step is complete (each seat checks a relay whenever it arrives), so the streams carry them with the next change."""
    if not posted or events or game.finished or any(p.type != "Relay" for p in posted):
        return False
    step, seats = game.waiting_for()
    return step in CO_SIGNING and bool(seats)


@dataclass
class LogItem:
    seq: int
    posted: list[Posted] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)  # engine events (filtered per seat when sent)
    lobby: list[Any] = field(default_factory=list)  # public pb.GameEvent of the lobby
    # Each connected person's view right after this change (without the TableInfo, which is `info`): built once,
    # when it happened, so a seat that reads the log later still gets the view that belongs to these events.
    views: dict[int, BuiltView] = field(default_factory=dict)
    info: Any = None  # the public TableInfo right after this change, seq left out (see stream_events.public_info)
    info_bytes: bytes = b""
    shared: Shared | None = None  # what every stream sends alike, built by the first to send it (stream_events)
    chain_len: int = 0  # the game chain's length after this change (to recognise a resume into this log)
    game_id: bytes = b""  # the game of that chain (a table plays one match after another: rematch.py)


class ChangeLog:
    """The table's numbered changes and the host's record of the game (the chain envelopes, on disk)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.items: EventLog[LogItem] = EventLog()
        self.record: RecordWriter | None = None
        self.record_path: Path | None = None
        self.record_wanted = False  # a record is to be written once the game's header gives its name
        self.seat_views = SeatViews(table)
        self.held: LogItem | None = None  # the last item, while it holds back co-signature relays (`append`)
        self._hold_timer: asyncio.TimerHandle | None = None
        self._waker: asyncio.Future[None] | None = None
        self._info_key: tuple[Any, ...] = ()  # (`_public_info`: what the last TableInfo built was built from)
        self._info: tuple[Any, bytes] = (None, b"")

    def new_item(self) -> LogItem:
        """The next change: it joins the change held back, if any (`append`), under its seq."""
        return LogItem(seq=len(self.items) if self.held is not None else len(self.items) + 1)

    async def append(self, item: LogItem) -> None:
        """Log one change for the streams, with the views it leaves each seat.

        A change `held_back` (co-signature relays) does not wake the streams: it stays open, and the next change
        joins it under the same seq (its relays first) until something reads the log (`seal`: a stream sends it, a
        snapshot counts it) or RELAY_HOLD has passed, which wakes the streams by itself."""
        table = self.table
        if table.released:
            return  # a straggling change (a stream's seat going offline) of a table whose match is gone
        hold = table.game is not None and held_back(table.game, item.posted, item.events)
        held = self.held
        if held is not None:  # (its views are built now, for both: what the seats see after this change)
            held.posted += item.posted
            held.events += item.events
            held.lobby += item.lobby
            item = held
        else:
            self._log(item)
        if hold:
            self.held = item
            if self._hold_timer is None:
                self._hold_timer = asyncio.get_running_loop().call_later(RELAY_HOLD, self._hold_over)
            return
        self.held = None
        self._build(item)
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None
        table.wake_streams()

    def _log(self, item: LogItem) -> None:
        table, log = self.table, self.items
        log.append(item)
        # The per-seat views are what makes the log big (a few kB per seat and change, over a megabyte a hand at
        # a table of four): keep them for the last VIEWS_KEPT changes only. A stream that far behind (or one
        # resuming from long ago) gets the table's current view with those events instead, as a seat that was
        # offline at the time always did; the chain entries and events themselves are all kept.
        if len(log) > VIEWS_KEPT and len(log) - VIEWS_KEPT - 1 >= log.first:
            old = log[-VIEWS_KEPT - 1]
            old.views, old.info, old.shared = {}, None, None
        # In the lobby nothing of the log goes into a record: keep its newest part only, so that people joining and
        # leaving for ever do not grow it (a stream further behind than that is told to resubscribe).
        if table.game is None:
            log.keep_last(LOBBY_KEPT)

    def _build(self, item: LogItem) -> None:
        """The views the change leaves each connected seat (and the spectators), and where the chain stands."""
        table = self.table
        seats = [seat for seat, occupant in enumerate(table.seats)
                 if occupant is not None and occupant.online and not occupant.bot]
        if table.spectators.watching():  # one view for every spectator (seat -1), of this very change
            seats.append(-1)
        if seats:
            item.views = self.seat_views.build(seats)
        if item.views:
            item.info, item.info_bytes = self._public_info()
        item.chain_len = len(table.game.chain) if table.game is not None else 0
        item.game_id = table.game.game_id if table.game is not None else b""

    def _public_info(self) -> tuple[Any, bytes]:
        """The TableInfo without seq (`stream_events.public_info`), built again only when it changed: most changes
        of a game (a card, a signature) leave it as it was."""
        key = table_info_key(self.table)
        if key != self._info_key:
            self._info_key, self._info = key, public_info(self.table.info())
        return self._info

    def seal(self) -> None:
        """The held change is final (something reads the log as it is now: `Table.settled`): its views built now,
        when no other change waits for its fsync; the next change gets a seq of its own."""
        held, self.held = self.held, None
        if held is not None:
            self._build(held)

    def _hold_over(self) -> None:
        self._hold_timer = None
        if self.held is not None:
            self._waker = asyncio.ensure_future(self._wake_for_held())

    async def _wake_for_held(self) -> None:
        """RELAY_HOLD passed and no change carried the held one: the streams are woken for it alone."""
        table = self.table
        await table.settled.reached()  # (seals it, once no change waits for its fsync; one that came joined it)
        table.wake_streams()

    async def lobby_event(self, *events: Any) -> None:
        """One change of the lobby: its public events."""
        # (some come without the table's lock, a stream going on- or offline: the views built for it must not show a
        # game change still waiting for its journal's fsync)
        await self.table.settled.reached()
        item = self.new_item()
        item.lobby.extend(events)
        await self.append(item)
        self.table.rematch.save_lobby()  # (only between matches: see rematch.py)

    def open_record(self) -> None:
        """The host's record of the game, with every chain envelope so far (a resumed game has some already).

        Its name holds the game's fingerprint, which the header gives: a game not started yet gets its file when its
        header is written (`write`)."""
        table = self.table
        if table.settings.record_dir is None or table.game is None:
            return
        self.record_wanted = True
        if table.game.fingerprint:
            self._open_record()

    def _open_record(self) -> None:
        table = self.table
        assert table.settings.record_dir is not None and table.game is not None
        self.record_path = table.settings.record_dir / self.record_name()
        self.record = RecordWriter(self.record_path, {"written_by": "watten-host", "seat": None})
        self.write(table.game.chain)

    def record_name(self) -> str:
        """The host record's file name: the game's fingerprint as the screen shows it says which game, the table id
        which of the host's tables."""
        game = self.table.game
        assert game is not None
        return record_name(game.fingerprint, f"table-{self.table.table_id}-host")

    def write(self, posted: list[Posted]) -> None:
        if self.record is None and self.record_wanted and self.table.game is not None and self.table.game.fingerprint:
            self._open_record()  # (the first envelopes, the header's among them: the whole chain so far)
            return
        if self.record is not None:
            for p in posted:
                self.record.append(KIND_HOST, p.raw)

    def close_records(self) -> None:
        self.record_wanted = False
        if self.record is not None:
            self.record.close()
            self.record = None

    def forget(self) -> None:
        """The match is released: its log goes (numbering starts again; a stream still open finds nothing)."""
        self.items = EventLog()
        self.seat_views = SeatViews(self.table)
        self.held = None
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None
