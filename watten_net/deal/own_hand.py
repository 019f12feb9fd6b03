"""A seat's view completed with its own cards, for the trustless deal (PROTOCOL.md Level 2).

In a trustless game the host does not know anybody's cards, so the `TableView` it sends has no
`your_hand` and offers a plain "play" among the legal actions. The seat knows its cards (its
`SeatGame` decrypted them) and everything public the view holds (the trick so far, the Schlag and
trump, whether this is the hand's first trick, the announcers, a `schadet?`), which is all the
follow rules of RULES.md need. `complete_view` fills in the hand and turns "play" into the exact
`play X` actions the rules allow, so the screen, remote bots and host-run bots read the view as
they do in a verified game.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from watten_net.engine import Card, Rules, legal_cards

PLAY_ANY = "play"
"""The host's legal action for "play one of your cards" when it cannot know which ones you hold."""
AUTOMATIC = ("maschine", "open")
"""Public actions the seat's SeatGame sends by itself (a Maschine claim, the openings asked for at hand end)."""


def complete_seat_view(view: Any, game: Any) -> None:
    """Complete `view` from a trustless seat's own `SeatGame`: its cards, the card it sees at Schlecken, and
    its legal actions worked out by its own copy of the public engine with its cards (the very list its
    `action()` accepts, so a choice made from the view is never refused for a card)."""
    del view.your_hand[:]
    view.your_hand.extend(game.cards.values())
    seen = game.seen_card()
    if seen is not None:
        view.extra["schlecken_card"] = seen
    # (The seat's engine copy has read the same chain as the view: both describe the same moment.)
    del view.legal_actions[:]
    view.legal_actions.extend(game.legal_actions())


def complete_view(view: Any, cards: Iterable[str]) -> None:
    """Put `cards` (the seat's own, still in hand) into `view` and spell out which of them may be played
    (from the public facts of the view alone; `complete_seat_view` is the seat's own, fuller answer)."""
    hand = [Card.parse(c) for c in cards]
    del view.your_hand[:]
    view.your_hand.extend(c.text for c in hand)
    # A Maschine claim and the hand-end openings are the seat's client's own automatic steps, not choices.
    others = [a for a in view.legal_actions if a not in (PLAY_ANY, *AUTOMATIC)]
    plays = [f"play {c.text}" for c in playable(view, hand)] if PLAY_ANY in view.legal_actions else []
    del view.legal_actions[:]
    view.legal_actions.extend(others + plays)


def playable(view: Any, hand: list[Card]) -> list[Card]:
    """The cards of `hand` the follow rules allow now, from the public facts in `view`."""
    if not view.schlag or not view.trump:
        return list(hand)  # (Blind is not offered with trustless deals, so the announcement is always shown)
    rules = Rules.from_json(view.table.rules_json)
    trick = [Card.parse(tc.card) for tc in view.current_trick.cards]
    allowed = legal_cards(
        rules, view.schlag, view.trump, hand, trick,
        first_trick=not view.tricks, announcer=view.your_seat in view.announcers,
        schadet_asked=view.extra.get("schadet_asked") == "1",
    )
    return [c for c in hand if c in allowed]
