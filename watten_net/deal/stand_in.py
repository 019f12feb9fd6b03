"""The reference stand-in of docs/protocol.md Level 1 version 2: how a seat that is away is played, move by move.

In version 1 the host's own bot played for a seat that was away, so the host decided those moves (it could play a
present seat's weakest cards by calling it away). Now every move of a stand-in is a pure function of that seat's
observation, named with its version in the GameHeader (``GameHeader.stand_in``), and `watten-verify` recomputes
each one: a host that plays a stand-in's move differently from the reference is caught.

``reference/v1`` needs no randomness. It never raises, never asks for ``bessere?`` (it answers ``no``), never
concedes, never signals and never asks ``swap?`` or ``schadet?``; it keeps its card at the cut, accepts a raise,
claims a Maschine, names the Schlag it holds most of and the suit it holds most of, and plays: the weakest card
when its side already wins the trick, else the weakest card that wins it, else its weakest card. Ties go to the
first in the engine's order of legal actions. This module is frozen: a better policy is ``reference/v2`` beside
it, and this one stays for as long as records made with it should verify (like ``deck/v1``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from watten_net.engine import Card
from watten_net.engine.observation import Observation
from watten_net.engine.ranking import ranking

REFERENCE_V1 = "reference/v1"
REFERENCES = (REFERENCE_V1,)

_NEVER = frozenset({"raise", "bessere?", "swap?", "schadet?", "concede", "signal", "cut"})
_PREFERRED = ("maschine", "accept", "keep", "bessere no", "swap no", "schadet no")


def reference_v1(obs: Observation) -> str:
    """The move of ``reference/v1`` for the seat of ``obs`` (which must have a legal action)."""
    legal = list(obs.legal_actions)
    if not legal:
        raise ValueError(f"seat {obs.seat} has nothing to do")
    for wanted in _PREFERRED:
        if wanted in legal:
            return wanted
    plays = [a for a in legal if a.startswith("play ")]
    if plays:
        return _play(obs, plays)
    for verb, pick in (("schlag", lambda c: c.rank), ("trump", lambda c: c.suit)):
        named = [a for a in legal if a.startswith(verb + " ")]
        if named:
            return _most_held(obs, named, pick)
    calm = [a for a in legal if a.split(" ", 1)[0] not in _NEVER]
    # (a cut is never the stand-in's in Level 1: it follows from the cutter's key; kept last for completeness)
    return (calm or legal)[0]


def _most_held(obs: Observation, named: list[str], pick: Callable[[Card], str]) -> str:
    held = Counter(pick(card) for card in obs.hand)
    return max(named, key=lambda a: (held[a.split(" ", 1)[1]], -named.index(a)))


def _play(obs: Observation, plays: list[str]) -> str:
    cards = [Card.parse(a.split(" ", 1)[1]) for a in plays]
    if obs.schlag is None or obs.trump is None:  # (Blind, not an announcer: the seat does not know the ranking)
        return plays[0]
    order = ranking(obs.rules, obs.schlag, obs.trump)

    def power(i: int) -> tuple[int, int, int]:
        code = cards[i].code
        return order.strength[code], order.led_strength[code], i

    weakest = min(range(len(cards)), key=power)
    trick = [card for _, card in obs.current_trick]
    if not trick:
        return plays[weakest]
    leader_seat = obs.current_trick[order.winner(trick)][0]
    if obs.hand_sides[leader_seat] == obs.my_side:
        return plays[weakest]
    winning = [i for i in range(len(cards)) if order.winner([*trick, cards[i]]) == len(trick)]
    return plays[min(winning, key=power)] if winning else plays[weakest]


POLICIES: dict[str, Callable[[Observation], str]] = {REFERENCE_V1: reference_v1}
