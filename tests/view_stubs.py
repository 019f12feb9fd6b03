"""A table whose deal protocol is done, with just what the host's view projection (host/views.py) reads of it: tests
that hold a remote seat's TableView against the match itself build it on these instead of a whole host."""

from __future__ import annotations

from typing import Any

from host.rematch import Rematch
from watten_net.deal.series import FIRST_MATCH
from watten_net.engine import Match
from watten_net.v1 import watten_pb2 as pb


class StubGame:
    """What the view projection reads of a HostGame whose deal protocol is finished: the Level 1 match."""

    fingerprint = ""
    chain: list[Any] = []  # noqa: RUF012
    phase = "play"
    trustless = False
    public = None
    series = FIRST_MATCH  # (the header's series: a first match, nothing carried)

    def __init__(self, match: Match) -> None:
        self.match = match
        self.absent: set[int] = set()

    def waiting_for(self) -> tuple[str, tuple[int, ...]]:
        return "play", ()

    def to_act(self) -> tuple[int, ...]:
        return self.match.waiting_for  # (no host bot at this table: nobody holds a raise back)


class StubTable:
    """What the view projection reads of a host table: the rules, the seats and the game."""

    def __init__(self, match: Match) -> None:
        self.rules = match.rules
        self.n = match.rules.players
        self.seats = [None] * self.n
        self.game = StubGame(match)
        self.rematch = Rematch(self)  # type: ignore[arg-type]  # (the series' Bummerl: none carried, a first match)

    def stood_in(self, seat: int) -> bool:
        return seat in self.game.absent

    def info(self) -> Any:
        return pb.TableInfo(rules_json=self.rules.to_json(), player_count=self.n)
