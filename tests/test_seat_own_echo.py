"""A hostile host shows a seat "its own" envelope that the seat never signed (SeatGame.take_embedded): embedded in a
host-signed ActionAccepted at the seat's next seq on its own chain head, with another key's signature. The seat must
not take it as its own (its record would hold an own envelope it never made, and its next envelope would link to
it); one it did sign but no longer holds as made (a seat that resumed, or one dropped from `own_parsed`) is its own. The
relay of an own envelope byte for byte as made needs no signature check (issue #17); one with other bytes is refused.
"""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import watten_net.deal.seat as seat_module
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


def _host_relays(table: LocalTable, seat: SeatGame, embedded: bytes, named: int) -> None:
    """The host relays `embedded` as seat `named`'s envelope (a host-signed Relay on the seat's chain head)."""
    relay = pb.Relay(seat=named, envelope=embedded)
    raw = make_envelope(table.host.host_key, seat.game_id, seat.chain_seq + 1, seat.chain_head, HOST_SEAT, relay)
    seat.receive(seat.chain_seq + 1, raw)


def _resigned(raw: bytes, key: Ed25519PrivateKey) -> bytes:
    """The same envelope (game, seq, link, seat, payload) under another key's signature: other bytes."""
    env = pb.Envelope.FromString(raw)
    payload = getattr(pb, env.type).FromString(env.payload)
    return make_envelope(key, env.game_id, env.seq, env.prev_hash, env.sender_seat, payload)


def test_the_relay_of_an_own_envelope_as_made_is_not_checked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Byte-identity with what the seat signed proves the relayed envelope; the host's Relay is checked as ever."""
    table = _started()
    seat = table.seats[0]
    mine = seat.action("schlag 7")  # (made and kept as made: it has not left)
    checked: list[bytes] = []
    plain = seat_module.check_signature

    def counted(signed: Any, key: bytes) -> bool:
        checked.append(signed.raw)
        return plain(signed, key)

    monkeypatch.setattr(seat_module, "check_signature", counted)
    my_seq = seat.my_seq
    _host_relays(table, seat, mine, named=0)
    assert mine not in checked and len(checked) == 1  # (the Relay itself: the host's signature)
    assert seat.my_seq == my_seq + 1 and seat.record[-1].kind == KIND_OWN and seat.record[-1].data == mine
    assert not seat.problems


@pytest.mark.parametrize("accepted", [False, True], ids=["not-yet-accepted", "accepted-before"])
def test_the_relay_of_a_forged_own_envelope_is_refused(accepted: bool) -> None:
    """Same payload, seq and link as an envelope the seat made, but other bytes (another key's signature): refused,
    whether the seat still waits for its envelope's echo or the host's answer had accepted it already."""
    table = _started()
    seat = table.seats[0]
    mine = seat.action("schlag 7")
    if accepted:
        seat.accepted(mine)  # (the SubmitEnvelope answer came first; the relay follows)
    forged = _resigned(mine, Ed25519PrivateKey.generate())
    assert forged != mine
    my_seq, recorded = seat.my_seq, len(seat.record)
    with pytest.raises(HostBrokeProtocol) as caught:
        _host_relays(table, seat, forged, named=0)
    assert caught.value.reason == Reason.BAD_SIGNATURE
    assert seat.my_seq == my_seq and not any(e.kind == KIND_OWN and e.data == forged for e in seat.record[recorded:])
