"""What one seat may see: the information state a client shows and a bot reasons from.

Built only from the seat's own hand and the events visible to it, plus public facts of the state,
so nothing hidden can slip in by accident (tests check it: no other seat's card, no Blind
announcement for a non-announcer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .cards import Card
from .events import Event
from .notation import ANNOUNCE, Phase
from .rules import Rules

if TYPE_CHECKING:
    from .match import Match


@dataclass(frozen=True)
class Observation:
    """What one seat may see of a match at one moment (`Match.observe`): public facts, its own cards, its events."""

    seat: int
    rules: Rules
    phase: Phase
    match_number: int
    hand_number: int
    attempt: int
    dealer: int
    forehand: int
    cutter: int
    announcers: tuple[int, ...]
    hand_sides: tuple[int, ...]  # side (0/1) of each seat in this hand
    partners: tuple[int, ...]  # who receives this seat's signals in this hand
    scores: tuple[int, ...]  # per side (per seat with 2 or 3 players)
    bummerl: tuple[int, ...]
    hand: tuple[Card, ...]  # this seat's own cards (sorted by suit and rank)
    hand_counts: tuple[int, ...]  # cards held by each seat
    taken_counts: tuple[int, ...]  # cards each seat took at the cut (which ones is hidden)
    schlag: str | None  # None before it is named, or when Blind hides it from this seat
    trump: str | None
    announce_step: str | None  # during the announcement: schlag, trump, swap-answer, bessere-answer
    value: int  # what the hand is worth now
    raise_pending: tuple[int, int] | None  # (proposed value, raising seat)
    last_raise_side: int
    gespannt: tuple[bool, bool]  # per hand side
    current_trick: tuple[tuple[int, Card], ...]  # (seat, card) in play order
    tricks: tuple[tuple[int, tuple[Card, ...], int], ...]  # completed: (leader, cards, winner)
    tricks_won: tuple[int, int]  # per hand side
    to_act: tuple[int, ...]  # seats the game waits for
    legal_actions: tuple[str, ...]  # this seat's legal actions now
    match_over: bool
    winners: tuple[int, ...]
    series_over: bool
    events: tuple[Event, ...]  # every event of the match shown to this seat, oldest first

    @property
    def my_side(self) -> int:
        return self.hand_sides[self.seat]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (cards as strings), for the wire and for tests that scan for leaks."""
        return {
            "seat": self.seat, "rules": self.rules.to_dict(), "phase": self.phase,
            "match_number": self.match_number, "hand_number": self.hand_number, "attempt": self.attempt,
            "dealer": self.dealer, "forehand": self.forehand, "cutter": self.cutter,
            "announcers": list(self.announcers), "hand_sides": list(self.hand_sides),
            "partners": list(self.partners), "scores": list(self.scores), "bummerl": list(self.bummerl),
            "hand": [c.text for c in self.hand], "hand_counts": list(self.hand_counts),
            "taken_counts": list(self.taken_counts), "schlag": self.schlag, "trump": self.trump,
            "announce_step": self.announce_step, "value": self.value,
            "raise_pending": list(self.raise_pending) if self.raise_pending else None,
            "last_raise_side": self.last_raise_side, "gespannt": list(self.gespannt),
            "current_trick": [[s, c.text] for s, c in self.current_trick],
            "tricks": [[lead, [c.text for c in cards], win] for lead, cards, win in self.tricks],
            "tricks_won": list(self.tricks_won), "to_act": list(self.to_act),
            "legal_actions": list(self.legal_actions), "match_over": self.match_over,
            "winners": list(self.winners), "series_over": self.series_over,
            "events": [e.to_dict() for e in self.events],
        }


def build_observation(match: Match, seat: int, *, history: bool = True) -> Observation:
    if not 0 <= seat < match.t.n:
        raise ValueError(f"there is no seat {seat} at a {match.t.n}-player table")
    sees_announcement = not match.rules.blind or seat in match.announcers
    return Observation(
        seat=seat,
        rules=match.rules,
        phase=match.phase,
        match_number=match.match_number,
        hand_number=match.hand_number,
        attempt=match.attempt,
        dealer=match.dealer,
        forehand=match.forehand,
        cutter=match.cutter,
        announcers=match.announcers,
        hand_sides=match.hand_sides,
        partners=match.t.hand_partners_of[match.dealer][seat],
        scores=match.scores,
        bummerl=match.bummerl,
        hand=match.hands[seat],
        hand_counts=tuple(len(h) for h in match.hands),
        taken_counts=tuple(len(t) for t in match.taken),
        schlag=match.schlag if sees_announcement else None,
        trump=match.trump if sees_announcement else None,
        announce_step=match.announce_step if match.phase == ANNOUNCE else None,
        value=match.value,
        raise_pending=match.raise_pending,
        last_raise_side=match.last_raise_side,
        gespannt=match.gespannt,
        current_trick=tuple(zip(match.trick_seats, match.trick, strict=True)),
        tricks=match.tricks,
        tricks_won=match.tricks_won,
        to_act=match.waiting_for,
        legal_actions=tuple(match.legal_actions(seat)),
        match_over=match.is_over,
        winners=match.winners,
        series_over=match.series_over,
        events=tuple(e for e in match.events() if e.visible_to(seat)) if history else (),
    )
