"""Card order under an announcement (docs/rules.md section 3) and which cards may be played (section 4).

`Ranking` precomputes, once per (rules, Schlag, trump), each card's tier so that a trick winner is a
few list look-ups. Strengths are plain ints: higher wins, equal strength means the first card played
wins (the Schlag cards), 0 means "can only win by the led suit".
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from watten_net.refusal import Reason

from .cards import ALL_CARDS, RANKS, SUITS, WELI, Card, canonical_deck, deck_ranks
from .errors import RuleViolation
from .rules import Rules

KRITISCH = 1000  # minus the index in the Kritische order
GUATE = 900
HAUPTSCHLAG = 800
SCHLAG = 700
TRUMP = 600  # plus the rank index
LED_SUIT = 100  # plus the rank index; only for a trick led with a plain card


class Ranking:
    """Everything about a card that depends on the announcement."""

    __slots__ = (
        "deck", "follow", "forcing", "guate", "hauptschlag", "kritische", "led_strength", "qualifying", "rules",
        "schlag", "schlag_cards", "strength", "trump", "trump_cards", "trump_like", "trump_or_kritisch",
    )

    def __init__(self, rules: Rules, schlag: str, trump: str) -> None:
        validate_announcement(rules, schlag, trump)
        self.rules = rules
        self.schlag = schlag
        self.trump = trump
        self.deck = canonical_deck(rules.deck)
        kritische = rules.kritische_cards
        self.kritische = frozenset(kritische)
        # Each card's tier and place in it, by card code; filled tier by tier, the highest first (a card keeps the
        # first tier that claims it).
        self.strength = [0] * (len(SUITS) * len(RANKS))
        for i, card in enumerate(kritische):
            self.strength[card.code] = KRITISCH - i
        weli_schlag = rules.has_weli and schlag == "6"
        weli = Card.parse(WELI) if rules.has_weli else None
        self._place_guate(weli_schlag)
        self._place_schlag(weli_schlag, weli)
        self._place_trumps(weli)
        # What a plain card is worth when its suit was led, by card code (see `winner`).
        self.led_strength = [0] * len(self.strength)
        for card in ALL_CARDS:
            self.led_strength[card.code] = LED_SUIT + card.rank_index
        self._index_following()

    # Worked out once per announcement and shared (see `ranking`), never changed: a copy is the object itself, and a
    # pickle rebuilds it from its announcement (the compiled class has no bare constructor for pickle and deepcopy).
    def __copy__(self) -> Ranking:
        return self

    def __deepcopy__(self, memo: object) -> Ranking:
        return self

    def __reduce__(self) -> tuple[object, tuple[Rules, str, str]]:
        return (ranking, (self.rules, self.schlag, self.trump))

    def _free(self, card: Card) -> bool:
        """No higher tier has claimed `card`."""
        return self.strength[card.code] == 0

    def _place_guate(self, weli_schlag: bool) -> None:
        """Guate: the trump card one rank above the Schlag (a Kritischer stays only that)."""
        rules = self.rules
        self.guate: Card | None = None
        if not rules.guate:
            return
        if weli_schlag:
            guate_rank = "7" if rules.guate_on_weli_schlag == "trump7" else None
        else:
            cycle = deck_ranks(rules.deck)
            guate_rank = cycle[(cycle.index(self.schlag) + 1) % len(cycle)]
        if guate_rank is not None:
            candidate = Card(self.trump, guate_rank)
            if self._free(candidate):
                self.guate = candidate
                self.strength[candidate.code] = GUATE

    def _place_schlag(self, weli_schlag: bool, weli: Card | None) -> None:
        """The Hauptschlag and the other Schlag cards."""
        strength, trump = self.strength, self.trump
        self.hauptschlag: Card | None = None
        schlag_cards: list[Card] = []
        if weli_schlag:
            assert weli is not None
            if self._free(weli):
                self.hauptschlag = weli
                strength[weli.code] = HAUPTSCHLAG
                schlag_cards.append(weli)
        else:
            main = Card(trump, self.schlag)
            if self._free(main):
                self.hauptschlag = main
                strength[main.code] = HAUPTSCHLAG
                schlag_cards.append(main)
            for suit in SUITS:
                card = Card(suit, self.schlag)
                if suit != trump and card in self.deck and self._free(card):
                    strength[card.code] = SCHLAG
                    schlag_cards.append(card)
        self.schlag_cards = frozenset(schlag_cards)

    def _place_trumps(self, weli: Card | None) -> None:
        """Trump-suit cards (tier 5), the Weli among them where its role says so."""
        rules, trump = self.rules, self.trump
        trump_cards: set[Card] = set()
        for card in self.deck:
            is_trump_suit = card.suit == trump
            if card is weli:
                is_trump_suit = (rules.weli_role == "lowest-trump") or (
                    rules.weli_role == "lowest-bell" and trump == "S"
                )
            if is_trump_suit:
                trump_cards.add(card)
                if self._free(card):
                    # The Weli's rank index is 0, below every other trump: the lowest trump either way.
                    self.strength[card.code] = TRUMP + card.rank_index
        self.trump_cards = frozenset(trump_cards)

    def _index_following(self) -> None:
        """Card sets of the following rules, so that `playable` is a few set look-ups per card."""
        self.follow = self.rules.follow
        special = {c for c in (self.guate, self.hauptschlag) if c is not None}
        self.trump_like = self.trump_cards | special  # what `is_trump` says yes to
        self.trump_or_kritisch = self.trump_cards | self.kritische
        self.qualifying = self.trump_cards | self.schlag_cards | ({self.guate} if self.guate else set())
        # Holding only the Guate or the Hauptschlag among the qualifying cards does not force a trump.
        self.forcing = self.qualifying - special

    def is_plain(self, card: Card) -> bool:
        return self.strength[card.code] == 0

    def is_trump(self, card: Card) -> bool:
        """A trump for the trump-lead rule: a trump-suit card, the Guate, the Hauptschlag, a trump Weli."""
        return card in self.trump_cards or card is self.guate or card is self.hauptschlag

    def winner(self, played: Sequence[Card]) -> int:
        strength = self.strength
        led_strength = self.led_strength
        lead = played[0]
        best = strength[lead.code]
        if best == 0:
            best = led_strength[lead.code]
            led_suit: str | None = lead.suit
        else:
            led_suit = None
        win = 0
        for i in range(1, len(played)):
            card = played[i]
            value = strength[card.code]
            if value == 0 and card.suit == led_suit:
                value = led_strength[card.code]
            if value > best:
                best = value
                win = i
        return win

    def legal(
        self,
        hand: Sequence[Card],
        trick: Sequence[Card],
        *,
        first_trick: bool,
        announcer: bool = True,
        released_allowed: bool = True,
    ) -> frozenset[Card]:
        """The playable cards of `hand` for `trick` (the cards already played to it, in order).

        `announcer` matters only with Blind. `released_allowed=False` after a `schadet?`: then the
        Trumpf-oder-Kritische obligation is not released by a Kritischer.
        """
        return frozenset(self.playable(hand, trick, first_trick, announcer, released_allowed))

    def playable(
        self, hand: Sequence[Card], trick: Sequence[Card], first_trick: bool, announcer: bool, released_allowed: bool
    ) -> Sequence[Card]:
        """`legal` as the cards of `hand` in hand order (`hand` itself when nothing is forced).

        The engine's hot path: positional arguments, no set built when every card may be played.
        """
        follow = self.follow
        # With Blind only the two announcers know the announcement, so only they are bound.
        if not trick or follow == "none" or (not announcer and self.rules.blind):
            return hand
        if follow == "hauptschlag-lead":
            if not first_trick or self.hauptschlag is None or trick[0] is not self.hauptschlag:
                return hand
            if released_allowed and self.rules.follow_released and not self.kritische.isdisjoint(trick[1:]):
                return hand
            forcing = self.trump_or_kritisch
            forced = [c for c in hand if c in forcing]
            return forced if forced else hand
        # trump-lead
        if trick[0] not in self.trump_like:
            return hand
        if self.forcing.isdisjoint(hand):
            return hand
        qualifying = self.qualifying
        return [c for c in hand if c in qualifying]


def validate_announcement(rules: Rules, schlag: str, trump: str) -> None:
    if trump not in SUITS:
        raise RuleViolation(Reason.BAD_TRUMP, f"the trump must be a suit (E, L, H or S), not {trump!r}")
    if schlag not in schlag_choices(rules):
        raise RuleViolation(
            Reason.BAD_SCHLAG,
            f"the Schlag must be one of {' '.join(schlag_choices(rules))} with a {rules.deck}-card deck, "
            f"not {schlag!r}",
        )


def schlag_choices(rules: Rules) -> tuple[str, ...]:
    """Ranks that may be named as Schlag: the deck's ranks, and in a 33-card deck the Weli as '6'."""
    return ("6", *deck_ranks(rules.deck)) if rules.deck == 33 else deck_ranks(rules.deck)


@lru_cache(maxsize=4096)
def ranking(rules: Rules, schlag: str, trump: str) -> Ranking:
    return Ranking(rules, schlag, trump)


def trick_winner(rules: Rules, schlag: str, trump: str, cards: Sequence[Card]) -> int:
    """Index, in play order, of the card that wins the trick (1 to n cards)."""
    if not cards:
        raise ValueError("a trick needs at least one card")
    return ranking(rules, schlag, trump).winner(cards)


def legal_cards(
    rules: Rules,
    schlag: str,
    trump: str,
    hand: Sequence[Card],
    trick: Sequence[Card],
    *,
    first_trick: bool,
    announcer: bool = True,
    schadet_asked: bool = False,
) -> frozenset[Card]:
    """The cards of `hand` that may be played to `trick` (the cards already played to it, in order)."""
    return ranking(rules, schlag, trump).legal(
        hand, trick, first_trick=first_trick, announcer=announcer, released_allowed=not schadet_asked
    )
