"""A trustless seat completes the host's view with its own cards: the same legal plays the engine allows."""

from __future__ import annotations

import random

from watten_net.deal.own_hand import PLAY_ANY, complete_view
from watten_net.engine import Match, Rules, canonical_deck
from watten_net.v1 import watten_pb2 as pb


def _view_without_cards(match: Match, seat: int) -> pb.TableView:
    """What a trustless host can send: the public facts, and "play" for "one of your cards"."""
    obs = match.observe(seat)
    view = pb.TableView(your_seat=seat, schlag=match.schlag or "", trump=match.trump or "")
    view.table.rules_json = match.rules.to_json()
    view.announcers.extend(match.announcers)
    view.current_trick.cards.extend(pb.TrickCard(seat=s, card=c.text) for s, c in
                                    zip(match.trick_seats, match.trick, strict=True))
    for leader, _cards, winner in match.tricks:
        view.tricks.append(pb.Trick(leader=leader, winner=winner))
    if match.schadet_asked:
        view.extra["schadet_asked"] = "1"
    plays = [a for a in obs.legal_actions if a.startswith("play ")]
    view.legal_actions.extend([a for a in obs.legal_actions if not a.startswith("play ")] + ([PLAY_ANY] if plays
                                                                                            else []))
    return view


def test_completed_views_offer_exactly_the_engines_legal_plays() -> None:
    rng = random.Random(5)
    checked = 0
    for preset, players in [("bavarian", 4), ("tyrolean", 4), ("south-tyrolean", 2), ("austrian", 3)]:
        rules = Rules.preset(preset, players=players)
        match = Match.new(rules)
        for _ in range(3000):
            if match.is_over:
                break
            if match.needs_deck:
                deck = list(canonical_deck(rules.deck))
                rng.shuffle(deck)
                match = match.apply_deck(deck)
                continue
            seat = match.waiting_for[0]
            legal = match.legal_actions(seat)
            if any(a.startswith("play ") for a in legal):
                view = _view_without_cards(match, seat)
                complete_view(view, [c.text for c in match.hands[seat]])
                assert sorted(view.legal_actions) == sorted(legal), (preset, seat)
                assert list(view.your_hand) == [c.text for c in match.hands[seat]]
                checked += 1
            match, _ = match.apply(seat, rng.choice(legal))
    assert checked > 200
