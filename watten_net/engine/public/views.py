"""What a public match hands out: how a hand was decided, and what one seat may see."""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import Card
from ..events import Event
from ..notation import Phase
from .obligations import Obligation


@dataclass(frozen=True)
class Outcome:
    """How a hand (or a deal attempt) was decided, before its obligations are settled."""

    side: int  # the winning hand side; for a redeal the side that scores the redeal penalty
    points: int  # as Match would score them, before base-two's cap
    reason: str  # tricks, fold, concede, maschine, forfeit; "redeal" for a Bessere redeal
    seat: int = -1  # the seat that called a redeal


@dataclass(frozen=True)
class PublicObservation:
    """What one seat may see of a public match: public facts, its own positions and the events shown to it.

    The seat's client adds its cards (it holds the decrypted deal); the host itself never knows them.
    """

    seat: int
    phase: Phase
    hand_number: int
    attempt: int
    dealer: int
    forehand: int
    cutter: int
    hand_sides: tuple[int, ...]
    scores: tuple[int, ...]
    bummerl: tuple[int, ...]
    positions: tuple[int, ...]  # this seat's unplayed positions
    partners: tuple[int, ...]  # who receives this seat's signals in this hand (as `Observation.partners`)
    announce_step: str | None  # during the announcement: schlag, trump, swap-answer, bessere-answer
    hand_counts: tuple[int, ...]
    taken_counts: tuple[int, ...]
    schlag: str | None
    trump: str | None
    value: int
    raise_pending: tuple[int, int] | None
    current_trick: tuple[tuple[int, int, Card], ...]  # (seat, position, card) in play order
    tricks: tuple[tuple[int, tuple[Card, ...], int], ...]
    tricks_won: tuple[int, int]
    to_act: tuple[int, ...]
    legal_actions: tuple[str, ...]
    openings_wanted: tuple[int, ...]  # positions this seat must open now
    obligations: tuple[Obligation, ...]  # every obligation of this hand (public facts)
    match_over: bool
    events: tuple[Event, ...]
