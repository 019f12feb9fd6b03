"""docs/protocol.md §5.6, the deal map in deck positions: its formulas and its worked example against the engine.

The positions are computed here from the document's words alone (the stack, the packets, the Bessere), then compared
with the `deal` events of the public engine (the one a trustless host and every trustless seat replay) and with each
seat's positions after the deal.
"""

from __future__ import annotations

from typing import Any

import pytest

from watten_net.engine import Rules
from watten_net.engine.public import PublicMatch


def documented_deal(size: int, n: int, dealer: int, cut: int, taken: dict[int, int], hand_size: int = 5,
                    bessere_after_first: bool = False) -> dict[int, list[int]]:
    """§5.6 items 1-5: seat -> the positions it holds after both packets (and a Bessere after packet 1)."""
    forehand, cutter = (dealer + 1) % n, ((dealer + 1) if n == 3 else (dealer - 1)) % n
    tc, td = taken.get(cutter, 0), taken.get(dealer, 0)
    stack = list(range(cut, size - td)) + list(range(0, cut - tc))
    first = 3 if hand_size == 5 else 2
    second = hand_size - first
    hands: dict[int, list[int]] = {s: [] for s in range(n)}
    hands[cutter] += [cut - 1 - i for i in range(tc)]
    hands[dealer] += [size - 1 - i for i in range(td)]
    order = [(forehand + i) % n for i in range(n)]
    for packet in (1, 2):
        if packet == 2 and bessere_after_first:
            for who in (forehand, dealer):
                count = len(hands[who])
                hands[who], stack = stack[:count], stack[count:]
        for seat in order:
            k = len([p for p in hands[seat] if p in range(cut - tc, cut) or p in range(size - td, size)])
            count = max(0, first - k) if packet == 1 else second - max(0, k - first)
            hands[seat] += stack[:count]
            stack = stack[count:]
    return {s: sorted(h) for s, h in hands.items()}


def engine_deal(actions: list[tuple[int, str]]) -> tuple[dict[int, list[int]], list[dict[str, Any]]]:
    rules = Rules.preset("bavarian", 4)
    match = PublicMatch.new(rules, first_dealer=0).apply_sealed_deck(rules.deck)
    deals = []
    for seat, action in actions:
        match, events = match.apply(seat, action)
        deals += [{"seat": e.seat, **e.data} for e in events if e.kind == "deal"]
    return {s: sorted(match.positions_of(s)) for s in range(4)}, deals


ANNOUNCE = [(1, "schlag O"), (0, "trump H")]


@pytest.mark.parametrize(("name", "actions", "taken", "bessere", "example"), [
    ("nobody takes", [(3, "cut 12"), (3, "keep"), *ANNOUNCE], {}, False,
     {1: [12, 13, 14, 24, 25], 2: [15, 16, 17, 26, 27], 3: [18, 19, 20, 28, 29], 0: [21, 22, 23, 30, 31]}),
    ("the cutter takes one", [(3, "cut 12"), (3, "take"), (3, "keep"), (0, "keep"), *ANNOUNCE], {3: 1}, False,
     {1: [12, 13, 14, 23, 24], 2: [15, 16, 17, 25, 26], 3: [11, 18, 19, 27, 28], 0: [20, 21, 22, 29, 30]}),
    ("bessere yes", [(3, "cut 12"), (3, "keep"), (1, "bessere?"), (0, "bessere yes"), *ANNOUNCE], {}, True,
     {1: [24, 25, 26, 30, 31], 2: [0, 1, 15, 16, 17], 3: [2, 3, 18, 19, 20], 0: [4, 5, 27, 28, 29]}),
])
def test_the_worked_example_is_the_engines_deal(name: str, actions: list[tuple[int, str]], taken: dict[int, int],
                                                bessere: bool, example: dict[int, list[int]]) -> None:
    held, deals = engine_deal(actions)
    assert held == {s: sorted(p) for s, p in example.items()}, name
    assert documented_deal(32, 4, 0, 12, taken, bessere_after_first=bessere) == held
    # The public `deal` events name packets 1 and 2 (and 0 for a Bessere's new cards) from the forehand on.
    assert [d["seat"] for d in deals if d["packet"] == 1] == [1, 2, 3, 0]
    assert all(d["packet"] in (0, 1, 2) and d["positions"] for d in deals)


@pytest.mark.parametrize("cut", [4, 9, 16, 28])
def test_the_formulas_hold_for_other_cuts(cut: int) -> None:
    held, _ = engine_deal([(3, f"cut {cut}"), (3, "keep"), *ANNOUNCE])
    assert documented_deal(32, 4, 0, cut, {}) == held
