"""The command line: an action in the rules' notation (docs/rules.md) or a card as shown, completed from the legal ones.

`♥K`, `HK`, `hk`, `Herz König`, `HeK`, `Sc7` and `play ♥K` all mean `play HK`; anything else goes through the engine's
own `normalise_action` (the host decides whether it is legal and says why not).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from watten_net.cardwords import RANK_DE, SUIT_DE
from watten_net.engine import normalise_action

from .i18n import FRENCH_MARK, GERMAN_MARK

_SUIT_WORDS = {**{mark: s for s, mark in FRENCH_MARK.items()}, **{m.lower(): s for s, m in GERMAN_MARK.items()},
               **{w.lower(): s for s, w in SUIT_DE.items()}, "e": "E", "l": "L", "h": "H", "s": "S",
               "grün": "L", "gruen": "L", "schelle": "S", "acorns": "E", "leaves": "L", "hearts": "H", "bells": "S"}
_RANK_WORDS = {**{w.lower(): r for r, w in RANK_DE.items()}, **{r.lower(): r for r in RANK_DE},
               "koenig": "K", "as": "A", "sau": "A", "daus": "A"}


def parse_card(text: str) -> str | None:
    """A card in any of the ways the screen or a player writes it, as docs/rules.md's code (`HK`); None otherwise."""
    joined = "".join(text.split()).lower()
    for cut in range(1, len(joined)):
        suit, rank = _SUIT_WORDS.get(joined[:cut]), _RANK_WORDS.get(joined[cut:])
        if suit is not None and rank is not None:
            return f"{suit}{rank}"
    return None


def to_action(text: str) -> str:
    """What the person typed as the action to send (a card alone plays it)."""
    words = text.strip()
    if words.lower().startswith("play "):
        card = parse_card(words[5:])
        if card is not None:
            return f"play {card}"
    card = parse_card(words)
    if card is not None:
        return f"play {card}"
    return normalise_action(words)


class LegalCompleter(Completer):
    """Completes the command line from the seat's legal actions (and `help`, `quit`)."""

    def __init__(self, legal: Callable[[], Iterable[str]]) -> None:
        self.legal = legal

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        typed = document.text_before_cursor.lower()
        for action in [*self.legal(), "help", "quit"]:
            if action.lower().startswith(typed) and action.lower() != typed:
                yield Completion(action, start_position=-len(typed))


def legal_of(state: Any) -> Callable[[], list[str]]:
    return lambda: list(state.view.legal_actions) if state.view is not None else []
