"""A table's spectators: people who follow the table (seat -1, the public view only) and cannot act.

A spectator joins with the same key proof as a seat (bound to this table, host and certificate; its nonce good once,
kept in memory only: a replayed spectator Join gains nothing a fresh one would not), gets a token, and counts as
"watching" while it has an event stream open. At most MAX_SPECTATORS places per table; a spectator without an open
stream for IDLE seconds loses its place when somebody else wants one. Nothing of a spectator goes into the game's
record or the journal.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from watten_net.deal.protocol import event_to_pb
from watten_net.refusal import Code, Reason

from .lobby import MAX_NONCES, checked_join, token_digest
from .refusal import TableRefusal

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("watten.host")
MAX_SPECTATORS = 16
IDLE = 30.0  # seconds without an open stream after which a spectator's place may go to somebody else


@dataclass
class Spectator:
    name: str
    public_key: bytes
    token_digest: bytes
    streams: int = 0  # event streams open now
    idle_since: float = 0.0  # monotonic time of the join, or of its last stream's end


class Spectators:
    """The spectators of one `Table`; every change runs under the table's lock and is a public lobby event."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.people: list[Spectator] = []

    def watching(self) -> int:
        """Spectators following the table now (TableInfo.watching)."""
        return sum(1 for p in self.people if p.streams > 0)

    def of(self, token: str) -> Spectator | None:
        """The spectator holding `token`, compared in constant time; None for any other token."""
        if not token:
            return None
        given = token_digest(token)
        found = None
        for person in self.people:
            if hmac.compare_digest(person.token_digest, given):
                found = person
        return found

    async def join(self, request: Any) -> str:
        """A spectator's place at the table (any phase, a full table too): its token."""
        table = self.table
        name = checked_join(request)
        async with table.lock:
            key, nonce = bytes(request.public_key), bytes(request.join_nonce)
            table.lobby.check_join_proof(key, nonce, bytes(request.tls_fingerprint), bytes(request.key_proof))
            self._forget_idle()
            if len(self.people) >= MAX_SPECTATORS:
                raise TableRefusal(Code.PRECONDITION, Reason.NO_SPECTATORS,
                                   f"{MAX_SPECTATORS} people are watching this table already, the most it takes; "
                                   "try again later")
            if len(table.lobby.used_nonces) >= MAX_NONCES:
                raise TableRefusal(Code.PRECONDITION, Reason.TOO_MANY_JOINS,
                                   "this table has taken too many joins and leaves and takes no more")
            table.lobby.used_nonces.add(nonce)  # (in memory only: see the module's note)
            token = secrets.token_urlsafe(24)
            self.people.append(Spectator(name, key, token_digest(token), idle_since=time.monotonic()))
            log.info("%s joined as a spectator", name)
        return token

    def _forget_idle(self) -> None:
        now = time.monotonic()
        self.people = [p for p in self.people if p.streams > 0 or now - p.idle_since < IDLE]

    async def stream_opened(self, person: Spectator) -> None:
        async with self.table.lock:
            person.streams += 1
            if person.streams == 1 and person in self.people:
                await self._announce(person, joined=True)

    async def stream_closed(self, person: Spectator) -> None:
        async with self.table.lock:
            if person not in self.people:
                return  # (it left, or lost its place: nothing to count)
            person.streams -= 1
            person.idle_since = time.monotonic()
            if person.streams == 0 and person in self.people:
                await self._announce(person, joined=False)

    async def leave(self, person: Spectator) -> None:
        async with self.table.lock:
            if person not in self.people:
                return
            self.people.remove(person)
            if person.streams > 0:
                await self._announce(person, joined=False)

    async def _announce(self, person: Spectator, *, joined: bool) -> None:
        count = self.watching()
        data = {"name": person.name, "count": count, "joined": joined}
        await self.table.changes.lobby_event(event_to_pb("watching", -1, data))
        if self.table.on_notice is not None:  # (a headless host's log; a host's person sees it on the screen)
            self.table.on_notice(f"{person.name} {'is watching' if joined else 'stopped watching'} ({count} watching)")
