"""A table's seats and who may take them: joining and leaving (each with a signed proof of the seat's key and a
nonce that is good once), seat tokens, names, host-run bots taking free seats, readiness, online or not."""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
import unicodedata
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.identity import INSECURE, join_proof_message, leave_proof_message, public_key_bytes, verify
from watten_net.deal.protocol import PROTOCOL_VERSION, event_to_pb
from watten_net.printable import shown_as_is
from watten_net.refusal import Code, Reason

from .refusal import TableRefusal

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("watten.host")
MAX_NAME = 32
# The most join and leave nonces a table accepts in its life (each is one accepted Join or Leave: a few per seat and
# game is normal; the cap bounds what a hostile client churning the lobby makes the table keep, 32 bytes each).
MAX_NONCES = 4096
BOT_NAMES = ("Sepp", "Vroni", "Loisl", "Resi", "Hias", "Burgi")  # names a table in the Alps would know


@dataclass
class Occupant:
    """Who sits at a seat: a person (by key, with the digest of its token) or a bot, and whether it is there."""

    name: str
    public_key: bytes
    join_nonce: bytes
    token_digest: bytes  # SHA-256 of the seat's token: the host never keeps the token itself (nor its journal)
    bot: bool = False
    online: bool = False
    ready: bool = False
    offline_since: float = 0.0  # wall-clock time the seat's last stream ended (0: never connected or online)


def token_digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def clean_name(name: str) -> str:
    """Names are shown on everyone's screen: no control characters, trimmed, at most 32 characters (a longer one is
    refused before anything is done with it: a megabyte of name used to cost the event loop a tenth of a second)."""
    if not isinstance(name, str):
        raise TableRefusal(Code.INVALID, Reason.BAD_NAME, "the name must be text")
    if len(name) > MAX_NAME:
        raise TableRefusal(Code.INVALID, Reason.BAD_NAME,
                           f"a name has at most {MAX_NAME} characters; choose a shorter one")
    # What a screen would have to escape (control, format such as RTL overrides and zero-width joiners,
    # surrogates, private use, unassigned, line and paragraph separators: watten_net.printable) would break or
    # reorder the lines of every screen that shows the name; it goes, so the screens show the name unchanged.
    text = "".join(ch for ch in name if shown_as_is(ch)).strip()
    text = unicodedata.normalize("NFC", text)[:MAX_NAME].strip()
    if not text:
        raise TableRefusal(Code.INVALID, Reason.BAD_NAME, "choose a name of 1 to 32 printable characters")
    return text


def checked_join(request: Any) -> str:
    """What a Join, a player's or a spectator's, must be before its proof is looked at (the protocol, the name, the
    key's and the nonce's lengths); its name, cleaned."""
    if request.protocol_version not in (0, PROTOCOL_VERSION):
        raise TableRefusal(Code.PRECONDITION, Reason.PROTOCOL_VERSION,
                           f"this host speaks protocol {PROTOCOL_VERSION}; update watten-join")
    name = clean_name(request.name)
    if len(request.public_key) != 32:
        raise TableRefusal(Code.INVALID, Reason.BAD_PUBLIC_KEY, "the public key must be 32 bytes")
    if len(request.join_nonce) != 32:
        raise TableRefusal(Code.INVALID, Reason.BAD_NONCE, "the join nonce must be 32 bytes")
    return name


def _checked_name(request: Any, players: int) -> str:
    """What a player's Join must be before its proof is looked at (a seat it asks for is one of the table's); its
    name, cleaned."""
    name = checked_join(request)
    if request.HasField("seat") and not 0 <= request.seat < players:
        raise TableRefusal(Code.INVALID, Reason.BAD_SEAT, f"seats are numbered 0 to {players - 1}")
    return name


class Lobby:
    """The seats of one `Table` and every change to them; each change runs under the table's lock and is logged."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.seats: list[Occupant | None] = [None] * table.settings.players
        # Every join and leave nonce this table accepted (see `use_nonce`): a proof is good once, for ever.
        self.used_nonces: set[bytes] = set()

    def free_seats(self) -> list[int]:
        return [s for s, occupant in enumerate(self.seats) if occupant is None]

    def holds_key(self, public_key: bytes) -> bool:
        """A person's (not a bot's) seat at this table belongs to this key (a Join with it reclaims the seat)."""
        return any(o is not None and not o.bot and o.public_key == public_key for o in self.seats)

    def seat_of(self, token: str) -> int:
        if not token:
            raise TableRefusal(Code.UNAUTHENTICATED, Reason.NO_TOKEN, "this call needs your seat token: join first")
        # Compare digests, in constant time (compare_digest on str raised TypeError for non-ASCII text, a fuzzed
        # token answered INTERNAL): the UTF-8 bytes of anything a client sends hash fine.
        given = token_digest(token)
        for s, occupant in enumerate(self.seats):
            if occupant is not None and not occupant.bot and hmac.compare_digest(occupant.token_digest, given):
                return s
        if self.table.spectators.of(token) is not None:
            raise TableRefusal(Code.PERMISSION, Reason.SPECTATOR,
                               "you are watching this table: a spectator cannot act at it (join a free seat to play)")
        raise TableRefusal(Code.UNAUTHENTICATED, Reason.BAD_TOKEN, "unknown seat token: join the table again")

    def may_start(self, seat: int) -> bool:
        """A Start from `seat` (over gRPC): the host's own person (`own_person_key`: host/main.py seats them at the
        first table), or every person at the table is ready."""
        occupant = self.seats[seat]
        own = self.table.own_person_key
        if occupant is not None and own and occupant.public_key == own:
            return True
        return all(s is not None and (s.bot or s.ready) for s in self.seats)

    # ------------------------------------------------------------------ joining
    async def join(self, request: Any) -> tuple[int, str]:
        async with self.table.lock:
            name = _checked_name(request, len(self.seats))
            key, nonce = bytes(request.public_key), bytes(request.join_nonce)
            # Every Join proves the key (the first one too), bound to this table, this host's key and certificate,
            # and a nonce this table never accepted: public keys are public (GetTable, the GameHeader), and a Join
            # is seen by whoever it passes through, so neither a key nor a Join relayed or replayed takes a seat.
            self.check_join_proof(key, nonce, bytes(request.tls_fingerprint), bytes(request.key_proof))
            reclaimed = self._reclaim(key, nonce)  # a client that restarted gets its seat back with a fresh token
            if reclaimed is not None:
                return reclaimed
            if self.table.game is not None:
                raise TableRefusal(Code.PRECONDITION, Reason.GAME_STARTED, "the game has started: every seat is taken")
            seat = self._seat_for(request.seat if request.HasField("seat") else None)
            self.use_nonce(seat, nonce, new_seat=True)
            token = secrets.token_urlsafe(24)  # 192 bits
            self.seats[seat] = Occupant(name, key, nonce, token_digest(token))
            await self.table.changes.lobby_event(event_to_pb("seat-taken", seat, {"name": name, "bot": False}))
            log.info("seat %d taken by %s", seat, name)
        await self.maybe_autostart()
        await self.table.rematch.maybe_begin()
        return seat, token

    def _reclaim(self, key: bytes, nonce: bytes) -> tuple[int, str] | None:
        """A key that already holds a seat gets it back with a fresh token."""
        for s, occupant in enumerate(self.seats):
            if occupant is not None and not occupant.bot and occupant.public_key == key:
                self.use_nonce(s, nonce)
                token = secrets.token_urlsafe(24)
                occupant.token_digest = token_digest(token)
                if self.table.journal is not None:
                    self.table.journal.token(s, occupant.token_digest)
                log.info("seat %d reclaimed by its key", s)
                return s, token
        return None

    def _seat_for(self, wanted: int | None) -> int:
        if wanted is not None:
            if self.seats[wanted] is not None:
                raise TableRefusal(Code.PRECONDITION, Reason.SEAT_TAKEN, f"seat {wanted} is taken; choose another")
            return wanted
        free = self.free_seats()
        if not free:
            raise TableRefusal(Code.PRECONDITION, Reason.TABLE_FULL, "every seat at this table is taken")
        return free[0]

    def check_join_proof(self, key: bytes, nonce: bytes, fingerprint: bytes, proof: bytes) -> None:
        """Refuse a Join whose key proof is missing, bound to another certificate (or to plaintext while this host
        serves TLS), does not verify, or carries a nonce this table accepted before (see `join_proof_message`)."""
        if not proof:
            raise TableRefusal(Code.PERMISSION, Reason.PROOF_REQUIRED,
                               "every Join must prove that you hold your key (key_proof); update watten-join")
        if fingerprint != INSECURE and len(fingerprint) != 32:
            raise TableRefusal(Code.INVALID, Reason.BAD_FINGERPRINT,
                               "tls_fingerprint is the 32-byte SHA-256 of the host's "
                               "certificate, or b'insecure' over plaintext")
        table = self.table
        own = (table.serving_tls if table.serving_tls is not None else table.settings.tls_fingerprint) or INSECURE
        if fingerprint != own:
            if fingerprint == INSECURE:
                raise TableRefusal(Code.PERMISSION, Reason.INSECURE_PROOF,
                                   "this host serves TLS: a proof made over plaintext is refused; connect with TLS")
            raise TableRefusal(Code.PERMISSION, Reason.WRONG_CERTIFICATE,
                               "the key proof is bound to another certificate than this host's: another host relayed "
                               "the Join; connect to this host directly and compare its fingerprint")
        message = join_proof_message(table.table_id, public_key_bytes(table.settings.host_key), fingerprint, key,
                                     nonce)
        if not verify(key, proof, message):
            raise TableRefusal(Code.PERMISSION, Reason.BAD_KEY_PROOF,
                               "the key proof does not verify with this key for this table")
        self.check_nonce(nonce)

    def check_nonce(self, nonce: bytes) -> None:
        if nonce in self.used_nonces:
            raise TableRefusal(Code.PERMISSION, Reason.NONCE_USED,
                               "this proof's nonce was used before: a proof is good once")

    def use_nonce(self, seat: int, nonce: bytes, *, new_seat: bool = False) -> None:
        """Remember an accepted nonce for the table's whole life: in memory, and once the game has started in the
        journal, fsync'd before the answer (the lobby's go into the journal's metadata at the start).

        Bounded: a Join for a new seat is refused once the table holds MAX_NONCES nonces, a seat's own Join or
        Leave (its key holds the seat) once it holds twice that, so churning the lobby cannot lock people out of
        their seats. Never dropped (a dropped nonce would make its proof good again)."""
        limit = MAX_NONCES if new_seat else 2 * MAX_NONCES
        if len(self.used_nonces) >= limit:
            raise TableRefusal(Code.PRECONDITION, Reason.TOO_MANY_JOINS,
                               f"this table has taken {len(self.used_nonces)} joins and leaves and takes no more; "
                               "choose another table")
        self.used_nonces.add(nonce)
        if self.table.journal is not None:
            self.table.journal.nonce(seat, nonce)

    async def add_bots(self, count: int, level: str) -> None:
        async with self.table.lock:
            free = self.free_seats()
            if count > len(free):
                raise TableRefusal(Code.PRECONDITION, Reason.TABLE_FULL, f"only {len(free)} seats are free for bots")
            events = []
            for seat in free[:count]:
                key = Ed25519PrivateKey.generate()
                name = f"{BOT_NAMES[seat % len(BOT_NAMES)]} (bot)"
                self.seats[seat] = Occupant(name, public_key_bytes(key), secrets.token_bytes(32), b"", bot=True,
                                            online=True, ready=True)
                self.table.bot_worker.add(seat, key, level)
                events.append(event_to_pb("seat-taken", seat, {"name": name, "bot": True}))
            await self.table.changes.lobby_event(*events)
        await self.maybe_autostart()
        await self.table.rematch.maybe_begin()

    async def maybe_autostart(self) -> None:
        table = self.table
        if table.autostart and table.game is None and all(s is not None for s in self.seats):
            await table.start()

    # ------------------------------------------------------------------ in the lobby and at the game
    async def set_deal(self, deal: str) -> None:
        """Lobby: how the cards will be dealt (a table setting in the game header, like the rules)."""
        table = self.table
        async with table.lock:
            if table.game is not None:
                raise TableRefusal(Code.PRECONDITION, Reason.GAME_STARTED,
                                   "the game has started: the deal mode is fixed")
            if deal not in ("verified", "trustless"):
                raise TableRefusal(Code.INVALID, Reason.BAD_SETTING, "the deal is verified or trustless")
            if deal == "trustless" and table.settings.rules.blind:
                raise TableRefusal(Code.PRECONDITION, Reason.NOT_SUPPORTED,
                                   "blind cannot be dealt trustless: the host must "
                                   "know the hidden announcement to judge the tricks")
            if deal == table.settings.deal:
                return
            table.settings = replace(table.settings, deal=deal)
            await table.changes.lobby_event(event_to_pb("settings", -1, {"deal": deal}))

    async def set_ready(self, seat: int, ready: bool) -> None:
        """Lobby readiness; after a match, "another match" (rematch.py). While a match is played it means nothing:
        refused (it used to flip a flag every view shows, without an event, so the seats' views disagreed)."""
        table = self.table
        async with table.lock:
            if table.game is not None and not table.rematch.between_matches():
                raise TableRefusal(Code.PRECONDITION, Reason.GAME_STARTED, "the game has started: readiness is over")
            if table.rematch.between_matches() and not table.rematch.offered:
                raise TableRefusal(Code.PRECONDITION, Reason.GAME_STARTED,
                                   "this was the host's last match (watten-host --matches): no other follows")
            occupant = self.seats[seat]
            if occupant is None or occupant.ready == ready:
                return
            occupant.ready = ready
            await table.changes.lobby_event(event_to_pb("ready", seat, {"ready": ready}))
        await table.rematch.maybe_begin()

    async def set_online(self, seat: int, online: bool) -> None:
        # (without the table's lock: not while a game change waits for its fsync, or that change's views would show
        # the seat online before the event that says so)
        await self.table.settled.reached()
        occupant = self.seats[seat]
        if occupant is None or occupant.bot or occupant.online == online:
            return  # (a bot is always there; a seat's timer may fire after a bot was moved to it)
        occupant.online = online
        occupant.offline_since = 0.0 if online else time.time()
        table = self.table
        await table.changes.lobby_event(event_to_pb("online" if online else "offline", seat, {}))
        if online:
            table.clocks.cancel_grace(seat)
            await table.stand_in(seat, False)
        elif not occupant.bot:
            table.clocks.start_grace(seat)
        table.clocks.watch_steps()  # offline, the grace period is the seat's clock; online again, the step clock

    async def leave(self, seat: int, nonce: bytes = b"", proof: bytes = b"") -> None:
        """Leave: in the lobby or after the match the seat is freed (its token dies with it); in a game a bot takes
        over at once, and only with the seat's signature (`leave_proof_message`): a token alone does not send a seat
        away."""
        occupant = self.seats[seat]
        if occupant is None:
            return
        table = self.table
        # After a match that another may follow, the seat is freed as in the lobby (no proof: nothing is at stake)
        between = table.rematch.between_matches() and table.rematch.offered
        if table.game is not None and not between:
            async with table.lock:
                self.check_leave_proof(seat, occupant.public_key, nonce, proof)
                self.use_nonce(seat, nonce)
        if table.game is None or between:
            async with table.lock:
                if table.rematch.between_matches():  # the match is over: the table goes back to its lobby
                    table.rematch.drop_finished()
                if table.game is None and self.seats[seat] is occupant:
                    self.seats[seat] = None
                    await table.changes.lobby_event(event_to_pb("seat-freed", seat, {"name": occupant.name}))
                    log.info("seat %d left the lobby", seat)
                    return
        await self.set_online(seat, False)
        table.clocks.cancel_grace(seat)
        await table.stand_in(seat, True)

    def check_leave_proof(self, seat: int, key: bytes, nonce: bytes, proof: bytes) -> None:
        game = self.table.game
        assert game is not None
        if not proof:
            raise TableRefusal(Code.PERMISSION, Reason.PROOF_REQUIRED,
                               "leaving during a game needs your key's signature (leave_proof); update watten-join")
        if len(nonce) != 32:
            raise TableRefusal(Code.INVALID, Reason.BAD_NONCE, "the leave nonce must be 32 bytes")
        message = leave_proof_message(self.table.table_id, public_key_bytes(self.table.settings.host_key),
                                      game.game_id, seat, nonce)
        if not verify(key, proof, message):
            raise TableRefusal(Code.PERMISSION, Reason.BAD_KEY_PROOF,
                               "the leave proof does not verify with this seat's key for this game")
        self.check_nonce(nonce)
