"""CPU cost of the Level 1 (version 2) deal primitives per hand, against a bare-SHA-256 baseline from the same run.

PROTOCOL.md budgets under 5 ms of CPU per hand per party. One "hand" here is what the busiest
party does with the primitives of ``watten_net.deal`` for one deal attempt of version 2: derive the
host's seed S(h,a) and the 4 seats' seeds c_i(h,a) from their game keys, the 4 cuts, the deck key
(HKDF salted with Hks), the 33-card permutation and the first dealer, 33 salts and 33 card
commitments, sign 40 envelopes, verify 40 signatures and hash 80 envelopes for the chain. The key
ceremony (4 key commitments K_i checked, K_H checked, Hks) happens once per match and is shown
apart. The baseline is plain ``hashlib.sha256`` over the same number of bytes (one call, and the
same number of calls with the same sizes), so the figures can be compared across machines.

Run: ``.venv/bin/python bench/deal_primitives.py``. Prints figures; never asserts on time.
"""

from __future__ import annotations

import hashlib
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cryptography
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.commitments import seal_deck
from watten_net.deal.deck import deck_permutation
from watten_net.deal.envelope import envelope_hash, signing_bytes
from watten_net.deal.identity import public_key_bytes, sign, verify
from watten_net.deal.keys import (
    all_seeds,
    cut_position,
    deck_key,
    first_dealer,
    host_key_commitment,
    host_seed,
    key_set_hash,
    seat_key_commitment,
)
from watten_net.hashing import V2, framed, u8, u32

N_CARDS = 33
N_SEATS = 4
N_SIGN = 40
N_VERIFY = 40
N_LINKS = 80
PAYLOAD = bytes(150)  # a typical small protobuf payload
BUDGET_MS = 5.0

CARDS = [s + r for s in "ELHS" for r in ("7", "8", "9", "10", "U", "O", "K", "A")] + ["S6"]


def per_call_us(fn: Callable[[], object], number: int, rounds: int = 7) -> float:
    """Median over ``rounds`` of the mean time of ``number`` calls, in microseconds."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter_ns() - start) / number / 1000)
    return statistics.median(samples)


def main() -> None:
    game_id = hashlib.sha256(b"bench game").digest()
    h, a = 7, 0
    header_hash = hashlib.sha256(b"GameHeader").digest()
    k_h = hashlib.sha256(b"k_H").digest()
    seat_keys = [hashlib.sha256(b"k%d" % i).digest() for i in range(N_SEATS)]
    commitments = [seat_key_commitment(game_id, i, header_hash, k) for i, k in enumerate(seat_keys)]
    host_commitment = host_key_commitment(game_id, k_h)
    hks = key_set_hash(game_id, header_hash, commitments)
    s = host_seed(k_h, game_id, h, a)
    seeds = all_seeds(seat_keys, game_id, h, a)
    dk = deck_key(s, seeds, hks, game_id, h, a)
    key = Ed25519PrivateKey.generate()
    pub = public_key_bytes(key)
    envelopes = [
        signing_bytes(game_id, seq, hks, seq % N_SEATS, "Play", PAYLOAD) for seq in range(N_SIGN)
    ]
    signatures = [sign(key, m) for m in envelopes]

    def key_ceremony() -> None:  # once per match
        for i, k in enumerate(seat_keys):
            if seat_key_commitment(game_id, i, header_hash, k) != commitments[i]:
                raise AssertionError("benchmark key does not open its commitment")
        if host_key_commitment(game_id, k_h) != host_commitment:
            raise AssertionError("benchmark host key does not open K_H")
        key_set_hash(game_id, header_hash, commitments)

    def seeds_and_cuts() -> None:
        host_seed(k_h, game_id, h, a)
        all_seeds(seat_keys, game_id, h, a)
        for k in seat_keys:
            cut_position(k, game_id, h, a, N_CARDS)

    def derive() -> None:
        deck_key(s, seeds, hks, game_id, h, a)

    def permute() -> None:
        deck_permutation(dk, N_CARDS)
        first_dealer(dk, game_id, N_SEATS)

    def seal() -> None:
        seal_deck(s, game_id, h, a, CARDS)

    def sign_all() -> None:
        for m in envelopes:
            sign(key, m)

    def verify_all() -> None:
        for m, sig in zip(envelopes, signatures, strict=True):
            if not verify(pub, sig, m):
                raise AssertionError("benchmark signature did not verify")

    def chain() -> None:
        for i in range(N_LINKS):
            envelope_hash(envelopes[i % N_SIGN] + signatures[i % N_SIGN])

    parts: list[tuple[str, Callable[[], None], int]] = [
        (f"S(h,a) + {N_SEATS} seat seeds + {N_SEATS} cuts", seeds_and_cuts, 200),
        ("derive deck key (HKDF, salt Hks)", derive, 500),
        (f"permutation n={N_CARDS} + first dealer", permute, 500),
        (f"{N_CARDS} salts + {N_CARDS} card commitments", seal, 200),
        (f"{N_SIGN} Ed25519 signatures", sign_all, 10),
        (f"{N_VERIFY} Ed25519 verifications", verify_all, 10),
        (f"{N_LINKS} chain links", chain, 200),
    ]

    # The bytes hashed or signed per hand, for the baseline (HMAC counted as its two inner/outer passes).
    salt_msg = framed("card-salt", game_id, u32(h), u32(a), u8(0), version=V2)
    commit_msg = framed("card-commit", game_id, u32(h), u32(a), u8(0), b"L10", bytes(32), version=V2)
    seed_msg = framed("seat-seed", game_id, u32(h), u32(a), version=V2)
    info = framed("deck-key", game_id, u32(h), u32(a), version=V2)
    first_msg = framed("first-dealer", game_id, version=V2)
    sizes = (
        [64 + len(seed_msg) + 64 + 32] * (1 + N_SEATS)  # S(h,a) and every c_i(h,a)
        + [64 + len(seed_msg) + 64 + 32] * N_SEATS  # the cuts
        + [64 + 32 * (1 + N_SEATS) + 64 + 32, 64 + len(info) + 1 + 64 + 32]  # HKDF extract + expand
        + [64 + 19 + 64 + 32] * N_CARDS  # card tags (HMAC = 2 blocks + 2 blocks)
        + [64 + len(first_msg) + 64 + 32]  # first dealer
        + [64 + len(salt_msg) + 64 + 32] * N_CARDS
        + [len(commit_msg)] * N_CARDS
        + [len(m) for m in envelopes] * 2  # Ed25519 hashes the message (twice when signing)
        + [len(m) for m in envelopes]
        + [len(m) + 64 for m in envelopes] * (N_LINKS // N_SIGN)
    )
    blob = bytes(sum(sizes))
    chunks = [bytes(n) for n in sizes]

    def baseline_one() -> None:
        hashlib.sha256(blob).digest()

    def baseline_many() -> None:
        for c in chunks:
            hashlib.sha256(c).digest()

    print(f"Level 1 version 2 deal primitives, per hand per party (Python {platform.python_version()}, ", end="")
    print(f"cryptography {cryptography.__version__}, {platform.machine()})")
    print()
    total = ed25519_us = 0.0
    for name, fn, number in parts:
        us = per_call_us(fn, number)
        total += us
        if "Ed25519" in name:
            ed25519_us += us
        print(f"  {name:<40} {us:9.1f} µs")
    print(f"  {'total':<40} {total:9.1f} µs = {total / 1000:.2f} ms (budget {BUDGET_MS:.0f} ms: ", end="")
    print(f"{100 * total / 1000 / BUDGET_MS:.0f}% of it)")
    ceremony = per_call_us(key_ceremony, 500)
    print(f"  {f'once per match: {N_SEATS} K_i + K_H checked, Hks':<40} {ceremony:9.1f} µs (not per hand)")
    print()
    hashing_us = total - ed25519_us
    one = per_call_us(baseline_one, 2000)
    many = per_call_us(baseline_many, 200)
    print(f"  baseline: sha256 of the same {len(blob)} bytes in one call     {one:9.1f} µs")
    print(f"  baseline: sha256 of the same bytes in {len(chunks)} calls          {many:9.1f} µs")
    print(f"  ratio total / baseline({len(chunks)} calls): {total / many:.1f}x")
    print(f"  hashing primitives alone (all but Ed25519): {hashing_us:.1f} µs")
    _compare_libsodium(envelopes, total - ed25519_us)


def _compare_libsodium(messages: list[bytes], rest_us: float) -> None:
    """For information: the same Ed25519 work through libsodium (PyNaCl, the Level 2 extra), if installed."""
    try:
        from nacl.signing import SigningKey, VerifyKey
    except ImportError:
        print("  (PyNaCl not installed: no libsodium comparison)")
        return
    sk = SigningKey(hashlib.sha256(b"bench").digest())
    raw_vk = bytes(sk.verify_key)
    sigs = [sk.sign(m).signature for m in messages]

    def sign_all() -> None:
        for m in messages:
            sk.sign(m)

    def verify_all() -> None:
        for m, sig in zip(messages, sigs, strict=True):
            VerifyKey(raw_vk).verify(m, sig)

    s_us, v_us = per_call_us(sign_all, 10), per_call_us(verify_all, 10)
    print()
    print("  for comparison, Ed25519 through libsodium (PyNaCl):")
    print(f"  {f'{len(messages)} signatures':<40} {s_us:9.1f} µs")
    print(f"  {f'{len(messages)} verifications':<40} {v_us:9.1f} µs")
    print(f"  {'total with these instead':<40} {rest_us + s_us + v_us:9.1f} µs")


if __name__ == "__main__":
    main()
