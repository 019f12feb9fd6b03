"""A match of Watten with known cards, as an immutable state machine (docs/rules.md sections 5 to 9).

`Match.new(rules)` waits for a deck (`needs_deck`); chance is an input: `apply_deck(order)` takes the
shuffled deck from the dealing protocol. Every other step is an action in docs/rules.md notation:
`apply(seat, "play HK")` returns a *new* match and the events it caused; the old match stays valid,
so bots can search, the host can keep snapshots, and the verifier can replay a record.

The rules themselves live in `core.MatchCore`, shared with the trustless `PublicMatch`; this module adds
what knowing the cards decides: which cards a seat may play, whether a card may be taken at the cut, the
Maschine (found at once), the bluff penalty, and events that show the cards to the seats that hold them.
Each hand is kept sorted by suit and rank. The card play is the hot path of every playout, so `apply`
reads plain slots and builds its few short lists with loops (see `state`'s docstring).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import cast

from watten_net.refusal import Reason

from .cards import Card
from .core import MatchCore
from .errors import RuleViolation, no_card
from .events import Event
from .notation import (
    A_SCHLAG,
    A_TRUMP,
    ANNOUNCE,
    CARD_OF_PLAY,
    CUT,
    FORFEIT,
    PLAY_ACTION,
    Verb,
    normalise_action,
)
from .observation import Observation, build_observation
from .ranking import schlag_choices
from .rules import Rules
from .state import Log, all_slots, iter_log, make_event

__all__ = ["Match", "normalise_action"]  # normalise_action: callers have always imported it from here

_TEXT = attrgetter("text")  # a card's text, read in C (a deck's 32 to 36 cards at every hand)

class Match(MatchCore[Card]):
    """One match to `rules.target`, one hand after another, plus the series' Bummerl, with the cards known."""

    __slots__ = ("_pos", "bluff")

    HAND_ORDER = attrgetter("code")  # hands are kept sorted by suit and rank

    _pos: dict[Card, int]  # deck position of each card in this attempt's deck
    bluff: bool  # the cutter took a card that is no Kritischer (schlecken_bluff), see docs/rules.md 5.8

    def _clone(self) -> Match:
        """A copy of this state to change: the shared state's slots, then the two of a known deck."""
        m = self._copied_into(Match())
        m._pos, m.bluff = self._pos, self.bluff
        return m

    def _reset_attempt(self) -> None:
        self._pos = {}
        self.bluff = False

    # ------------------------------------------------------------------ public facts
    @property
    def actions(self) -> Log:
        """The log of inputs (`history()` lists it)."""
        return self.inputs

    @property
    def last_action(self) -> tuple[int, str] | None:
        """The last action applied, as `(seat, action)` spelled the engine's way (None before any)."""
        item = self.inputs[0] if self.inputs is not None else None
        if item is None or item[0] == "deck":
            return None
        return int(item[0]), str(item[1])

    def history(self) -> list[tuple[int, str] | tuple[str, tuple[str, ...]]]:
        """The inputs of the match: `("deck", cards)` and `(seat, action)`, in order (for replay)."""
        items = iter_log(self.inputs)
        for i, item in enumerate(items):
            if item[0] == "deck":  # the log keeps the deck's cards: spelled out here, not at every hand
                items[i] = ("deck", tuple(map(_TEXT, item[1])))
        return items

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Match):
            return NotImplemented
        return all(
            getattr(self, name) == getattr(other, name)
            for name in _COMPARED
        ) and self.events() == other.events()

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ chance
    def apply_deck(self, order: Iterable[Card | str]) -> Match:
        """The shuffled deck for this hand (top card first), from the dealing protocol."""
        self._refuse_deck()
        given = tuple(order)
        canonical = self._f.deck_set
        if canonical.issuperset(given):
            deck = cast(tuple[Card, ...], given)
            known = True
        else:  # strings, or cards of another deck
            deck = tuple(c if isinstance(c, Card) else Card.parse(c) for c in given)
            known = canonical.issuperset(deck)
        positions = dict(zip(deck, range(len(deck)), strict=False))
        # Only cards of this deck, as many as it has, none twice (a twice-given card has one position): each once.
        if not known or len(deck) != len(canonical) or len(positions) != len(deck):
            raise ValueError(f"the deck must hold each of the {len(canonical)} cards exactly once")
        m = self._with_deck(deck, ("deck", deck))  # history() spells the cards out
        m._pos = positions
        return m

    # ------------------------------------------------------------------ legal actions
    def _plays(self, seat: int) -> list[str]:
        hand = self.hands[seat]
        trick = self.trick
        if trick:  # following: the ranking says which cards of the hand may be played (in hand order)
            assert self.ranking is not None
            cards = self.ranking.playable(
                hand, trick, not self.tricks, not self.rules.blind or seat in self.t.announcers_of[self.dealer],
                not self.schadet_asked,
            )
        else:  # a lead: any card
            cards = hand
        out = []
        for card in cards:  # a loop, not a comprehension (see state's docstring)
            out.append(PLAY_ACTION[card])
        return out

    def _may_hold_hauptschlag(self, seat: int) -> bool:
        assert self.ranking is not None
        return self.ranking.hauptschlag in self.hands[seat]

    def _may_take_seen(self) -> bool:
        if self._seen() in self._f.kritische:
            return True
        return self.rules.schlecken_bluff and self.schlecken_seat == self.t.cutter_of[self.dealer]

    # ------------------------------------------------------------------ applying actions
    def apply(self, seat: object, action: object) -> tuple[Match, list[Event]]:
        """Apply one action of `seat`; returns the new match and its events. The old match is unchanged.

        >>> from watten_net.engine import Match, Rules, RuleViolation, canonical_deck
        >>> rules = Rules.preset("bavarian")
        >>> match = Match.new(rules).apply_deck(canonical_deck(rules.deck_size))
        >>> after, events = match.apply(3, "cut 10")  # dealer 0: seat 3 cuts, and is shown the card it cut to
        >>> print(*[event.kind for event in events], "|", match.phase, "->", after.phase)
        cut see | cut -> schlecken
        >>> try:
        ...     match.apply(1, "cut 10")
        ... except RuleViolation as refused:
        ...     print(refused.reason, "/", refused)
        not-your-turn / seat 3 cuts
        """
        if not isinstance(seat, int) or not 0 <= seat < self.t.n:  # checked here: a call costs on the hot path
            self._refuse_seat(seat)
        if not isinstance(action, str):
            raise RuleViolation(Reason.MALFORMED, "an action is a string such as 'play HK'")
        cache = self._legal
        legal = cache.get(seat) if cache is not None else None
        if legal is None:
            legal = self.legal_actions(seat)
        if action in legal:
            text = action
        else:
            text = normalise_action(action)
            if text not in legal:
                self._refuse(seat, text)
        card = CARD_OF_PLAY.get(text)
        if card is None:  # every action but a card play
            return self._applied(seat, text)
        # The card play, the most common action by far: taken from the hand here rather than in a method of
        # its own (one call less on the hot path of every playout).
        hands = list(self.hands)
        hand = hands[seat]
        i = 0
        while hand[i] is not card:  # identity: cards are interned, and tuple.index would call Card's rich compare
            i += 1
        hands[seat] = hand[:i] + hand[i + 1:]
        m = self._clone()
        m.hands = tuple(hands)
        events: list[Event] = []
        m.inputs = ((seat, text), self.inputs)
        m._add_to_trick(seat, card, self._pos[card], events)
        m.log = (tuple(events), self.log)
        return m, events

    def _refuse(self, seat: int, text: str) -> None:
        """Raise the most precise RuleViolation for an action that is not legal now."""
        verb, _, arg = text.partition(" ")
        self._refuse_idle(verb, text)
        if verb == Verb.PLAY:
            self._refuse_play(seat, arg)
        if verb == Verb.RAISE:
            if self.raise_pending is not None:
                raise RuleViolation(Reason.RAISE_PENDING, "a raise is already pending")
            if self.schadet_pending:
                raise RuleViolation(Reason.SCHADET_PENDING, "waiting for the partner's answer to 'schadet?'")
            self._refuse_raise(seat)
        if verb == Verb.CONCEDE:
            self._refuse_concede(seat)
        if verb in (Verb.ACCEPT, Verb.FOLD):
            if self.raise_pending is None:
                raise RuleViolation(Reason.NO_RAISE, "there is no raise to answer")
            raise RuleViolation(Reason.OWN_RAISE, "only the other side answers a raise")
        if verb == Verb.SIGNAL:
            self._refuse_signal(seat, arg)
        if verb == Verb.CUT:
            if self.phase != CUT:
                raise RuleViolation(Reason.NOT_NOW, "the deck is not being cut now")
            if seat != self.cutter:
                raise RuleViolation(Reason.NOT_YOUR_TURN, f"seat {self.cutter} cuts")
            self._refuse_bad_cut()
        if self.raise_pending is not None:  # an announcement held by a raise (a play is refused above)
            raise RuleViolation(Reason.RAISE_PENDING, "a raise is pending: it must be accepted or folded first")
        self._refuse_not_waiting(seat)
        if self.phase == ANNOUNCE and self.announce_step == A_SCHLAG and verb == Verb.SCHLAG:
            choices = " ".join(schlag_choices(self.rules))
            raise RuleViolation(Reason.BAD_SCHLAG, f"the Schlag must be one of {choices}")
        if self.phase == ANNOUNCE and self.announce_step == A_TRUMP and verb == Verb.TRUMP:
            raise RuleViolation(Reason.BAD_TRUMP, "the trump is a suit: E, L, H or S")
        raise RuleViolation(Reason.NOT_NOW, f"{text!r} is not possible now")

    def _refuse_play(self, seat: int, arg: str) -> None:
        try:
            card = Card.parse(arg)
        except ValueError as err:
            raise no_card(arg, err) from None
        self._refuse_play_now(seat)
        if card not in self.hands[seat]:
            raise RuleViolation(Reason.CARD_NOT_IN_HAND, f"{card} is not in your hand")
        raise RuleViolation(
            Reason.MUST_PLAY_TRUMP,
            "you must play a trump or a Kritischer (Trumpf oder Kritische)"
            if self.rules.follow == "hauptschlag-lead"
            else "a trump was led: you must play a trump or a Schlag card",
        )

    # -- what the cards decide
    def _show(self, kind: str, seat: int, piece: Card) -> Event:
        return make_event((kind, seat, {"card": piece.text, "position": self._pos[piece]}, (seat,)))

    def _took(self, seat: int, piece: Card, cutter_stage: bool, events: list[Event]) -> None:
        if cutter_stage and piece not in self._f.kritische:
            self.bluff = True

    def _deal_event(self, seat: int, packet: int, got: tuple[Card, ...]) -> Event:
        pos = self._pos
        texts = []
        positions = []
        for card in got:  # a loop, not two comprehensions (see state's docstring)
            texts.append(card.text)
            positions.append(pos[card])
        return make_event(("deal", seat, {"packet": packet, "cards": texts, "positions": positions}, (seat,)))

    def _aside_event(self, seat: int, pieces: tuple[Card, ...]) -> Event:
        return Event("aside", seat, {"count": len(pieces)})

    def _all_cards_dealt(self, events: list[Event]) -> bool:
        """The Maschine: a seat holding every Kritischer wins the hand at once, before the first lead."""
        points = self.rules.maschine_points
        if not points:
            return False
        needed = self._f.kritische
        for seat in self.t.seat_order_from[self.forehand]:
            if needed.issubset(self.hands[seat]):
                events.append(Event("maschine", seat, {"cards": list(self._f.kritische_text)}))
                self._end_hand(self.hand_sides[seat], points, "maschine", events)
                return True
        return False

    def _asked_schadet(self, seat: int, events: list[Event]) -> None:
        pass  # the forehand was offered `schadet?` only because it holds the Hauptschlag

    # ------------------------------------------------------------------ ending a hand
    def _end_hand(self, side: int, points: int, reason: str, events: list[Event]) -> None:
        bluff_penalty = reason == "tricks" and self.bluff and not self.cutter_played_kritisch
        self._score_hand(side, self._capped(side, points, reason), reason, bluff_penalty, events)

    def _redeal(self, seat: int, events: list[Event]) -> None:
        self._add_points(1 - self.hand_sides[seat], 2)
        self._score_redeal(seat, 2, events)

    # ------------------------------------------------------------------ observation
    def observe(self, seat: int, *, history: bool = True) -> Observation:
        """Exactly what `seat` may see now (its own cards, public facts, the events shown to it).

        `history=False` leaves out the match's events (a view of the present only, much cheaper late in a match).

        >>> from watten_net.engine import Match, Rules, canonical_deck
        >>> rules = Rules.preset("bavarian")
        >>> match = Match.new(rules).apply_deck(canonical_deck(rules.deck_size))
        >>> match, _ = match.apply(3, "cut 10")
        >>> match, _ = match.apply(3, "keep")  # the cutter keeps the card it saw; the first packet is dealt
        >>> view = match.observe(1)
        >>> print(*[card.text for card in view.hand])  # seat 1's own cards; of the others' only how many
        L9 L10 LU
        >>> view.hand_counts, view.to_act, view.legal_actions[:2]
        ((3, 3, 3, 3), (1,), ('schlag 7', 'schlag 8'))
        """
        return build_observation(self, seat, history=history)

    # ------------------------------------------------------------------ replay
    @classmethod
    def replay(
        cls,
        rules: Rules,
        inputs: Iterable[tuple[int, str] | tuple[str, Sequence[str]]],
        first_dealer: int = 0,
        start_scores: Sequence[int] | None = None,
    ) -> Match:
        """Rebuild a match from its inputs (`history()`): decks and actions in order."""
        m = cls.new(rules, first_dealer, start_scores)
        for item in inputs:
            who, what = item
            if who == "deck":
                m = m.apply_deck(what)
            elif what == FORFEIT:
                m, _ = m.forfeit(who)
            else:
                m, _ = m.apply(who, what)
        return m


# Match equality: the state, not the caches or logs (the events are compared on their own).
_COMPARED = tuple(name for name in all_slots(Match) if name not in ("_legal", "log", "inputs", "ranking"))
