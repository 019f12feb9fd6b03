"""Re-encryption shuffle with a Terelius-Wikström proof, after Haenni, Locher, Koenig, Dubuis (FC 2017).

The paper's pseudo-code (GenShuffle, GenPermutationCommitment, GenCommitmentChain,
GenShuffleProof, CheckShuffleProof) in additive notation, 0-indexed. The paper's ElGamal pair
``(a, b) = (m·pk^r, g^r)`` is our ``(c2, c1)``. With inputs ``e_j``, outputs ``ẽ_i``, and ψ the
permutation (output i holds input ψ(i), re-encrypted with ``r̃_ψ(i)``):

    permutation commitment  c_ψ(i) = r_ψ(i)·G + h_i
    challenge vector        u_j = hash_to_scalar("trustless/shuffle-vector", d, u32 j),  u'_i = u_ψ(i)
                            d = H("trustless/shuffle-statement", game_id, u32 hand, u32 attempt, u8 seat,
                                  G, PK, u32 N, generators digest, inputs, outputs, c_0..c_(N-1))
    commitment chain        ĉ_-1 = h,  ĉ_i = r̂_i·G + u'_i·ĉ_(i-1)
    commitments             t1 = ω1·G,  t2 = ω2·G,  t3 = ω3·G + Σ ω'_i·h_i,
                            t4_c2 = -ω4·PK + Σ ω'_i·c2~_i,  t4_c1 = -ω4·G + Σ ω'_i·c1~_i,
                            t̂_i = ω̂_i·G + ω'_i·ĉ_(i-1)
    challenge               c = hash_to_scalar("trustless/shuffle-challenge", d, ĉ, t1, t2, t3, t4_c2, t4_c1, t̂)
    responses               s1 = ω1 + c·Σ r_j,  s2 = ω2 + c·Σ r̂_i·v_i (v_i = Π_{k>i} u'_k),
                            s3 = ω3 + c·Σ r_j·u_j,  s4 = ω4 + c·Σ r̃_j·u_j,
                            ŝ_i = ω̂_i + c·r̂_i,  s'_i = ω'_i + c·u'_i

The verifier recomputes every t from the responses and compares it with the proof's (see
:func:`failed_shuffle_checks`). The generators h = h_0 and h_1..h_N come from hash-to-curve
under a published tag, so nobody knows a relation between them: with such a relation a prover
could commit to a non-permutation and forge a proof.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from watten_net.hashing import H, u8, u32
from watten_net.trustless.context import DealId
from watten_net.trustless.elgamal import Ciphertext, encode_deck, reencrypt
from watten_net.trustless.group import (
    BASE,
    Draw,
    L,
    Point,
    add,
    base_mul,
    hash_to_point,
    hash_to_scalar,
    linear_combination,
    mul,
    point_sum,
    random_below,
    random_scalar,
    sub,
)
from watten_net.trustless.wire import Reader, encode_points, encode_scalars

GENERATOR_TAG = "trustless/shuffle-generator"
"""The published seed of the commitment generators: ``h_i = hash_to_point(GENERATOR_TAG, u32 i)``."""


@functools.cache
def commitment_generators(n: int) -> tuple[Point, ...]:
    """``(h, h_1, ..., h_n)``: index 0 is the chain's start h, index i the permutation commitment generator h_i."""
    return tuple(hash_to_point(GENERATOR_TAG, u32(i)) for i in range(n + 1))


@functools.cache
def generators_digest(n: int) -> bytes:
    """A hash of all n + 1 generators, so the statement names the exact generators it was proved with."""
    return H("trustless/shuffle-generators", u32(n), encode_points(commitment_generators(n)))


@dataclass(frozen=True, slots=True)
class ShuffleStatement:
    """The public claim: ``outputs`` is a permutation of re-encryptions of ``inputs`` under ``joint_key``."""

    deal: DealId
    seat: int
    joint_key: Point
    inputs: tuple[Ciphertext, ...]
    outputs: tuple[Ciphertext, ...]


@dataclass(frozen=True, slots=True)
class ShuffleWitness:
    """The shuffler's secret: output i is input ``j = permutation[i]`` re-encrypted with ``randomness[j]``."""

    permutation: tuple[int, ...]
    randomness: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """The proof π = (t, s, c, ĉ) of the paper; ``t4_c2``/``t4_c1`` are its t_{4,1}/t_{4,2}."""

    permutation_commitments: tuple[Point, ...]
    chain: tuple[Point, ...]
    t1: Point
    t2: Point
    t3: Point
    t4_c2: Point
    t4_c1: Point
    t_hat: tuple[Point, ...]
    s1: int
    s2: int
    s3: int
    s4: int
    s_hat: tuple[int, ...]
    s_prime: tuple[int, ...]

    @staticmethod
    def encoded_len(n: int) -> int:
        return 32 * (5 * n + 9)

    def encode(self) -> bytes:
        """c_0..c_(N-1) || ĉ_0..ĉ_(N-1) || t1 t2 t3 t4_c2 t4_c1 || t̂ || s1 s2 s3 s4 || ŝ || s' (32 bytes each)."""
        return b"".join(
            [
                encode_points(self.permutation_commitments),
                encode_points(self.chain),
                self.t1 + self.t2 + self.t3 + self.t4_c2 + self.t4_c1,
                encode_points(self.t_hat),
                encode_scalars((self.s1, self.s2, self.s3, self.s4)),
                encode_scalars(self.s_hat),
                encode_scalars(self.s_prime),
            ]
        )

    @staticmethod
    def read(reader: Reader, n: int) -> ShuffleProof:
        commitments, chain = reader.points(n), reader.points(n)
        t1, t2, t3, t4_c2, t4_c1 = reader.points(5)
        t_hat = reader.points(n)
        s1, s2, s3, s4 = reader.scalars(4)
        return ShuffleProof(commitments, chain, t1, t2, t3, t4_c2, t4_c1, t_hat, s1, s2, s3, s4,
                            reader.scalars(n), reader.scalars(n))


# --- shuffling ------------------------------------------------------------------------------------


def random_permutation(n: int, draw: Draw) -> tuple[int, ...]:
    """A uniform permutation of range(n) (GenPermutation: Fisher-Yates with unbiased indices)."""
    pool = list(range(n))
    for i in range(n - 1):
        k = i + random_below(n - i, draw)
        pool[i], pool[k] = pool[k], pool[i]
    return tuple(pool)


def shuffle(inputs: tuple[Ciphertext, ...], joint_key: Point, draw: Draw) -> tuple[tuple[Ciphertext, ...],
                                                                                    ShuffleWitness]:
    """GenShuffle: permute and re-encrypt ``inputs``; return the outputs and the witness for the proof."""
    n = len(inputs)
    permutation = random_permutation(n, draw)
    randomness = tuple(random_scalar(draw) for _ in range(n))
    outputs = tuple(reencrypt(inputs[j], joint_key, randomness[j]) for j in permutation)
    return outputs, ShuffleWitness(permutation, randomness)


# --- Fiat-Shamir ------------------------------------------------------------------------------------


def _statement_digest(statement: ShuffleStatement, permutation_commitments: tuple[Point, ...]) -> bytes:
    s = statement
    n = len(s.inputs)
    return H(
        "trustless/shuffle-statement",
        *s.deal.fields(),
        u8(s.seat),
        BASE,
        s.joint_key,
        u32(n),
        generators_digest(n),
        encode_deck(s.inputs),
        encode_deck(s.outputs),
        encode_points(permutation_commitments),
    )


def _challenge_vector(digest: bytes, n: int) -> list[int]:
    return [hash_to_scalar("trustless/shuffle-vector", digest, u32(j)) for j in range(n)]


def _challenge(digest: bytes, chain: tuple[Point, ...], t: tuple[Point, ...], t_hat: tuple[Point, ...]) -> int:
    return hash_to_scalar("trustless/shuffle-challenge", digest, encode_points(chain), encode_points(t),
                          encode_points(t_hat))


# --- proving ------------------------------------------------------------------------------------------


def prove_shuffle(statement: ShuffleStatement, witness: ShuffleWitness, draw: Draw) -> ShuffleProof:
    """GenShuffleProof: prove ``statement`` from the shuffler's ``witness``."""
    n = len(statement.inputs)
    psi, r_tilde = witness.permutation, witness.randomness
    h, *hs = commitment_generators(n)
    pk = statement.joint_key
    outputs = statement.outputs

    # GenPermutationCommitment: c_ψ(i) = r_ψ(i)·G + h_i.
    r = [0] * n
    commitments: list[Point] = [BASE] * n
    for i, j in enumerate(psi):
        r[j] = random_scalar(draw)
        commitments[j] = add(base_mul(r[j]), hs[i])
    permutation_commitments = tuple(commitments)

    digest = _statement_digest(statement, permutation_commitments)
    u = _challenge_vector(digest, n)
    u_prime = [u[j] for j in psi]

    # GenCommitmentChain from ĉ_-1 = h.
    r_hat = [random_scalar(draw) for _ in range(n)]
    chain_list: list[Point] = []
    previous = h
    for i in range(n):
        previous = add(base_mul(r_hat[i]), mul(u_prime[i], previous))
        chain_list.append(previous)
    chain = tuple(chain_list)

    w1, w2, w3, w4 = (random_scalar(draw) for _ in range(4))
    w_hat = [random_scalar(draw) for _ in range(n)]
    w_prime = [random_scalar(draw) for _ in range(n)]
    t1 = base_mul(w1)
    t2 = base_mul(w2)
    t3 = add(base_mul(w3), linear_combination(w_prime, hs))
    t4_c2 = add(mul(-w4, pk), linear_combination(w_prime, [o.c2 for o in outputs]))
    t4_c1 = add(base_mul(-w4), linear_combination(w_prime, [o.c1 for o in outputs]))
    chain_before = (h, *chain[:-1])
    t_hat = tuple(add(base_mul(w_hat[i]), mul(w_prime[i], chain_before[i])) for i in range(n))

    c = _challenge(digest, chain, (t1, t2, t3, t4_c2, t4_c1), t_hat)

    # v_i = Π_{k>i} u'_k weighs r̂_i in the chain's final randomness.
    v = [0] * n
    product = 1
    for i in reversed(range(n)):
        v[i] = product
        product = product * u_prime[i] % L
    s1 = (w1 + c * sum(r)) % L
    s2 = (w2 + c * sum(rh * vi for rh, vi in zip(r_hat, v, strict=True))) % L
    s3 = (w3 + c * sum(rj * uj for rj, uj in zip(r, u, strict=True))) % L
    s4 = (w4 + c * sum(rj * uj for rj, uj in zip(r_tilde, u, strict=True))) % L
    s_hat = tuple((w_hat[i] + c * r_hat[i]) % L for i in range(n))
    s_prime = tuple((w_prime[i] + c * u_prime[i]) % L for i in range(n))
    return ShuffleProof(permutation_commitments, chain, t1, t2, t3, t4_c2, t4_c1, t_hat, s1, s2, s3, s4,
                        s_hat, s_prime)


# --- verifying -----------------------------------------------------------------------------------------


def failed_shuffle_checks(statement: ShuffleStatement, proof: ShuffleProof) -> list[str]:
    """CheckShuffleProof: the names of the equations that fail (empty: the proof is valid).

    Every equation is evaluated, so a report names all of them; the points themselves were
    validated when decoded.
    """
    n = len(statement.inputs)
    sizes = (len(statement.outputs), len(proof.permutation_commitments), len(proof.chain), len(proof.t_hat),
             len(proof.s_hat), len(proof.s_prime))
    if n == 0 or any(size != n for size in sizes):
        return ["shape"]
    h, *hs = commitment_generators(n)
    pk = statement.joint_key
    inputs, outputs = statement.inputs, statement.outputs
    p = proof

    digest = _statement_digest(statement, p.permutation_commitments)
    u = _challenge_vector(digest, n)
    c = _challenge(digest, p.chain, (p.t1, p.t2, p.t3, p.t4_c2, p.t4_c1), p.t_hat)
    minus_c = L - c

    u_product = 1
    for uj in u:
        u_product = u_product * uj % L
    c_bar = sub(point_sum(p.permutation_commitments), point_sum(hs))
    c_hat = sub(p.chain[-1], mul(u_product, h))
    c_tilde = linear_combination(u, p.permutation_commitments)
    a_prime = linear_combination(u, [e.c2 for e in inputs])
    b_prime = linear_combination(u, [e.c1 for e in inputs])

    expected = {
        "t1": add(mul(minus_c, c_bar), base_mul(p.s1)),
        "t2": add(mul(minus_c, c_hat), base_mul(p.s2)),
        "t3": point_sum([mul(minus_c, c_tilde), base_mul(p.s3), linear_combination(p.s_prime, hs)]),
        "t4_c2": point_sum([mul(minus_c, a_prime), mul(-p.s4, pk),
                            linear_combination(p.s_prime, [o.c2 for o in outputs])]),
        "t4_c1": point_sum([mul(minus_c, b_prime), base_mul(-p.s4),
                            linear_combination(p.s_prime, [o.c1 for o in outputs])]),
    }
    given = {"t1": p.t1, "t2": p.t2, "t3": p.t3, "t4_c2": p.t4_c2, "t4_c1": p.t4_c1}
    failures = [name for name in expected if expected[name] != given[name]]
    chain_before = (h, *p.chain[:-1])
    for i in range(n):
        t_hat_i = point_sum([mul(minus_c, p.chain[i]), base_mul(p.s_hat[i]), mul(p.s_prime[i], chain_before[i])])
        if t_hat_i != p.t_hat[i]:
            failures.append(f"t_hat[{i}]")
    return failures
