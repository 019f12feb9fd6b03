"""A hostile host shows a seat "its own" envelope that the seat never signed (SeatGame.take_embedded): embedded in a
host-signed ActionAccepted at the seat's next seq on its own chain head, with another key's signature. The seat must
not take it as its own (its record would hold an own envelope it never made, and its next envelope would link to
it); one it did sign but no longer holds as made (a seat that resumed, or one dropped from `own_parsed`) is its own.
"""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.protocol import HOST_SEAT, make_envelope
from watten_net.deal.seat import SeatGame
from watten_net.engine import Rules
from watten_net.record import KIND_OWN
from watten_net.refusal import HostBrokeProtocol, Reason
from watten_net.v1 import watten_pb2 as pb

from local_table import LocalTable


def _started() -> LocalTable:
    table = LocalTable(Rules.preset("bavarian", players=4), seed=5)
    table.deliver(table.host.start())
    table.flush()  # (the header signed, the keys committed: each seat's own chain has begun)
    assert table.seats[0].my_seq >= 1
    return table


def _host_shows(table: LocalTable, seat: SeatGame, embedded: bytes) -> None:
    """The host signs an ActionAccepted of seat `seat` that embeds `embedded`, on the seat's chain head."""
    accepted = pb.ActionAccepted(hand=1, attempt=1, seat=seat.seat, action="schlag 7", action_envelope=embedded)
    raw = make_envelope(table.host.host_key, seat.game_id, seat.chain_seq + 1, seat.chain_head, HOST_SEAT, accepted)
    seat.receive(seat.chain_seq + 1, raw)


def _own_request(seat: SeatGame, key: Ed25519PrivateKey) -> bytes:
    request = pb.ActionRequest(action="schlag 7", chain_seq=seat.chain_seq, chain_head=seat.chain_head)
    return make_envelope(key, seat.game_id, seat.my_seq + 1, seat.my_head, seat.seat, request)


def test_an_own_envelope_the_seat_never_signed_is_refused() -> None:
    table = _started()
    seat = table.seats[0]
    forged = _own_request(seat, Ed25519PrivateKey.generate())
    my_seq, my_head, recorded = seat.my_seq, seat.my_head, len(seat.record)
    with pytest.raises(HostBrokeProtocol) as caught:
        _host_shows(table, seat, forged)
    assert caught.value.reason == Reason.BAD_SIGNATURE
    assert (seat.my_seq, seat.my_head) == (my_seq, my_head)
    assert not any(e.kind == KIND_OWN and e.data == forged for e in seat.record[recorded:])


def test_an_own_envelope_signed_by_the_seat_but_not_held_as_made_is_its_own() -> None:
    table = _started()
    seat = table.seats[0]
    mine = _own_request(seat, seat.key)
    my_seq = seat.my_seq
    seat.own_parsed.clear()  # (as after a resume: the seat's earlier envelopes come back from the chain)
    _host_shows(table, seat, mine)
    assert seat.my_seq == my_seq + 1 and seat.record[-1].kind == KIND_OWN and seat.record[-1].data == mine
