"""Engine speed: random matches, every action uniform over the legal ones of the seat the game waits for.

Prints actions/s and hands/s per preset and player count, and the median time of a whole random
4-player Bavarian match. The baseline measured in the same run is the harness alone (the same
shuffles and random choices over a fixed action list, no engine), so the engine's own cost can be
read off beside it. Figures only; nothing here passes or fails on time.

    python bench/engine.py [--seconds 0.5] [--matches 200]
    python bench/engine.py --kinds south-tyrolean:2   # where the time goes, per kind of step
    python bench/engine.py --against 2abf4a4 --rounds 3 --seconds 0.5   # that revision and this tree, alternating

The machine's other work shows in these figures: repeat a run and take the best.

The first line says which engine ran: the compiled core (setup.py builds it at `pip install -e .` where a C compiler
is present; `python setup.py build_ext --inplace` builds it in a checkout) or plain Python (no build, an engine
source edited since the build, or WATTEN_PURE_ENGINE=1 to measure the plain engine on purpose).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from watten_net.engine import Match, Rules, canonical_deck


def engine_kind() -> str:
    """Which engine the figures are of: the compiled core (setup.py) or plain Python."""
    try:
        from watten_net.engine.compiled import running_compiled
    except ImportError:  # a revision from before the compiled core (bench/against.py runs old trees too)
        return "plain Python"
    return "compiled (mypyc)" if running_compiled() else "plain Python"


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


def kinds(rules: Rules, seconds: float) -> None:
    """Time per kind of step of the loop in `random_match`: apply by verb (and whether it ended a trick or
    the hand), legal_actions by phase, apply_deck, waiting_for. Each timing includes the timer's own cost
    (a few tenths of a microsecond), so the shares matter more than the absolute figures."""
    clock = time.perf_counter
    spent: defaultdict[str, float] = defaultdict(float)
    calls: defaultdict[str, int] = defaultdict(int)
    rng = random.Random(1)
    deck = list(canonical_deck(rules.deck))
    actions = 0
    start = clock()
    while clock() - start < seconds:
        m = Match.new(rules, first_dealer=rng.randrange(rules.players))
        while not m.is_over:
            if m.needs_deck:
                rng.shuffle(deck)
                t0 = clock()
                m = m.apply_deck(deck)
                spent["apply_deck"] += clock() - t0
                calls["apply_deck"] += 1
                continue
            t0 = clock()
            seat = m.waiting_for[0]
            spent["waiting_for"] += clock() - t0
            calls["waiting_for"] += 1
            kind = "legal " + m.phase + (" (raise pending)" if m.raise_pending else "")
            t0 = clock()
            legal = m.legal_actions(seat)
            spent[kind] += clock() - t0
            calls[kind] += 1
            action = legal[int(rng.random() * len(legal))]
            t0 = clock()
            m, events = m.apply(seat, action)
            elapsed = clock() - t0
            ended = {e.kind for e in events} & {"trick", "hand-end"}
            kind = "apply " + action.split()[0] + "".join(f" +{k}" for k in sorted(ended))
            spent[kind] += elapsed
            calls[kind] += 1
            actions += 1
    total = sum(spent.values())
    print(f"{rules.players}-player {rules.preset_name()}: {actions:,} actions, {total / actions * 1e6:.2f} us of "
          "engine calls per action (timer cost included)")
    print(f"  {'step':34} {'calls':>8} {'us/call':>8} {'us/action':>10} {'share':>6}")
    for kind in sorted(spent, key=spent.__getitem__, reverse=True):
        print(f"  {kind:34} {calls[kind]:>8,} {spent[kind] / calls[kind] * 1e6:>8.2f} "
              f"{spent[kind] / actions * 1e6:>10.2f} {spent[kind] / total:>6.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=0.5, help="time per preset and player count")
    parser.add_argument("--matches", type=int, default=200, help="4-player Bavarian matches for the median")
    parser.add_argument("--kinds", metavar="PRESET:PLAYERS", help="only the per-step breakdown for one table")
    parser.add_argument("--against", metavar="REV", help="run this benchmark on REV and on this tree, alternating "
                        "(bench/against.py); the other options are passed on to both")
    parser.add_argument("--rounds", type=int, default=2, help="with --against: runs of each side")
    args = parser.parse_args()
    if args.against:
        passed = ["--seconds", str(args.seconds), "--matches", str(args.matches)]
        passed += ["--kinds", args.kinds] if args.kinds else []
        here = Path(__file__).resolve()
        sys.exit(subprocess.run([sys.executable, str(here.parent / "against.py"), args.against, "bench/engine.py",
                                 "--rounds", str(args.rounds), "--", *passed], check=False).returncode)
    if args.kinds:
        name, _, players = args.kinds.partition(":")
        kinds(Rules.preset(name, int(players or 4)), max(args.seconds, 2.0))
        return

    print(f"engine: {engine_kind()}")
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
