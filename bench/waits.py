"""How the network benches wait for their table: for the seat it waits for, and until every seat has an entry.

Shared by bench/latency.py, bench/newhand.py and bench/apart.py. A "seat" here is anything with `stream_over`,
`game` (`chain_seq`, `outbox`), `seat` and `view` (`chain_seq`, `to_act`, `legal_actions`, `table.phase`): a
`client.connection.Connection` in the bench's own process, or bench/apart.py's `RemoteSeat` (a seat process as its
last report shows it). Every wait is bounded by WAIT: a stuck table ends the run (noted as a problem), not the
machine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from watten_net.v1 import watten_pb2 as pb

WAIT = 20.0  # seconds: no single wait lasts longer
FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)


def waiting_seat(seats: Sequence[Any]) -> tuple[Any, Any] | bool | None:
    """(seat, its view) when the table waits for that seat and every seat is up to date; True at the end (a seat's
    stream is over); None while seats still catch up."""
    if any(s.stream_over for s in seats):
        return True
    games = [s.game for s in seats]
    if any(g is None or g.outbox for g in games):
        return None
    seqs = {g.chain_seq for g in games if g is not None}
    if len(seqs) != 1:
        return None
    for s in seats:
        v = s.view
        if (v is not None and v.chain_seq in seqs and s.seat in v.to_act and v.legal_actions
                and v.table.phase not in FINISHED):
            return s, v
    return None


async def next_move(changed: asyncio.Condition, seats: Sequence[Any], problems: list[str]) -> tuple[Any, Any] | None:
    """Wait (on `changed`, notified by whatever follows the seats) for the seat the table waits for: (seat, its
    view); None once the match is over, or when no seat was to act for WAIT seconds (then also a problem)."""
    async with changed:
        try:
            move = await asyncio.wait_for(changed.wait_for(lambda: waiting_seat(seats)), WAIT)
        except TimeoutError:
            problems.append(f"the table stopped moving (no seat to act for {WAIT} s)")
            return None
    return move if isinstance(move, tuple) else None


async def until_every_seat_has(changed: asyncio.Condition, seats: Sequence[Any], target: int,
                               problems: list[str]) -> bool:
    """Wait until every seat has checked chain entry `target` (or a seat's stream ended); False (and a problem)
    when that took more than WAIT seconds. Until then the views still show the seat that just acted."""
    def everyone_has_it() -> bool:
        return any(s.stream_over for s in seats) or all(s.game is not None and s.game.chain_seq >= target
                                                        for s in seats)

    async with changed:
        try:
            await asyncio.wait_for(changed.wait_for(everyone_has_it), WAIT)
        except TimeoutError:
            problems.append(f"chain entry {target} did not reach every seat within {WAIT} s")
            return False
    return True
