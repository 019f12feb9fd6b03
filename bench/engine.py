"""Engine speed: random matches, every action uniform over the legal ones of the seat the game waits for.

Prints actions/s and hands/s per preset and player count, and the median time of a whole random
4-player Bavarian match. The baseline measured in the same run is the harness alone (the same
shuffles and random choices over a fixed action list, no engine), so the engine's own cost can be
read off beside it. Figures only; nothing here passes or fails on time.

    python bench/engine.py [--seconds 0.5] [--matches 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from watten_net.engine import Match, Rules, canonical_deck


def random_match(rules: Rules, rng: random.Random) -> tuple[int, int]:
    """Play one random match; returns (actions, hands)."""
    m = Match.new(rules, first_dealer=rng.randrange(rules.players))
    deck = list(canonical_deck(rules.deck))
    actions = hands = 0
    while not m.is_over:
        if m.needs_deck:
            rng.shuffle(deck)
            m = m.apply_deck(deck)
            hands += 1
            continue
        seat = m.waiting_for[0]
        legal = m.legal_actions(seat)
        m, _ = m.apply(seat, legal[int(rng.random() * len(legal))])
        actions += 1
    return actions, hands


def harness_only(rules: Rules, rng: random.Random, actions: int, hands: int) -> None:
    """The baseline: what the loop above costs without the engine (shuffles and random choices)."""
    deck = list(canonical_deck(rules.deck))
    legal = ["play HK", "play S7", "play E7", "raise"]
    for _ in range(hands):
        rng.shuffle(deck)
    for _ in range(actions):
        legal[int(rng.random() * len(legal))]


def measure(rules: Rules, seconds: float) -> tuple[float, float, float]:
    rng = random.Random(1)
    total_actions = total_hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        a, h = random_match(rules, rng)
        total_actions += a
        total_hands += h
    elapsed = time.perf_counter() - start
    t0 = time.perf_counter()
    harness_only(rules, random.Random(1), total_actions, total_hands)
    harness = time.perf_counter() - t0
    return total_actions / elapsed, total_hands / elapsed, total_actions / (elapsed - harness)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=0.5, help="time per preset and player count")
    parser.add_argument("--matches", type=int, default=200, help="4-player Bavarian matches for the median")
    args = parser.parse_args()

    print(f"{'preset':20} {'players':>7} {'actions/s':>11} {'hands/s':>9} {'engine only actions/s':>22}")
    for name in Rules.PRESET_NAMES:
        for players in (2, 3, 4, 6):
            rules = Rules.preset(name, players)
            actions_s, hands_s, engine_s = measure(rules, args.seconds)
            print(f"{name:20} {players:>7} {actions_s:>11,.0f} {hands_s:>9,.0f} {engine_s:>22,.0f}")

    rules = Rules.preset("bavarian", 4)
    rng = random.Random(2)
    times = []
    for _ in range(args.matches):
        t0 = time.perf_counter()
        random_match(rules, rng)
        times.append(time.perf_counter() - t0)
    print(
        f"\nwhole random 4-player bavarian match: median {statistics.median(times) * 1e3:.2f} ms, "
        f"p90 {sorted(times)[int(len(times) * 0.9)] * 1e3:.2f} ms over {args.matches} matches (target: < 20 ms median)"
    )
    actions_s, _, engine_s = measure(Rules.preset("south-tyrolean", 2), 2.0)
    print(f"2-player south-tyrolean over 2 s: {actions_s:,.0f} actions/s (engine only {engine_s:,.0f}); "
          "target >= 150,000")


if __name__ == "__main__":
    main()
