"""Between matches: whom "another match" waits for, kept current on the screen.

After a match the table's stream ends unless this seat asked for another match first, so nothing would tell the
screen that Anna pressed [n] since: it kept "[n] another match · waiting for Anna" (a host's person saw it). Until this
seat answers, the host is asked now and then (GetTable) for the seats and their "again"; the end line is written anew
from what it says (names through `visible`, as everywhere).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from . import viewmodel as vm
from .connection import Connection, Refused
from .i18n import Words

ASK_EVERY = 1.5  # seconds between two GetTable calls while the end screen waits for this seat's answer
ASK_AT_MOST = 2400  # (an hour of them: a person who walked away from the end screen costs the host nothing after)


async def follow_who_asks(conn: Connection, state: Any, words: Words, answered: Callable[[], bool],
                          redraw: Callable[[], None]) -> None:
    """Until `answered()` ([n] follows the table again; [q] closes the screen, and this task with it), or until the
    table moves on or another line replaces the end line (a hint, a refusal), keep the end line's names current."""
    for _ in range(ASK_AT_MOST):
        await asyncio.sleep(ASK_EVERY)
        view = state.view
        if answered() or view is None or state.message != vm.end_message(view, words):
            return
        try:
            info = await conn.table(conn.table_id)
        except Refused:  # (the host is restarting or gone: the screen says so elsewhere; try again later)
            continue
        if answered() or state.message != vm.end_message(view, words):
            return
        del view.table.seats[:]
        view.table.seats.extend(info.seats)  # (a person who left shows as a free seat: no longer waited for)
        state.message = vm.end_message(view, words)
        redraw()
        if bytes(info.game_id) != bytes(view.table.game_id):  # (back in the lobby, or a match begun without us)
            return
