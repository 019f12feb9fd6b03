"""Who the table waits for, as against who may move: the one decision the host's bots, its views (every screen's
▶ and "waiting for") and its clocks all read (docs/rules-decisions.md, who answers a raise).

docs/rules.md 6 lets any seat of the other side answer a raise, and the engine says so (`waiting_for`). At a table
with host bots one of those seats may still not be waited for: a host bot leaves the answer to a person of its side
who is asked too and at the table (not stood in for), so the table waits for that person alone. What is legal does
not change: the bot could answer, it holds back.

Everything here is in the signed record too (the roster's bot flags, the stand-ins), so any seat could work it out.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any


def holding_back(match: Any, waiting: tuple[int, ...], bots: Collection[int],
                 absent: Collection[int]) -> frozenset[int]:
    """The seats of `waiting` whose host bot leaves the answer to a raise to a person of its side.

    `match` is the engine (Match or PublicMatch); `bots` the seats the host's own bots play (the roster's bot flag);
    `absent` the seats whose person is away (stood in for). A person asked too: a seat of `waiting` that is neither."""
    if match is None or match.raise_pending is None:
        return frozenset()
    sides = match.hand_sides
    raising_side = sides[match.raise_pending[1]]
    # The sides answering the raise that have a person at the table among the seats asked
    with_a_person = {sides[s] for s in waiting if s not in bots and s not in absent and sides[s] != raising_side}
    return frozenset(s for s in waiting if s in bots and s not in absent and sides[s] in with_a_person)


def waited_for(match: Any, waiting: tuple[int, ...], bots: Collection[int], absent: Collection[int]) -> tuple[int, ...]:
    """`waiting` (the seats the engine lets move) without the host bots that hold back (`holding_back`)."""
    held = holding_back(match, waiting, bots, absent)
    return tuple(s for s in waiting if s not in held) if held else waiting
