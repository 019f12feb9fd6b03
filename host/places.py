"""A host that keeps serving: when a table's match is over, the same table plays again if its people ask for another
match (host/rematch.py), else a fresh table takes its place (`--matches M`).

Each of the host's N table places (`--tables N`) holds one table at a time. When its match ends the place waits
until the table is no longer needed, then a fresh table (new id, empty lobby, same rules, settings and `--bots`)
takes its place in the host's list and the finished one is released: its match leaves memory, so a host that
serves one match after another all evening does not grow. The records and journals are on disk already.

"No longer needed": every person's seat has had the whole log streamed, the end included, and no stream of the
table is open any more (the usual case, within moments of the end); or, for a person who is away at the end,
`RELEASE_LINGER` seconds after the match ended. Such a late client finds the table gone (`bad-token`); its own
record of the match is complete up to where it left.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from .server import WattenTableService
from .table import Table

RELEASE_LINGER = 30.0  # seconds after its match ended that a finished table waits at most for its people
END_GRACE = 1.0  # seconds after every stream has ended: a last retried submission still gets its answer
AGAIN_WAIT = 10.0  # seconds a table where people sat stays quiet before it goes: time to ask for another match
POLL = 0.1


async def until_unneeded(service: WattenTableService, table: Table, linger: float = RELEASE_LINGER) -> bool:
    """Wait until the finished `table` can be released (see the module's doc): True. False: it plays again instead
    (everyone asked for another match, or a person left and it is back in its lobby: host/rematch.py).

    Quiet means no stream of the table is open and nobody asked for another match; it goes once it has been quiet for
    END_GRACE seconds (a table of bots only) or AGAIN_WAIT (people sat there), after its people saw the end or the
    linger passed. A person who asked for another match keeps it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + linger
    people = any(o is not None and not o.bot for o in table.seats)
    quiet_since: float | None = None
    match = table.rematch.matches  # (another match may begin and even end between two looks)
    while table.finished.is_set() and table.rematch.matches == match:
        asked = any(table.rematch.asked_again(s) for s in range(len(table.seats)))
        quiet = not service.open_streams(table) and not asked
        if quiet and (table.people_saw_end() or loop.time() >= deadline):
            quiet_since = loop.time() if quiet_since is None else quiet_since
            if loop.time() - quiet_since >= (AGAIN_WAIT if people else END_GRACE):
                return True
        else:
            quiet_since = None
        await asyncio.sleep(POLL)
    return False


async def serve_place(service: WattenTableService, table: Table, matches: int, bots: int, bot_level: str,
                     on_match_over: Callable[[Table], None], *, on_open: Callable[[Table], None] | None = None,
                     linger: float = RELEASE_LINGER) -> None:
    """Play `matches` matches in `table`'s place, one after the other (0: without end): at the same table while its
    people ask for another, else each at a fresh table.

    Returns when the last one is over; its table stays listed, finished, for the host's final drain.
    """
    played = 0
    while True:
        table.rematch.offered = not matches or played + 1 < matches  # (the last match: the host ends after it)
        await table.finished.wait()
        played += 1
        on_match_over(table)
        if matches and played >= matches:
            return
        if not await until_unneeded(service, table, linger):
            continue  # the same table plays on: wait for the end of its next match
        fresh = table.successor()
        if bots:  # seated before the table is listed: nobody who lists it sees the bots' seats free for a moment
            await fresh.add_bots(bots, bot_level)
        service.replace(table, fresh)
        await table.release()
        table = fresh
        if on_open is not None:
            on_open(fresh)
