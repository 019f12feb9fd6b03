"""A whole 4-player trustless match (PROTOCOL.md Level 2): time per hand and time to verify the record.

One bavarian match is played in this process with `tests/local_table.py`'s LocalTable (the host and the
four seats, every proof made and checked by every party, no network), once with `deal=trustless` and
once with `deal=verified` as the same-run baseline. Printed: the wall time of each hand (from one hand's
opening to the next: keys, four shuffles with proofs verified by everyone, cut, deliveries, play, the
hand-end openings), its share of the per-hand budget (2 s), the wait between hands (from a hand's end to
the first card of the next hand in a seat's hands: checkpoint, deal opening, cut and the first deliveries,
plus, without shuffling ahead, the whole shuffle chain), and the wall time `watten-verify` needs for the
host's record (target: under 10 s for a whole match).

Everything runs sequentially in one process, so a hand's time here is the sum of every party's work;
between separate processes on two cores the parties overlap (see bench/deal.py for one seat's CPU).

Run: ``.venv/bin/python bench/trustless_match.py [--target 15] [--seed 1]``. Prints figures; never asserts.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import itertools

from watten_net.engine import Rules
from watten_net.verify import verify_entries

from local_table import LocalTable

HAND_BUDGET = 2.0  # seconds per 4-player hand (issue #7)
VERIFY_BUDGET = 10.0  # seconds to verify a whole match's record (issue #7)


def play(deal: str, target: int, seed: int) -> tuple[list[float], list[float], float, float, int]:
    """(seconds per hand, seconds from each hand's end to the next hand's first card, seconds for the whole
    match, seconds to verify the host record, envelopes)."""
    rules = Rules.preset("bavarian", players=4).with_flag("target", str(target))
    table = LocalTable(rules, seed=seed, deal=deal)
    opened: list[float] = []
    gaps: list[float] = []
    ended: list[tuple[float, tuple[int, int]]] = []  # (when, the attempt that ended) until the next first card
    opening = "TrustlessDealOpen" if deal == "trustless" else "HandOpen"
    original = table.deliver

    def deliver(posted: list) -> None:  # type: ignore[type-arg]
        for p in posted:
            if p.type == opening:
                opened.append(time.perf_counter())
            if p.type == "HandEnd" and not ended:
                ended.append((time.perf_counter(), table.seats[0].hand))
        original(posted)
        # The next hand's first card: a seat holds a card of another attempt than the one that ended.
        if ended and any(seat.cards and seat.hand != ended[0][1] for seat in table.seats):
            gaps.append(time.perf_counter() - ended.pop()[0])

    table.deliver = deliver  # type: ignore[method-assign]
    started = time.perf_counter()
    table.play()
    finished = time.perf_counter()
    marks = [*opened, finished]
    hands = [b - a for a, b in itertools.pairwise(marks)]
    began = time.perf_counter()
    report = verify_entries(table.host_entries())
    verify_seconds = time.perf_counter() - began
    if not report.ok:
        raise SystemExit(f"the {deal} record does not verify: {report.errors}")
    return hands, gaps, finished - started, verify_seconds, len(table.host.chain)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=int, default=15, help="points to win the match (default 15)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, bavarian 4 players to {args.target}")
    results = {deal: play(deal, args.target, args.seed) for deal in ("verified", "trustless")}
    for deal, (hands, gaps, whole, verify_seconds, envelopes) in results.items():
        print(f"\n{deal}: {len(hands)} deal attempts, {envelopes} host envelopes, whole match {whole:.2f} s")
        print(f"  per hand: median {statistics.median(hands):.3f} s, max {max(hands):.3f} s"
              f"  ({statistics.median(hands) / HAND_BUDGET:.0%} of the {HAND_BUDGET:.0f} s budget at the median)")
        if gaps:
            print(f"  hand end -> next hand's first card: median {statistics.median(gaps):.3f} s, "
                  f"max {max(gaps):.3f} s ({len(gaps)} waits)")
        print(f"  watten-verify of the host record: {verify_seconds:.2f} s"
              f"  ({verify_seconds / VERIFY_BUDGET:.0%} of the {VERIFY_BUDGET:.0f} s budget)")
    base = statistics.median(results["verified"][0])
    print(f"\ntrustless / verified per hand: {statistics.median(results['trustless'][0]) / base:.1f}x")


if __name__ == "__main__":
    main()
