"""Sigma proofs made non-interactive with strong Fiat-Shamir: Schnorr for key shares, Chaum-Pedersen for shares.

Each challenge hashes the whole statement: the context (deal, seat, position, purpose), every
public input and the prover's commitments. Leaving any of them out lets a proof be moved to
another statement (Bernhard, Pereira, Warinschi, "How not to prove yourself", 2012).

Proofs travel as (commitments, response) and the verifier checks the defining equations
themselves, so a failure can say which equation broke.

Schnorr, proof of knowledge of x with ``X = x·G``::

    T = k·G,  e = hash_to_scalar("trustless/key-proof", game_id, u32 hand, u32 attempt, u8 seat,
                                 ascii purpose, G, X, T),  z = k + e·x
    check  z·G == T + e·X

Chaum-Pedersen (DLEQ), proof that ``D = x·c1`` for the x of ``X = x·G``::

    A = k·G,  B = k·c1,  e = hash_to_scalar("trustless/decryption-proof", game_id, u32 hand,
                                            u32 attempt, u8 position, u8 seat, G, X, c1, c2, D, A, B),
    z = k + e·x
    check  z·G == A + e·X  and  z·c1 == B + e·D
"""

from __future__ import annotations

from dataclasses import dataclass

from watten_net.hashing import u8
from watten_net.trustless.context import DealId
from watten_net.trustless.elgamal import Ciphertext
from watten_net.trustless.group import (
    BASE,
    POINT_LEN,
    SCALAR_LEN,
    Draw,
    L,
    Point,
    add,
    base_mul,
    encode_scalar,
    hash_to_scalar,
    mul,
    random_scalar,
)
from watten_net.trustless.wire import Reader

# --- Schnorr proof of knowledge of a key share ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class SchnorrProof:
    """A Schnorr proof that its sender knows the secret of a key share (bound to its context and purpose)."""

    commitment: Point
    response: int

    ENCODED_LEN = POINT_LEN + SCALAR_LEN

    def encode(self) -> bytes:
        return self.commitment + encode_scalar(self.response)

    @staticmethod
    def read(reader: Reader) -> SchnorrProof:
        return SchnorrProof(reader.point(), reader.scalar())


def _key_challenge(deal: DealId, seat: int, purpose: str, public_key: Point, commitment: Point) -> int:
    return hash_to_scalar(
        "trustless/key-proof", *deal.fields(), u8(seat), purpose.encode("ascii"), BASE, public_key, commitment
    )


def prove_key(secret: int, public_key: Point, deal: DealId, seat: int, purpose: str, draw: Draw) -> SchnorrProof:
    """Prove knowledge of ``secret`` (with ``public_key = secret·G``) for ``seat`` in ``deal``, for ``purpose``."""
    nonce = random_scalar(draw)
    commitment = base_mul(nonce)
    challenge = _key_challenge(deal, seat, purpose, public_key, commitment)
    return SchnorrProof(commitment, (nonce + challenge * secret) % L)


def check_key(proof: SchnorrProof, public_key: Point, deal: DealId, seat: int, purpose: str) -> bool:
    """Whether ``proof`` shows knowledge of the logarithm of ``public_key`` in exactly this context."""
    challenge = _key_challenge(deal, seat, purpose, public_key, proof.commitment)
    return base_mul(proof.response) == add(proof.commitment, mul(challenge, public_key))


# --- Chaum-Pedersen proof for a decryption share ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class DleqProof:
    """Commitments ``A = k·G``, ``B = k·c1`` and the response ``z``."""

    commitment_base: Point
    commitment_c1: Point
    response: int

    ENCODED_LEN = 2 * POINT_LEN + SCALAR_LEN

    def encode(self) -> bytes:
        return self.commitment_base + self.commitment_c1 + encode_scalar(self.response)

    @staticmethod
    def read(reader: Reader) -> DleqProof:
        return DleqProof(reader.point(), reader.point(), reader.scalar())


@dataclass(frozen=True, slots=True)
class ShareStatement:
    """What a decryption-share proof is about: ``share = x·ciphertext.c1`` where ``key_share = x·G``."""

    deal: DealId
    position: int
    seat: int
    key_share: Point
    ciphertext: Ciphertext
    share: Point


def _share_challenge(statement: ShareStatement, commitment_base: Point, commitment_c1: Point) -> int:
    s = statement
    return hash_to_scalar(
        "trustless/decryption-proof",
        *s.deal.fields(),
        u8(s.position),
        u8(s.seat),
        BASE,
        s.key_share,
        s.ciphertext.c1,
        s.ciphertext.c2,
        s.share,
        commitment_base,
        commitment_c1,
    )


def prove_share(statement: ShareStatement, secret: int, draw: Draw) -> DleqProof:
    """Prove that ``statement.share`` is ``secret · c1`` for the secret behind ``statement.key_share``."""
    nonce = random_scalar(draw)
    commitment_base = base_mul(nonce)
    commitment_c1 = mul(nonce, statement.ciphertext.c1)
    challenge = _share_challenge(statement, commitment_base, commitment_c1)
    return DleqProof(commitment_base, commitment_c1, (nonce + challenge * secret) % L)


def check_share(proof: DleqProof, statement: ShareStatement) -> bool:
    """Whether ``proof`` shows ``log_G key_share == log_c1 share`` for exactly this statement."""
    challenge = _share_challenge(statement, proof.commitment_base, proof.commitment_c1)
    z = proof.response
    return base_mul(z) == add(proof.commitment_base, mul(challenge, statement.key_share)) and mul(
        z, statement.ciphertext.c1
    ) == add(proof.commitment_c1, mul(challenge, statement.share))
