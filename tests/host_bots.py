"""A real host Table in process, without the network: a whole match of host bots watched change by change, people
seated by a signed join, a bounded wait on the event loop, and what a crash leaves of a table and its journal (the view
tests and the journal tests share these)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.changelog import LogItem
from host.journal import FINISHED, Journal
from host.table import Table, TableSettings
from watten_net.engine import Rules

from netutil import signed_join

POLLS = 12_000  # 10 ms each: a bound on every wait, far above what a loaded machine needs
MATCH_SECONDS = 240  # a bound on a whole match of random host bots (a six-player trustless one takes the longest)

Append = Callable[[LogItem], Awaitable[None]]


def bot_table(preset: str, players: int, deal: str) -> Table:
    """A table of `players` seats under the rules `preset`, dealt `deal` ("verified" or "trustless")."""
    return Table(TableSettings(Rules.preset(preset, players=players), deal=deal))


async def play_bot_match(table: Table, around: Callable[[LogItem, Append], Awaitable[None]],
                         at_end: Callable[[], None] = lambda: None) -> None:
    """Random host bots in every seat play a whole match on `table`; each change goes into the table's log through
    `around(item, append)`, which must append it (and may look at the table before or after). `at_end` sees the
    table once the match is over, before it is shut down; the match must have ended by its target."""
    append = table.changes.append

    async def watched(item: LogItem) -> None:
        await around(item, append)

    table.changes.append = watched  # type: ignore[method-assign]
    try:
        await table.add_bots(table.n, "random")
        await table.start()
        await asyncio.wait_for(table.finished.wait(), MATCH_SECONDS)
        at_end()
    finally:
        await table.shutdown()
    assert table.game is not None and table.game.end_reason == "target-reached"


def parts_shown(view: Any) -> set[str]:
    """What of a seat's own a TableView shows (so that a whole match is known to have covered it)."""
    return {name for name, on in [
        ("signals", bool(view.signals)), ("hidden", view.announcement_hidden),
        ("schlecken", "schlecken_card" in view.extra), ("hand", bool(view.your_hand)),
        ("legal", bool(view.legal_actions)), ("tricks", bool(view.tricks)),
    ] if on}


async def seat_person(table: Table, name: str, seat: int, fingerprint: bytes) -> str:
    """A person with a fresh key joins `seat` (proof bound to the host certificate's `fingerprint`) and comes
    online; their seat token."""
    request = signed_join(Ed25519PrivateKey.generate(), table.info(), fingerprint=fingerprint, name=name, seat=seat)
    taken, token = await table.join(request)
    assert taken == seat
    await table.set_online(seat, True)
    return token


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait on the event loop until `condition` holds; fail after POLLS polls."""
    for _ in range(POLLS):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"waited in vain for {what}")


async def crash(table: Table) -> None:
    """What kill -9 leaves: the journal as written so far, and nothing more happens at the table."""
    async with table.lock:
        table.bot_worker.stop()
        table.clocks.stop()  # (grace periods, step clocks, a trustless wait for a seat away)
        if table.journal is not None:
            table.journal.close()


def write_journal(path: Path, meta: dict[str, object], entries: list[tuple[int, int, bytes]]) -> None:
    """The journal a crash right after these entries (kind, who, data) leaves."""
    journal = Journal(path, meta)
    for kind, who, data in entries:
        if kind != FINISHED:
            journal.append(kind, bytes([who]) + data)
    journal.close()
