"""CPU cost of the Level 1 deal primitives per hand, against a bare-SHA-256 baseline from the same run.

PROTOCOL.md budgets under 5 ms of CPU per hand per party. One "hand" here is what the busiest
party does with the primitives of ``watten_net.deal``: check 4 seed commitments and the host
seed, derive the deck key, compute the 33-card permutation and the first dealer, derive 33 salts
and 33 card commitments, sign 40 envelopes, verify 40 signatures and hash 80 envelopes for the
chain. The baseline is plain ``hashlib.sha256`` over the same number of bytes (one call, and the
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

from watten_net.deal.commitments import (
    check_client_seed,
    check_host_seed,
    client_seed_commitment,
    encode_extra,
    host_seed_commitment,
    seal_deck,
)
from watten_net.deal.deck import deck_permutation, derive_deck_key, first_dealer
from watten_net.deal.envelope import envelope_hash, signing_bytes
from watten_net.deal.hashing import framed, u8, u32
from watten_net.deal.identity import public_key_bytes, sign, verify

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
    s = hashlib.sha256(b"S").digest()
    seeds = [hashlib.sha256(b"c%d" % i).digest() for i in range(N_SEATS)]
    extras = [encode_extra(4 + i) for i in range(N_SEATS)]
    hand_open = hashlib.sha256(b"HandOpen").digest()
    transcript = hashlib.sha256(b"transcript").digest()
    c_s = host_seed_commitment(game_id, h, a, 2, s)
    c_i = [client_seed_commitment(game_id, h, a, i, hand_open, seeds[i], extras[i]) for i in range(N_SEATS)]
    deck_key = derive_deck_key(s, seeds, extras, transcript)
    key = Ed25519PrivateKey.generate()
    pub = public_key_bytes(key)
    envelopes = [
        signing_bytes(game_id, seq, transcript, seq % N_SEATS, "Play", PAYLOAD) for seq in range(N_SIGN)
    ]
    signatures = [sign(key, m) for m in envelopes]

    def seeds_check() -> None:
        check_host_seed(c_s, game_id, h, a, 2, s)
        for i in range(N_SEATS):
            check_client_seed(c_i[i], game_id, h, a, i, hand_open, seeds[i], extras[i])

    def derive() -> None:
        derive_deck_key(s, seeds, extras, transcript)

    def permute() -> None:
        deck_permutation(deck_key, N_CARDS)
        first_dealer(deck_key, N_SEATS)

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
        (f"open C_S + {N_SEATS} seed commitments", seeds_check, 200),
        ("derive deck key (HKDF)", derive, 500),
        (f"permutation n={N_CARDS} + first dealer", permute, 500),
        (f"{N_CARDS} salts + {N_CARDS} card commitments", seal, 200),
        (f"{N_SIGN} Ed25519 signatures", sign_all, 10),
        (f"{N_VERIFY} Ed25519 verifications", verify_all, 10),
        (f"{N_LINKS} chain links", chain, 200),
    ]

    # The bytes hashed or signed per hand, for the baseline (HMAC counted as its two inner/outer passes).
    salt_msg = framed("card-salt", game_id, u32(h), u32(a), u8(0))
    commit_msg = framed("card-commit", game_id, u32(h), u32(a), u8(0), b"L10", bytes(32))
    sizes = (
        [len(framed("host-seed", game_id, u32(h), u32(a), u8(2), s))]
        + [len(framed("client-seed", game_id, u32(h), u32(a), u8(0), hand_open, seeds[0], extras[0]))]
        * N_SEATS
        + [32 * (1 + N_SEATS) + 2 * N_SEATS + 4 * N_SEATS + 64, 64 + 32 + 19]  # HKDF extract + expand
        + [64 + 19 + 64 + 32] * (N_CARDS + 1)  # card tags and first dealer (HMAC = 2 blocks + 2 blocks)
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

    print(f"Level 1 deal primitives, per hand per party (Python {platform.python_version()}, ", end="")
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
