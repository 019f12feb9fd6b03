"""One table on the host: lobby, seats and tokens, the game, host-run bots, the event log and records (the
clocks that see that nobody waits for ever are in `clocks.py`).

Everything that changes the table runs under one asyncio lock, in this order: check, change,
append to the log, wake the streams. The gRPC servicer (`server.py`) only translates calls; the rules
live in the engine and the deal protocol in `HostGame`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import inspect
import logging
import os
import secrets
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.bots import Bot, SeatView, make_bot
from watten_net.deal.host_game import HostGame, Posted, Seat
from watten_net.deal.identity import INSECURE, join_proof_message, leave_proof_message, public_key_bytes, verify
from watten_net.deal.own_hand import complete_seat_view
from watten_net.deal.protocol import PROTOCOL_VERSION, ProtocolError, event_to_pb, parse_envelope
from watten_net.deal.seat import SeatGame
from watten_net.engine import Rules
from watten_net.engine.events import Event
from watten_net.printable import shown_as_is
from watten_net.record import KIND_HOST, RecordWriter
from watten_net.refusal import Code, Reason, Refusal
from watten_net.v1 import watten_pb2 as pb

from .clocks import DEFAULT_GRACE, DEFAULT_STEP_TIMEOUT, TableClocks
from .eventlog import EventLog
from .journal import (
    ABANDON,
    BOT_ACTION,
    DRAW,
    FORFEIT_AWAY,
    HOST,
    NONCE,
    STAND_IN,
    SUBMIT,
    TOKEN,
    Draws,
    Journal,
    read_journal,
)

log = logging.getLogger("watten.host")
MAX_NAME = 32
# The most join and leave nonces a table accepts in its life (each is one accepted Join or Leave: a few per seat and
# game is normal; the cap bounds what a hostile client churning the lobby makes the table keep, 32 bytes each).
MAX_NONCES = 4096
VIEWS_KEPT = 128  # log items that keep the views built for them (see Table._append)
LOBBY_KEPT = 256  # log items a table in its lobby keeps (join/leave churn must not grow it without end)
BOT_NAMES = ("Sepp", "Vroni", "Loisl", "Resi", "Hias", "Burgi")  # names a table in the Alps would know


class TableRefusal(Refusal):
    """A request the table refuses: the one Refusal (watten_net/refusal.py), `kind` being its code. The receipt of a
    refused game envelope is the host's signed RefusalReceipt (docs/protocol.md Disputes)."""

    def __init__(self, kind: Code | str, reason: Reason | str, message: str, receipt: Any = None) -> None:
        super().__init__(Code(kind), Reason(reason), message, receipt=receipt)


@dataclass
class SeatSlot:
    name: str
    public_key: bytes
    join_nonce: bytes
    token_digest: bytes  # SHA-256 of the seat's token: the host never keeps the token itself (nor its journal)
    bot: bool = False
    online: bool = False
    ready: bool = False
    offline_since: float = 0.0  # wall-clock time the seat's last stream ended (0: never connected or online)


@dataclass
class HostBot:
    """A seat played inside the host process: its own key, its own SeatGame, a policy seeing only its view."""

    seat: int
    key: Ed25519PrivateKey
    policy: Bot
    game: SeatGame | None = None


@dataclass
class LogItem:
    seq: int
    posted: list[Posted] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)  # engine events (filtered per seat when sent)
    lobby: list[Any] = field(default_factory=list)  # public pb.GameEvent of the lobby
    # Each connected person's view right after this change: built once, when it happened, so a seat that
    # reads the log later still gets the view that belongs to these events.
    views: dict[int, Any] = field(default_factory=dict)
    chain_len: int = 0  # the game chain's length after this change (to recognise a resume into this log)


def _report_bot_failure(task: asyncio.Future[None]) -> None:
    """The bot worker ended on an error: no bot of the table moves any more and the game waits for them for ever, so
    say why (an unread task error is shown only when the task is collected, if at all)."""
    if not task.cancelled() and (err := task.exception()) is not None:
        log.error("the host's bots stopped: %s", err, exc_info=err)


def _rebuild_bot_envelope(bot_game: SeatGame, raw: bytes) -> None:
    """Replaying the journal: build a host bot's journaled envelope again the way `_bot_step` built it, so that the
    bot's SeatGame moves on exactly as it did before the crash. An automatic one is the head of its outbox, signed by
    `next_automatic` on the bot's chain head of that moment (steps queued together, such as the shares of a deal's
    ShareRequests, are each signed again after the one before is taken: left as queued, the copy in the outbox no
    longer matches the journal's and is sent again after the resume, refused, and the bot worker stops). A game move
    (the bot's policy chose it) comes from `SeatGame.action`, which in a trustless game draws (the proof of a played
    card's opening): skipped, every later draw of the bot would go to another step. A rebuilt envelope differs from
    the journal's only if the replay went astray: the log says so."""
    signed = parse_envelope(raw, host=False)
    queued = bot_game.outbox[0] if bot_game.outbox else None
    try:
        if queued is not None and parse_envelope(queued, host=False).payload == signed.payload:
            rebuilt = bot_game.next_automatic()
        elif signed.type == "ActionRequest":
            rebuilt = bot_game.action(str(signed.payload.action))
        else:
            rebuilt = None
    except ProtocolError as err:
        log.warning("seat %d's %s cannot be built again from the journal: %s", bot_game.seat, signed.type,
                    err.message)
        return
    if rebuilt != raw:
        log.warning("seat %d's %s built again from the journal differs from the journaled one", bot_game.seat,
                    signed.type)


def token_digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def clean_name(name: str) -> str:
    """Names are shown on everyone's screen: no control characters, trimmed, at most 32 characters (a longer one is
    refused before anything is done with it: a megabyte of name used to cost the event loop a tenth of a second)."""
    if not isinstance(name, str):
        raise TableRefusal("invalid", "bad-name", "the name must be text")
    if len(name) > MAX_NAME:
        raise TableRefusal("invalid", "bad-name", f"a name has at most {MAX_NAME} characters; choose a shorter one")
    # What a screen would have to escape (control, format such as RTL overrides and zero-width joiners,
    # surrogates, private use, unassigned, line and paragraph separators: watten_net.printable) would break or
    # reorder the lines of every screen that shows the name; it goes, so the screens show the name unchanged.
    text = "".join(ch for ch in name if shown_as_is(ch)).strip()
    text = unicodedata.normalize("NFC", text)[:MAX_NAME].strip()
    if not text:
        raise TableRefusal("invalid", "bad-name", "choose a name of 1 to 32 printable characters")
    return text


class Table(TableClocks):
    def __init__(
        self,
        rules: Rules,
        *,
        preset: str = "",
        reveal: str = "match-end",
        deal: str = "verified",
        host_key: Ed25519PrivateKey | None = None,
        tls_fingerprint: bytes = b"",
        record_dir: Path | None = None,
        host_name: str = "watten-host",
        bot_delay: float = 0.0,
        grace: float = DEFAULT_GRACE,
        step_timeout: float = DEFAULT_STEP_TIMEOUT,
    ) -> None:
        self.rules = rules
        self._rules_json = rules.to_json()  # info() runs at every change of every table: serialise the rules once
        self.n = rules.players
        self.preset = preset
        self.reveal = reveal
        self.deal = deal  # "verified" (Level 1) or "trustless" (Level 2: the host sees no card)
        self.host_key = host_key or Ed25519PrivateKey.generate()
        self.tls_fingerprint = tls_fingerprint
        # The certificate this host serves now, when it may differ from the game's (a table resumed from a journal,
        # whose header keeps the fingerprint of its start): what join proofs must be bound to. None: tls_fingerprint.
        self.serving_tls: bytes | None = None
        self.record_dir = record_dir
        self.host_name = host_name
        self.bot_delay = bot_delay
        self.grace = grace
        self.step_timeout = step_timeout
        self._init_clocks()
        self.table_id = secrets.token_hex(8)
        # Which host run this table belongs to and its place among that run's tables (`--tables N`): both go into
        # the journal, so that a restart resumes all the tables one crashed host left, in their order.
        self.host_run = ""
        self.index = 0
        # The public key of the person the host process seats itself: a host-run seat (docs/protocol.md Level 1), like
        # the host's bots, which reveals its game key before the people who joined.
        self.own_person_key = b""
        self.seats: list[SeatSlot | None] = [None] * self.n
        self.bots: dict[int, HostBot] = {}
        self.game: HostGame | None = None
        self.log: EventLog[LogItem] = EventLog()
        self.lock = asyncio.Lock()
        self.changed = asyncio.Condition()
        self.record: RecordWriter | None = None
        self.record_path: Path | None = None
        self.finished = asyncio.Event()
        self._bots_wake = asyncio.Event()
        self.journal: Journal | None = None
        self.journal_path: Path | None = None  # where to keep the journal (None: no crash recovery)
        self.port = 0
        self._bot_task: asyncio.Future[None] | None = None
        self.on_finished: Callable[[], None] | None = None
        self.on_notice: Callable[[str], None] | None = None  # one line for the host's operator (headless)
        self.autostart = False
        # The answer to every envelope a seat submitted, by envelope hash: a retry of the same bytes gets the
        # original answer (the proto's promise), and is neither journaled nor applied again.
        self._answers: dict[bytes, tuple[int, int, bytes]] = {}
        # Every join and leave nonce this table accepted (see `_use_nonce`): a proof is good once, for ever.
        self._used_nonces: set[bytes] = set()
        # Once the match is over: the seats whose event stream delivered the whole log, the end included (a person
        # who has seen the end needs nothing more from this table); and whether `release()` has dropped the match.
        self.saw_end: set[int] = set()
        self.end_seq = 0  # the log item whose change ended the match (0: not over)
        self.released = False
        self._final_info: Any = None

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
        seats = []
        for s in range(self.n):
            slot = self.seats[s]
            seats.append(pb.SeatInfo(
                seat=s, occupied=slot is not None, name=slot.name if slot else "",
                side=-1 if self.n == 3 else s % 2, ready=bool(slot and slot.ready), online=bool(slot and slot.online),
                bot=bool(slot and slot.bot), public_key=slot.public_key if slot else b"",
                stand_in=self.stood_in(s),
            ))
        return pb.TableInfo(
            protocol_version=PROTOCOL_VERSION, table_id=self.table_id, host_name=self.host_name,
            preset=self.preset, rules_json=self._rules_json,
            settings=pb.TableSettings(deal=self.deal, reveal=self.reveal), player_count=self.n, seats=seats,
            phase=self.phase(), seq=len(self.log), host_tls_fingerprint=self.tls_fingerprint,
            host_public_key=public_key_bytes(self.host_key),
            game_id=self.game.game_id if self.game else b"",
            game_fingerprint=self.game.fingerprint if self.game else "",
        )

    def stood_in(self, seat: int) -> bool:
        return self.game is not None and seat in self.game.absent

    def has_free_lobby_seat(self) -> bool:
        """Still in the lobby with a seat nobody holds (where a Join without a table id goes)."""
        return self.game is None and any(slot is None for slot in self.seats)

    def holds_key(self, public_key: bytes) -> bool:
        """A person's (not a bot's) seat at this table belongs to this key (a Join with it reclaims the seat)."""
        return any(slot is not None and not slot.bot and slot.public_key == public_key for slot in self.seats)

    def seat_of(self, token: str) -> int:
        if not token:
            raise TableRefusal("unauthenticated", "no-token", "this call needs your seat token: join first")
        # Compare digests, in constant time (compare_digest on str raised TypeError for non-ASCII text, a fuzzed
        # token answered INTERNAL): the UTF-8 bytes of anything a client sends hash fine.
        given = token_digest(token)
        for s, slot in enumerate(self.seats):
            if slot is not None and not slot.bot and hmac.compare_digest(slot.token_digest, given):
                return s
        raise TableRefusal("unauthenticated", "bad-token", "unknown seat token: join the table again")

    # ------------------------------------------------------------------ log and streams
    async def _append(self, item: LogItem) -> None:
        from .views import table_view

        if self.released:
            return  # a straggling change (a stream's seat going offline) of a table whose match is gone
        info = None
        for seat, slot in enumerate(self.seats):
            if slot is not None and slot.online and not slot.bot:
                info = info if info is not None else self.info()
                item.views[seat] = table_view(self, seat, info)
        item.chain_len = len(self.game.chain) if self.game is not None else 0
        self.log.append(item)
        # The per-seat views are what makes the log big (a few kB per seat and change, over a megabyte a hand at
        # a table of four): keep them for the last VIEWS_KEPT changes only. A stream that far behind (or one
        # resuming from long ago) gets the table's current view with those events instead, as a seat that was
        # offline at the time always did; the chain entries and events themselves are all kept.
        if len(self.log) > VIEWS_KEPT and len(self.log) - VIEWS_KEPT - 1 >= self.log.first:
            self.log[-VIEWS_KEPT - 1].views = {}
        # In the lobby nothing of the log goes into a record: keep its newest part only, so that people joining and
        # leaving for ever do not grow it (a stream further behind than that is told to resubscribe).
        if self.game is None:
            self.log.keep_last(LOBBY_KEPT)
        async with self.changed:
            self.changed.notify_all()

    def _new_item(self) -> LogItem:
        return LogItem(seq=len(self.log) + 1)

    # ------------------------------------------------------------------ lobby
    async def join(self, request: Any) -> tuple[int, str]:
        async with self.lock:
            if request.protocol_version not in (0, PROTOCOL_VERSION):
                raise TableRefusal("precondition", "protocol-version",
                                   f"this host speaks protocol {PROTOCOL_VERSION}; update watten-join")
            if request.spectate:
                raise TableRefusal("precondition", "no-spectators", "this table takes no spectators yet")
            name = clean_name(request.name)
            key, nonce = bytes(request.public_key), bytes(request.join_nonce)
            if len(key) != 32:
                raise TableRefusal("invalid", "bad-public-key", "the public key must be 32 bytes")
            if len(nonce) != 32:
                raise TableRefusal("invalid", "bad-nonce", "the join nonce must be 32 bytes")
            wanted = request.seat if request.HasField("seat") else None
            if wanted is not None and not 0 <= wanted < self.n:
                raise TableRefusal("invalid", "bad-seat", f"seats are numbered 0 to {self.n - 1}")
            # Every Join proves the key (the first one too), bound to this table, this host's key and certificate,
            # and a nonce this table never accepted: public keys are public (GetTable, the GameHeader), and a Join
            # is seen by whoever it passes through, so neither a key nor a Join relayed or replayed takes a seat.
            self._check_join_proof(key, nonce, bytes(request.tls_fingerprint), bytes(request.key_proof))
            # A key that already holds a seat gets it back with a fresh token (a client that restarted).
            for s, slot in enumerate(self.seats):
                if slot is not None and not slot.bot and slot.public_key == key:
                    self._use_nonce(s, nonce)
                    token = secrets.token_urlsafe(24)
                    slot.token_digest = token_digest(token)
                    self._journal_token(s)
                    log.info("seat %d reclaimed by its key", s)
                    return s, token
            if self.game is not None:
                raise TableRefusal("precondition", "game-started", "the game has started: every seat is taken")
            if wanted is not None:
                if self.seats[wanted] is not None:
                    raise TableRefusal("precondition", "seat-taken", f"seat {wanted} is taken; choose another")
                seat = wanted
            else:
                free = [s for s in range(self.n) if self.seats[s] is None]
                if not free:
                    raise TableRefusal("precondition", "table-full", "every seat at this table is taken")
                seat = free[0]
            self._use_nonce(seat, nonce, new_seat=True)
            token = secrets.token_urlsafe(24)  # 192 bits
            self.seats[seat] = SeatSlot(name, key, nonce, token_digest(token))
            item = self._new_item()
            item.lobby.append(event_to_pb("seat-taken", seat, {"name": name, "bot": False}))
            await self._append(item)
            log.info("seat %d taken by %s", seat, name)
        await self._maybe_autostart()
        return seat, token

    def _journal_token(self, seat: int) -> None:
        slot = self.seats[seat]
        if self.journal is not None and slot is not None:
            self.journal.token(seat, slot.token_digest)

    def _check_join_proof(self, key: bytes, nonce: bytes, fingerprint: bytes, proof: bytes) -> None:
        """Refuse a Join whose key proof is missing, bound to another certificate (or to plaintext while this host
        serves TLS), does not verify, or carries a nonce this table accepted before (see `join_proof_message`)."""
        if not proof:
            raise TableRefusal("permission", "proof-required",
                               "every Join must prove that you hold your key (key_proof); update watten-join")
        if fingerprint != INSECURE and len(fingerprint) != 32:
            raise TableRefusal("invalid", "bad-fingerprint", "tls_fingerprint is the 32-byte SHA-256 of the host's "
                               "certificate, or b'insecure' over plaintext")
        own = (self.serving_tls if self.serving_tls is not None else self.tls_fingerprint) or INSECURE
        if fingerprint != own:
            if fingerprint == INSECURE:
                raise TableRefusal("permission", "insecure-proof",
                                   "this host serves TLS: a proof made over plaintext is refused; connect with TLS")
            raise TableRefusal("permission", "wrong-certificate",
                               "the key proof is bound to another certificate than this host's: another host relayed "
                               "the Join; connect to this host directly and compare its fingerprint")
        message = join_proof_message(self.table_id, public_key_bytes(self.host_key), fingerprint, key, nonce)
        if not verify(key, proof, message):
            raise TableRefusal("permission", "bad-key-proof",
                               "the key proof does not verify with this key for this table")
        self._check_nonce(nonce)

    def _check_nonce(self, nonce: bytes) -> None:
        if nonce in self._used_nonces:
            raise TableRefusal("permission", "nonce-used", "this proof's nonce was used before: a proof is good once")

    def _use_nonce(self, seat: int, nonce: bytes, *, new_seat: bool = False) -> None:
        """Remember an accepted nonce for the table's whole life: in memory, and once the game has started in the
        journal, fsync'd before the answer (the lobby's go into the journal's metadata at the start).

        Bounded: a Join for a new seat is refused once the table holds MAX_NONCES nonces, a seat's own Join or
        Leave (its key holds the seat) once it holds twice that, so churning the lobby cannot lock people out of
        their seats. Never dropped (a dropped nonce would make its proof good again)."""
        limit = MAX_NONCES if new_seat else 2 * MAX_NONCES
        if len(self._used_nonces) >= limit:
            raise TableRefusal("precondition", "too-many-joins",
                               f"this table has taken {len(self._used_nonces)} joins and leaves and takes no more; "
                               "choose another table")
        self._used_nonces.add(nonce)
        if self.journal is not None:
            self.journal.nonce(seat, nonce)

    async def add_bots(self, count: int, level: str) -> None:
        async with self.lock:
            free = [s for s in range(self.n) if self.seats[s] is None]
            if count > len(free):
                raise TableRefusal("precondition", "table-full", f"only {len(free)} seats are free for bots")
            item = self._new_item()
            for seat in free[:count]:
                key = Ed25519PrivateKey.generate()
                name = f"{BOT_NAMES[seat % len(BOT_NAMES)]} (bot)"
                self.seats[seat] = SeatSlot(name, public_key_bytes(key), secrets.token_bytes(32), b"", bot=True,
                                            online=True, ready=True)
                self.bots[seat] = HostBot(seat, key, make_bot(level))
                item.lobby.append(event_to_pb("seat-taken", seat, {"name": name, "bot": True}))
            await self._append(item)
        await self._maybe_autostart()

    async def set_deal(self, deal: str) -> None:
        """Lobby: how the cards will be dealt (a table setting in the game header, like the rules)."""
        async with self.lock:
            if self.game is not None:
                raise TableRefusal("precondition", "game-started", "the game has started: the deal mode is fixed")
            if deal not in ("verified", "trustless"):
                raise TableRefusal("invalid", "bad-setting", "the deal is verified or trustless")
            if deal == "trustless" and self.rules.blind:
                raise TableRefusal("precondition", "not-supported", "blind cannot be dealt trustless: the host must "
                                   "know the hidden announcement to judge the tricks")
            if deal == self.deal:
                return
            self.deal = deal
            item = self._new_item()
            item.lobby.append(event_to_pb("settings", -1, {"deal": deal}))
            await self._append(item)

    async def set_ready(self, seat: int, ready: bool) -> None:
        """Lobby readiness. Once the game has started it means nothing any more: refused (it used to flip a flag
        every view shows, without an event, so the seats' views disagreed)."""
        async with self.lock:
            if self.game is not None:
                raise TableRefusal("precondition", "game-started", "the game has started: readiness is over")
            slot = self.seats[seat]
            if slot is None or slot.ready == ready:
                return
            slot.ready = ready
            item = self._new_item()
            item.lobby.append(event_to_pb("ready", seat, {"ready": ready}))
            await self._append(item)

    async def set_online(self, seat: int, online: bool) -> None:
        slot = self.seats[seat]
        if slot is None or slot.online == online:
            return
        slot.online = online
        slot.offline_since = 0.0 if online else time.time()
        item = self._new_item()
        item.lobby.append(event_to_pb("online" if online else "offline", seat, {}))
        await self._append(item)
        if online:
            self._cancel_grace(seat)
            await self._stand_in(seat, False)
        elif not slot.bot:
            self._start_grace(seat, self.grace)
        self._watch_steps()  # offline, the grace period is the seat's clock; online again, the step clock

    # ------------------------------------------------------------------ people away: a bot stands in
    async def _stand_in(self, seat: int, active: bool) -> None:
        async with self.lock:
            await self._stand_in_locked(seat, active)

    async def _stand_in_locked(self, seat: int, active: bool) -> None:
        game = self.game
        if game is None or game.finished or active == (seat in game.absent):
            return
        posted = game.stand_in(seat, active)
        if self.journal is not None:
            self.journal.stand_in(seat, active)
        if not posted:
            # (Level 1, before the first hand: nobody stands in while the game keys are fixed; the table waits)
            await self._publish(posted)
            return
        slot = self.seats[seat]
        who = f"seat {seat} ({slot.name if slot else '?'})"
        notice = f"{who} is away: a bot stands in" if active else f"{who}: its person is back and plays again"
        log.info("%s", notice)
        if self.on_notice is not None:
            self.on_notice(notice)
        await self._publish(posted)

    async def leave(self, seat: int, nonce: bytes = b"", proof: bytes = b"") -> None:
        """Leave: in the lobby the seat is freed (its token dies with it); in a game a bot takes over at once, and
        only with the seat's signature (`leave_proof_message`): a token alone does not send a seat away."""
        slot = self.seats[seat]
        if slot is None:
            return
        if self.game is not None:
            async with self.lock:
                self._check_leave_proof(seat, slot.public_key, nonce, proof)
                self._use_nonce(seat, nonce)
        if self.game is None:
            async with self.lock:
                if self.game is None and self.seats[seat] is slot:
                    self.seats[seat] = None
                    item = self._new_item()
                    item.lobby.append(event_to_pb("seat-freed", seat, {"name": slot.name}))
                    await self._append(item)
                    log.info("seat %d left the lobby", seat)
                    return
        await self.set_online(seat, False)
        self._cancel_grace(seat)
        await self._stand_in(seat, True)

    def may_start(self, seat: int) -> bool:
        """A Start from `seat` (over gRPC): the host's own person (`own_person_key`: host/main.py seats them at the
        first table), or every person at the table is ready."""
        slot = self.seats[seat]
        if slot is not None and self.own_person_key and slot.public_key == self.own_person_key:
            return True
        return all(s is not None and (s.bot or s.ready) for s in self.seats)

    def _check_leave_proof(self, seat: int, key: bytes, nonce: bytes, proof: bytes) -> None:
        game = self.game
        assert game is not None
        if not proof:
            raise TableRefusal("permission", "proof-required",
                               "leaving during a game needs your key's signature (leave_proof); update watten-join")
        if len(nonce) != 32:
            raise TableRefusal("invalid", "bad-nonce", "the leave nonce must be 32 bytes")
        message = leave_proof_message(self.table_id, public_key_bytes(self.host_key), game.game_id, seat, nonce)
        if not verify(key, proof, message):
            raise TableRefusal("permission", "bad-key-proof",
                               "the leave proof does not verify with this seat's key for this game")
        self._check_nonce(nonce)

    async def _maybe_autostart(self) -> None:
        if self.autostart and self.game is None and all(s is not None for s in self.seats):
            await self.start()

    # ------------------------------------------------------------------ the game
    async def start(self) -> None:
        async with self.lock:
            if self.game is not None or self.released:
                raise TableRefusal("precondition", "game-started", "the game has already started")
            if any(s is None for s in self.seats):
                raise TableRefusal("precondition", "not-enough-players", "wait until every seat is taken")
            host_nonce = os.urandom(32)
            if self.journal_path is not None:
                self.journal = Journal(self.journal_path, self._journal_meta(host_nonce))
            self._make_game(host_nonce, {})
            assert self.game is not None
            if self.record_dir is not None:
                self.record_path = self.record_dir / self.record_name()
                self.record = RecordWriter(self.record_path, {"written_by": "watten-host", "seat": None})
            posted = self.game.start()
            log.info("game %s started, fingerprint %s", self.game.game_id.hex()[:12], self.game.fingerprint)
            await self._publish(posted)
            self._start_bot_worker()
            for seat, slot in enumerate(self.seats):  # a person whose line dropped in the lobby: the clock starts now
                if slot is not None and not slot.bot and not slot.online:
                    self._start_grace(seat, self.grace)

    def record_name(self) -> str:
        """The host record's file name: the game id says which game, the table id which of the host's tables."""
        assert self.game is not None
        return f"watten-{self.game.game_id.hex()[:12]}-table-{self.table_id}-host.wrec"

    def _make_game(self, host_nonce: bytes, replay: dict[int, list[bytes]]) -> None:
        """The HostGame and the bots' SeatGames, their random draws journaled (or replayed on a resume)."""
        seats = [Seat(s.public_key, s.name, s.join_nonce, s.bot, host_run=s.bot or s.public_key == self.own_person_key)
                 for s in self.seats if s is not None]
        def journal() -> Journal | None:  # read at draw time: the journal is opened after the game is made
            return self.journal

        self.game = HostGame(self.rules, seats, self.host_key, reveal=self.reveal, deal=self.deal, preset=self.preset,
                             tls_fingerprint=self.tls_fingerprint, host_nonce=host_nonce,
                             random_bytes=Draws(HOST, journal, replay.get(HOST)))
        for bot in self.bots.values():
            draws = Draws(bot.seat, journal, replay.get(bot.seat))
            bot.game = SeatGame(bot.seat, bot.key, random_bytes=draws)

    def _journal_meta(self, host_nonce: bytes) -> dict[str, Any]:
        seats = []
        for s, slot in enumerate(self.seats):
            assert slot is not None
            entry: dict[str, Any] = {"name": slot.name, "public_key": slot.public_key.hex(),
                                     "join_nonce": slot.join_nonce.hex(), "token_sha256": slot.token_digest.hex(),
                                     "bot": slot.bot}
            if slot.bot:
                bot = self.bots[s]
                entry["bot_key"] = bot.key.private_bytes_raw().hex()
                entry["level"] = bot.policy.level
            seats.append(entry)
        return {
            "rules": self.rules.to_json(), "preset": self.preset, "reveal": self.reveal, "deal": self.deal,
            "tls": self.tls_fingerprint.hex(), "host_name": self.host_name, "table_id": self.table_id,
            "port": self.port, "host_nonce": host_nonce.hex(), "seats": seats,
            "record_dir": str(self.record_dir) if self.record_dir else "",
            "host_run": self.host_run, "index": self.index, "own_person_key": self.own_person_key.hex(),
            # The nonces of the lobby's joins (those of the game are NONCE entries): a resumed table refuses them.
            "used_nonces": sorted(n.hex() for n in self._used_nonces),
        }

    @classmethod
    async def resume(cls, path: Path, host_key: Ed25519PrivateKey, *, bot_delay: float = 0.0,
                     grace: float = DEFAULT_GRACE,
                     step_timeout: float = DEFAULT_STEP_TIMEOUT) -> Table:
        """Rebuild the table of an unfinished game from its journal: same seats, same draws, same chain."""
        meta, entries = read_journal(path)
        rules = Rules.from_json(meta["rules"])
        table = cls(rules, preset=meta["preset"], reveal=meta["reveal"], deal=meta.get("deal", "verified"),
                    host_key=host_key,
                    tls_fingerprint=bytes.fromhex(meta["tls"]), host_name=meta["host_name"], bot_delay=bot_delay,
                    grace=grace, step_timeout=step_timeout,
                    record_dir=Path(meta["record_dir"]) if meta["record_dir"] else None)
        table.table_id = meta["table_id"]
        table.host_run = str(meta.get("host_run", ""))  # journals of older hosts have neither
        table.index = int(meta.get("index", 0))
        table.own_person_key = bytes.fromhex(str(meta.get("own_person_key", "")))
        table.port = int(meta["port"])
        table.journal_path = path
        for s, entry in enumerate(meta["seats"]):
            slot = SeatSlot(entry["name"], bytes.fromhex(entry["public_key"]), bytes.fromhex(entry["join_nonce"]),
                            bytes.fromhex(entry["token_sha256"]), bot=entry["bot"], online=entry["bot"], ready=True)
            table.seats[s] = slot
            if entry["bot"]:
                key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(entry["bot_key"]))
                table.bots[s] = HostBot(s, key, make_bot(entry.get("level", "heuristic")))
        # Every nonce the table accepted before the start (a journal of an older host: the seats' join nonces).
        table._used_nonces = {bytes.fromhex(n) for n in meta.get("used_nonces", [])}
        table._used_nonces.update(slot.join_nonce for slot in table.seats if slot is not None and not slot.bot)
        replay: dict[int, list[bytes]] = {}
        for kind, who, data in entries:
            if kind == DRAW:
                replay.setdefault(who, []).append(data)
        # Open before the replay: a party that runs out of journaled draws in it (the crash came after the draws of
        # a step were journaled, or before it drew at all) draws fresh bytes, and those must be journaled as well,
        # or the next resume would build another key share, shuffle or proof than the one that left the host.
        table.journal = Journal.reopen(path)
        table._make_game(bytes.fromhex(meta["host_nonce"]), replay)
        game = table.game
        assert game is not None
        posted = game.start()
        table._feed_bots(posted)
        everything = list(posted)
        for kind, seat, raw in entries:
            if kind == NONCE:
                table._used_nonces.add(raw)
                continue
            if kind == TOKEN:
                reclaimed = table.seats[seat]
                if reclaimed is not None:
                    reclaimed.token_digest = raw
                continue
            if kind == STAND_IN:
                posted = game.stand_in(seat, bool(raw[0]))
                table._feed_bots(posted)
                everything += posted
                continue
            if kind == BOT_ACTION:
                posted = game.act_for(seat, raw.decode())
                table._feed_bots(posted)
                everything += posted
                continue
            if kind == FORFEIT_AWAY:
                posted = game.forfeit_away()
                table._feed_bots(posted)
                everything += posted
                continue
            if kind == ABANDON:
                posted = game.abandon(raw.decode())
                table._feed_bots(posted)
                everything += posted
                continue
            if kind != SUBMIT:
                continue
            bot_game = table.bots[seat].game if seat in table.bots else None
            if bot_game is not None:
                _rebuild_bot_envelope(bot_game, raw)
            posted = game.submit(seat, raw)
            if bot_game is not None:
                bot_game.accepted(raw)
            table._feed_bots(posted)
            everything += posted
        game.drain_events()
        if table.record_dir is not None:
            table.record_path = table.record_dir / table.record_name()
            table.record = RecordWriter(table.record_path, {"written_by": "watten-host", "seat": None})
            for p in game.chain:
                table.record.append(KIND_HOST, p.raw)
        item = table._new_item()
        item.posted = everything
        await table._append(item)
        log.info("resumed game %s at chain envelope %d", game.game_id.hex()[:12], len(game.chain))
        table._start_bot_worker()
        for s, taken in enumerate(table.seats):  # every person is offline until their client reconnects
            if taken is not None and not taken.bot:
                table._start_grace(s, table.grace)
        table._watch_steps()  # (a trustless game that was waiting for a seat away goes on waiting, on a clock)
        return table

    def _feed_bots(self, posted: list[Posted]) -> None:
        for bot in self.bots.values():
            assert bot.game is not None
            for p in posted:
                p.deliver_to(bot.game)

    async def _publish(self, posted: list[Posted]) -> None:
        assert self.game is not None
        item = self._new_item()
        item.posted = posted
        item.events = self.game.drain_events()
        if self.record is not None:
            for p in posted:
                self.record.append(KIND_HOST, p.raw)
        self._feed_bots(posted)
        await self._append(item)
        self._wake_bots()
        self._watch_steps()
        if self.game.finished:
            self.end_seq = self.end_seq or len(self.log)
            self._close_records()
            if self.journal is not None:
                self.journal.finish()
                self.journal = None
            self.finished.set()

    def _close_records(self) -> None:
        if self.record is not None:
            self.record.close()
            self.record = None

    async def submit(self, token: str, raw: bytes) -> tuple[int, int, bytes]:
        seat = self.seat_of(token)
        async with self.lock:
            if self.game is None:
                raise TableRefusal("precondition", "game-not-started", "the game has not started yet")
            # A person who acts is back, whatever their stream is doing: the bot gives the seat back first.
            await self._stand_in_locked(seat, False)
            from watten_net.deal.envelope import envelope_hash

            digest = envelope_hash(raw)
            replay = digest in self.game.seat_chains[seat].accepted
            try:
                posted = self.game.submit(seat, raw)
            except ProtocolError as err:
                raise TableRefusal(err.kind, err.reason, err.message, self.game.refusal_receipt(raw, err.reason)) \
                    from None
            if replay:
                # Already accepted (a blind retry): the original answer; journaling it again would let a client
                # grow the journal, one fsync per retry, without end.
                return self._answers.get(digest, (len(self.log), 0, digest))
            if self.journal is not None:
                self.journal.submit(seat, raw)  # on disk before anything it caused leaves the host
            self._answered(seat)
            # The host envelope that carries this one: a Relay, an ActionAccepted, or the CommitSet that the
            # last seed commitment completes (an earlier commitment waits for it: 0).
            chain_seq = posted[0].seq if posted and posted[0].type in ("Relay", "ActionAccepted", "KeySet") else 0
            # Published even when it posted nothing (a seed commitment that does not complete the set): the seats'
            # views (DealStatus.waiting_for) must show that this seat has answered, as they do for a bot's.
            await self._publish(posted)
            self._answers[digest] = (len(self.log), chain_seq, digest)
            return len(self.log), chain_seq, digest

    def _journal_submit(self, seat: int, raw: bytes) -> None:
        if self.journal is not None:
            self.journal.submit(seat, raw)

    def _wake_bots(self) -> None:
        self._bots_wake.set()

    def _start_bot_worker(self) -> None:
        self._bot_task = asyncio.ensure_future(self._bot_worker())
        self._bot_task.add_done_callback(_report_bot_failure)

    async def _bot_worker(self) -> None:
        """Host-run bots answer the protocol at once and make their game moves one by one (with `bot_delay`
        between moves so that people at the table can follow), each step under the table's lock."""
        while self.game is not None and not self.game.finished:
            self._bots_wake.clear()
            async with self.lock:
                moved = await self._bot_step()
            if moved == "move" and self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            elif moved:
                # A step that never awaited (the reference stand-in decides at once) must still let the streams
                # and the other requests run: taking an unlocked asyncio.Lock again does not yield.
                await asyncio.sleep(0)
            else:
                await self._bots_wake.wait()

    async def _bot_step(self) -> str:
        """One step: every automatic protocol envelope the bots owe ('protocol'), or one game move ('move')."""
        game = self.game
        if game is None or game.finished:
            return ""
        moved = ""
        for bot in self.bots.values():
            assert bot.game is not None
            while (raw := bot.game.next_automatic()) is not None:
                posted = game.submit(bot.seat, raw)
                self._journal_submit(bot.seat, raw)
                bot.game.accepted(raw)
                await self._publish(posted)
                moved = "protocol"
        if moved:
            return moved
        phase, waiting = game.waiting_for()
        if phase != "play" or (game.public if game.trustless else game.match) is None:
            return ""
        for seat in waiting:
            if seat in game.absent:
                # (trustless: nobody can act for it; the table waits, see _wait_for_away)
                return "" if game.trustless else await self._stand_in_move(seat)
            if seat not in self.bots:
                continue
            bot = self.bots[seat]
            view = self._bot_view(seat)
            # A strong bot thinks for up to a quarter of a second: in a thread, so the streams keep flowing.
            action = await asyncio.to_thread(bot.policy.choose, view)
            if action is None:
                continue
            assert bot.game is not None
            raw = bot.game.action(action)
            posted = game.submit(seat, raw)
            self._journal_submit(seat, raw)
            bot.game.accepted(raw)
            await self._publish(posted)
            return "move"
        return ""

    def _bot_view(self, seat: int) -> SeatView:
        """What a host-run bot sees: its observation; in a trustless game the public view and its own cards (the
        host's engine knows none), exactly as a remote bot sees them."""
        game = self.game
        assert game is not None
        if not game.trustless:
            assert game.match is not None
            return SeatView.from_observation(game.match.observe(seat))
        from .views import table_view

        bot_game = self.bots[seat].game
        assert bot_game is not None
        view = table_view(self, seat)
        complete_seat_view(view, bot_game)
        return SeatView.from_table_view(view)

    async def _stand_in_move(self, seat: int) -> str:
        """The reference stand-in's move for a person who is away: a function of that seat's observation alone, which
        every seat's `watten-verify` recomputes (the host chooses nothing)."""
        game = self.game
        assert game is not None and game.match is not None
        action = game.stand_in_move(seat)
        posted = game.act_for(seat, action)
        if self.journal is not None:
            self.journal.bot_action(seat, action)
        await self._publish(posted)
        return "move"

    # ------------------------------------------------------------------ after the match: a fresh table in its place
    def people_saw_end(self) -> bool:
        """Every person's seat (not the host's bots) has had the whole log of the finished match streamed."""
        return self.finished.is_set() and all(
            slot is None or slot.bot or s in self.saw_end for s, slot in enumerate(self.seats))

    def successor(self) -> Table:
        """A fresh table for this one's place at the host: a new id, an empty lobby, the same rules and settings.

        The settings are every keyword argument of `__init__`, each kept under its own name, so a setting added
        there later is carried over too; the place (host run, index, port), start policy and operator notices too.
        """
        parameters = inspect.signature(Table.__init__).parameters.values()
        settings = {p.name: getattr(self, p.name) for p in parameters if p.kind is p.KEYWORD_ONLY}
        if self.serving_tls is not None:  # (a resumed table's journal names the certificate of its start)
            settings["tls_fingerprint"] = self.serving_tls
        fresh = Table(self.rules, **settings)
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
            self._final_info = self.info()
            self.released = True
            self.log = EventLog()
            self.game = None
            for bot in self.bots.values():
                bot.game = None
            self._answers.clear()
            self._used_nonces.clear()
            self._close_records()
            if self._bot_task is not None:
                self._bot_task.cancel()
                self._bot_task = None
        self._stop_clocks()
        self.finished.set()  # (already set: a released table never plays again)
        async with self.changed:
            self.changed.notify_all()

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
                    await self._publish(posted)
                with contextlib.suppress(ProtocolError):
                    await self._bot_step()  # the bots co-sign the closing checkpoint

    async def shutdown(self) -> None:
        """Ctrl-C / SIGTERM: end the match early (`end_match`), close the records."""
        await self.end_match()
        async with self.lock:
            self._close_records()
        if self._bot_task is not None:
            self._bot_task.cancel()
        self._stop_clocks()
