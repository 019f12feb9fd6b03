"""Playouts inside one sampled world: a fast card policy, the announcement by the heuristic, and match equity.

The strong bot evaluates an action by applying it to an engine `Match` built from a *sample* of the hidden
cards (never the real one) and playing that sampled world to the end of the hand. Inside a sample every
card is known, so the card policy here may look at all hands: it is the usual perfect-information greedy
of determinized search (win the trick as cheaply as is sure to hold, else throw the lowest card).

Everything goes through the engine's own `Match.apply`, so the follow rules, the trick winners, the hand's
end and its scoring (stake, gespannt, Maschine, Bessere) are the engine's, not a copy of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import lru_cache

from watten_net.engine import ALL_CARDS, Card, Match, Rules
from watten_net.engine.notation import ANNOUNCE, PLAY, Verb
from watten_net.engine.ranking import Ranking

from .base import Bot, BotView

PLAY_TEXT = {card: "play " + card.text for card in ALL_CARDS}
CARD_OF = {card.text: card for card in ALL_CARDS}
# Asked by nobody inside a playout: the questions open branches (a second Bessere, a swap) the real hand may no
# longer have, and a raise is judged by the search itself. One set look-up per action on the playout's hot path.
_NOT_IN_PLAYOUTS = frozenset({Verb.SWAP_ASK, Verb.BESSERE_ASK, Verb.SCHADET_ASK, Verb.RAISE})
MAX_PLAYOUT_STEPS = 200  # a hand has at most ~40 actions; this only guards against a loop


class Playouts:
    """Plays sampled worlds to the end of the hand; counts engine steps (the bot's deterministic work budget)."""

    def __init__(self, announcer: Bot) -> None:
        self.announcer = announcer  # a heuristic bot: names Schlag and trump inside playouts
        self.steps = 0

    def finish(self, m: Match) -> Match:
        """Play `m` to the end of its hand (the match then waits for a deck, or is over)."""
        steps = 0
        while not (m.needs_deck or m.is_over) and steps < MAX_PLAYOUT_STEPS:
            steps += 1
            phase = m.phase
            if m.raise_pending is not None:  # only a raise the bot is evaluating: answered by the heuristic
                seat = m.waiting_for[0]  # (in the play or, docs/rules.md 6, in the announcement)
                m, _ = m.apply(seat, self.answer_raise(m, seat))
                continue
            if phase == PLAY:
                if m.schadet_pending:
                    seat = m.waiting_for[0]
                    m, _ = m.apply(seat, "schadet no")
                    continue
                seat = m.turn
                m, _ = m.apply(seat, PLAY_TEXT[greedy_card(m, seat)])
            elif phase == ANNOUNCE:
                seat = m.announcer_turn
                m, _ = m.apply(seat, self.announce(m, seat))
            else:  # the cut is never part of a playout
                raise AssertionError(f"playout reached phase {phase}")
        self.steps += steps
        return m

    def announce(self, m: Match, seat: int) -> str:
        legal = tuple(
            a for a in m.legal_actions(seat) if not a.startswith("signal ") and a not in _NOT_IN_PLAYOUTS
        )  # nobody raises inside a playout either (the raise the bot evaluates is its own, in `_search`)
        view = BotView(
            seat=seat, legal_actions=legal, hand=tuple(c.text for c in m.hands[seat]), schlag=m.schlag or "",
            trump=m.trump or "", phase=ANNOUNCE, rules=m.rules, announce_step=m.announce_step,
            sides=m.hand_sides, announcers=m.announcers,
        )
        action = self.announcer.choose(view)
        return action if action in legal else legal[0]

    def answer_raise(self, m: Match, seat: int) -> str:
        """The other side's answer to a raise, by the heuristic's rule from that seat's own sampled view."""
        view = dataclasses.replace(BotView.from_observation(m.observe(seat, history=False)),
                                   legal_actions=("accept", "fold"))
        action = self.announcer.choose(view)
        return action if action in (Verb.ACCEPT, Verb.FOLD) else "accept"


# ---------------------------------------------------------------------------------------------- the card policy
@lru_cache(maxsize=512)
def card_keys(rk: Ranking) -> tuple[int, ...]:
    """What a card is worth keeping, by card code: its tier strength, or its rank for a plain card (lowest first)."""
    return tuple(s if s else card.rank_index for s, card in zip(rk.strength, _BY_CODE, strict=True))


_BY_CODE: tuple[Card, ...] = tuple(sorted(ALL_CARDS, key=lambda c: c.code))


def _holds(rk: Ranking, cards: tuple[Card, ...], index: int, seats: Sequence[int],
           hands: Sequence[Sequence[Card]]) -> bool:
    """Whether the card at `index` of `cards` still wins whatever any of `seats` adds (any card they hold)."""
    winner = rk.winner
    for s in seats:
        for u in hands[s]:
            if winner((*cards, u)) != index:
                return False
    return True


def legal_cards(m: Match, seat: int) -> Sequence[Card]:
    """The cards `seat` may play now (the engine's own legality, in hand order)."""
    rk = m.ranking
    assert rk is not None
    rules = m.rules
    return rk.playable(
        m.hands[seat], m.trick, not m.tricks, not rules.blind or seat in m.announcers, not m.schadet_asked,
    )


def greedy_card(m: Match, seat: int) -> Card:
    """Perfect-information greedy: a sure winner as cheaply as possible, else the lowest card."""
    rk = m.ranking
    assert rk is not None
    legal = legal_cards(m, seat)
    if len(legal) == 1:
        return legal[0]
    key = card_keys(rk)
    trick = m.trick
    hands = m.hands
    sides = m.hand_sides
    side = sides[seat]
    n = len(sides)
    pos = len(trick)

    def lowest(cards: Sequence[Card]) -> Card:
        best = cards[0]
        for c in cards:
            if key[c.code] < key[best.code]:
                best = c
        return best

    if pos == 0:
        opponents = [s for s in range(n) if sides[s] != side]
        sure = [c for c in legal if _holds(rk, (c,), 0, opponents, hands)]
        return lowest(sure) if sure else lowest(legal)
    later = [s for s in ((seat + i) % n for i in range(1, n - pos)) if sides[s] != side]
    win = rk.winner(trick)
    partner_holds = sides[m.trick_seats[win]] == side
    if partner_holds and _holds(rk, trick, win, later, hands):
        return lowest(legal)
    winners = [c for c in legal if rk.winner((*trick, c)) == pos]
    if not winners:
        return lowest(legal)
    sure = [c for c in winners if _holds(rk, (*trick, c), pos, later, hands)]
    if sure:
        return lowest(sure)
    return lowest(legal) if partner_holds else lowest(winners)


# ---------------------------------------------------------------------------------------------- match equity
@lru_cache(maxsize=64)
def _equity_table(target: int, three: bool) -> tuple[tuple[float, ...], ...]:
    """Chance to win the match from (own points, other side's points), hands worth 2 (3 when gespannt) at 50:50."""
    table = [[0.0] * (target + 4) for _ in range(target + 4)]
    for a in range(target + 3, -1, -1):
        for b in range(target + 3, -1, -1):
            if a >= target:
                table[a][b] = 1.0
            elif b >= target:
                table[a][b] = 0.0
            else:
                v = 3 if three and (a >= target - 2 or b >= target - 2) else 2
                table[a][b] = 0.5 * table[min(a + v, target + 3)][b] + 0.5 * table[a][min(b + v, target + 3)]
    return tuple(tuple(row) for row in table)


def equity(rules: Rules, own: int, other: int) -> float:
    """The chance to win the match from these scores (a simple model: each later hand a coin flip)."""
    table = _equity_table(rules.target, rules.tight == "three-or-concede")
    cap = rules.target + 3
    return table[min(own, cap)][min(other, cap)]


def outcome(m: Match, scorer: int, before: Sequence[int]) -> tuple[float, bool]:
    """(match equity of `scorer`, a side or a seat at three; whether it gained more than the others) after a hand."""
    scores = m.scores
    other = max(s for i, s in enumerate(scores) if i != scorer)
    gained = scores[scorer] - before[scorer]
    other_gain = max(s - before[i] for i, s in enumerate(scores) if i != scorer)
    if m.is_over:
        return (1.0 if scorer in m.winners else 0.0), gained > other_gain
    return equity(m.rules, scores[scorer], other), gained > other_gain
