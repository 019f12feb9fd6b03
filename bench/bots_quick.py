"""Quick bot comparison: the heuristic side against the random side over 4-player Bavarian matches.

Seats 0 and 2 are heuristic bots, seats 1 and 3 random ones; the first dealer alternates between the
sides. Prints the heuristic side's match win rate, its hand win rate and the decision times. Figures
only; nothing here passes or fails.

    python bench/bots_quick.py [--matches 100] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from watten_net.bots import Bot, BotView, make_bot
from watten_net.engine import Match, Rules, canonical_deck

HEURISTIC_SIDE = 0  # seats 0 and 2


def play_match(rules: Rules, bots: list[Bot], rng: random.Random, first_dealer: int,
               times: list[float]) -> tuple[int, int, int]:
    """One match; returns (winning side, hands won by the heuristic side, hands played)."""
    m = Match.new(rules, first_dealer=first_dealer)
    deck = list(canonical_deck(rules.deck))
    won = played = 0
    while not m.is_over:
        if m.needs_deck:
            rng.shuffle(deck)
            m = m.apply_deck(deck)
            continue
        seat = m.waiting_for[0]
        view = BotView.from_observation(m.observe(seat))
        start = time.perf_counter()
        action = bots[seat].choose(view)
        if seat % 2 == HEURISTIC_SIDE:
            times.append(time.perf_counter() - start)
        assert action is not None and action in view.legal_actions, (action, view.legal_actions)
        m, events = m.apply(seat, action)
        for event in events:
            if event.kind == "hand-end":
                played += 1
                won += event.data["side"] == HEURISTIC_SIDE
    return m.winners[0], won, played


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--matches", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    rules = Rules.preset("bavarian", 4)
    rng = random.Random(args.seed)
    times: list[float] = []
    matches_won = hands_won = hands = 0
    for i in range(args.matches):
        bots = [make_bot("heuristic" if s % 2 == HEURISTIC_SIDE else "random", args.seed * 1000 + i * 4 + s)
                for s in range(4)]
        winner, won, played = play_match(rules, bots, rng, first_dealer=i % 4, times=times)
        matches_won += winner == HEURISTIC_SIDE
        hands_won += won
        hands += played
    print(f"heuristic vs random, {args.matches} four-player bavarian matches:")
    print(f"  matches won by the heuristic side: {matches_won}/{args.matches} = {matches_won / args.matches:.0%}")
    print(f"  hands won by the heuristic side:   {hands_won}/{hands} = {hands_won / hands:.0%}")
    print(f"  heuristic decisions: {len(times)}, median {statistics.median(times) * 1e3:.2f} ms, "
          f"max {max(times) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
