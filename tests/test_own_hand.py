"""A trustless seat completes the host's card-less view with its own cards and its own legal actions."""

from __future__ import annotations

import random
from unittest import mock

import pytest
from test_trustless_game import _SeededKeys

from watten_net.deal.own_hand import complete_seat_view
from watten_net.engine import Card, Rules, legal_cards
from watten_net.v1 import watten_pb2 as pb

import local_table
from local_table import LocalTable

pytestmark = pytest.mark.slow  # whole matches, every view checked


def test_a_completed_view_holds_the_seats_cards_and_exactly_the_plays_the_rules_allow() -> None:
    rules = Rules.preset("south-tyrolean", players=4)
    with mock.patch.object(local_table, "Ed25519PrivateKey", _SeededKeys(11)):
        table = LocalTable(rules, seed=11, deal="trustless")
    table.deliver(table.host.start())
    rng = random.Random(11)
    checked = followed = restricted = 0
    for _ in range(3_000):
        if table.host.finished:
            break
        if table.flush():
            continue
        phase, waiting = table.host.waiting_for()
        assert phase == "play" and waiting, (phase, waiting)
        seat = table.seats[waiting[0]]
        view = pb.TableView(your_seat=seat.seat, legal_actions=["play"], your_hand=["stale"])
        complete_seat_view(view, seat)
        assert sorted(view.your_hand) == sorted(seat.cards.values())
        assert list(view.legal_actions) == seat.legal_actions()
        plays = sorted(a.split(" ", 1)[1] for a in view.legal_actions if a.startswith("play "))
        public = table.host.public
        assert public is not None
        if plays:
            # An oracle apart from the seat's engine copy: the follow rules of docs/rules.md, from the public facts.
            hand = [Card.parse(c) for c in seat.cards.values()]
            allowed = legal_cards(rules, public.schlag, public.trump, hand, list(public.trick),
                                  first_trick=not public.tricks, announcer=seat.seat in public.announcers,
                                  schadet_asked=public.schadet_asked)
            assert plays == sorted(c.text for c in hand if c in allowed)
            checked += 1
            followed += bool(public.trick)
            restricted += len(plays) < len(hand)
        action = rng.choice(view.legal_actions)
        raw = seat.action(action)
        table.deliver(table.host.submit(seat.seat, raw))  # the host takes every action the view offered
        seat.accepted(raw)
    assert table.host.finished and checked > 20 and followed > 5 and restricted > 0, (checked, followed, restricted)
