"""Seating facts that follow from the player count alone: sides, partners, cutter, announcers.

Computed once per `Rules` and shared by every state of a match.
"""

from __future__ import annotations

from functools import lru_cache

from .rules import Rules


class Table:
    __slots__ = ("n", "partners", "score_slots", "slot_of")

    def __init__(self, players: int) -> None:
        self.n = players
        # Score slots: one per side with 2, 4 or 6 players; one per seat with 3 (each keeps a score).
        self.score_slots = 3 if players == 3 else 2
        self.slot_of = tuple(seat if players == 3 else seat % 2 for seat in range(players))
        if players in (4, 6):
            self.partners = tuple(
                tuple(s for s in range(players) if s % 2 == seat % 2 and s != seat) for seat in range(players)
            )
        else:
            self.partners = tuple(() for _ in range(players))

    def forehand(self, dealer: int) -> int:
        return (dealer + 1) % self.n

    def cutter(self, dealer: int) -> int:
        """RULES.md section 1: the dealer's right neighbour with 4 or 6, the opponent with 2, forehand with 3."""
        if self.n == 3:
            return (dealer + 1) % self.n
        return (dealer - 1) % self.n

    def announcers(self, dealer: int) -> tuple[int, ...]:
        forehand = self.forehand(dealer)
        return (forehand,) if self.n == 3 else (forehand, dealer)

    def hand_sides(self, dealer: int) -> tuple[int, ...]:
        """Side (0 or 1) of each seat in this hand; with 3 players the forehand alone is side 0."""
        if self.n == 3:
            forehand = self.forehand(dealer)
            return tuple(0 if seat == forehand else 1 for seat in range(self.n))
        return tuple(seat % 2 for seat in range(self.n))

    def hand_partners(self, dealer: int) -> tuple[tuple[int, ...], ...]:
        """Who receives a seat's signals in this hand: the partners (the pair, with 3 players)."""
        if self.n == 3:
            sides = self.hand_sides(dealer)
            return tuple(
                tuple(s for s in range(3) if s != seat and sides[s] == sides[seat] == 1) for seat in range(3)
            )
        return self.partners


@lru_cache(maxsize=16)
def table_for(rules: Rules) -> Table:
    return Table(rules.players)
