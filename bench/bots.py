"""Strong bot against the heuristic: match win rates with 95% intervals, and the strong bot's decision times.

Two settings, as issue 6 asks:
- 4-player bavarian: a strong side (two strong bots, partners) against a heuristic side;
- 2-player south-tyrolean: a strong bot against a heuristic bot.

Seats and deals are mirrored: every deal sequence (the decks of one match, drawn from a seeded generator, and
the first dealer) is played twice, once with the strong bot(s) in seats 0 (and 2), once in seats 1 (and 3), so
that luck of the cards cancels out between the pair. `--matches` counts matches per setting (pairs x 2).
Every decision of every bot gets only `BotView.from_observation(match.observe(seat))`.

Prints per setting: matches won by the strong side with the Wilson 95% interval, hands won, and the strong
bot's decision time p50/p95/max (all decisions, and the searched ones: card, announcement, raise answers).
Figures only; nothing here passes or fails.

    python bench/bots.py [--matches 200] [--level strong] [--setting bavarian|south-tyrolean] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from watten_net.bots import Bot, BotView, make_bot
from watten_net.bots.strong import StrongBot
from watten_net.engine import Match, Rules, canonical_deck

SETTINGS = {"bavarian": ("bavarian", 4), "south-tyrolean": ("south-tyrolean", 2)}


@dataclass
class Tally:
    matches: int = 0
    won: int = 0
    hands: int = 0
    hands_won: int = 0
    times: list[float] = field(default_factory=list)  # every decision of a strong bot
    searched: list[float] = field(default_factory=list)  # those that ran a search (samples > 0)
    heuristic_times: list[float] = field(default_factory=list)


def play_match(rules: Rules, bots: list[Bot], strong_side: int, deal_seed: int, tally: Tally) -> None:
    """One match; the decks come from `deal_seed`, so the mirrored match gets the very same decks."""
    rng = random.Random(deal_seed)
    m = Match.new(rules, first_dealer=rng.randrange(rules.players))
    deck = list(canonical_deck(rules.deck))
    while not m.is_over:
        if m.needs_deck:
            rng.shuffle(deck)
            m = m.apply_deck(deck)
            continue
        seat = m.waiting_for[0]
        view = BotView.from_observation(m.observe(seat))
        bot = bots[seat]
        start = time.perf_counter()
        action = bot.choose(view)
        elapsed = time.perf_counter() - start
        if isinstance(bot, StrongBot):
            tally.times.append(elapsed)
            if bot.last is not None and bot.last.samples:
                tally.searched.append(elapsed)
        else:
            tally.heuristic_times.append(elapsed)
        assert action is not None and action in view.legal_actions, (seat, action, view.legal_actions)
        m, events = m.apply(seat, action)
        for event in events:
            if event.kind == "hand-end":
                tally.hands += 1
                tally.hands_won += event.data["side"] == strong_side
    tally.matches += 1
    strong_slot = strong_side  # 2 and 4 players: score slot = side = seat % 2
    tally.won += strong_slot in m.winners


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(setting: str, matches: int, level: str, seed: int, progress: bool) -> Tally:
    preset, players = SETTINGS[setting]
    rules = Rules.preset(preset, players)
    tally = Tally()
    pairs = (matches + 1) // 2
    for pair in range(pairs):
        deal_seed = seed * 1_000_003 + pair
        for strong_side in (0, 1):
            bots: list[Bot] = [
                StrongBot(deal_seed * 10 + s, level) if s % 2 == strong_side
                else make_bot("heuristic", deal_seed * 10 + s)
                for s in range(players)
            ]
            play_match(rules, bots, strong_side, deal_seed, tally)
        if progress:
            low, high = wilson(tally.won, tally.matches)
            print(f"  [{setting}] {tally.matches} matches: strong won {tally.won} ({tally.won / tally.matches:.0%}, "
                  f"95% {low:.0%}-{high:.0%}), p95 {percentile(tally.times, 0.95) * 1e3:.0f} ms", flush=True)
    return tally


def report(setting: str, level: str, tally: Tally) -> None:
    low, high = wilson(tally.won, tally.matches)
    who = "strong side (2 bots)" if setting == "bavarian" else "strong bot"
    print(f"{level} vs heuristic, {setting} ({SETTINGS[setting][1]} players), {tally.matches} matches, mirrored:")
    print(f"  matches won by the {who}: {tally.won}/{tally.matches} = {tally.won / tally.matches:.1%} "
          f"(95% Wilson interval {low:.1%} to {high:.1%})")
    print(f"  hands won: {tally.hands_won}/{tally.hands} = {tally.hands_won / max(tally.hands, 1):.1%}")
    for name, values in (("all decisions", tally.times), ("searched decisions", tally.searched)):
        print(f"  {level} {name}: {len(values)}, p50 {percentile(values, 0.5) * 1e3:.1f} ms, "
              f"p95 {percentile(values, 0.95) * 1e3:.1f} ms, max {max(values, default=0) * 1e3:.1f} ms")
    print(f"  heuristic decisions: {len(tally.heuristic_times)}, "
          f"p95 {percentile(tally.heuristic_times, 0.95) * 1e3:.2f} ms", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--matches", type=int, default=200, help="matches per setting (played as mirrored pairs)")
    p.add_argument("--level", default="strong", choices=("easy", "medium", "strong"))
    p.add_argument("--setting", choices=(*SETTINGS, "all"), default="all")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--progress", action="store_true", help="print the running tally after every pair")
    args = p.parse_args()
    settings = list(SETTINGS) if args.setting == "all" else [args.setting]
    for setting in settings:
        started = time.perf_counter()
        tally = run(setting, args.matches, args.level, args.seed, args.progress)
        report(setting, args.level, tally)
        print(f"  ({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
