"""The lobby is the host's to arrange: a person moves to a free seat or changes the name shown (ChooseSeat, SetName),
the host's own person frees a bot's seat (or an absent person's) and swaps two seats.

Why moving is harmless before the start: a Join proves the key for this table (docs/protocol.md, the join proof), not
for a seat; the seat a key plays is fixed only by the GameHeader's roster, which the seats sign at the start. So each
of these is refused once the header exists (`game-started`); between two matches the table is back in its lobby as
soon as a seat is freed. Bad input changes nothing: every check runs before the first change.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from watten_net.deal.protocol import event_to_pb
from watten_net.refusal import Code, Reason

from .lobby import clean_name
from .refusal import TableRefusal

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger("watten.host")


class Arrangement:
    """Seat moves and names at one `Table`, each under its lock, each one lobby event."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def _in_lobby(self, what: str) -> None:
        if self.table.game is not None:
            raise TableRefusal(Code.PRECONDITION, Reason.GAME_STARTED,
                               f"the game has started: {what} waits until the table is back in its lobby")

    def _seat_number(self, seat: int) -> int:
        players = len(self.table.seats)
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise TableRefusal(Code.INVALID, Reason.BAD_SEAT, f"seats are numbered 0 to {players - 1}")
        return seat

    async def choose_seat(self, seat: int, wanted: int) -> int:
        """The person at `seat` moves to the free seat `wanted` (the same seat: nothing changes). Returns the seat."""
        table = self.table
        async with table.lock:
            wanted = self._seat_number(wanted)
            self._in_lobby("moving")
            if wanted == seat:
                return seat
            if table.seats[wanted] is not None:
                raise TableRefusal(Code.PRECONDITION, Reason.SEAT_TAKEN, f"seat {wanted} is taken; choose a free one")
            occupant = table.seats[seat]
            table.seats[wanted], table.seats[seat] = occupant, None
            name = occupant.name if occupant is not None else ""
            await table.changes.lobby_event(event_to_pb("seat-moved", wanted, {"from": seat, "name": name}))
            log.info("seat %d moved to seat %d", seat, wanted)
            return wanted

    async def set_name(self, seat: int, name: str) -> None:
        """The person at `seat` is shown as `name` from now on (cleaned as a Join's name is)."""
        table = self.table
        async with table.lock:
            shown = clean_name(name)
            self._in_lobby("a new name")
            occupant = table.seats[seat]
            if occupant is None or occupant.name == shown:
                return
            occupant.name = shown
            await table.changes.lobby_event(event_to_pb("renamed", seat, {"name": shown}))

    async def vacate(self, seat: int) -> None:
        """The host's person frees a seat: a bot's, or that of a person who is not at the table (offline). Between
        two matches this ends the "again" and takes the table back to its lobby."""
        table = self.table
        async with table.lock:
            seat = self._seat_number(seat)
            occupant = table.seats[seat]
            if occupant is None:
                return
            if not occupant.bot and occupant.online:
                raise TableRefusal(Code.PRECONDITION, Reason.PERSON_SEATED,
                                   f"{occupant.name} is at the table: only they can leave seat {seat}")
            if table.rematch.between_matches():
                table.rematch.drop_finished()
            else:
                self._in_lobby("freeing a seat")
            table.seats[seat] = None
            table.bot_worker.bots.pop(seat, None)
            await table.changes.lobby_event(event_to_pb("seat-freed", seat, {"name": occupant.name}))
            log.info("seat %d freed by the host", seat)

    async def swap(self, first: int, second: int) -> None:
        """The host's person swaps two seats (either may be free): people sit where the host puts them."""
        table = self.table
        async with table.lock:
            first, second = self._seat_number(first), self._seat_number(second)
            self._in_lobby("moving")
            if first == second:
                return
            seats, bots = table.seats, table.bot_worker.bots
            seats[first], seats[second] = seats[second], seats[first]
            moved = {s: bots.pop(s) for s in (first, second) if s in bots}
            for old, bot in moved.items():
                bot.seat = second if old == first else first
                bots[bot.seat] = bot
            for seat, came_from in ((first, second), (second, first)):
                occupant = seats[seat]
                if occupant is not None:
                    event = event_to_pb("seat-moved", seat, {"from": came_from, "name": occupant.name})
                    await table.changes.lobby_event(event)
