"""A match of Watten run on public information only: the rules engine of a trustless host (docs/trustless.md).

In a trustless deal nobody, the host included, knows a card until it is opened. `PublicMatch` runs the same
match as `Match` (the same rules: both are a `core.MatchCore`, whose piece for a card is here its deck position)
from what is public: the deck size, the cut, the Schlecken decisions (a taken card stays sealed, its position is
public), the deal map, every announcement, raise and answer, and each played card with the deck position it
was opened from. Positions are numbered like `Match`'s: the deck of the attempt,
top card 0, before the cut; the deal map (the `deal` events) lists them in exactly `Match`'s order.

What the host can check live it refuses live, with a `RuleViolation` like `Match`: turn and phase, that a
played position was dealt to that seat and not played yet, that no card shows up twice, a false Maschine.
What depends on sealed cards it records as an obligation (`obligations.py`) and settles at the end of the
hand: the seats whose obligations are still open are asked to open the positions that decide them
(`openings_wanted`), then every obligation is judged and a breach costs its side the hand.

Decisions
---------
- **Blind is refused** (`RuleViolation(Reason.BLIND_NOT_TRUSTLESS)`): the host must judge every trick from the
  Schlag and the trump, and under `blind` those are hidden from everyone but the announcers; a trustless
  host would either learn them (and could pass them on) or could not judge the tricks. Every other flag works.
- **When a card is opened.** A card is opened when it is played, when a seat shows its Maschine, or at the
  end of a hand to settle an obligation. Only the positions that decide an open obligation are asked for; the
  unplayed cards of every other seat, the cards put aside at a Bessere and the rest of the stack stay sealed.
- **Obligations** (each judged exactly as `Match` would have refused the action live):
  following (`follow`: a card outside the forced set, played where the seat could have held a forcing card:
  the seat must open the cards it still held then), `schadet?` (the asker must have held the Hauptschlag),
  and Schlecken (a taken card must be a Kritischer; with `schlecken_bluff` the cutter's takes are free).
- **The penalty** ("a violation costs its side the hand"): the hand is scored for the side that won it unless
  that side broke an obligation; then the other side scores the hand's points instead (the stake, or
  `maschine_points`, or 2 for a concession; `base-two` caps them for the new winner as usual). When both sides
  broke one, nobody scores the hand. A breach by the side that lost anyway changes nothing but is recorded.
  After a redeal (`bessere = "redeal-penalty"`) the breaking side's opponents score the attempt's value on top
  of the 2 of the redeal. The hand-end event then carries `reason = "violation"`, the `violations` and
  the `decided` outcome it replaced.
- **A seat that does not open** (the host's timeout calls `no_opening`): every obligation it left open counts
  as broken (`not-opened`), and a sealed Schlecken card counts as no Kritischer for the bluff penalty.
- **The bluff penalty** stays the rule of docs/rules.md 5.8, not a violation: when the hand went to its last trick
  and the cutter, who took cards with `schlecken_bluff`, played no Kritischer, the cutter opens the taken cards
  that are still sealed; if one is no Kritischer, the opponents score 2. Without `schlecken_bluff` a non-Kritischer
  take is a breach (a Schlecken obligation) and there is no bluff penalty.
- **Maschine** cannot be detected by the host: a seat claims it with the `maschine` action and the openings of
  all the Kritische from its own positions, at any moment after every card is dealt and before the first card
  is played (where `Match` shows it at once). A false claim is refused live (`not-a-maschine`) and changes
  nothing. A Maschine that was never claimed is a breach (`maschine-not-shown`) when the opened cards prove it:
  every Kritischer opened from one seat's hand as it was when every card was dealt.
- **The raise and the schadet question** that are pending when a hand ends are dropped, as in `Match`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NoReturn

from watten_net.refusal import Reason

from ..cards import Card
from ..core import MatchCore
from ..errors import RuleViolation, no_card
from ..events import Event
from ..notation import ANNOUNCE, CUT, DEAL, FORFEIT, OVER, PLAY, VERBS, Phase, Verb, normalise_action
from ..rules import Rules
from ..state import iter_log
from .obligations import (
    FollowObligation,
    Obligation,
    SchadetObligation,
    SchleckenObligation,
    Verdict,
    Violation,
)
from .views import Outcome, PublicObservation

SETTLE = Phase.SETTLE  # the hand is decided: waiting for the openings its obligations need
NO_OPENING = "no-opening"  # in history(): the host's timeout for a seat that did not open (PublicMatch.no_opening)
SEALED = "sealed"  # in history(): the sealed deck of an attempt, by its size

Openings = Mapping[int, Card | str]  # deck position -> the card opened there (its proof checked by the deal layer)
Input = tuple[Any, ...]  # one item of history()


def _parse_card(value: Card | str) -> Card:
    if isinstance(value, Card):
        return value
    try:
        return Card.parse(value)
    except ValueError as err:
        raise no_card(value, err) from None


class PublicMatch(MatchCore[int]):
    """One match to `rules.target` on public information: `Match`'s rules with a deck position for each card.

    `legal_actions` are the actions the host would accept from a seat now, as far as public information decides:
    `play` stands for any card of `positions_of(seat)`; `maschine` is a claim the seat's cards must back. A client
    that knows its cards asks `legal_plays` for the cards it may play.
    """

    __slots__ = (
        "all_dealt", "card_at", "dealt_hands", "obligations", "opened", "outcome", "silent", "trick_positions",
        "wanted",
    )

    VERBS = VERBS | {Verb.MASCHINE, Verb.OPEN}

    all_dealt: bool
    dealt_hands: tuple[tuple[tuple[int, ...], ...], ...]  # every seat's hand at each moment all cards were dealt
    opened: dict[int, Card]  # replaced, never changed in place: position -> card, every card opened this attempt
    card_at: dict[Card, int]  # the inverse of `opened`
    obligations: tuple[Obligation, ...]
    trick_positions: tuple[int, ...]  # the positions the cards of the current trick were opened from
    # Settling the hand.
    outcome: Outcome | None
    wanted: dict[int, tuple[int, ...]]  # replaced, never changed in place: seat -> positions it must open
    silent: frozenset[int]  # seats that did not open what they were asked for

    # ------------------------------------------------------------------ construction
    @classmethod
    def _check_rules(cls, rules: Rules) -> None:
        if rules.blind:
            raise RuleViolation(
                Reason.BLIND_NOT_TRUSTLESS,
                "blind cannot be played with a trustless deal: the host must judge the tricks by the Schlag and "
                "the trump, which blind hides from everyone but the announcers",
            )

    def _clone(self) -> PublicMatch:
        """A copy of this state to change: the shared state's slots, then the public engine's own."""
        m = self._copied_into(PublicMatch())
        m.all_dealt, m.card_at, m.dealt_hands = self.all_dealt, self.card_at, self.dealt_hands
        m.obligations, m.opened, m.outcome = self.obligations, self.opened, self.outcome
        m.silent, m.trick_positions, m.wanted = self.silent, self.trick_positions, self.wanted
        return m

    def _reset_attempt(self) -> None:
        self.all_dealt, self.dealt_hands = False, ()
        self.opened, self.card_at = {}, {}
        self.obligations = ()
        self.trick_positions = ()
        self.outcome, self.wanted, self.silent = None, {}, frozenset()

    # ------------------------------------------------------------------ public facts
    @property
    def size(self) -> int:
        """The number of positions of this attempt's sealed deck (0 while it is being made)."""
        return len(self.deck) if self.deck is not None else 0

    def positions_of(self, seat: int) -> tuple[int, ...]:
        """The positions `seat` holds now (dealt or taken, not played, not put aside)."""
        return self.hands[seat]

    @property
    def openings_wanted(self) -> dict[int, tuple[int, ...]]:
        """While settling a hand: the positions each seat must open (seat -> positions)."""
        return dict(self.wanted)

    def history(self) -> list[Input]:
        """The inputs of the match in order, for `replay`: `("sealed", size)`, `(seat, action)`, `(seat, "play C",
        position)`, `(seat, "maschine" | "open", ((position, card), ...))`, `(seat, "forfeit" | "no-opening")`."""
        return iter_log(self.inputs)

    @property
    def waiting_for(self) -> tuple[int, ...]:
        if self.phase == SETTLE:
            return tuple(self.wanted)
        return super().waiting_for

    # ------------------------------------------------------------------ chance
    def apply_sealed_deck(self, size: int) -> PublicMatch:
        """The shuffled, encrypted deck of this attempt is ready: `size` positions whose cards nobody knows."""
        self._refuse_deck()
        if size != self.rules.deck:
            raise ValueError(f"these rules play with {self.rules.deck} cards, not {size}")
        return self._with_deck(tuple(range(size)), (SEALED, size))

    # ------------------------------------------------------------------ legal actions
    def _compute_legal(self, seat: int) -> list[str]:
        if self.phase == SETTLE:
            return ["open"] if seat in self.wanted else []
        out = super()._compute_legal(seat)
        if self._maschine_window() and len(self.hands[seat]) >= len(self._f.kritische):
            return [*out, "maschine"]
        return out

    def _plays(self, seat: int) -> list[str]:
        return ["play"]  # any card of positions_of(seat): whether it may be played is an obligation (_play)

    def _may_hold_hauptschlag(self, seat: int) -> bool:
        # Holding it is what the question claims: an obligation (see _asked_schadet).
        assert self.ranking is not None
        return self.ranking.hauptschlag is not None

    def _may_take_seen(self) -> bool:
        return True  # the card is sealed: a take the rules forbid is an obligation (see _took)

    def _maschine_window(self) -> bool:
        """A Maschine may be claimed once every card is dealt and until the first card is played (not while a
        raise or a `schadet?` waits for its answer: then nothing else happens)."""
        return (
            bool(self.rules.maschine_points) and self.all_dealt and self.played_cards == 0
            and self.phase in (ANNOUNCE, PLAY) and self.raise_pending is None and not self.schadet_pending
        )

    def legal_plays(self, seat: int, hand: Mapping[int, Card | str]) -> list[tuple[int, Card]]:
        """For a client that knows its cards (`hand`: position -> card of its unplayed positions): the
        `(position, card)` it may play now, exactly the cards `Match` would allow."""
        if self.phase != PLAY or seat != self.turn or self.raise_pending is not None or self.schadet_pending:
            return []
        cards = {p: _parse_card(c) for p, c in hand.items()}
        if set(cards) != set(self.hands[seat]):
            raise ValueError(f"seat {seat} holds positions {sorted(self.hands[seat])}, not {sorted(cards)}")
        allowed = self._playable(list(cards.values()))
        return [(p, c) for p, c in cards.items() if c in allowed]

    def _playable(self, hand: Sequence[Card]) -> Sequence[Card]:
        assert self.ranking is not None
        if not self.trick:
            return hand
        return self.ranking.playable(hand, self.trick, not self.tricks, True, not self.schadet_asked)

    # ------------------------------------------------------------------ applying actions
    def apply(
        self,
        seat: object,
        action: object,
        *,
        position: object = None,
        openings: Openings | None = None,
    ) -> tuple[PublicMatch, list[Event]]:
        """Apply one action of `seat`. `play C` needs the `position` the card was opened from; `maschine` and
        `open` need the `openings` (position -> card). Returns the new match and its events."""
        seat = self._check_seat(seat)
        if not isinstance(action, str):
            raise RuleViolation(Reason.MALFORMED, "an action is a string such as 'play HK'")
        text = normalise_action(action)
        verb, _, arg = text.partition(" ")
        if verb == Verb.PLAY:
            return self._apply_play(seat, arg, position)
        if position is not None:
            raise RuleViolation(Reason.MALFORMED, "only 'play' takes a position")
        if verb in (Verb.MASCHINE, Verb.OPEN):
            if self.phase in (DEAL, OVER):
                self._refuse(seat, text)
            if openings is None:
                raise RuleViolation(Reason.MALFORMED, f"'{verb}' needs the openings of its cards")
            opened = self._parse_openings(openings)
            return self._apply_maschine(seat, opened) if verb == Verb.MASCHINE else self._apply_open(seat, opened)
        if openings is not None:
            raise RuleViolation(Reason.MALFORMED, "only 'maschine' and 'open' take openings")
        if text not in self.legal_actions(seat):
            self._refuse(seat, text)
        return self._applied(seat, text)

    def claim_maschine(self, seat: object, openings: Openings) -> tuple[PublicMatch, list[Event]]:
        return self.apply(seat, "maschine", openings=openings)

    def open_cards(self, seat: object, openings: Openings) -> tuple[PublicMatch, list[Event]]:
        return self.apply(seat, "open", openings=openings)

    def _refuse(self, seat: int, text: str) -> NoReturn:
        """Raise a precise RuleViolation (Match's reasons) for an action that public information refuses."""
        verb, _, arg = text.partition(" ")
        self._refuse_idle(verb, text)
        phase = self.phase
        if phase == SETTLE:
            raise RuleViolation(Reason.SETTLING, "the hand is over: waiting for the cards its obligations need opened")
        if self.raise_pending is not None and verb not in (Verb.ACCEPT, Verb.FOLD):
            raise RuleViolation(Reason.RAISE_PENDING, "a raise is pending: it must be accepted or folded first")
        if phase == PLAY and self.schadet_pending and verb != Verb.SCHADET:
            raise RuleViolation(Reason.SCHADET_PENDING, "waiting for the partner's answer to 'schadet?'")
        if verb == Verb.RAISE:
            self._refuse_raise(seat)
        if verb == Verb.CONCEDE:
            self._refuse_concede(seat)
        if verb == Verb.SIGNAL:
            self._refuse_signal(seat, arg)
        if verb in (Verb.ACCEPT, Verb.FOLD) and self.raise_pending is None:
            raise RuleViolation(Reason.NO_RAISE, "there is no raise to answer")
        self._refuse_not_waiting(seat)
        if verb == Verb.CUT and phase == CUT:
            self._refuse_bad_cut()
        raise RuleViolation(Reason.NOT_NOW, f"{text!r} is not possible now")

    def _parse_openings(self, openings: Openings) -> dict[int, Card]:
        if not isinstance(openings, Mapping) or not openings:
            raise RuleViolation(Reason.MALFORMED, "openings map deck positions to the cards opened there")
        parsed: dict[int, Card] = {}
        for position, card in openings.items():
            if not isinstance(position, int) or not 0 <= position < self.size:
                raise RuleViolation(Reason.MALFORMED, f"no deck position {position!r}")
            parsed[position] = _parse_card(card)
        if len(set(parsed.values())) != len(parsed):
            raise RuleViolation(Reason.CARD_SEEN_TWICE, "the same card cannot be opened at two positions")
        return parsed

    def _check_opening(self, position: int, card: Card) -> None:
        """Each card once: an opened card must not have shown up at another position of this deck."""
        if card not in self._f.deck_set:
            raise RuleViolation(Reason.NOT_IN_DECK, f"{card} is not in a {self.size}-card deck")
        known = self.opened.get(position)
        if known is not None and known is not card:
            raise RuleViolation(Reason.OPENING_MISMATCH, f"position {position} was opened as {known}, not {card}")
        where = self.card_at.get(card)
        if where is not None and where != position:
            raise RuleViolation(Reason.CARD_SEEN_TWICE, f"{card} was already opened at position {where}")

    def _record_openings(self, cards: Mapping[int, Card]) -> None:
        self.opened = {**self.opened, **cards}
        self.card_at = {**self.card_at, **{card: p for p, card in cards.items()}}

    # -- what public information records for a sealed card
    def _show(self, kind: str, seat: int, piece: int) -> Event:
        # Public: everybody knows which position is shown or taken; only the seat learns its card.
        return Event(kind, seat, {"position": piece})

    def _took(self, seat: int, piece: int, cutter_stage: bool, events: list[Event]) -> None:
        if not (cutter_stage and self.rules.schlecken_bluff):
            self._oblige(SchleckenObligation(seat, -1, (piece,), self._f.kritische), events)

    def _deal_event(self, seat: int, packet: int, got: tuple[int, ...]) -> Event:
        # The deal map is public: every seat may check which positions went where.
        return Event("deal", seat, {"packet": packet, "positions": list(got)})

    def _aside_event(self, seat: int, pieces: tuple[int, ...]) -> Event:
        # Put aside sealed, for good: the positions are public, the cards are never opened.
        return Event("aside", seat, {"count": len(pieces), "positions": list(pieces)})

    def _all_cards_dealt(self, events: list[Event]) -> bool:
        """Where Match looks for a Maschine, a seat may now claim one (the host cannot see it)."""
        self.all_dealt = True
        self.dealt_hands = (*self.dealt_hands, self.hands)
        return False

    def _asked_schadet(self, seat: int, events: list[Event]) -> None:
        assert self.ranking is not None and self.ranking.hauptschlag is not None
        self._oblige(SchadetObligation(seat, 0, self.hands[seat], self.ranking.hauptschlag), events)

    # -- play
    def _apply_play(self, seat: int, arg: str, position: object) -> tuple[PublicMatch, list[Event]]:
        card = _parse_card(arg)
        self._check_play(seat, card, position)
        assert isinstance(position, int)
        m = self._clone()
        events: list[Event] = []
        m.inputs = ((seat, "play " + card.text, position), self.inputs)
        m._play(seat, position, card, events)
        m.log = (tuple(events), self.log)
        return m, events

    def _check_play(self, seat: int, card: Card, position: object) -> None:
        """Everything public information says about a card play; raises the most precise RuleViolation."""
        if self.phase in (DEAL, OVER, SETTLE):
            self._refuse(seat, "play " + card.text)
        self._refuse_play_now(seat)
        if not isinstance(position, int) or isinstance(position, bool):
            raise RuleViolation(Reason.NO_POSITION, "a played card comes with the deck position it was opened from")
        if position not in self.hands[seat]:
            raise self._foreign_position(seat, position)
        self._check_opening(position, card)

    def _foreign_position(self, seat: int, position: int) -> RuleViolation:
        """Why `position` is not one `seat` may open now (it holds only `positions_of(seat)`)."""
        for other, held in enumerate(self.hands):
            if position in held:
                return RuleViolation(Reason.NOT_YOUR_POSITION, f"position {position} was dealt to seat {other}")
        if position in self.opened:  # while cards are played, opened and not held means played
            return RuleViolation(Reason.POSITION_PLAYED, f"the card at position {position} was played already")
        if position in self.aside:
            return RuleViolation(Reason.POSITION_ASIDE, f"position {position} was put aside at the Bessere")
        return RuleViolation(Reason.NOT_YOUR_POSITION, f"position {position} was not dealt to seat {seat}")

    def _play(self, seat: int, position: int, card: Card, events: list[Event]) -> None:
        self._oblige_to_follow(seat, position, card, events)
        hands = list(self.hands)
        hands[seat] = tuple(p for p in hands[seat] if p != position)
        self.hands = tuple(hands)
        self._record_openings({position: card})
        positions = (*self.trick_positions, position)
        self.trick_positions = positions if len(positions) < self.t.n else ()  # a full trick is over
        self._add_to_trick(seat, card, position, events)

    def _oblige_to_follow(self, seat: int, position: int, card: Card, events: list[Event]) -> None:
        """Record a follow obligation when the card is legal only if the seat held no forcing card.

        Judged against every card the seat might hold (all not yet opened elsewhere): if even that hand may play
        the card, any real hand may, and nothing is owed.
        """
        if not self.trick:
            return
        possible = [c for c in self._f.deck if c is card or c not in self.card_at]
        if card in self._playable(possible):
            return
        assert self.ranking is not None
        scope = tuple(p for p in self.hands[seat] if p != position)
        self._oblige(FollowObligation(
            seat, len(self.tricks), scope, self.ranking, self.trick, card, not self.tricks, not self.schadet_asked,
        ), events)

    def _oblige(self, obligation: Obligation, events: list[Event]) -> None:
        self.obligations = (*self.obligations, obligation)
        events.append(Event("obligation", obligation.seat, obligation.to_dict()))

    # -- Maschine
    def _apply_maschine(self, seat: int, cards: dict[int, Card]) -> tuple[PublicMatch, list[Event]]:
        if not self.rules.maschine_points:
            raise RuleViolation(Reason.NO_MASCHINE, "a Maschine scores nothing at this table (maschine_points = 0)")
        if not self._maschine_window():
            raise RuleViolation(Reason.NOT_NOW,
                                "a Maschine is shown once every card is dealt and before the first card")
        for position in cards:
            if position not in self.hands[seat]:
                raise self._foreign_position(seat, position)
        if set(cards.values()) != self._f.kritische:
            shown = " ".join(sorted(c.text for c in cards.values()))
            needed = " ".join(self._f.kritische_text)
            raise RuleViolation(Reason.NOT_A_MASCHINE, f"a Maschine is all of {needed}, not {shown}")
        for position, card in cards.items():
            self._check_opening(position, card)
        m = self._clone()
        events = [Event("maschine", seat, {
            "cards": list(self._f.kritische_text), "positions": [p for c in self.rules.kritische_cards
                                                              for p, k in cards.items() if k is c],
        })]
        m.inputs = ((seat, "maschine", tuple((p, c.text) for p, c in cards.items())), self.inputs)
        m._record_openings(cards)
        m._end_hand(self.hand_sides[seat], self.rules.maschine_points, "maschine", events)
        m.log = (tuple(events), self.log)
        return m, events

    # ------------------------------------------------------------------ settling a hand
    def _end_hand(self, side: int, points: int, reason: str, events: list[Event]) -> None:
        self._settle(Outcome(side, points, reason), events)

    def _redeal(self, seat: int, events: list[Event]) -> None:
        self._settle(Outcome(1 - self.hand_sides[seat], 2, "redeal", seat), events)

    def _settle(self, outcome: Outcome, events: list[Event]) -> None:
        """Where Match ends a hand (or redeals): first the openings that its obligations need, then the score."""
        self.outcome = outcome
        self.raise_pending = None
        self.schadet_pending = False
        wanted = self._openings_needed(outcome)
        if not wanted:
            self._conclude(events)
            return
        self.phase = SETTLE
        self.wanted = wanted
        events.append(Event("open?", -1, {"positions": {str(s): list(p) for s, p in wanted.items()}}))

    def _openings_needed(self, outcome: Outcome) -> dict[int, tuple[int, ...]]:
        need: dict[int, set[int]] = {}
        for obligation in self.obligations:
            if obligation.judge(self.opened) is Verdict.OPEN:
                need.setdefault(obligation.seat, set()).update(obligation.sealed(self.opened))
        bluff = self._bluff_sealed(outcome)
        if bluff:
            need.setdefault(self.cutter, set()).update(bluff)
        return {seat: tuple(sorted(need[seat])) for seat in sorted(need)}

    def _bluff_possible(self, outcome: Outcome) -> bool:
        """Match's bluff penalty needs a look at the cutter's taken cards (docs/rules.md 5.8)."""
        return (
            outcome.reason == "tricks" and self.rules.schlecken_bluff and bool(self.taken[self.cutter])
            and not self.cutter_played_kritisch
        )

    def _bluff_sealed(self, outcome: Outcome) -> tuple[int, ...]:
        if not self._bluff_possible(outcome) or self._bluff_shown():
            return ()
        return tuple(p for p in self.taken[self.cutter] if p not in self.opened)

    def _bluff_shown(self) -> bool:
        """A taken card opened and no Kritischer, or sealed by a seat that would not open it."""
        for position in self.taken[self.cutter]:
            card = self.opened.get(position)
            if card is not None and card not in self._f.kritische:
                return True
            if card is None and self.cutter in self.silent:
                return True
        return False

    def _apply_open(self, seat: int, cards: dict[int, Card]) -> tuple[PublicMatch, list[Event]]:
        if self.phase != SETTLE:
            raise RuleViolation(Reason.NOT_NOW, "cards are opened at the end of a hand, when the host asks for them")
        wanted = self.wanted.get(seat)
        if wanted is None:
            raise RuleViolation(Reason.NOTHING_TO_OPEN, f"seat {seat} has nothing to open")
        if set(cards) != set(wanted):
            raise RuleViolation(Reason.WRONG_POSITIONS, f"open exactly positions {' '.join(map(str, wanted))}")
        for position, card in cards.items():
            self._check_opening(position, card)
        m = self._clone()
        events = [Event("opened", seat, {"positions": sorted(cards), "cards": [cards[p].text for p in sorted(cards)]})]
        m.inputs = ((seat, "open", tuple((p, c.text) for p, c in sorted(cards.items()))), self.inputs)
        m._record_openings(cards)
        m._answered(seat, events)
        m.log = (tuple(events), self.log)
        return m, events

    def no_opening(self, seat: object) -> tuple[PublicMatch, list[Event]]:
        """The host's timeout: `seat` did not open what it was asked for. What it left sealed counts against it."""
        seat = self._check_seat(seat)
        if self.phase != SETTLE or seat not in self.wanted:
            raise RuleViolation(Reason.NOTHING_TO_OPEN, f"seat {seat} has nothing to open now")
        m = self._clone()
        events = [Event("not-opened", seat, {"positions": list(self.wanted[seat])})]
        m.inputs = ((seat, NO_OPENING), self.inputs)
        m.silent = self.silent | {seat}
        m._answered(seat, events)
        m.log = (tuple(events), self.log)
        return m, events

    def _answered(self, seat: int, events: list[Event]) -> None:
        self.wanted = {s: p for s, p in self.wanted.items() if s != seat}
        if not self.wanted:
            self._conclude(events)

    def _violations(self) -> list[Violation]:
        found = []
        for obligation in self.obligations:
            verdict = obligation.judge(self.opened)
            if verdict is Verdict.BROKEN:
                found.append(Violation(obligation.seat, obligation.reason, obligation.describe(), obligation.trick))
            elif verdict is Verdict.OPEN:
                sealed = " ".join(map(str, obligation.sealed(self.opened)))
                message = f"seat {obligation.seat} did not open positions {sealed}: {obligation.describe()}"
                found.append(Violation(obligation.seat, "not-opened", message, obligation.trick))
        hidden = self._hidden_maschine()
        if hidden is not None:
            found.append(Violation(hidden, "maschine-not-shown",
                                   f"seat {hidden} held all the Kritische and did not show its Maschine"))
        return found

    def _hidden_maschine(self) -> int | None:
        """A seat whose hand, when every card was dealt, holds every Kritischer among the opened cards."""
        if not self.rules.maschine_points or (self.outcome is not None and self.outcome.reason == "maschine"):
            return None
        for hands in self.dealt_hands:
            for seat, held in enumerate(hands):
                if self._f.kritische.issubset(self.opened[p] for p in held if p in self.opened):
                    return seat
        return None

    def _conclude(self, events: list[Event]) -> None:
        outcome = self.outcome
        assert outcome is not None
        violations = self._violations()
        for violation in violations:
            events.append(Event("violation", violation.seat, violation.to_dict()))
        broke = {self.hand_sides[v.seat] for v in violations}
        self.outcome, self.wanted = None, {}
        if outcome.reason == "redeal":
            self._conclude_redeal(outcome, broke, violations, events)
        else:
            self._conclude_hand(outcome, broke, violations, events)

    def _conclude_hand(self, outcome: Outcome, broke: set[int], violations: list[Violation],
                       events: list[Event]) -> None:
        side, reason = outcome.side, outcome.reason
        if side in broke:  # the winners broke an obligation: the hand is theirs no more
            side = -1 if len(broke) == 2 else 1 - side
            reason = "violation"
        points = self._capped(side, outcome.points, outcome.reason) if side >= 0 else 0
        extra = None
        if violations:
            extra = {
                "violations": [v.to_dict() for v in violations],
                "decided": {"side": outcome.side, "points": outcome.points, "reason": outcome.reason},
            }
        bluff_penalty = self._bluff_possible(outcome) and self._bluff_shown()
        self._score_hand(side, points, reason, bluff_penalty, events, extra)

    def _conclude_redeal(self, outcome: Outcome, broke: set[int], violations: list[Violation],
                         events: list[Event]) -> None:
        self._add_points(outcome.side, outcome.points)
        first = self._reached()  # the redeal's own points count first (docs/rules.md 7: one winner)
        if len(broke) == 1:  # the attempt is lost to the side that kept its obligations
            self._add_points(1 - next(iter(broke)), self.value)
        extra = {"violations": [v.to_dict() for v in violations]} if violations else None
        self._score_redeal(outcome.seat, outcome.points, events, extra, first)

    # ------------------------------------------------------------------ observation and replay
    def observe(self, seat: object, *, history: bool = True) -> PublicObservation:
        """What `seat` may see: every public fact, its own positions, the events shown to it (`history=False`:
        none, a view of the present only, as `Match.observe`)."""
        seat = self._check_seat(seat)
        return PublicObservation(
            seat=seat, phase=self.phase, hand_number=self.hand_number, attempt=self.attempt, dealer=self.dealer,
            forehand=self.forehand, cutter=self.cutter, hand_sides=self.hand_sides, scores=self.scores,
            bummerl=self.bummerl, positions=self.hands[seat], partners=self.t.hand_partners_of[self.dealer][seat],
            announce_step=self.announce_step if self.phase == ANNOUNCE else None,
            hand_counts=tuple(map(len, self.hands)),
            taken_counts=tuple(map(len, self.taken)), schlag=self.schlag, trump=self.trump, value=self.value,
            raise_pending=self.raise_pending,
            current_trick=tuple(zip(self.trick_seats, self.trick_positions, self.trick, strict=True)),
            tricks=self.tricks, tricks_won=self.tricks_won, to_act=self.waiting_for,
            legal_actions=tuple(self.legal_actions(seat)), openings_wanted=self.wanted.get(seat, ()),
            obligations=self.obligations, match_over=self.is_over,
            events=tuple(e for e in self.events() if e.visible_to(seat)) if history else (),
        )

    @classmethod
    def replay(
        cls,
        rules: Rules,
        inputs: Iterable[Input],
        first_dealer: int = 0,
        start_scores: Sequence[int] | None = None,
        *,
        bummerl: Sequence[int] | None = None,
    ) -> PublicMatch:
        """Rebuild a match from its inputs (`history()`); `bummerl` as the series stood at its start."""
        m = cls.new(rules, first_dealer, start_scores, bummerl=bummerl)
        for item in inputs:
            who, what, *detail = item
            if who == SEALED:
                m = m.apply_sealed_deck(what)
            elif what == FORFEIT:
                m, _ = m.forfeit(who)
            elif what == NO_OPENING:
                m, _ = m.no_opening(who)
            elif what in ("maschine", "open"):
                m, _ = m.apply(who, what, openings=dict(detail[0]))
            else:
                m, _ = m.apply(who, what, position=detail[0] if detail else None)
        return m
