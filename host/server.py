"""The gRPC service (grpc.aio): translates calls to the Table and the Table's log to per-seat streams."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import grpc
import grpc.aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from watten_net.refusal import Code, Reason, Refusal
from watten_net.v1 import watten_pb2 as pb
from watten_net.v1 import watten_pb2_grpc as pb_grpc

from . import reflection
from .chat import ChatLimiter, say
from .errors import RefusalInterceptor, abort_with, aborted, envelope_answer, refusals_to_status
from .limits import BIG_REQUEST_METHODS, MAX_SMALL_REQUEST, Limits, PeerLimits, grpc_options
from .lobby import token_digest
from .refusal import TableRefusal
from .spectators import Spectator
from .stream_events import Sent, seat_event
from .table import Table
from .views import own_chain, snapshot

log = logging.getLogger("watten.host")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["WattenTable"].full_name
MAX_MESSAGE = 1 << 20  # 1 MiB: what the host sends is at most 16 of these (a whole record's worth of chain entries)
# Per-connection rate limit. Every call (any method, health and reflection included; a Subscribe counts once,
# when it opens) takes one token from its connection's bucket (keyed by `context.peer()`, i.e. address and port of
# the TCP connection); a bucket holds RATE_BURST tokens and refills at RATE_PER_SECOND. A call that finds the
# bucket empty is refused with RESOURCE_EXHAUSTED `rate-limited` before its handler runs, so a flood costs the
# host little and changes nothing. Generous on purpose: a person or a bot makes a few calls a second (reconnects
# included), so only a runaway or hostile client ever meets the limit.
RATE_PER_SECOND = 200.0
RATE_BURST = 400.0
RATE_LIMITED_REASON = Reason.RATE_LIMITED
LOG_EVERY = 10.0  # seconds between two log lines about the same flooding connection


class RateLimiter:
    """Token buckets per connection; `admit(context)` raises the `rate-limited` Refusal when one runs dry."""

    MAX_TRACKED = 4096  # beyond this many connections, buckets that have refilled (idle peers) are forgotten

    def __init__(self, rate: float = RATE_PER_SECOND, burst: float = RATE_BURST,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.buckets: dict[str, tuple[float, float]] = {}  # peer -> (tokens left, time of the last call)
        self.warned: dict[str, float] = {}  # peer -> when its flood was last logged (one line per 10 s, not per call)
        self._swept = clock()

    def allow(self, peer: str) -> bool:
        now = self.clock()
        tokens, last = self.buckets.get(peer, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        allowed = tokens >= 1.0
        self.buckets[peer] = (tokens - 1.0 if allowed else tokens, now)
        if len(self.buckets) > self.MAX_TRACKED and now - self._swept >= self.burst / self.rate:
            self._forget_idle(now)
        return allowed

    def _forget_idle(self, now: float) -> None:
        """Drop the buckets that have refilled (a full bucket is the same as none); at most once per refill time,
        so that many connections at once cannot make every call pay for a sweep."""
        self._swept = now
        refill = self.burst / self.rate
        for peer, (_, last) in list(self.buckets.items()):
            if now - last >= refill:
                del self.buckets[peer]
                self.warned.pop(peer, None)

    def admit(self, context: grpc.aio.ServicerContext) -> None:
        peer = str(context.peer())
        if self.allow(peer):
            return
        now = self.clock()
        if now - self.warned.get(peer, -LOG_EVERY) >= LOG_EVERY:
            self.warned[peer] = now
            log.warning("rate limit: refusing calls from %s (more than %d a second)", peer, int(self.rate))
        raise Refusal(
            Code.RESOURCE_EXHAUSTED, RATE_LIMITED_REASON,
            f"Too many requests on this connection (more than {int(self.rate)} a second); slow down and try "
            "again in a moment.",
        )


UNKNOWN_TABLE = Reason.UNKNOWN_TABLE
STREAM_REPLACED = Reason.STREAM_REPLACED
SUBSCRIBER_LAGGING = Reason.SUBSCRIBER_LAGGING
OFFLINE_DELAY = 2.0  # seconds a seat without a stream stays online (a reconnect within it shows nobody anything)
REPLACED_CUT = 5.0  # seconds a replaced stream may take to end (stuck in a write nobody reads: then it is cut)


def host_left() -> Refusal:
    """How every stream ends when the host process is leaving (docs/protocol.md: UNAVAILABLE `host-left`)."""
    return Refusal(Code.UNAVAILABLE, Reason.HOST_LEFT,
                   "The host has left the table. Your record is kept; you are back at the table as soon as the host "
                   "is started again.")


class _Stream:
    """One open Subscribe: told when a newer one of its seat replaces it."""

    def __init__(self, context: grpc.aio.ServicerContext, table: Table,
                 leaving: Callable[[], bool] = lambda: False) -> None:
        self.context = context
        self.table = table
        self.leaving = leaving  # the host is ending: a stream that has sent everything ends with `host-left`
        self.replaced = False
        self.cut = False  # its status went out from outside (see `_cut`)
        self.ended = False
        self.cursor = 0  # the log items it has sent (a stream whose client does not read stops short of the log)
        self._abort: asyncio.Future[None] | None = None
        self.ending: Refusal | None = None  # the host is leaving: how this stream ends (`end_now`)
        self.sent = Sent()  # what it carried last (an Event leaves out what did not change since)

    def opening(self, snap: Any) -> Any:
        """The stream's first message: its snapshot (a full one's view and TableInfo are what it carried last)."""
        if not snap.resumed:
            self.sent.snapshot(snap.view)
        return pb.TableUpdate(snapshot=snap)

    def replace(self) -> None:
        """A newer stream of the seat took over: this one ends at its next step (at once if it waits for the table's
        next change); one still there after REPLACED_CUT seconds is cut."""
        self.replaced = True
        asyncio.get_running_loop().call_later(REPLACED_CUT, self._cut)
        self.table.wake_streams()

    def _cut(self) -> None:
        """Still there: it is stuck in a write its client does not read. Its status goes out from here (grpc.aio lets
        another task abort a call); the write under way then fails, and grpc ends the handler."""
        if self.ended:
            return
        self.cut = True

        async def abort() -> None:
            # (a call its handler ended meanwhile: `abort_with` ends this task as a quiet cancellation)
            with contextlib.suppress(grpc.aio.AbortError):
                await abort_with(self.context, self.refusal())

        self._abort = asyncio.ensure_future(abort())

    def end_now(self, refusal: Refusal) -> None:
        """The host is leaving: the handler ends this stream with `refusal` at its next step (the host wakes it)."""
        self.ending = refusal
        self.replaced = True

    @staticmethod
    def refusal() -> Refusal:
        return aborted(STREAM_REPLACED, "A newer Subscribe with this seat's token took over this stream; this one has "
                       "ended: do not resubscribe from here.")

    def goes_on(self) -> bool:
        """False once the stream was cut (its status is out: just end); raises the refusal once replaced."""
        if not self.replaced:
            return True
        if self.cut:
            return False
        raise self.ending or self.refusal()


async def _updates(mine: _Stream, seat: int, cursor: int) -> AsyncIterator[Any]:
    """The table's changes from `cursor` on, as `seat` may see them, until the stream is replaced or the match is
    over and sent."""
    table = mine.table
    occupant = table.seats[seat] if seat >= 0 else None  # (seat -1: a spectator, see `_watch`)
    while True:
        if not mine.goes_on() or not _still_seated(table, seat, occupant):
            return
        # Once this stream has carried the change that ended the match, the seat has seen the end: its
        # client may stop reading (later changes are only other seats going offline), and the host may
        # let the table go (host/places.py).
        if table.end_seq and cursor >= table.end_seq and seat >= 0:
            table.saw_end.add(seat)
        while cursor < len(log := table.log):  # (the log is read again after every await: a release replaces it)
            if not mine.goes_on():
                return
            if cursor < log.first:
                raise aborted(SUBSCRIBER_LAGGING, "This stream fell behind what the table keeps of its "
                              "lobby; subscribe again for a fresh snapshot.")
            if not table.settled.read_now():  # (no change shown before its fsync; a held one sealed first)
                await table.settled.reached()
                continue  # (the log may have been released or trimmed meanwhile: every check again)
            if not _still_seated(table, seat, occupant):  # (moved or gone while it was sending: not only at a wake)
                return
            item = log[cursor]
            cursor += 1
            update = pb.TableUpdate()  # (the event is written into it: `TableUpdate(event=...)` would copy it)
            seat_event(table, item, seat, mine.sent, update.event)
            yield update
            mine.cursor = cursor
            if table.end_seq and cursor >= table.end_seq and seat >= 0:
                table.saw_end.add(seat)
        # The host is leaving: a stream that has sent everything (the end of the match the host ended, or a lobby's)
        # says so; not the host's own person's (its screen is closing anyway).
        all_sent = cursor >= len(table.log) and (table.game is None or table.finished.is_set())
        if mine.leaving() and all_sent and occupant is not None and occupant.public_key != table.own_person_key:
            raise host_left()
        if table.finished.is_set() and cursor >= len(table.log) and not _follows_on(table, seat):
            return  # (a seat that asked for another match follows the table into it)
        if cursor >= len(table.log) and not mine.replaced:
            await table.streams_wake.wait()  # (no await since the log was looked at: no change slips past)


def _still_seated(table: Table, seat: int, occupant: Any) -> bool:
    """Whether the stream's person still holds its seat, checked before every change the stream sends, since the
    change that moved or freed them may be the next one it reads. Moved (ChooseSeat, or the host's person moved
    them): the views of the old seat are no longer theirs, `subscriber-lagging`. Gone (a Leave in the lobby, the seat
    freed): False, the stream ends as a spectator's does when its place goes; its token is dead, and whoever takes
    the seat next (a bot never subscribes, so nothing replaces this stream) must not have their cards shown here."""
    if occupant is None or table.seats[seat] is occupant:
        return True
    if any(s is occupant for s in table.seats):
        raise aborted(SUBSCRIBER_LAGGING, "Your seat changed; subscribe again for the new seat's snapshot.")
    return False


def _follows_on(table: Table, seat: int) -> bool:
    """After the end of a match: a seat that asked for another follows the table into it; a spectator too, while
    another may come (the table is not released)."""
    if seat < 0:
        return not table.released and table.rematch.between_matches() and table.rematch.offered
    return table.rematch.asked_again(seat)


async def _watch(table: Table, person: Spectator, request: Any, context: grpc.aio.ServicerContext
                 ) -> AsyncIterator[Any]:
    """A spectator's stream: a full snapshot of seat -1's view, then every change as seat -1 sees it, while it holds
    its place (a Leave, or the place given away, ends it)."""
    mine = _Stream(context, table)
    await table.spectators.stream_opened(person)
    try:
        await table.settled.reached()  # (no change waiting for its fsync in the opening: no await until built)
        cursor = len(table.log)
        known_chain_seq = int(request.known_chain_seq)
        game_id = table.game.game_id if table.game is not None else b""
        if request.known_game_id and bytes(request.known_game_id) != game_id:
            known_chain_seq = 0
        yield mine.opening(snapshot(table, -1, cursor, known_chain_seq))
        async for update in _updates(mine, -1, cursor):
            if person not in table.spectators.people:
                return
            yield update
    finally:
        mine.ended = True
        await table.spectators.stream_closed(person)


class WattenTableService(pb_grpc.WattenTableServicer):
    """Every call of the contract, for one table or several on the same port (`watten-host --tables N`).

    GetTable and Join name their table by `table_id` (empty: see `_table_for_join`); every other call carries a
    seat token, and tokens are unique across the host, so `_table_of(token)` finds the table from the token alone.
    """

    def __init__(self, tables: Table | Sequence[Table], limits: Limits | None = None) -> None:
        self.tables: list[Table] = [tables] if isinstance(tables, Table) else list(tables)
        self.peers = PeerLimits(limits)  # what one client address may hold (host/limits.py)
        # Who took each person's seat: (table id, seat) -> (connection, address, key), for the seat limits.
        self.origins: dict[tuple[str, int], tuple[str, str, bytes]] = {}
        self.joining: list[tuple[str, str]] = []  # (connection, address) of the joins under way
        if not self.tables:
            raise ValueError("a host serves at least one table")
        self.by_id = {t.table_id: t for t in self.tables}
        # token -> the table that issued it. Tokens are issued only by Join (through this service) and by a resume
        # (already in the seats when the service is made), so the map knows every live token. A dict lookup does
        # not leak the token through timing (str hashes are keyed per process); the table's own constant-time
        # check still decides whether the token is valid (a revoked one maps to its table, which says bad-token).
        self.tokens: dict[bytes, Table] = {}  # token digest -> its table (the host keeps no token itself)
        for table in self.tables:
            self._remember_tokens(table)
        # Open event streams per (table, seat). A seat is online while it has at least one: a second Subscribe with
        # the same token (a client checking its state, a reconnect racing the old stream's end) must not mark the
        # seat offline when it ends while the first one still runs.
        self.streams: dict[tuple[str, int], int] = {}
        self.latest: dict[tuple[str, int], _Stream] = {}  # the stream each seat reads now (one per token)
        self.offline_timers: dict[tuple[str, int], asyncio.Future[None]] = {}
        self.offline_delay = OFFLINE_DELAY
        self.chat = ChatLimiter()  # chat lines per sender (host/chat.py)
        # The host process is ending (its person quit, Ctrl-C): a stream whose match it ended says `host-left` once
        # everything is sent, and `host_leaving` ends the others so.
        self.leaving = False

    @property
    def table(self) -> Table:
        """The first table (the only one on a single-table host)."""
        return self.tables[0]

    def open_streams(self, table: Table) -> int:
        """Event streams of `table` open right now (all seats)."""
        return sum(count for (table_id, _), count in self.streams.items() if table_id == table.table_id)

    def replace(self, old: Table, new: Table) -> None:
        """`new` takes `old`'s place in the host's list (ListTables order); `old` is no longer served: its id is
        unknown from now on and its seat tokens are refused (`bad-token`), so nothing here keeps it in memory."""
        self.tables[self.tables.index(old)] = new
        self.by_id.pop(old.table_id, None)
        self.by_id[new.table_id] = new
        for digest in [d for d, t in self.tokens.items() if t is old]:
            del self.tokens[digest]
        self._remember_tokens(new)

    def _remember_tokens(self, table: Table) -> None:
        for occupant in table.seats:
            if occupant is not None and occupant.token_digest:
                self.tokens[occupant.token_digest] = table

    def _named(self, table_id: str) -> Table | None:
        if not table_id:
            return None
        table = self.by_id.get(table_id)
        if table is None:
            raise Refusal(Code.PRECONDITION, UNKNOWN_TABLE,
                          f"this host runs no table {table_id[:40]!r}; list its tables (ListTables) and choose one")
        return table

    def _default_table(self) -> Table:
        """The first table still in its lobby with a free seat, else the first table."""
        return next((t for t in self.tables if t.has_free_lobby_seat()), self.tables[0])

    def _table_of(self, token: str) -> Table:
        """The table whose seat token this is; an unknown one is refused exactly as a table refuses it."""
        table = self.tokens.get(token_digest(token)) if token else None
        if table is not None:
            return table
        # Not in the map (or empty): ask every table, so a token issued some other way still works; when none
        # knows it, the last table's answer is the usual no-token / bad-token refusal.
        for table in self.tables:
            try:
                table.seat_of(token)
            except TableRefusal:
                if table is self.tables[-1]:
                    raise
                continue
            self.tokens[token_digest(token)] = table
            return table
        raise AssertionError("unreachable: the last table either accepts the token or refuses it")

    @refusals_to_status
    async def GetTable(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        table = self._named(request.table_id) or self._default_table()
        await table.settled.reached()
        return table.info()

    @refusals_to_status
    async def ListTables(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        infos = []
        for table in self.tables:  # (each as it is with no change waiting for its fsync)
            await table.settled.reached()
            infos.append(table.info())
        return pb.ListTablesResponse(tables=infos)

    @refusals_to_status
    async def Join(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        self.peers.admit_join(context)
        named = self._named(request.table_id)
        key = bytes(request.public_key)
        holding = [t for t in self.tables if t.holds_key(key)] if not request.spectate else []
        if named is not None:
            candidates = [named]
        elif request.spectate:  # (no table named: the first where a match is played, else the first)
            candidates = [next((t for t in self.tables if t.game is not None), self.tables[0])]
        else:
            # Empty table_id: where the key already sits (a restarted client gets its seat back), else every lobby
            # table with a free seat in order, else the first table. Several candidates, because joins race: a
            # table may fill up while this join waits for its lock, and the next one then takes the seat.
            candidates = holding or [t for t in self.tables if t.has_free_lobby_seat()] or [self.tables[0]]
        # A key taking its seat back is not a new seat; any other Join is, and counts against the seat limits.
        origin = ("", "") if holding or request.spectate else self.peers.check_seats(context, self._seats_held)
        self.joining.append(origin)
        try:
            for i, table in enumerate(candidates):
                try:
                    seat, token = await table.join(request)
                except TableRefusal as err:
                    if err.reason in (Reason.TABLE_FULL, Reason.GAME_STARTED) and i + 1 < len(candidates):
                        continue
                    raise
                self.tokens[token_digest(token)] = table
                if seat >= 0:
                    self.origins[(table.table_id, seat)] = (*self.peers_of(context), key)
                return pb.JoinResponse(seat=seat, token=token, table=table.info())
        finally:
            self.joining.remove(origin)
        raise AssertionError("no candidate table")  # pragma: no cover (the list is never empty)

    def peers_of(self, context: grpc.aio.ServicerContext) -> tuple[str, str]:
        from .limits import address_of

        peer = self.peers.peer_of(context)
        return peer, address_of(peer)

    def _seats_held(self, peer: str, address: str) -> tuple[int, int]:
        """Persons' seats (at the tables served now) taken from this connection and from this address, and the
        joins from them under way."""
        on_connection = sum(1 for p, _ in self.joining if p == peer)
        on_address = sum(1 for _, a in self.joining if a == address)
        for (table_id, seat), (p, a, key) in list(self.origins.items()):
            table = self.by_id.get(table_id)
            occupant = table.seats[seat] if table is not None and not table.released else None
            if occupant is None or occupant.bot or occupant.public_key != key:
                del self.origins[(table_id, seat)]  # freed, or the table is gone
                continue
            on_connection += p == peer
            on_address += a == address
        return on_connection, on_address

    @refusals_to_status
    async def ChooseSeat(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        table = self._table_of(request.token)
        seat = table.seat_of(request.token)
        moved = await table.arrange.choose_seat(seat, int(request.seat))
        origin = self.origins.pop((table.table_id, seat), None)
        if origin is not None:  # (the seat limits count the seat where the person sits now)
            self.origins[(table.table_id, moved)] = origin
        return pb.Ack(seq=len(table.log), seat=moved)

    @refusals_to_status
    async def SetName(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        table = self._table_of(request.token)
        seat = table.seat_of(request.token)
        await table.arrange.set_name(seat, request.name)
        return pb.Ack(seq=len(table.log), seat=seat)

    @refusals_to_status
    async def Ready(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        table = self._table_of(request.token)
        seat = table.seat_of(request.token)
        await table.set_ready(seat, bool(request.ready))
        return pb.Ack(seq=len(table.log), seat=seat)

    @refusals_to_status
    async def Start(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        table = self._table_of(request.token)
        seat = table.seat_of(request.token)
        full = all(occupant is not None for occupant in table.seats)  # (else start() says not-enough-players)
        if table.game is None and full and not table.may_start(seat):
            raise TableRefusal(Code.PRECONDITION, Reason.NOT_ALL_READY,
                               "only the host's own player may start before everyone is ready: say Ready and "
                               "wait for the others")
        await table.start()
        return pb.Ack(seq=len(table.log), seat=seat)

    @refusals_to_status
    async def SubmitEnvelope(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        table = self._table_of(request.token)
        raws = [bytes(request.envelope), *map(bytes, request.more_envelopes)]
        answers = await table.submissions.submit_all(request.token, raws)
        seq, chain_seq, digest = answers[-1]
        response = pb.SubmitEnvelopeResponse(seq=seq, chain_seq=chain_seq, envelope_hash=digest)
        if len(answers) > 1:  # (a call of one envelope answers as before this field)
            response.answers.extend(envelope_answer(*answer) for answer in answers)
        return response

    @refusals_to_status
    async def Leave(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        table = self._table_of(request.token)
        person = table.spectators.of(request.token)
        if person is not None:
            await table.spectators.leave(person)
            return pb.Ack(seq=len(table.log), seat=-1)
        seat = table.seat_of(request.token)
        await table.leave(seat, bytes(request.nonce), bytes(request.leave_proof))
        return pb.Ack(seq=len(table.log), seat=-1)

    @refusals_to_status
    async def Say(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        table = self._table_of(request.token)
        seat = await say(table, request.token, request.text, self.chat)
        return pb.Ack(seq=len(table.log), seat=seat)

    @refusals_to_status
    async def Subscribe(self, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        table = self._table_of(request.token)
        person = table.spectators.of(request.token)
        if person is not None:
            end_watch = self.peers.open_stream(context)
            try:
                async for update in _watch(table, person, request, context):
                    yield update
            finally:
                if end_watch is not None:
                    end_watch()
            return
        seat = table.seat_of(request.token)
        end_stream = self.peers.open_stream(context)
        key = (table.table_id, seat)
        # One stream per seat token (the proto): this one replaces the seat's stream open so far, which ends with
        # ABORTED `stream-replaced` at once; one stuck in a write its client does not read is cut after
        # REPLACED_CUT seconds. So a client cannot pile up streams (each holds its events until sent).
        mine = _Stream(context, table, lambda: self.leaving)
        previous = self.latest.get(key)
        self.latest[key] = mine
        if previous is not None:
            previous.replace()
        self.streams[key] = self.streams.get(key, 0) + 1
        try:
            await table.set_online(seat, True)
            await table.settled.reached()  # (no change waiting for its fsync in the opening: no await until built)
            cursor = len(table.log)
            # Resume only into the same log: after a host restart the numbering starts again, and the chain
            # length the client holds tells the two apart.
            known_chain_seq = int(request.known_chain_seq)
            game_id = table.game.game_id if table.game is not None else b""
            if request.known_game_id and bytes(request.known_game_id) != game_id:
                known_chain_seq = 0  # another match at this table: its chain from the start
            if (table.log.first < request.from_seq <= cursor
                    and table.log[request.from_seq - 1].chain_len == request.known_chain_seq
                    and (not request.known_game_id
                         or table.log[request.from_seq - 1].game_id in (b"", bytes(request.known_game_id)))):
                resumed = pb.Snapshot(seq=request.from_seq, resumed=True)
                own_chain(resumed, table, seat)  # the next envelope's seq and prev_hash, as of now
                yield mine.opening(resumed)
                cursor = int(request.from_seq)
            else:
                yield mine.opening(snapshot(table, seat, cursor, known_chain_seq))
            async for update in _updates(mine, seat, cursor):
                yield update
        finally:
            if end_stream is not None:
                end_stream()
            mine.ended = True
            if self.latest.get(key) is mine:
                del self.latest[key]
            self.streams[key] -= 1
            if not self.streams[key]:
                del self.streams[key]
                _offline_soon(self, table, seat, key)

    async def begin_leaving(self) -> None:
        """The host is about to end (before it ends its matches): from now on each stream that has sent everything
        ends with `host-left` (those waiting in a lobby at once)."""
        self.leaving = True
        for table in self.tables:
            table.wake_streams()

    async def host_leaving(self) -> None:
        """The host process is about to end: every open event stream ends now with UNAVAILABLE `host-left`, so that
        its client says the host has left (rather than reconnecting in silence) and tries again at a slow pace."""
        streams = list(self.latest.values())
        for stream in streams:
            stream.end_now(host_left())
        await self.begin_leaving()  # (wakes them)
        deadline = asyncio.get_running_loop().time() + 1.0  # a stream stuck in a write ends when the server stops
        while any(not stream.ended for stream in streams) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)


def _offline_soon(service: WattenTableService, table: Table, seat: int, key: tuple[str, int]) -> None:
    """The seat's last stream ended: offline, unless a stream of it opens again within OFFLINE_DELAY seconds.
    A reconnect (or a client opening and closing its stream in a loop) then tells the other seats nothing."""
    timers = service.offline_timers

    async def later() -> None:
        await asyncio.sleep(service.offline_delay)
        if timers.get(key) is asyncio.current_task():
            del timers[key]
        if not service.streams.get(key):
            await table.set_online(seat, False)

    if service.offline_delay <= 0:
        timers[key] = asyncio.ensure_future(table.set_online(seat, False))
        return
    old = timers.get(key)
    if old is not None:
        old.cancel()
    timers[key] = asyncio.ensure_future(later())


async def start_server(tables: Table | Sequence[Table] | WattenTableService, port: int,
                       credentials: grpc.ServerCredentials | None,
                       bind: str = "0.0.0.0") -> tuple[grpc.aio.Server, int]:
    """Serve `tables` (one or several, or a service made for them) on `bind:port` (port 0 picks a free one);
    returns the server and its port."""
    service = tables if isinstance(tables, WattenTableService) else WattenTableService(tables)
    options = [
        *grpc_options(service.peers.limits),  # message size, streams per connection, idle and handshake timeouts
        ("grpc.max_send_message_length", 16 * MAX_MESSAGE),
        ("grpc.keepalive_time_ms", 20_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ("grpc.keepalive_permit_without_calls", 1),
        # gRPC sets SO_REUSEPORT by default on Linux: a second host (or any gRPC server of the same user) could
        # then listen on a port already in use and the kernel would share the connections between them unnoticed.
        ("grpc.so_reuseport", 0),
    ]
    limiter = RateLimiter()

    def admit(context: grpc.aio.ServicerContext) -> Callable[[], None] | None:
        limiter.admit(context)
        return service.peers.open_call(context)

    interceptor = RefusalInterceptor(admit=admit, small_request=MAX_SMALL_REQUEST,
                                     big_request_methods=BIG_REQUEST_METHODS)
    server = grpc.aio.server(interceptors=[interceptor], options=options)
    pb_grpc.add_WattenTableServicer_to_server(service, server)  # type: ignore[no-untyped-call]
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable((SERVICE_NAME, health.SERVICE_NAME), server)  # grpc.reflection.v1 and v1alpha
    address = f"{bind}:{port}"
    try:
        got = server.add_secure_port(address, credentials) if credentials else server.add_insecure_port(address)
    except RuntimeError:  # (grpcio raises instead of returning 0 when the address is in use)
        got = 0
    if got == 0:
        raise OSError(f"cannot listen on {address} (is another host running there?)")
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, got


async def stop_server(server: grpc.aio.Server, grace: float = 1.0) -> None:
    await asyncio.shield(server.stop(grace))
