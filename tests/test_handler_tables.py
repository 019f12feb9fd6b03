"""The handler tables of the receivers: every envelope type a receiver can get has a handler, and no handler names
a type the protocol does not have (a renamed message would otherwise fail only when it arrives)."""

from __future__ import annotations

import dataclasses

from watten_net.deal.host_game import HostGame
from watten_net.deal.level1 import VerifiedDealing
from watten_net.deal.level2 import TrustlessDealing
from watten_net.deal.protocol import CLIENT_TYPES, HOST_TYPES
from watten_net.deal.seat import SeatGame


def test_a_seat_handles_every_host_envelope() -> None:
    assert set(SeatGame.HANDLERS) == set(HOST_TYPES)
    assert "HANDLERS" not in {f.name for f in dataclasses.fields(SeatGame)}


def test_the_host_game_and_its_dealing_layers_share_out_the_client_envelopes() -> None:
    own = set(HostGame.HANDLERS)
    verified, trustless = VerifiedDealing.message_types, TrustlessDealing.message_types
    assert own | verified | trustless == set(CLIENT_TYPES)
    # Each type has one receiver: the game or a dealing layer, never both.
    assert not own & verified and not own & trustless and not verified & trustless


def test_each_dealing_layer_handles_exactly_its_message_types() -> None:
    assert set(VerifiedDealing.HANDLERS) == VerifiedDealing.message_types
    # Level 2: the deck's preparation by table; DecryptionShares answer the open attempt's share requests.
    assert set(TrustlessDealing.DECK_HANDLERS) | {"DecryptionShares"} == TrustlessDealing.message_types


def test_every_handler_is_a_method_of_its_class() -> None:
    for cls, table in ((SeatGame, SeatGame.HANDLERS), (HostGame, HostGame.HANDLERS),
                       (VerifiedDealing, VerifiedDealing.HANDLERS), (TrustlessDealing, TrustlessDealing.DECK_HANDLERS)):
        for handler in table.values():
            assert getattr(cls, handler.__name__) is handler
