"""Random-deal hands driven by bots, for the bot tests: every choice checked legal, rare states mixed in."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from watten_net.bots import Bot, BotView, make_bot
from watten_net.engine import Match, Rules, canonical_deck


def play_hands(rules: Rules, seed: int, hands: int, bots: Sequence[Bot], *, mix: float, prefer: str = ""
               ) -> tuple[list[tuple[int, str]], float]:
    """`bots` (one per seat) play `hands` hands; returns their choices and the slowest decision in seconds of this
    thread's CPU time (what the decision costs: the wall clock of a loaded CI machine adds the time other processes
    had the CPU, and failed the 0.5 s bound here at 1.7 s).

    At every decision the seat's bot and a random bot both choose from the seat's view (both must be legal);
    the random bot's choice is applied with probability `mix`, so the bots also meet states they would not
    steer into themselves (swaps, Bessere, raises); the action `prefer` is applied whenever it is legal.
    """
    rng = random.Random(seed)
    n = rules.players
    randoms = [make_bot("random", seed * 10 + s + 5) for s in range(n)]
    m = Match.new(rules, first_dealer=rng.randrange(n))
    deck = list(canonical_deck(rules.deck))
    choices: list[tuple[int, str]] = []
    slowest = 0.0
    played = 0
    while played < hands or not m.needs_deck:
        if m.is_over:
            m = Match.new(rules, first_dealer=rng.randrange(n))
            continue
        if m.needs_deck:
            rng.shuffle(deck)
            m = m.apply_deck(deck)
            played += 1
            continue
        seat = m.waiting_for[0]
        view = BotView.from_observation(m.observe(seat))
        start = time.thread_time()
        action = bots[seat].choose(view)
        slowest = max(slowest, time.thread_time() - start)
        assert action is not None and action in view.legal_actions, (rules, view, action)
        other = randoms[seat].decide(view)
        assert other in view.legal_actions, (rules, view, other)
        choices.append((seat, action))
        applied = prefer if prefer in view.legal_actions else other if rng.random() < mix else action
        m, _ = m.apply(seat, applied)
    return choices, slowest
