"""Verifying a whole match's record, against the floor of parsing it and checking its signatures; host cost per hand.

One 4-player bavarian match to 15 is played in this process with `tests/local_table.py`'s LocalTable (HostGame
and four SeatGames, no network, random legal actions from a fixed seed). Then:

  * `watten_net.verify.verify_entries` is timed on the host's record and on seat 0's record (5 runs each: best
    and median). The baseline, in the same run: merely parsing every envelope of the record (host envelopes, the
    envelopes disclosed later, the seats' envelopes embedded in Relay, KeySet and ActionAccepted) and checking
    every Ed25519 signature once, the floor any verifier of such a record pays; and the Ed25519 verifications
    alone. Target: under 0.3 s for a whole match to 15.
  * The host's protocol cost per hand: the CPU time of `HostGame.submit` for every envelope of the hand (the
    checkpoint signatures closing the hand included; the header signatures at the start and each match's last
    hand, which closes the match, counted apart), over the hands of --matches matches (seeds --seed, --seed+1,
    ...), each played --repeat times with each hand's least CPU kept (the seed fixes the match), beside
    PROTOCOL.md's budget of 5 ms of CPU per hand per party; the same for seat 0's SeatGame.

Only the figures are printed, with the targets beside them; nothing passes or fails on time.

The match is played in the order watten-host writes (GameHeader.next_deal = with-checkpoint: a hand's checkpoint
signatures come once the next deal is open, so they count to that hand); `--after-checkpoint` plays the order before.

Run: ``.venv/bin/python bench/verify.py [--seed 1] [--target 15] [--runs 5] [--matches 4] [--repeat 3]
[--after-checkpoint]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cryptography
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from watten_net.deal.envelope import envelope_hash, signing_bytes
from watten_net.deal.host_game import WITH_CHECKPOINT
from watten_net.deal.identity import public_key_bytes, sign, verify
from watten_net.deal.protocol import check_signature, parse_envelope, signing_seat
from watten_net.engine import Rules
from watten_net.record import KIND_HOST, KIND_OWN, KIND_WITHHELD, Entry
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_entries

import local_table
from local_table import LocalTable

TARGET_S = 0.3
BUDGET_MS = 5.0
HEADER = -1  # the hand key of the game header's signatures (before the first hand)


class SeededKeys:
    """Stands in for Ed25519PrivateKey inside local_table so the keys, hence the transcript and the deals, and so
    the whole match, follow from --seed (LocalTable draws its keys with Ed25519PrivateKey.generate())."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(f"keys {seed}")

    def generate(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(self.rng.randbytes(32))


def timed_runs(fn: Callable[[], object], runs: int) -> tuple[float, float, float]:
    """(best, median) wall seconds and median CPU seconds of `runs` calls (CPU: less moved by other processes)."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.thread_time()
        fn()
        cpu.append(time.thread_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return min(wall), statistics.median(wall), statistics.median(cpu)


# ---------------------------------------------------------------------------------------------------------------
# the floor: parse every envelope and check every signature once
# ---------------------------------------------------------------------------------------------------------------

def _embedded(signed: Any) -> list[bytes]:
    """The seats' envelopes a host envelope carries."""
    p = signed.payload
    if signed.type == "Relay":
        return [bytes(p.envelope)]
    if signed.type == "KeySet":
        return [bytes(e.envelope) for e in p.commits]
    if signed.type == "ActionAccepted" and p.action_envelope:
        return [bytes(p.action_envelope)]
    return []


def parse_and_check(entries: Sequence[Entry]) -> int:
    """Parse every envelope in the record and check every signature once; returns how many were checked."""
    host_key = b""
    roster: list[bytes] = []
    checked: set[bytes] = set()
    withheld: set[bytes] = set()
    count = 0

    def host_envelope(raw: bytes) -> None:
        nonlocal host_key, roster, count
        signed = parse_envelope(raw, host=True)
        if signed.type == "GameHeader":
            host_key = bytes(signed.payload.host_public_key)
            roster = [bytes(r.public_key) for r in signed.payload.roster]
        if not check_signature(signed, host_key):
            raise AssertionError(f"host envelope {signed.seq} does not verify")
        checked.add(signed.hash)
        count += 1
        for inner in _embedded(signed):
            seat_envelope = parse_envelope(inner, host=False)
            if not check_signature(seat_envelope, roster[seat_envelope.sender]):
                raise AssertionError(f"an envelope of seat {seat_envelope.sender} does not verify")
            count += 1
        if signed.type == "Disclosure":
            for disclosed in signed.payload.envelopes:
                raw_disclosed = bytes(disclosed)
                digest = envelope_hash(raw_disclosed)
                if digest in withheld and digest not in checked:
                    host_envelope(raw_disclosed)

    for entry in entries:
        if entry.kind == KIND_HOST:
            host_envelope(entry.data)
        elif entry.kind == KIND_WITHHELD:
            stub = pb.Withheld()
            stub.ParseFromString(entry.data)
            withheld.add(bytes(stub.envelope_hash))
    return count


def signature_inputs(entries: Sequence[Entry]) -> list[tuple[Ed25519PublicKey, bytes, bytes]]:
    """(public key, signature, signed bytes) of every signature `parse_and_check` checks, prepared beforehand."""
    out: list[tuple[Ed25519PublicKey, bytes, bytes]] = []
    keys: dict[bytes, Ed25519PublicKey] = {}
    host_key = b""
    roster: list[bytes] = []
    withheld: set[bytes] = set()
    seen: set[bytes] = set()

    def add(signed: Any, raw_key: bytes) -> None:
        env = signed.envelope
        message = signing_bytes(env.game_id, env.seq, env.prev_hash, signing_seat(env.sender_seat), env.type,
                                env.payload)
        key = keys.setdefault(raw_key, Ed25519PublicKey.from_public_bytes(raw_key))
        out.append((key, bytes(env.signature), message))

    def host_envelope(raw: bytes) -> None:
        nonlocal host_key, roster
        signed = parse_envelope(raw, host=True)
        if signed.type == "GameHeader":
            host_key = bytes(signed.payload.host_public_key)
            roster = [bytes(r.public_key) for r in signed.payload.roster]
        add(signed, host_key)
        seen.add(signed.hash)
        for inner in _embedded(signed):
            seat_envelope = parse_envelope(inner, host=False)
            add(seat_envelope, roster[seat_envelope.sender])
        if signed.type == "Disclosure":
            for disclosed in signed.payload.envelopes:
                digest = envelope_hash(bytes(disclosed))
                if digest in withheld and digest not in seen:
                    host_envelope(bytes(disclosed))

    for entry in entries:
        if entry.kind == KIND_HOST:
            host_envelope(entry.data)
        elif entry.kind == KIND_WITHHELD:
            stub = pb.Withheld()
            stub.ParseFromString(entry.data)
            withheld.add(bytes(stub.envelope_hash))
    return out


def ed25519_only(inputs: list[tuple[Ed25519PublicKey, bytes, bytes]]) -> None:
    for key, signature, message in inputs:
        key.verify(signature, message)


# ---------------------------------------------------------------------------------------------------------------
# per-hand protocol cost
# ---------------------------------------------------------------------------------------------------------------

class HandMeter:
    """CPU nanoseconds and calls per hand, with the hand read from the game when the call starts."""

    def __init__(self, hand_of: Callable[[], int]) -> None:
        self.hand_of = hand_of
        self.cpu_ns: dict[int, int] = defaultdict(int)
        self.calls: dict[int, int] = defaultdict(int)

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            hand = self.hand_of()
            start = time.thread_time_ns()
            try:
                return fn(*args, **kwargs)
            finally:
                self.cpu_ns[hand] += time.thread_time_ns() - start
                self.calls[hand] += 1
        return timed

    def hands_ms(self) -> list[float]:
        return [self.cpu_ns[h] / 1e6 for h in sorted(self.cpu_ns) if h != HEADER]


def per_call_us(fn: Callable[[], object], number: int, rounds: int = 5) -> float:
    """Median over `rounds` of the mean CPU time of `number` calls, in microseconds."""
    samples = []
    for _ in range(rounds):
        start = time.thread_time_ns()
        for _ in range(number):
            fn()
        samples.append((time.thread_time_ns() - start) / number / 1000)
    return statistics.median(samples)


def play_metered(rules: Rules, seed: int, seat_index: int, next_deal: str = WITH_CHECKPOINT
                 ) -> tuple[LocalTable, HandMeter, HandMeter, float]:
    """One match of `seed`, with the CPU of the host's `submit` and of one seat's calls metered per hand (with
    next_deal = with-checkpoint a hand's checkpoint signatures arrive once the next deal is open: they count to it)."""
    local_table.Ed25519PrivateKey = SeededKeys(seed)  # type: ignore[attr-defined, assignment]
    table = LocalTable(rules, seed=seed, next_deal=next_deal)
    host = table.host
    host_meter = HandMeter(lambda: host.dealing.current.hand if host.dealing.attempts else HEADER)
    host.submit = host_meter.wrap(host.submit)  # type: ignore[method-assign]
    seat = table.seats[seat_index]
    seat_meter = HandMeter(lambda: seat.hand[0] if seat.hand[0] >= 0 else HEADER)
    for name in ("receive", "next_automatic", "accepted", "action"):
        setattr(seat, name, seat_meter.wrap(getattr(seat, name)))
    started = time.perf_counter()
    table.play()
    return table, host_meter, seat_meter, time.perf_counter() - started


def least_of(plays: Iterable[tuple[LocalTable, HandMeter, HandMeter, float]]
             ) -> tuple[LocalTable, HandMeter, HandMeter, float]:
    """The same match played again (its seed fixes every key and action): each hand's least CPU over the plays, the
    figure least moved by whatever else the machine runs."""
    first, *others = plays
    table, host_meter, seat_meter, play_s = first
    for again, host_again, seat_again, _ in others:
        assert [p.raw for p in again.host.chain] == [p.raw for p in table.host.chain], "the match is not repeatable"
        for meter, other in ((host_meter, host_again), (seat_meter, seat_again)):
            for hand, ns in other.cpu_ns.items():
                meter.cpu_ns[hand] = min(meter.cpu_ns[hand], ns)
    return table, host_meter, seat_meter, play_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seed", type=int, default=1, help="seed of the match's random actions (default 1)")
    parser.add_argument("--target", type=int, default=15, help="points to win the match (default 15)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each verification (default 5)")
    parser.add_argument("--seat", type=int, default=0, help="the seat whose record is verified (default 0)")
    parser.add_argument("--repeat", type=int, default=3, help="plays of each match for the per-hand cost, each hand's "
                        "least CPU kept (default 3)")
    parser.add_argument("--matches", type=int, default=4, help="matches played for the per-hand cost (seeds SEED, "
                        "SEED+1, ...; default 4: one match has only some 7 hands, too few for a steady median)")
    parser.add_argument("--after-checkpoint", action="store_true", help="the next deal opened once the checkpoint is "
                        "signed (GameHeader.next_deal \"\", the order before); default: with it, as watten-host does")
    args = parser.parse_args()
    runs = max(1, args.runs)
    next_deal = "" if args.after_checkpoint else WITH_CHECKPOINT

    print(f"watten-net record verification (Python {platform.python_version()}, cryptography "
          f"{cryptography.__version__}, {platform.machine()}, {os.cpu_count()} CPUs)")
    rules = Rules.preset("bavarian", 4).with_flag("target", str(args.target))
    seeds = range(args.seed, args.seed + max(1, args.matches))
    metered = [least_of(play_metered(rules, seed, args.seat, next_deal) for _ in range(max(1, args.repeat)))
               for seed in seeds]
    table, _, _, play_s = metered[0]
    host = table.host

    records = {"host": table.host_entries(), f"seat {args.seat}": table.seat_entries(args.seat)}
    print(f"\nbavarian, 4 players, to {args.target} (seed {args.seed}): {len(host.chain)} host envelopes, "
          f"played in {play_s:.2f} s in one process")
    for name, entries in records.items():
        report = verify_entries(entries, name)
        if not report.ok:
            print(f"  {name} record does NOT verify: {[p.sentence() for p in report.errors]}")
            continue
        kinds = {k: sum(1 for e in entries if e.kind == k) for k in (KIND_HOST, KIND_WITHHELD, KIND_OWN)}
        signatures = parse_and_check(entries)
        inputs = signature_inputs(entries)
        verify_best, verify_median, verify_cpu = timed_runs(lambda entries=entries: verify_entries(entries), runs)
        floor_best, floor_median, floor_cpu = timed_runs(lambda entries=entries: parse_and_check(entries), runs)
        ed_best, ed_median, ed_cpu = timed_runs(lambda inputs=inputs: ed25519_only(inputs), runs)
        print(f"\n  {name} record: {len(entries)} entries ({kinds[KIND_HOST]} host envelopes, {kinds[KIND_WITHHELD]} "
              f"withheld stubs, {kinds[KIND_OWN]} own), {report.hands} hands, final scores "
              f"{'-'.join(map(str, report.final_scores))}, {signatures} signatures")
        print(f"    {'(seconds, ' + str(runs) + ' runs)':<44} {'best':>8} {'median':>8} {'CPU med':>8}")
        print(f"    {'verify_entries':<44} {verify_best:8.3f} {verify_median:8.3f} {verify_cpu:8.3f}")
        print(f"    {'baseline: parse all + check each signature':<44} {floor_best:8.3f} {floor_median:8.3f} "
              f"{floor_cpu:8.3f}")
        print(f"    {'  of which Ed25519 verifications alone':<44} {ed_best:8.3f} {ed_median:8.3f} {ed_cpu:8.3f}")
        print(f"    ratio verify/baseline (medians): {verify_median / floor_median:.2f}x wall, "
              f"{verify_cpu / floor_cpu:.2f}x CPU; "
              f"{verify_median / max(report.hands, 1) * 1000:.1f} ms per hand; target: under {TARGET_S} s for "
              f"the match -> {'met' if verify_median < TARGET_S else 'NOT met'}")

    # Unit costs of the signatures, as the code pays them (watten_net.deal.identity), to read the per-hand figures.
    key = Ed25519PrivateKey.generate()
    message = bytes(200)
    signature = sign(key, message)
    public = public_key_bytes(key)
    sign_us = per_call_us(lambda: sign(key, message), 200)
    verify_us = per_call_us(lambda: verify(public, signature, message), 200)

    hands: list[float] = []
    submits: list[int] = []
    signs: list[int] = []
    seat_hands: list[float] = []
    for played, meter, seat_meter, _ in metered:
        every_hand = [h for h in sorted(meter.cpu_ns) if h != HEADER]
        hand_keys = every_hand[:-1] or every_hand  # the last hand apart (it closes the match), unless it is alone
        hands += [meter.cpu_ns[h] / 1e6 for h in hand_keys]
        submits += [meter.calls[h] for h in hand_keys]
        posted_per_hand: dict[int, int] = defaultdict(int)
        hand = HEADER
        for p in played.host.chain:
            if p.type == "HandOpen":
                hand = parse_envelope(p.raw, host=True).payload.hand
            posted_per_hand[hand] += 1
        signs += [posted_per_hand[h] for h in hand_keys]
        seat_hands += seat_meter.hands_ms()[:-1] or seat_meter.hands_ms()
    last_hands = [meter.hands_ms()[-1] for _, meter, _, _ in metered]
    headers = [meter.cpu_ns[HEADER] / 1e6 for _, meter, _, _ in metered]
    median = statistics.median(hands)
    print(f"\n  host protocol cost per hand (HostGame.submit of every envelope of the hand, CPU), {len(hands)} "
          f"hands of {len(metered)} matches (seeds {args.seed}..{args.seed + len(metered) - 1}, each hand's least of "
          f"{max(1, args.repeat)} plays; each match's last hand apart):")
    print(f"    median {median:.2f} ms, mean {statistics.mean(hands):.2f} ms, "
          f"min {min(hands):.2f} ms, max {max(hands):.2f} ms; budget {BUDGET_MS:.0f} ms per hand per party -> "
          f"{'within' if median <= BUDGET_MS else 'OVER'} ({median / BUDGET_MS * 100:.0f}% of it)")
    verifies, posts = statistics.mean(submits), statistics.mean(signs)
    print(f"    per hand on average: {verifies:.0f} envelopes submitted (one signature check each), "
          f"{posts:.0f} host envelopes posted (one signature each); at {verify_us:.0f} µs a check and "
          f"{sign_us:.0f} µs a signature here (watten_net.deal.identity) that is "
          f"{(verifies * verify_us + posts * sign_us) / 1000:.2f} ms of Ed25519 per hand")
    print(f"    a match's last hand (with MatchEnd, the host key's reveal and the Disclosure): median "
          f"{statistics.median(last_hands):.2f} ms; game start (header signatures and the key ceremony: every "
          f"KeyCommit, KeySetSignature and KeyReveal, once per match): median {statistics.median(headers):.2f} ms")
    print(f"  seat {args.seat}'s protocol cost per hand (SeatGame receive/next_automatic/accepted/action, CPU, "
          f"last hands apart): median {statistics.median(seat_hands):.2f} ms, max {max(seat_hands):.2f} ms; game "
          f"start (header and key ceremony): median "
          f"{statistics.median(m.cpu_ns[HEADER] / 1e6 for _, _, m, _ in metered):.2f} ms")

if __name__ == "__main__":
    main()
