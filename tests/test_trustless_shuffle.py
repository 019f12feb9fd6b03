"""The Terelius-Wikström shuffle proof: honest shuffles verify; every change to the deck, statement or proof fails."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable

import pytest

from watten_net.trustless.context import DealId
from watten_net.trustless.elgamal import (
    Ciphertext,
    card_index,
    decryption_share,
    finish_decryption,
    initial_deck,
    reencrypt,
)
from watten_net.trustless.group import BASE, L, base_mul, hash_to_point, point_sum, random_scalar, seeded_draw, sub
from watten_net.trustless.shuffle import (
    ShuffleProof,
    ShuffleStatement,
    ShuffleWitness,
    commitment_generators,
    failed_shuffle_checks,
    prove_shuffle,
    random_permutation,
    shuffle,
)
from watten_net.trustless.wire import Reader

DEAL = DealId(hashlib.sha256(b"shuffle game").digest(), 2, 0)
draw = seeded_draw(b"shuffle tests")
SECRETS = [random_scalar(draw) for _ in range(3)]
JOINT = point_sum(base_mul(x) for x in SECRETS)


def _decrypt(ciphertext: Ciphertext, n_cards: int) -> int:
    return card_index(finish_decryption(ciphertext, [decryption_share(ciphertext, x) for x in SECRETS]), n_cards)


def _shuffled(n: int, seed: bytes = b"s") -> tuple[ShuffleStatement, ShuffleWitness, ShuffleProof]:
    d = seeded_draw(seed)
    inputs = initial_deck(n, JOINT)
    outputs, witness = shuffle(inputs, JOINT, d)
    statement = ShuffleStatement(DEAL, 1, JOINT, inputs, outputs)
    return statement, witness, prove_shuffle(statement, witness, d)


HONEST_33 = _shuffled(33)


@pytest.mark.parametrize("n", [1, 2, 5, 32, 33])
def test_honest_shuffle_verifies_and_permutes(n: int) -> None:
    statement, witness, proof = HONEST_33 if n == 33 else _shuffled(n)
    assert failed_shuffle_checks(statement, proof) == []
    cards = [_decrypt(c, n) for c in statement.outputs]
    assert cards == list(witness.permutation)  # card j started at position j


def test_a_second_shuffle_on_a_shuffled_deck_verifies() -> None:
    statement, _, _ = HONEST_33
    d = seeded_draw(b"second")
    outputs, witness = shuffle(statement.outputs, JOINT, d)
    second = ShuffleStatement(DEAL, 2, JOINT, statement.outputs, outputs)
    assert failed_shuffle_checks(second, prove_shuffle(second, witness, d)) == []


def test_permutations_are_permutations() -> None:
    for seed in range(20):
        assert sorted(random_permutation(33, seeded_draw(bytes([seed])))) == list(range(33))


# --- the deck changed after proving ------------------------------------------------------------------


def _with_outputs(change: Callable[[list[Ciphertext]], None]) -> ShuffleStatement:
    statement, _, _ = HONEST_33
    outputs = list(statement.outputs)
    change(outputs)
    return dataclasses.replace(statement, outputs=tuple(outputs))


def _swap(outputs: list[Ciphertext]) -> None:
    outputs[3], outputs[17] = outputs[17], outputs[3]


def _replace(outputs: list[Ciphertext]) -> None:
    outputs[8] = reencrypt(outputs[8], JOINT, 12345)  # the same card, different ciphertext


def _duplicate(outputs: list[Ciphertext]) -> None:
    outputs[9] = reencrypt(outputs[2], JOINT, 777)  # a copy of another card takes its place


def _substitute(outputs: list[Ciphertext]) -> None:
    fresh = initial_deck(33, JOINT)[0]
    outputs[0] = reencrypt(fresh, JOINT, 99)


@pytest.mark.parametrize("change", [_swap, _replace, _duplicate, _substitute])
def test_a_changed_output_deck_fails(change: Callable[[list[Ciphertext]], None]) -> None:
    _, _, proof = HONEST_33
    assert failed_shuffle_checks(_with_outputs(change), proof) != []


def test_the_proof_is_bound_to_the_statement() -> None:
    statement, _, proof = HONEST_33
    for other in (
        dataclasses.replace(statement, seat=2),
        dataclasses.replace(statement, deal=dataclasses.replace(DEAL, hand=3)),
        dataclasses.replace(statement, deal=dataclasses.replace(DEAL, attempt=1)),
        dataclasses.replace(statement, deal=DealId(bytes(32), 2, 0)),
        dataclasses.replace(statement, joint_key=base_mul(5)),
        dataclasses.replace(statement, inputs=initial_deck(33, base_mul(5))),
    ):
        assert failed_shuffle_checks(other, proof) != []


def test_a_proof_for_another_shuffle_fails() -> None:
    statement, _, _ = HONEST_33
    _, _, other_proof = _shuffled(33, seed=b"other")
    assert failed_shuffle_checks(statement, other_proof) != []


# --- a dishonest prover ----------------------------------------------------------------------------


def test_a_prover_that_duplicates_a_card_cannot_prove_it() -> None:
    n = 8
    d = seeded_draw(b"cheat")
    inputs = initial_deck(n, JOINT)
    not_a_permutation = (0, 0, 2, 3, 4, 5, 6, 7)  # card 1 dropped, card 0 twice
    randomness = tuple(random_scalar(d) for _ in range(n))
    outputs = tuple(reencrypt(inputs[j], JOINT, randomness[j] + i) for i, j in enumerate(not_a_permutation))
    statement = ShuffleStatement(DEAL, 1, JOINT, inputs, outputs)
    proof = prove_shuffle(statement, ShuffleWitness(not_a_permutation, randomness), d)
    assert failed_shuffle_checks(statement, proof) != []


def test_a_prover_with_wrong_randomness_cannot_prove() -> None:
    statement, witness, _ = _shuffled(6, seed=b"r")
    wrong = ShuffleWitness(witness.permutation, tuple(r + 1 for r in witness.randomness))
    assert failed_shuffle_checks(statement, prove_shuffle(statement, wrong, seeded_draw(b"x"))) != []


# --- every component of the proof matters -------------------------------------------------------------

POINT_FIELDS = ["t1", "t2", "t3", "t4_c2", "t4_c1"]
SCALAR_FIELDS = ["s1", "s2", "s3", "s4"]
POINT_VECTORS = ["permutation_commitments", "chain", "t_hat"]
SCALAR_VECTORS = ["s_hat", "s_prime"]
ELSEWHERE = hash_to_point("trustless/test", b"elsewhere")


@pytest.mark.parametrize("name", POINT_FIELDS + SCALAR_FIELDS + POINT_VECTORS + SCALAR_VECTORS)
@pytest.mark.parametrize("index", [0, 32])
def test_changing_any_proof_component_fails(name: str, index: int) -> None:
    statement, _, proof = HONEST_33
    value = getattr(proof, name)
    if name in POINT_FIELDS:
        changed: object = ELSEWHERE if index == 0 else BASE
    elif name in SCALAR_FIELDS:
        changed = (value + 1 + index) % L
    else:
        items = list(value)
        items[index] = ELSEWHERE if name in POINT_VECTORS else (items[index] + 1) % L
        changed = tuple(items)
    assert failed_shuffle_checks(statement, dataclasses.replace(proof, **{name: changed})) != []


def test_the_failing_equation_is_named() -> None:
    statement, _, proof = HONEST_33
    assert failed_shuffle_checks(statement, dataclasses.replace(proof, s3=(proof.s3 + 1) % L)) == ["t3"]
    t_hat = list(proof.t_hat)
    t_hat[4] = ELSEWHERE
    # t_hat enters the challenge, so every equation that involves c fails with it.
    assert "t_hat[4]" in failed_shuffle_checks(statement, dataclasses.replace(proof, t_hat=tuple(t_hat)))


def test_mismatched_lengths_are_a_shape_failure() -> None:
    statement, _, proof = HONEST_33
    assert failed_shuffle_checks(dataclasses.replace(statement, outputs=statement.outputs[:-1]), proof) == ["shape"]
    shorter = dataclasses.replace(proof, s_hat=proof.s_hat[:-1])
    assert failed_shuffle_checks(statement, shorter) == ["shape"]


def test_identity_intermediates_do_not_crash_the_verifier() -> None:
    # A prover may pick commitments whose sums cancel (c̄ = O); the verifier must just reject.
    statement, _, proof = HONEST_33
    commitments = list(proof.permutation_commitments)
    commitments[0] = sub(point_sum(commitment_generators(33)[1:]), point_sum(commitments[1:]))
    forged = dataclasses.replace(proof, permutation_commitments=tuple(commitments))
    assert failed_shuffle_checks(statement, forged) != []


def test_proof_encoding_round_trips() -> None:
    _, _, proof = HONEST_33
    data = proof.encode()
    assert len(data) == ShuffleProof.encoded_len(33)
    reader = Reader(data, "proof")
    assert ShuffleProof.read(reader, 33) == proof
    reader.finish()
