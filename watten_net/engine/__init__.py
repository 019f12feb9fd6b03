"""The rules engine: pure, deterministic, no I/O (docs/rules.md is the specification).

    >>> from watten_net.engine import Match, Rules
    >>> match = Match.new(Rules.preset("bavarian"))
    >>> match.needs_deck
    True
"""

# isort: off
from .compiled import COMPILED  # first: it decides whether the modules below are the compiled ones or the .py files
# isort: on
from .cards import ALL_CARDS, RANKS, SUITS, Card, canonical_deck, cards
from .errors import RuleViolation
from .events import Event
from .match import Match, normalise_action
from .observation import Observation
from .ranking import Ranking, legal_cards, ranking, schlag_choices, trick_winner
from .rules import SIGNAL_NAMES, Rules, parse_flag

__all__ = [
    "ALL_CARDS", "COMPILED", "RANKS", "SIGNAL_NAMES", "SUITS", "Card", "Event", "Match", "Observation", "Ranking",
    "RuleViolation", "Rules", "canonical_deck", "cards", "legal_cards", "normalise_action", "parse_flag",
    "ranking", "schlag_choices", "trick_winner",
]
