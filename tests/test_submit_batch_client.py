"""The client's side of a SubmitEnvelope of several envelopes (client/connection.py): which owed steps go in one
call, and what a refusal of one of them means for the seat's chain head, a hostile index included."""

from __future__ import annotations

import grpc
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.connection import MAX_ENVELOPES_PER_CALL, Refused, owed_run, refused_in_run
from watten_net.deal.seat import SeatGame
from watten_net.v1 import watten_pb2 as pb


def _seat_owing(count: int) -> SeatGame:
    game = SeatGame(seat=1, key=Ed25519PrivateKey.generate(), game_id=bytes(32))
    for hand in range(count):
        game.send(pb.CheckpointSignature(hand=hand, seat=1, chain_seq=10 + hand, chain_head=bytes(32)))
    return game


def test_the_owed_steps_that_follow_each_other_go_in_one_call_up_to_the_bound() -> None:
    game = _seat_owing(2)
    assert owed_run(game) == game.outbox  # (the checkpoint's and the seal's signatures: one call)
    many = _seat_owing(MAX_ENVELOPES_PER_CALL + 3)
    assert owed_run(many) == many.outbox[:MAX_ENVELOPES_PER_CALL]
    assert owed_run(_seat_owing(0)) == []


def test_a_step_that_does_not_follow_the_one_before_waits_for_the_next_call() -> None:
    game = _seat_owing(3)
    del game.outbox[1]  # (the third was made on the second, which is gone: it must be re-signed first)
    assert owed_run(game) == game.outbox[:1]


def test_a_refused_second_envelope_moves_the_head_past_the_first_only() -> None:
    game = _seat_owing(3)
    run = owed_run(game)
    refused = Refused(grpc.StatusCode.INVALID_ARGUMENT, "bad-signature", "no", envelope_index=1)
    assert refused_in_run(game, run, refused) == run[1]
    assert game.my_seq == 1 and game.outbox == run[1:]  # the first accepted, the refused one and the third owed


def test_a_hostile_index_past_the_call_names_its_last_envelope() -> None:
    game = _seat_owing(2)
    run = owed_run(game)
    refused = Refused(grpc.StatusCode.INVALID_ARGUMENT, "bad-signature", "no", envelope_index=2**32 - 1)
    assert refused_in_run(game, run, refused) == run[-1]
    assert game.my_seq == 1
