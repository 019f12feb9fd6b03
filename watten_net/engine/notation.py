"""The words both engines speak: phases, announcement steps and actions in docs/rules.md notation.

`Match` (known cards) and `PublicMatch` (sealed cards) name their states and take their actions with
exactly these strings, so a record, a client and a bot read both the same way.
"""

from __future__ import annotations

from enum import StrEnum

from .cards import Card, canonical_deck
from .rules import SIGNAL_NAMES


class Phase(StrEnum):
    """Where a match is. The values are the words records and the wire carry (`TableView.hand_phase`)."""

    DEAL = "deal"  # waiting for the deck (needs_deck)
    CUT = "cut"
    SCHLECKEN = "schlecken"
    ANNOUNCE = "announce"
    PLAY = "play"
    SETTLE = "settle"  # PublicMatch only: the hand is decided, waiting for the openings its obligations need
    OVER = "over"  # the match has ended


class AnnounceStep(StrEnum):
    """Which question of the announcement is open."""

    SCHLAG = "schlag"
    TRUMP = "trump"
    SWAP = "swap-answer"
    BESSERE = "bessere-answer"


class Verb(StrEnum):
    """The first word of an action (docs/rules.md notation); a trustless table adds MASCHINE and OPEN."""

    CUT = "cut"
    TAKE = "take"
    KEEP = "keep"
    SWAP_ASK = "swap?"
    SWAP = "swap"
    BESSERE_ASK = "bessere?"
    BESSERE = "bessere"
    SCHLAG = "schlag"
    TRUMP = "trump"
    RAISE = "raise"
    ACCEPT = "accept"
    FOLD = "fold"
    CONCEDE = "concede"
    SCHADET_ASK = "schadet?"
    SCHADET = "schadet"
    PLAY = "play"
    SIGNAL = "signal"
    MASCHINE = "maschine"  # PublicMatch: the holder of every Kritischer shows them
    OPEN = "open"  # PublicMatch: a card opened to settle an obligation


# The engines' own spellings: module constants, since a global load is cheaper than an enum attribute on the
# play path, and each is the very member (so `is` and `==` both hold).
DEAL = Phase.DEAL
CUT = Phase.CUT
SCHLECKEN = Phase.SCHLECKEN
ANNOUNCE = Phase.ANNOUNCE
PLAY = Phase.PLAY
OVER = Phase.OVER
FORFEIT = "forfeit"  # in history(): the dealing protocol forfeited the attempt for this seat (Match.forfeit)

# TableView.hand_phase while a raise is pending: a phase of the view only, the engine stays in PLAY or ANNOUNCE.
RAISE_PENDING = "raise-pending"

A_SCHLAG = AnnounceStep.SCHLAG
A_TRUMP = AnnounceStep.TRUMP
A_SWAP = AnnounceStep.SWAP
A_BESSERE = AnnounceStep.BESSERE

# Every verb a player may use at a table that knows the cards (a trustless table adds its own, see PublicMatch).
VERBS: frozenset[str] = frozenset(Verb) - {Verb.MASCHINE, Verb.OPEN}

PLAY_ACTION = {card: "play " + card.text for card in canonical_deck(36)}
CARD_OF_PLAY = {text: card for card, text in PLAY_ACTION.items()}
SIGNAL_ACTIONS = tuple("signal " + name for name in SIGNAL_NAMES)
TRUMP_ACTIONS = ("trump E", "trump L", "trump H", "trump S")
CUT_ACTIONS = {size: [f"cut {n}" for n in range(4, size - 3)] for size in (32, 33, 36)}  # docs/rules.md: 4≤N≤size-4


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
