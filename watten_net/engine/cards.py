"""Cards and decks.

A card is an interned value: there are at most 36 of them, so `Card.parse("HK") is Card.parse("HK")`.
Interning keeps equality and hashing to an identity check and a small int, which the engine's hot
paths (legality and trick winners in random playouts) depend on.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS: tuple[str, ...] = ("E", "L", "H", "S")
RANKS: tuple[str, ...] = ("6", "7", "8", "9", "10", "U", "O", "K", "A")
SUIT_NAMES = {"E": "Eichel", "L": "Laub", "H": "Herz", "S": "Schellen"}
RANK_NAMES = {
    "6": "Sechs", "7": "Sieben", "8": "Acht", "9": "Neun", "10": "Zehn",
    "U": "Unter", "O": "Ober", "K": "König", "A": "Ass",
}
# Cards with a name of their own at a Watten table.
NICKNAMES = {"HK": "Max", "S7": "Belli", "E7": "Spitz", "S6": "Weli", "SU": "Bugl"}
DECK_SIZES = (32, 33, 36)
WELI = "S6"


class Card:
    """One playing card, e.g. `HK` (Herz König). Use `Card.parse`; instances are shared."""

    __slots__ = ("code", "rank", "rank_index", "suit", "suit_index", "text")

    suit: str
    rank: str
    suit_index: int
    rank_index: int
    code: int
    text: str

    def __new__(cls, suit: str, rank: str) -> Card:
        try:
            return _BY_TEXT[suit + rank]
        except KeyError:
            raise ValueError(f"no such card: suit {suit!r}, rank {rank!r}") from None

    @classmethod
    def _make(cls, suit: str, rank: str) -> Card:
        card = object.__new__(cls)
        card.suit = suit
        card.rank = rank
        card.suit_index = SUITS.index(suit)
        card.rank_index = RANKS.index(rank)
        card.code = card.suit_index * len(RANKS) + card.rank_index
        card.text = suit + rank
        return card

    @staticmethod
    def parse(text: str) -> Card:
        """`Card.parse("HK")`: suit letter (E L H S) then rank (6 7 8 9 10 U O K A); case-insensitive."""
        if not isinstance(text, str):
            raise ValueError(f"a card is written like 'HK', not {text!r}")
        try:
            return _BY_TEXT[text.strip().upper()]
        except KeyError:
            raise ValueError(
                f"not a card: {text!r} (write suit E/L/H/S then rank 6 7 8 9 10 U O K A, e.g. 'HK')"
            ) from None

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    # Equality and hashing are object identity (cards are interned): the C defaults, the fastest there is.

    def __lt__(self, other: Card) -> bool:
        return self.code < other.code

    def __le__(self, other: Card) -> bool:
        return self.code <= other.code

    def __gt__(self, other: Card) -> bool:
        return self.code > other.code

    def __ge__(self, other: Card) -> bool:
        return self.code >= other.code

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (self.text,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    @property
    def name(self) -> str:
        """German name, with the card's nickname where it has one: 'Herz König (Max)'."""
        base = f"{SUIT_NAMES[self.suit]} {RANK_NAMES[self.rank]}"
        nick = NICKNAMES.get(self.text)
        return f"{base} ({nick})" if nick else base


_BY_TEXT: dict[str, Card] = {}
for _suit in SUITS:
    for _rank in RANKS:
        _card = Card._make(_suit, _rank)
        _BY_TEXT[_card.text] = _card
ALL_CARDS: tuple[Card, ...] = tuple(sorted(_BY_TEXT.values()))


def cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse several cards: `cards("HK S7 E7")` or `cards(["HK", "S7"])`."""
    parts = text.split() if isinstance(text, str) else list(text)
    return tuple(Card.parse(p) for p in parts)


# The three decks, built once: a deck is asked for at every match (and by every playout).
_DECKS: dict[int, tuple[Card, ...]] = {
    32: tuple(c for c in ALL_CARDS if c.rank != "6"),
    33: tuple(c for c in ALL_CARDS if c.rank != "6" or c.text == WELI),
    36: ALL_CARDS,
}


def canonical_deck(size: int) -> tuple[Card, ...]:
    """The deck in canonical order (suits E L H S, ranks low to high): deck/v1 permutes these indices."""
    try:
        return _DECKS[size]
    except (KeyError, TypeError):
        raise ValueError(f"deck must be one of {DECK_SIZES}, not {size!r}") from None


def deck_ranks(size: int) -> tuple[str, ...]:
    """The ranks that form the Schlag cycle of a deck (the Weli of a 33-card deck is outside it)."""
    return RANKS if size == 36 else RANKS[1:]
