"""Schnorr key proofs and Chaum-Pedersen share proofs: completeness, and that every statement change breaks them."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from watten_net.trustless.context import DealId
from watten_net.trustless.elgamal import Ciphertext, card_point, decryption_share, reencrypt, trivial_encryption
from watten_net.trustless.group import L, base_mul, hash_to_point, random_scalar, seeded_draw
from watten_net.trustless.proofs import (
    DleqProof,
    SchnorrProof,
    ShareStatement,
    check_key,
    check_share,
    prove_key,
    prove_share,
)
from watten_net.trustless.wire import Reader

DEAL = DealId(hashlib.sha256(b"proof game").digest(), 4, 0)
OTHER_GAME = DealId(hashlib.sha256(b"another game").digest(), 4, 0)
draw = seeded_draw(b"proof tests")
SECRET = random_scalar(draw)
KEY = base_mul(SECRET)
JOINT = base_mul(random_scalar(draw))
CIPHERTEXT = reencrypt(trivial_encryption(card_point(5), JOINT), JOINT, random_scalar(draw))
OTHER_CIPHERTEXT = reencrypt(trivial_encryption(card_point(6), JOINT), JOINT, random_scalar(draw))


# --- Schnorr ------------------------------------------------------------------------------------------


def test_key_proof_verifies() -> None:
    proof = prove_key(SECRET, KEY, DEAL, 2, "deal-key", draw)
    assert check_key(proof, KEY, DEAL, 2, "deal-key")


@pytest.mark.parametrize(
    "deal, seat, purpose",
    [
        (OTHER_GAME, 2, "deal-key"),
        (dataclasses.replace(DEAL, hand=5), 2, "deal-key"),
        (dataclasses.replace(DEAL, attempt=1), 2, "deal-key"),
        (DEAL, 3, "deal-key"),
        (DEAL, 2, "other-purpose"),
    ],
    ids=["game", "hand", "attempt", "seat", "purpose"],
)
def test_key_proof_is_bound_to_its_context(deal: DealId, seat: int, purpose: str) -> None:
    proof = prove_key(SECRET, KEY, DEAL, 2, "deal-key", draw)
    assert not check_key(proof, KEY, deal, seat, purpose)


def test_key_proof_does_not_transfer_to_another_key() -> None:
    proof = prove_key(SECRET, KEY, DEAL, 2, "deal-key", draw)
    assert not check_key(proof, base_mul(SECRET + 1), DEAL, 2, "deal-key")
    # Knowing the key is required: a "proof" with a wrong secret fails.
    assert not check_key(prove_key(SECRET + 1, KEY, DEAL, 2, "deal-key", draw), KEY, DEAL, 2, "deal-key")


def test_tampered_key_proof_fails() -> None:
    proof = prove_key(SECRET, KEY, DEAL, 2, "deal-key", draw)
    assert not check_key(SchnorrProof(proof.commitment, (proof.response + 1) % L), KEY, DEAL, 2, "deal-key")
    assert not check_key(SchnorrProof(base_mul(9), proof.response), KEY, DEAL, 2, "deal-key")


@settings(max_examples=25)
@given(st.integers(min_value=1, max_value=L - 1), st.integers(min_value=0, max_value=255))
def test_key_proofs_verify_for_any_secret_and_seat(secret: int, seat: int) -> None:
    key = base_mul(secret)
    proof = prove_key(secret, key, DEAL, seat, "deal-key", seeded_draw(secret.to_bytes(32, "big")))
    assert check_key(proof, key, DEAL, seat, "deal-key")
    reader = Reader(proof.encode(), "proof")
    assert SchnorrProof.read(reader) == proof
    reader.finish()


# --- Chaum-Pedersen ---------------------------------------------------------------------------------


def _statement(**changes: object) -> ShareStatement:
    base = ShareStatement(DEAL, 7, 2, KEY, CIPHERTEXT, decryption_share(CIPHERTEXT, SECRET))
    return dataclasses.replace(base, **changes)


def test_share_proof_verifies() -> None:
    statement = _statement()
    assert check_share(prove_share(statement, SECRET, draw), statement)


@pytest.mark.parametrize(
    "changes",
    [
        {"deal": OTHER_GAME},
        {"deal": dataclasses.replace(DEAL, hand=9)},
        {"deal": dataclasses.replace(DEAL, attempt=2)},
        {"position": 8},
        {"seat": 1},
        {"key_share": base_mul(3)},
        {"ciphertext": OTHER_CIPHERTEXT},
        {"ciphertext": Ciphertext(CIPHERTEXT.c1, OTHER_CIPHERTEXT.c2)},
        {"share": hash_to_point("trustless/test", b"wrong share")},
    ],
    ids=["game", "hand", "attempt", "position", "seat", "key", "ciphertext", "c2", "share"],
)
def test_share_proof_is_bound_to_the_whole_statement(changes: dict[str, object]) -> None:
    proof = prove_share(_statement(), SECRET, draw)
    assert not check_share(proof, _statement(**changes))


def test_a_wrong_share_cannot_be_proved() -> None:
    wrong = _statement(share=decryption_share(CIPHERTEXT, SECRET + 1))
    assert not check_share(prove_share(wrong, SECRET, draw), wrong)
    assert not check_share(prove_share(wrong, SECRET + 1, draw), wrong)  # the key share is still SECRET's


def test_tampered_share_proof_fails() -> None:
    statement = _statement()
    proof = prove_share(statement, SECRET, draw)
    for bad in (
        dataclasses.replace(proof, response=(proof.response + 1) % L),
        dataclasses.replace(proof, commitment_base=base_mul(5)),
        dataclasses.replace(proof, commitment_c1=base_mul(5)),
    ):
        assert not check_share(bad, statement)


@settings(max_examples=20)
@given(st.integers(min_value=1, max_value=L - 1), st.integers(min_value=0, max_value=32))
def test_share_proofs_verify_for_any_secret_and_position(secret: int, position: int) -> None:
    statement = ShareStatement(DEAL, position, 0, base_mul(secret), CIPHERTEXT, decryption_share(CIPHERTEXT, secret))
    proof = prove_share(statement, secret, seeded_draw(secret.to_bytes(32, "big")))
    assert check_share(proof, statement)
    reader = Reader(proof.encode(), "proof")
    assert DleqProof.read(reader) == proof
    reader.finish()
