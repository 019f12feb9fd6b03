"""Seating facts that follow from the player count and the dealer: sides, partners, cutter, announcers.

Computed once per player count, for every dealer, so the match state reads them by index instead of
recomputing them on every action.
"""

from __future__ import annotations

from functools import lru_cache

from .rules import Rules


class Seating:
    """The seating facts of a table of `players` seats, worked out once: sides, partners, who cuts and announces."""

    __slots__ = (
        "announcers_of",
        "answerers_of",
        "cutter_of",
        "forehand_of",
        "hand_partners_of",
        "n",
        "partners",
        "scorer_of",
        "scorers",
        "seat_order_from",
        "side_scorers_of",
        "side_seats_of",
        "sides_of",
        "signal_audience_of",
    )

    def __init__(self, players: int) -> None:
        n = self.n = players
        # Score slots: one per side with 2, 4 or 6 players; one per seat with 3 (each keeps a score).
        self.scorers = 3 if n == 3 else 2
        self.scorer_of = tuple(seat if n == 3 else seat % 2 for seat in range(n))
        if n in (4, 6):
            self.partners = tuple(
                tuple(s for s in range(n) if s % 2 == seat % 2 and s != seat) for seat in range(n)
            )
        else:
            self.partners = tuple(() for _ in range(n))
        dealers = range(n)
        self.forehand_of = tuple((d + 1) % n for d in dealers)
        # docs/rules.md section 1: the dealer's right neighbour with 4 or 6, the opponent with 2, forehand with 3.
        self.cutter_of = tuple((d + 1) % n if n == 3 else (d - 1) % n for d in dealers)
        self.announcers_of = tuple(((d + 1) % n,) if n == 3 else ((d + 1) % n, d) for d in dealers)
        # Side (0 or 1) of each seat in a hand; with 3 players the forehand alone is side 0.
        self.sides_of = tuple(
            tuple(0 if s == (d + 1) % n else 1 for s in range(n)) if n == 3 else tuple(s % 2 for s in range(n))
            for d in dealers
        )
        self.side_scorers_of = tuple(
            tuple(tuple(sorted({self.scorer_of[s] for s in range(n) if sides[s] == side})) for side in (0, 1))
            for sides in self.sides_of
        )
        # The seats in playing order starting from each seat (dealing, Maschine checks, answering a raise).
        self.seat_order_from = tuple(tuple((start + i) % n for i in range(n)) for start in range(n))
        # The seats of each hand side, per dealer (the hand-end event lists them).
        self.side_seats_of = tuple(
            tuple(tuple(s for s in range(n) if sides[s] == side) for side in (0, 1)) for sides in self.sides_of
        )
        # Who answers a seat's raise: the other hand side, in playing order from the raiser (per dealer).
        self.answerers_of = tuple(
            tuple(tuple(s for s in self.seat_order_from[raiser] if sides[s] != sides[raiser]) for raiser in range(n))
            for sides in self.sides_of
        )
        # Who receives a seat's signals: the partners (the pair, with 3 players).
        if n == 3:
            self.hand_partners_of = tuple(
                tuple(tuple(s for s in range(3) if s != seat and sides[s] == sides[seat] == 1) for seat in range(3))
                for sides in self.sides_of
            )
        else:
            self.hand_partners_of = tuple(self.partners for _ in dealers)
        # Who sees a seat's signal: the seat itself and its partners, in seat order.
        self.signal_audience_of = tuple(
            tuple(tuple(sorted((seat, *partners[seat]))) for seat in range(n)) for partners in self.hand_partners_of
        )


    # Worked out once per player count and shared, never changed: a copy is the object itself, and a pickle rebuilds
    # it from the player count (compiled by mypyc, the class has no bare constructor for copy and pickle).
    def __copy__(self) -> Seating:
        return self

    def __deepcopy__(self, memo: object) -> Seating:
        return self

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (Seating, (self.n,))


@lru_cache(maxsize=16)
def seating_for(rules: Rules) -> Seating:
    return Seating(rules.players)
