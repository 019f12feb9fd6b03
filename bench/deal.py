"""Cost of a Level 2 (trustless) deal: 4 seats, 33 and 32 cards, against a scalar-multiplication baseline.

One deal here is what PROTOCOL.md budgets (under 2 s of wall time for a 4-player deal, proofs and
verification included): every seat publishes a key share with its Schnorr proof and verifies the
3 others'; the 4 seats shuffle in turn, each with a Terelius-Wikström proof that the 3 others
verify; the deck is cut; then the first packet (3 cards per seat) is delivered: for each of the
12 positions, the 3 other seats publish decryption shares with Chaum-Pedersen proofs, all 4 seats
verify each share they did not make, and the recipient finishes the decryption. Every message goes
through ``to_bytes`` and the receivers' decoding, as on the wire. Randomness is ``secrets``.

The whole deal runs sequentially in this one process: its wall time is the sum of all seats' work
(a real table runs the verifications in parallel on 4 machines, so it needs less). CPU per seat is
that seat's own share of it. The host, which checks everything too, is shown separately.
The baseline is one variable-base scalar multiplication through libsodium in the same run;
"scalar-mult equivalents" is the deal's time divided by it, so figures compare across machines.

Run: ``.venv/bin/python bench/deal.py``. Prints figures; never asserts on time.
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import nacl
import nacl.bindings as sodium

import watten_net.trustless.group as group
from watten_net.trustless import DealId, DealSetup, PublicDeal, SeatDeal
from watten_net.trustless.messages import Message

N_SEATS = 4
PACKET = 3  # cards per seat in the first packet
WARM_RUNS = 3
BUDGET_S = 2.0
PHASES = ("key shares", "shuffle + prove", "verify shuffles", "first packet")

T = TypeVar("T")


class DealRun:
    """One 4-seat deal with per-seat CPU and per-phase wall accounting."""

    def __init__(self, n_cards: int, hand: int, with_host: bool = True) -> None:
        self.setup = DealSetup(DealId(hashlib.sha256(b"bench game").digest(), hand, 0), N_SEATS, n_cards)
        self.seats = [SeatDeal(self.setup, s) for s in range(N_SEATS)]
        self.host = PublicDeal(self.setup) if with_host else None
        self.host_wall = 0.0
        self.cpu = [0.0] * N_SEATS
        self.host_cpu = 0.0
        self.phase_wall: Counter[str] = Counter()
        self.wall = 0.0

    def as_seat(self, seat: int, phase: str, work: Callable[[], T]) -> T:
        cpu, wall = time.process_time(), time.perf_counter()
        result = work()
        self.cpu[seat] += time.process_time() - cpu
        self.phase_wall[phase] += time.perf_counter() - wall
        return result

    def publish(self, sender: int, phase: str, message: Message, verify_phase: str | None = None) -> None:
        """Every other seat decodes and checks the message (the host's check is timed apart)."""
        data = self.as_seat(sender, phase, message.to_bytes)
        for seat in self.seats:
            if seat.seat != sender:
                self.as_seat(seat.seat, verify_phase or phase, lambda s=seat: s.accept(sender, data))
        if self.host is not None:
            cpu, wall = time.process_time(), time.perf_counter()
            self.host.accept(sender, data)
            self.host_cpu += time.process_time() - cpu
            self.host_wall += time.perf_counter() - wall

    def run(self) -> dict[int, int]:
        start = time.perf_counter()
        for seat in self.seats:
            self.publish(seat.seat, "key shares", self.as_seat(seat.seat, "key shares", seat.key_share_message))
        for s in self.setup.shufflers:
            message = self.as_seat(s, "shuffle + prove", self.seats[s].shuffle_message)
            self.publish(s, "shuffle + prove", message, verify_phase="verify shuffles")
        for seat in self.seats:
            self.as_seat(seat.seat, "first packet", lambda s=seat: s.public.apply_cut(7))
        if self.host is not None:
            self.host.apply_cut(7)
        cards = {}
        for position in range(PACKET * N_SEATS):
            recipient = position // PACKET
            for seat in self.seats:
                if seat.seat != recipient:
                    share = self.as_seat(seat.seat, "first packet",
                                         lambda s=seat, p=position, r=recipient: s.delivery_share(p, r))
                    self.publish(seat.seat, "first packet", share)
            cards[position] = self.as_seat(recipient, "first packet",
                                           lambda r=recipient, p=position: self.seats[r].receive_card(p))
        self.wall = time.perf_counter() - start - self.host_wall  # the host's checks are reported apart
        if len(set(cards.values())) != len(cards):
            raise AssertionError("the benchmark deal dealt a card twice")
        return cards


def per_call_us(fn: Callable[[], object], number: int, rounds: int = 7) -> float:
    """Median over ``rounds`` of the mean time of ``number`` calls, in microseconds."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter_ns() - start) / number / 1000)
    return statistics.median(samples)


@contextmanager
def counting_libsodium() -> Iterator[Counter[str]]:
    """Count the libsodium calls the trustless group layer makes (for one extra, untimed run)."""
    names = ["crypto_scalarmult_ed25519_noclamp", "crypto_scalarmult_ed25519_base_noclamp", "crypto_core_ed25519_add",
             "crypto_core_ed25519_sub", "crypto_core_ed25519_is_valid_point", "crypto_core_ed25519_from_uniform"]
    counts: Counter[str] = Counter()
    originals = {name: getattr(group, name) for name in names}

    def counted(name: str) -> Callable[..., object]:
        def call(*args: object) -> object:
            counts[name] += 1
            return originals[name](*args)

        return call

    for name in names:
        setattr(group, name, counted(name))
    try:
        yield counts
    finally:
        for name, original in originals.items():
            setattr(group, name, original)


def baseline() -> dict[str, float]:
    point = group.hash_to_point("trustless/bench", b"point")
    scalar = (group.L - 12345).to_bytes(32, "little")
    other = group.base_mul(99)
    return {
        "var": per_call_us(lambda: sodium.crypto_scalarmult_ed25519_noclamp(scalar, point), 300),
        "base": per_call_us(lambda: sodium.crypto_scalarmult_ed25519_base_noclamp(scalar), 1000),
        "add": per_call_us(lambda: sodium.crypto_core_ed25519_add(point, other), 2000),
        "valid": per_call_us(lambda: sodium.crypto_core_ed25519_is_valid_point(point), 1000),
    }


def report(n_cards: int, base: dict[str, float], warm_runs: int = WARM_RUNS) -> None:
    cold = DealRun(n_cards, hand=0)
    cold.run()  # the first deal also derives the card points and commitment generators (cached afterwards)
    runs = []
    for hand in range(1, warm_runs + 1):
        run = DealRun(n_cards, hand)
        run.run()
        runs.append(run)
    runs.sort(key=lambda r: r.wall)
    median = runs[len(runs) // 2]
    with counting_libsodium() as counts:
        DealRun(n_cards, hand=99, with_host=False).run()

    print(f"4 seats, {n_cards} cards (median of {warm_runs} warm deals; the first, cold, took {cold.wall:.3f} s)")
    print(f"  wall time, the whole deal sequentially in one process   {median.wall:7.3f} s  "
          f"(budget {BUDGET_S:.0f} s: {100 * median.wall / BUDGET_S:.0f}% of it; "
          f"range {runs[0].wall:.3f}-{runs[-1].wall:.3f} s)")
    for phase in PHASES:
        print(f"    {phase:<24} {median.phase_wall[phase]:7.3f} s")
    for seat in range(N_SEATS):
        print(f"  CPU of seat {seat}                                         {median.cpu[seat]:7.3f} s")
    print(f"  CPU of the host checking everything too (not in the wall) {median.host_cpu:7.3f} s")
    equivalents = median.wall * 1e6 / base["var"]
    print(f"  scalar-mult equivalents (wall / one scalar mult)           {equivalents:7.0f}")
    var, fixed = counts["crypto_scalarmult_ed25519_noclamp"], counts["crypto_scalarmult_ed25519_base_noclamp"]
    adds = counts["crypto_core_ed25519_add"] + counts["crypto_core_ed25519_sub"]
    valid = counts["crypto_core_ed25519_is_valid_point"]
    predicted = (var * base["var"] + fixed * base["base"] + adds * base["add"] + valid * base["valid"]) / 1e6
    print(f"  libsodium calls: {var} scalar mults, {fixed} fixed-base mults, {adds} additions, "
          f"{valid} point validations")
    print(f"  their baseline cost {predicted:.3f} s = {100 * predicted / median.wall:.0f}% of the wall time "
          f"(the rest is Python: hashing, encoding, bookkeeping)")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description="Level 2 trustless deal: wall time per 4-seat deal, CPU per seat")
    parser.add_argument("--runs", type=int, default=WARM_RUNS, help=f"warm deals per deck size (default {WARM_RUNS})")
    parser.add_argument("--cards", type=int, nargs="+", default=[33, 32], choices=(32, 33),
                        help="deck sizes (default 33 32)")
    args = parser.parse_args()
    print(f"Level 2 trustless deal (Python {platform.python_version()}, PyNaCl {nacl.__version__}, "
          f"{platform.machine()})")
    base = baseline()
    print(f"  baseline: one scalar mult {base['var']:.1f} µs, fixed-base {base['base']:.1f} µs, "
          f"addition {base['add']:.1f} µs, point validation {base['valid']:.1f} µs")
    print()
    for n_cards in args.cards:
        report(n_cards, base, max(1, args.runs))


if __name__ == "__main__":
    main()
