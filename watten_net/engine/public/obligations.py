"""Obligations: what a seat's action promised about cards that nobody else has seen (docs/trustless.md §T9 item 10).

In a trustless deal the host knows a card only once it is opened. Some rules depend on cards that stay hidden
when the action is taken, so the host cannot refuse a breach live; it records an obligation instead and judges
it once the cards of its `scope` (the positions whose cards decide it) are opened at the end of the hand.

Every obligation is judged by `judge(known)` from the cards known so far (position -> card): `KEPT`, `BROKEN`,
or `OPEN` while a card it needs is still sealed. The judgement reuses the engine's own tables
(`Ranking.playable` for following), so a trustless hand is judged exactly as `Match` would have refused it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar

from ..cards import Card
from ..ranking import Ranking


class Verdict(Enum):
    """The judgement of an obligation: kept, broken, or open while a card that decides it is still sealed."""

    KEPT = "kept"
    BROKEN = "broken"
    OPEN = "open"  # a card that decides it is still sealed


@dataclass(frozen=True)
class Obligation:
    """`seat` is bound; `trick` is the trick it arose in (-1 before the first card); `scope` its positions."""

    seat: int
    trick: int
    scope: tuple[int, ...]

    kind: ClassVar[str] = ""
    reason: ClassVar[str] = ""  # the machine-readable reason of a breach

    def judge(self, known: Mapping[int, Card]) -> Verdict:
        raise NotImplementedError

    def describe(self) -> str:
        """What the seat had to do, as a sentence (shown with a breach)."""
        raise NotImplementedError

    def sealed(self, known: Mapping[int, Card]) -> tuple[int, ...]:
        """The positions of the scope still to be opened."""
        return tuple(p for p in self.scope if p not in known)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "trick": self.trick, "positions": list(self.scope),
                "rule": self.describe()}


@dataclass(frozen=True)
class FollowObligation(Obligation):
    """The seat played `played` to a trick where the follow rule binds, and so claims it held no card that would
    have forced another one (docs/rules.md section 4). `scope`: the positions it still held besides the played one."""

    ranking: Ranking
    before: tuple[Card, ...]  # the cards already in the trick, in play order
    played: Card
    first_trick: bool
    released_allowed: bool  # False after a `schadet?`

    kind: ClassVar[str] = "follow"
    reason: ClassVar[str] = "must-play-trump"  # the reason Match gives when it refuses such a card live

    def judge(self, known: Mapping[int, Card]) -> Verdict:
        hand = [self.played, *(known[p] for p in self.scope if p in known)]
        # The restriction only grows with the hand, so a card refused for the known part is refused for the whole.
        allowed = self.ranking.playable(hand, self.before, self.first_trick, True, self.released_allowed)
        if self.played not in allowed:
            return Verdict.BROKEN
        return Verdict.OPEN if self.sealed(known) else Verdict.KEPT

    def describe(self) -> str:
        if self.ranking.follow == "hauptschlag-lead":
            what = "a trump-suit card or a Kritischer (Trumpf oder Kritische)"
        else:
            what = "a trump or a Schlag card"
        return (f"seat {self.seat} played {self.played} to trick {self.trick + 1} and so held no card that forced "
                f"{what}")


@dataclass(frozen=True)
class SchadetObligation(Obligation):
    """The forehand asked `schadet?`, which only the holder of the Hauptschlag may. `scope`: its hand then."""

    hauptschlag: Card

    kind: ClassVar[str] = "schadet"
    reason: ClassVar[str] = "schadet-without-hauptschlag"

    def judge(self, known: Mapping[int, Card]) -> Verdict:
        if any(known.get(p) is self.hauptschlag for p in self.scope):
            return Verdict.KEPT
        return Verdict.OPEN if self.sealed(known) else Verdict.BROKEN

    def describe(self) -> str:
        return f"seat {self.seat} asked 'schadet?' and so held the Hauptschlag {self.hauptschlag}"


@dataclass(frozen=True)
class SchleckenObligation(Obligation):
    """The seat took the card at `scope[0]` at the cut where only a Kritischer may be taken (docs/rules.md 5.3)."""

    kritische: frozenset[Card]

    kind: ClassVar[str] = "schlecken"
    reason: ClassVar[str] = "took-non-kritischer"

    def judge(self, known: Mapping[int, Card]) -> Verdict:
        card = known.get(self.scope[0])
        if card is None:
            return Verdict.OPEN
        return Verdict.KEPT if card in self.kritische else Verdict.BROKEN

    def describe(self) -> str:
        return f"seat {self.seat} took the card at position {self.scope[0]} at the cut, which must be a Kritischer"


@dataclass(frozen=True)
class Violation:
    """A breach found at the end of a hand: `reason` is machine-readable, `message` a sentence."""

    seat: int
    reason: str
    message: str
    trick: int = -1

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "reason": self.reason, "message": self.message, "trick": self.trick}
