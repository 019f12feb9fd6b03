"""A seat's view completed with its own cards, for the trustless deal (docs/protocol.md Level 2).

In a trustless game the host does not know anybody's cards, so the `TableView` it sends has no
`your_hand` and offers a plain "play" among the legal actions. The seat knows its cards (its
`SeatGame` decrypted them) and keeps its own copy of the public engine, which with those cards gives
the exact `play X` actions the rules allow. `complete_seat_view` puts both into the view, so the
screen, remote bots and host-run bots read it as they do in a verified game.
"""

from __future__ import annotations

from typing import Any


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
