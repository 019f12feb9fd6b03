"""Events: what an action caused, with who may see it.

`to is None` means every seat sees the event; otherwise only the listed seats do. Hidden facts
(dealt cards, a card taken at the cut, a Blind announcement) travel in events of their own with
a narrow `to`, so that filtering a seat's view is just `seat in to`, for the host and for `observe`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple


class EventKind(StrEnum):
    """Every `Event.kind` the engines emit. The values are what records and the wire carry. The engines
    themselves emit the literal strings (a constant load on the play path); each equals its member here."""

    HAND_START = "hand-start"
    CUT = "cut"
    SEE = "see"  # a card shown to the Schlecken seat (hidden)
    TAKE = "take"
    TOOK = "took"  # the card taken (hidden)
    KEEP = "keep"
    DEAL = "deal"  # cards dealt to a seat (hidden)
    PACKET = "packet"
    ASIDE = "aside"
    SCHLAG = "schlag"
    TRUMP = "trump"
    ANNOUNCED = "announced"
    ANNOUNCEMENT = "announcement"
    SWAP_ASK = "swap?"
    SWAP = "swap"
    BESSERE_ASK = "bessere?"
    BESSERE = "bessere"
    SCHADET_ASK = "schadet?"
    SCHADET = "schadet"
    RAISE = "raise"
    ACCEPT = "accept"
    FOLD = "fold"
    CONCEDE = "concede"
    SIGNAL = "signal"
    PLAY = "play"
    TRICK = "trick"
    MASCHINE = "maschine"
    FORFEIT = "forfeit"
    BLUFF_PENALTY = "bluff-penalty"
    HAND_END = "hand-end"
    REDEAL = "redeal"
    MATCH_END = "match-end"
    # PublicMatch (trustless) only
    OPEN_ASK = "open?"
    OPENED = "opened"
    NOT_OPENED = "not-opened"
    OBLIGATION = "obligation"
    VIOLATION = "violation"


class Event(NamedTuple):
    """One thing that happened. A named tuple: events are made on every action, so they must be cheap."""

    kind: str
    seat: int = -1
    data: dict[str, Any] = {}  # noqa: RUF012 - never mutated; every event that has data passes its own dict
    to: tuple[int, ...] | None = None

    def visible_to(self, seat: int) -> bool:
        return self.to is None or seat in self.to

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "seat": self.seat, **self.data}
        if self.to is not None:
            out["to"] = list(self.to)
        return out
