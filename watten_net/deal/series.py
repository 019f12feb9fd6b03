"""A match's place in a series at one table: the header's `previous_game_id` and `bummerl_carried`.

Each match is its own signed game whose engine counts from 0 (each record verifies alone); the header names the
table's previous game and the Bummerl the sides carry over from it, so "Bummerl 0–1" after the first match stays 0–1
in the next, and a seat that played the previous match can check the host carried them honestly. The host
(host/rematch.py) and the seat (seat.py) compute the next match's values with the same `next_series`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from watten_net.engine import Rules
from watten_net.engine.seating import seating_for

GAME_ID_SIZE = 32


@dataclass(frozen=True)
class Series:
    """What a match's header says of its series: the previous game (b"": none) and the Bummerl carried (): none)."""

    previous_game_id: bytes = b""
    carried: tuple[int, ...] = ()

    def describe(self) -> str:
        """In words, for a refusal or a verdict (only hex and numbers: nothing of the host's printed raw)."""
        if not self.previous_game_id:
            return "a first match"
        carried = "–".join(map(str, self.carried)) if self.carried else "none (a new series)"
        return f"after game {self.previous_game_id.hex()[:12]}, Bummerl carried {carried}"


FIRST_MATCH = Series()
"""A table's first match: no previous game, nothing carried (both header fields empty)."""


def series_problem(rules: Rules, series: Series) -> str | None:
    """What is malformed in a header's series fields whoever checks (None: well-formed)."""
    if series.previous_game_id and len(series.previous_game_id) != GAME_ID_SIZE:
        return f"the previous game id has {len(series.previous_game_id)} bytes, not {GAME_ID_SIZE}"
    if not series.carried:
        return None
    if not series.previous_game_id:
        return "Bummerl carried over without a previous game"
    sides = seating_for(rules).scorers
    if len(series.carried) != sides:
        return f"Bummerl carried for {len(series.carried)} sides, the rules have {sides}"
    if any(marks >= rules.bummerl_limit for marks in series.carried):
        return f"Bummerl carried at or over the limit of {rules.bummerl_limit}: that series was over"
    return None


def next_series(game_id: bytes, this: Series, match_bummerl: Sequence[int], bummerl_limit: int) -> Series:
    """The series fields of the match after game `game_id` (whose header said `this`), which ended with
    `match_bummerl` (its MatchEnd's; empty: a match abandoned before its engine began, which adds nothing). Once a
    side has the limit the series is over: the next match begins a new one, carrying nothing."""
    if not match_bummerl:
        return Series(game_id, this.carried)
    total = series_total(this.carried, match_bummerl)
    return Series(game_id, () if any(marks >= bummerl_limit for marks in total) else total)


def series_total(carried: Sequence[int], match_bummerl: Sequence[int]) -> tuple[int, ...]:
    """The series' Bummerl so far: those carried into a match (none, or another count of sides: nothing) and the
    match's own."""
    before = carried if len(carried) == len(match_bummerl) else (0,) * len(match_bummerl)
    return tuple(b + now for b, now in zip(before, match_bummerl, strict=True))


def header_series(header: object) -> Series:
    """A GameHeader's series fields (a pb.GameHeader; typed loosely as the generated messages are)."""
    previous = bytes(getattr(header, "previous_game_id", b""))
    return Series(previous, tuple(int(b) for b in getattr(header, "bummerl_carried", ())))
