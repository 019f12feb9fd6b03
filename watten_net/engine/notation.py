"""The words both engines speak: phases, announcement steps and actions in RULES.md notation.

`Match` (known cards) and `PublicMatch` (sealed cards) name their states and take their actions with
exactly these strings, so a record, a client and a bot read both the same way.
"""

from __future__ import annotations

from .cards import Card, canonical_deck
from .rules import SIGNAL_NAMES

# Phases
DEAL = "deal"  # waiting for the deck (needs_deck)
CUT = "cut"
SCHLECKEN = "schlecken"
ANNOUNCE = "announce"
PLAY = "play"
OVER = "over"  # the match has ended
FORFEIT = "forfeit"  # in history(): the dealing protocol forfeited the attempt for this seat (Match.forfeit)

# Announcement steps
A_SCHLAG = "schlag"
A_TRUMP = "trump"
A_SWAP = "swap-answer"
A_BESSERE = "bessere-answer"

# Every verb a player may use (a trustless table adds its own, see PublicMatch).
VERBS = frozenset({
    "cut", "take", "keep", "swap?", "swap", "bessere?", "bessere", "schlag", "trump", "raise", "accept", "fold",
    "concede", "schadet?", "schadet", "play", "signal",
})

PLAY_ACTION = {card: "play " + card.text for card in canonical_deck(36)}
CARD_OF_PLAY = {text: card for card, text in PLAY_ACTION.items()}
SIGNAL_ACTIONS = tuple("signal " + name for name in SIGNAL_NAMES)
TRUMP_ACTIONS = ("trump E", "trump L", "trump H", "trump S")
CUT_ACTIONS = {size: [f"cut {n}" for n in range(4, size - 3)] for size in (32, 33, 36)}  # RULES.md: 4 <= N <= size-4


def normalise_action(action: str) -> str:
    """Canonical spelling of an action typed by a person: 'Play hk' -> 'play HK', 'trump l' -> 'trump L'."""
    words = action.split()
    if not words:
        return ""
    verb = words[0].lower()
    args = words[1:]
    if verb == "play" and len(args) == 1:
        try:
            return "play " + Card.parse(args[0]).text
        except ValueError:
            return "play " + args[0]
    args = [a.upper() for a in args] if verb in ("schlag", "trump") else [a.lower() for a in args]
    return " ".join([verb, *args])
