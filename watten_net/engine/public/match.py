"""A match of Watten run on public information only: the rules engine of a trustless host (PROTOCOL.md Level 2).

In a trustless deal nobody, the host included, knows a card until it is opened. `PublicMatch` runs the same
match as `Match` from what is public: the deck size, the cut, the Schlecken decisions (a taken card stays
sealed, its position is public), the deal map, every announcement, raise and answer, and each played card
with the deck position it was opened from. Positions are numbered like `Match`'s: the deck of the attempt,
top card 0, before the cut; the deal map (the `deal` events) lists them in exactly `Match`'s order.

What the host can check live it refuses live, with a `RuleViolation` like `Match`: turn and phase, that a
played position was dealt to that seat and not played yet, that no card shows up twice, a false Maschine.
What depends on sealed cards it records as an obligation (`obligations.py`) and settles at the end of the
hand: the seats whose obligations are still open are asked to open the positions that decide them
(`openings_wanted`), then every obligation is judged and a breach costs its side the hand.

Decisions
---------
- **Blind is refused** (`RuleViolation("blind-not-trustless")`): the host must judge every trick from the
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
- **The bluff penalty** stays the rule of RULES.md 5.8, not a violation: when the hand went to its last trick
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

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from ..cards import Card, canonical_deck
from ..core import MAX_SIGNALS_PER_HAND, Log
from ..core import Facts as _Facts
from ..core import facts as _facts
from ..core import iter_log as _iter_log
from ..errors import RuleViolation
from ..events import Event
from ..notation import (
    A_BESSERE,
    A_SCHLAG,
    A_SWAP,
    A_TRUMP,
    ANNOUNCE,
    CUT,
    DEAL,
    FORFEIT,
    OVER,
    PLAY,
    SCHLECKEN,
    normalise_action,
)
from ..ranking import Ranking, ranking
from ..rules import SIGNAL_NAMES, Rules
from ..table import Table, table_for
from .obligations import (
    FollowObligation,
    Obligation,
    SchadetObligation,
    SchleckenObligation,
    Verdict,
    Violation,
)

SETTLE = "settle"  # the hand is decided: waiting for the openings its obligations need
NO_OPENING = "no-opening"  # in history(): the host's timeout for a seat that did not open (PublicMatch.no_opening)
SEALED = "sealed"  # in history(): the sealed deck of an attempt, by its size

_SIGNALS = tuple("signal " + name for name in SIGNAL_NAMES)
_TRUMPS = ("trump E", "trump L", "trump H", "trump S")
_NO_CAP = 1 << 30
_KNOWN_VERBS = frozenset({
    "cut", "take", "keep", "swap?", "swap", "bessere?", "bessere", "schlag", "trump", "raise", "accept", "fold",
    "concede", "schadet?", "schadet", "play", "signal", "maschine", "open",
})

Openings = Mapping[int, Card | str]  # deck position -> the card opened there (its proof checked by the deal layer)
Input = tuple[Any, ...]  # one item of history()


@dataclass(frozen=True)
class Outcome:
    """How a hand (or a deal attempt) was decided, before its obligations are settled."""

    side: int  # the winning hand side; for a redeal the side that scores the redeal penalty
    points: int  # as Match would score them, before base-two's cap
    reason: str  # tricks, fold, concede, maschine, forfeit; "redeal" for a Bessere redeal
    seat: int = -1  # the seat that called a redeal


@dataclass(frozen=True)
class PublicObservation:
    """What one seat may see of a public match: public facts, its own positions and the events shown to it.

    The seat's client adds its cards (it holds the decrypted deal); the host itself never knows them.
    """

    seat: int
    phase: str
    hand_number: int
    attempt: int
    dealer: int
    forehand: int
    cutter: int
    hand_sides: tuple[int, ...]
    scores: tuple[int, ...]
    bummerl: tuple[int, ...]
    positions: tuple[int, ...]  # this seat's unplayed positions
    hand_counts: tuple[int, ...]
    taken_counts: tuple[int, ...]
    schlag: str | None
    trump: str | None
    value: int
    raise_pending: tuple[int, int] | None
    current_trick: tuple[tuple[int, int, Card], ...]  # (seat, position, card) in play order
    tricks: tuple[tuple[int, tuple[Card, ...], int], ...]
    tricks_won: tuple[int, int]
    to_act: tuple[int, ...]
    legal_actions: tuple[str, ...]
    openings_wanted: tuple[int, ...]  # positions this seat must open now
    obligations: tuple[Obligation, ...]  # every obligation of this hand (public facts)
    match_over: bool
    events: tuple[Event, ...]


def _parse_card(value: Card | str) -> Card:
    if isinstance(value, Card):
        return value
    try:
        return Card.parse(value)
    except ValueError as err:
        raise RuleViolation("malformed", str(err)) from None


class PublicMatch:
    """One match to `rules.target` on public information: `Match`'s state machine without the deck."""

    rules: Rules
    t: Table
    f: _Facts
    deck_cards: tuple[Card, ...]  # the canonical deck of these rules
    deck_set: frozenset[Card]
    first_dealer: int
    scores: tuple[int, ...]
    bummerl: tuple[int, ...]
    match_number: int
    hand_number: int
    attempt: int
    dealer: int
    phase: str
    needs_deck: bool
    is_over: bool
    winners: tuple[int, ...]
    series_over: bool
    log: Log
    inputs: Log
    # The deal attempt, in deck positions (top card 0 before the cut).
    size: int
    lifted: tuple[int, ...]
    rest: tuple[int, ...]
    schlecken_seat: int
    seen_index: int
    taken: tuple[tuple[int, ...], ...]
    stack: tuple[int, ...]
    aside: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]  # unplayed positions per seat, in the order received
    all_dealt: bool
    dealt_hands: tuple[tuple[tuple[int, ...], ...], ...]  # every seat's hand at each moment all cards were dealt
    opened: dict[int, Card]  # replaced, never changed in place: position -> card, every card opened this attempt
    card_at: dict[Card, int]  # the inverse of `opened`
    obligations: tuple[Obligation, ...]
    # The hand, as in Match.
    hand_sides: tuple[int, ...]
    side_slots: tuple[tuple[int, ...], ...]
    gespannt: tuple[bool, bool]
    raise_limit: tuple[int, int]
    concede_ok: tuple[bool, bool]
    announce_step: str
    announcer_turn: int
    swap_asked: bool
    swapped: bool
    bessere_asked: bool
    schlag: str | None
    trump: str | None
    ranking: Ranking | None
    value: int
    raise_pending: tuple[int, int] | None
    last_raise_side: int
    schadet_asked: bool
    schadet_pending: bool
    leader: int
    turn: int
    trick: tuple[Card, ...]
    trick_seats: tuple[int, ...]
    trick_positions: tuple[int, ...]
    tricks: tuple[tuple[int, tuple[Card, ...], int], ...]
    tricks_won: tuple[int, int]
    played_cards: int
    cutter_played_kritisch: bool
    signals_sent: tuple[int, ...]
    # Settling the hand.
    outcome: Outcome | None
    wanted: dict[int, tuple[int, ...]]  # replaced, never changed in place: seat -> positions it must open
    silent: frozenset[int]  # seats that did not open what they were asked for

    # ------------------------------------------------------------------ construction
    def __init__(self) -> None:
        raise TypeError("use PublicMatch.new(rules)")

    @classmethod
    def new(
        cls,
        rules: Rules,
        first_dealer: int = 0,
        start_scores: Sequence[int] | None = None,
        *,
        bummerl: Sequence[int] | None = None,
    ) -> PublicMatch:
        """A match waiting for its first sealed deck (arguments as `Match.new`)."""
        if rules.blind:
            raise RuleViolation(
                "blind-not-trustless",
                "blind cannot be played with a trustless deal: the host must judge the tricks by the Schlag and "
                "the trump, which blind hides from everyone but the announcers",
            )
        table = table_for(rules)
        if not isinstance(first_dealer, int) or not 0 <= first_dealer < rules.players:
            raise ValueError(f"first_dealer must be a seat 0..{rules.players - 1}")
        scores = tuple(start_scores) if start_scores is not None else (0,) * table.score_slots
        if len(scores) != table.score_slots or any(not isinstance(s, int) or s < 0 for s in scores):
            raise ValueError(f"start_scores needs {table.score_slots} points of 0 or more")
        if any(s >= rules.target for s in scores):
            raise ValueError("start_scores must be below the target")
        marks = tuple(bummerl) if bummerl is not None else (0,) * table.score_slots
        if len(marks) != table.score_slots:
            raise ValueError(f"bummerl needs {table.score_slots} counts")
        m = object.__new__(cls)
        m.rules, m.t, m.f = rules, table, _facts(rules)
        m.deck_cards = canonical_deck(rules.deck)
        m.deck_set = frozenset(m.deck_cards)
        m.first_dealer = m.dealer = first_dealer
        m.scores, m.bummerl = scores, marks
        m.match_number = m.hand_number = m.attempt = 0
        m.winners, m.series_over, m.is_over = (), False, False
        m.log = m.inputs = None
        events: list[Event] = []
        m._start_attempt(events)
        m.log = (tuple(events), None)
        return m

    def next_match(self) -> PublicMatch:
        """After a match ends: the next match of the series (scores back to 0, Bummerl kept)."""
        if self.phase != OVER:
            raise RuleViolation("match-not-over", "the match is still being played")
        if self.series_over:
            raise RuleViolation("series-over", "the series is over: a side has reached the Bummerl limit")
        m = PublicMatch.new(self.rules, (self.dealer + 1) % self.t.n, bummerl=self.bummerl)
        m.match_number = self.match_number + 1
        return m

    def _clone(self) -> PublicMatch:
        # Every container in the state is a tuple, a frozenset or a dict that is replaced rather than changed,
        # so a shallow copy is a new state that shares all it does not change.
        return copy.copy(self)

    # ------------------------------------------------------------------ public facts
    @property
    def forehand(self) -> int:
        return self.t.forehand_of[self.dealer]

    @property
    def cutter(self) -> int:
        return self.t.cutter_of[self.dealer]

    @property
    def announcers(self) -> tuple[int, ...]:
        return self.t.announcers_of[self.dealer]

    def score(self, seat: int) -> int:
        return self.scores[self.t.slot_of[seat]]

    def positions_of(self, seat: int) -> tuple[int, ...]:
        """The positions `seat` holds now (dealt or taken, not played, not put aside)."""
        return self.hands[seat]

    @property
    def openings_wanted(self) -> dict[int, tuple[int, ...]]:
        """While settling a hand: the positions each seat must open (seat -> positions)."""
        return dict(self.wanted)

    def events(self) -> list[Event]:
        return [event for step in _iter_log(self.log) for event in step]

    def history(self) -> list[Input]:
        """The inputs of the match in order, for `replay`: `("sealed", size)`, `(seat, action)`, `(seat, "play C",
        position)`, `(seat, "maschine" | "open", ((position, card), ...))`, `(seat, "forfeit" | "no-opening")`."""
        return _iter_log(self.inputs)

    @property
    def waiting_for(self) -> tuple[int, ...]:
        phase = self.phase
        if phase == PLAY:
            if self.raise_pending is not None:
                return self.t.answerers_of[self.dealer][self.raise_pending[1]]
            if self.schadet_pending:
                return self.t.partners[self.forehand]
            return (self.turn,)
        if phase == ANNOUNCE:
            return (self.announcer_turn,)
        if phase == CUT:
            return (self.cutter,)
        if phase == SCHLECKEN:
            return (self.schlecken_seat,)
        if phase == SETTLE:
            return tuple(self.wanted)
        return ()

    def __repr__(self) -> str:
        return (f"<PublicMatch {self.rules.players}p hand {self.hand_number}.{self.attempt} phase {self.phase} "
                f"scores {self.scores}>")

    # ------------------------------------------------------------------ hand set-up
    def _start_attempt(self, events: list[Event]) -> None:
        table, dealer, n = self.t, self.dealer, self.t.n
        self.phase, self.needs_deck = DEAL, True
        self.size = 0
        self.lifted = self.rest = self.stack = self.aside = ()
        self.schlecken_seat = self.seen_index = -1
        self.taken = self.hands = ((),) * n
        self.all_dealt, self.dealt_hands = False, ()
        self.opened, self.card_at = {}, {}
        self.obligations = ()
        self.hand_sides = table.sides_of[dealer]
        self.side_slots = table.side_slots_of[dealer]
        self._set_stakes()
        self.announce_step, self.announcer_turn = A_SCHLAG, table.forehand_of[dealer]
        self.swap_asked = self.swapped = self.bessere_asked = False
        self.schlag = self.trump = None
        self.ranking = None
        self.raise_pending, self.last_raise_side = None, -1
        self.schadet_asked = self.schadet_pending = False
        self.leader = self.turn = table.forehand_of[dealer]
        self.trick, self.trick_seats, self.trick_positions, self.tricks = (), (), (), ()
        self.tricks_won, self.played_cards, self.cutter_played_kritisch = (0, 0), 0, False
        self.signals_sent = (0,) * n
        self.outcome, self.wanted, self.silent = None, {}, frozenset()
        events.append(Event("hand-start", -1, {
            "hand": self.hand_number, "attempt": self.attempt, "dealer": dealer, "forehand": self.forehand,
            "cutter": self.cutter, "value": self.value, "gespannt": list(self.gespannt),
        }))

    def _set_stakes(self) -> None:
        """Gespannt, the starting value and who may raise or concede: fixed for an attempt (as in Match)."""
        rules = self.rules
        best = tuple(max(self.scores[slot] for slot in slots) for slots in self.side_slots)
        gespannt = self.gespannt = (best[0] >= rules.target - 2, best[1] >= rules.target - 2)
        three_or_concede = rules.tight == "three-or-concede"
        blocked = (any(gespannt),) * 2 if three_or_concede else gespannt
        needs = [rules.target - b if rules.raise_cap == "target" else _NO_CAP for b in best]
        self.raise_limit = (-1 if blocked[0] else needs[0], -1 if blocked[1] else needs[1])
        self.concede_ok = (three_or_concede and gespannt[0], three_or_concede and gespannt[1])
        self.value = 3 if three_or_concede and any(gespannt) else 2

    # ------------------------------------------------------------------ chance
    def apply_sealed_deck(self, size: int) -> PublicMatch:
        """The shuffled, encrypted deck of this attempt is ready: `size` positions whose cards nobody knows."""
        if self.phase != DEAL:
            raise RuleViolation("no-deck-needed", "the match is not waiting for a deck now")
        if size != self.rules.deck:
            raise ValueError(f"these rules play with {self.rules.deck} cards, not {size}")
        m = self._clone()
        m.size, m.phase, m.needs_deck = size, CUT, False
        m.inputs = ((SEALED, size), self.inputs)
        return m

    def forfeit(self, seat: int) -> tuple[PublicMatch, list[Event]]:
        """`seat` failed the dealing protocol before a card was dealt: its side loses the hand (as Match.forfeit)."""
        self._check_seat(seat)
        if self.phase != DEAL:
            raise RuleViolation("not-now", "a deal attempt is forfeited only while its deck is still being made")
        m = self._clone()
        events = [Event("forfeit", seat)]
        m.inputs = ((seat, FORFEIT), self.inputs)
        m._end_hand(Outcome(1 - self.hand_sides[seat], self.value, "forfeit"), events)
        m.log = (tuple(events), self.log)
        return m, events

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, seat: int) -> list[str]:
        """The actions the host would accept from `seat` now, as far as public information decides.

        `play` stands for any card of `positions_of(seat)`; `maschine` is a claim the seat's cards must back.
        A client that knows its cards asks `legal_plays` for the cards it may play.
        """
        if not 0 <= seat < self.t.n:
            return []
        phase = self.phase
        if phase == PLAY:
            return self._play_actions(seat)
        if phase == ANNOUNCE:
            out = self._announce_actions(seat) if seat == self.announcer_turn else []
            return out + self._signal_actions(seat) + self._maschine_action(seat)
        if phase == CUT:
            return list(self.f.cuts) if seat == self.cutter else []
        if phase == SCHLECKEN:
            if seat != self.schlecken_seat:
                return []
            return ["take", "keep"] if len(self.taken[seat]) < self.rules.hand_size else ["keep"]
        if phase == SETTLE:
            return ["open"] if seat in self.wanted else []
        return []

    def _play_actions(self, seat: int) -> list[str]:
        pending = self.raise_pending
        if pending is not None:
            return ["accept", "fold"] if self.hand_sides[seat] != self.hand_sides[pending[1]] else []
        if self.schadet_pending:
            return ["schadet yes", "schadet no"] if seat in self.t.partners[self.forehand] else []
        out = []
        if seat == self.turn:
            out.append("play")
            if self._schadet_possible(seat):
                out.append("schadet?")
        side = self.hand_sides[seat]
        if side != self.last_raise_side and self.value + self.rules.raise_step <= self.raise_limit[side]:
            out.append("raise")
        if self.played_cards == 0 and self.concede_ok[side]:
            out.append("concede")
        return out + self._signal_actions(seat) + self._maschine_action(seat)

    def _schadet_possible(self, seat: int) -> bool:
        # Public part of Match's condition; "holds the Hauptschlag" becomes an obligation.
        assert self.ranking is not None
        return (
            self.played_cards == 0 and self.rules.schadet and not self.schadet_asked and seat == self.forehand
            and self.ranking.hauptschlag is not None
        )

    def _signal_actions(self, seat: int) -> list[str]:
        if (
            not self.f.signal_seats[self.dealer][seat] or self.signals_sent[seat] >= MAX_SIGNALS_PER_HAND
            or not self.hands[seat]
        ):
            return []
        return list(_SIGNALS)

    def _maschine_window(self) -> bool:
        """A Maschine may be claimed once every card is dealt and until the first card is played (not while a
        raise or a `schadet?` waits for its answer: then nothing else happens)."""
        return (
            bool(self.rules.maschine_points) and self.all_dealt and self.played_cards == 0
            and self.phase in (ANNOUNCE, PLAY) and self.raise_pending is None and not self.schadet_pending
        )

    def _maschine_action(self, seat: int) -> list[str]:
        enough = len(self.hands[seat]) >= len(self.f.kritische)
        return ["maschine"] if enough and self._maschine_window() else []

    def _announce_actions(self, seat: int) -> list[str]:
        step = self.announce_step
        if step == A_SWAP:
            return ["swap yes", "swap no"]
        if step == A_BESSERE:
            return ["bessere yes", "bessere no"]
        out: list[str]
        if step == A_SCHLAG:
            out = list(self.f.schlag_actions)
            if self.rules.schlagwechsel and self.t.n != 3 and not self.swap_asked and seat == self.forehand:
                out.append("swap?")
        else:
            out = list(_TRUMPS)
        if self._bessere_possible():
            out.append("bessere?")
        return out

    def _bessere_possible(self) -> bool:
        model = self.f.bessere
        if model is None or self.bessere_asked:
            return False
        if model == "redeal-penalty":
            return True
        if self.t.n == 3:
            return False
        held = len(self.hands[self.forehand]) + len(self.hands[self.dealer])
        return len(self.stack) >= held + self._still_to_deal()

    def _still_to_deal(self) -> int:
        if not self.f.second_packet_later or self.all_dealt:
            return 0
        return sum(self.f.packet_sizes[len(taken)][1] for taken in self.taken)

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
        seat: int,
        action: str,
        *,
        position: int | None = None,
        openings: Openings | None = None,
    ) -> tuple[PublicMatch, list[Event]]:
        """Apply one action of `seat`. `play C` needs the `position` the card was opened from; `maschine` and
        `open` need the `openings` (position -> card). Returns the new match and its events."""
        self._check_seat(seat)
        if not isinstance(action, str):
            raise RuleViolation("malformed", "an action is a string such as 'play HK'")
        text = normalise_action(action)
        verb, _, arg = text.partition(" ")
        if verb == "play":
            return self._apply_play(seat, arg, position)
        if position is not None:
            raise RuleViolation("malformed", "only 'play' takes a position")
        if verb in ("maschine", "open"):
            if self.phase in (DEAL, OVER):
                self._refuse(seat, text)
            if openings is None:
                raise RuleViolation("malformed", f"'{verb}' needs the openings of its cards")
            opened = self._parse_openings(openings)
            return self._apply_maschine(seat, opened) if verb == "maschine" else self._apply_open(seat, opened)
        if openings is not None:
            raise RuleViolation("malformed", "only 'maschine' and 'open' take openings")
        if text not in self.legal_actions(seat):
            self._refuse(seat, text)
        m = self._clone()
        events: list[Event] = []
        m.inputs = ((seat, text), self.inputs)
        m._dispatch(seat, verb, arg, events)
        m.log = (tuple(events), self.log)
        return m, events

    def claim_maschine(self, seat: int, openings: Openings) -> tuple[PublicMatch, list[Event]]:
        return self.apply(seat, "maschine", openings=openings)

    def open_cards(self, seat: int, openings: Openings) -> tuple[PublicMatch, list[Event]]:
        return self.apply(seat, "open", openings=openings)

    def _dispatch(self, seat: int, verb: str, arg: str, events: list[Event]) -> None:
        if verb == "raise":
            self._raise(seat, events)
        elif verb in ("accept", "fold"):
            self._answer_raise(seat, verb, events)
        elif verb == "signal":
            self._signal(seat, arg, events)
        elif verb == "cut":
            self._cut(seat, int(arg), events)
        elif verb in ("take", "keep"):
            self._schlecken(seat, verb == "take", events)
        elif verb == "schlag":
            self._name_schlag(seat, arg, events)
        elif verb == "trump":
            self._name_trump(seat, arg, events)
        elif verb in ("swap?", "swap"):
            self._swap(seat, arg, events)
        elif verb in ("bessere?", "bessere"):
            self._bessere(seat, arg, events)
        elif verb in ("schadet?", "schadet"):
            self._schadet(seat, arg, events)
        elif verb == "concede":
            events.append(Event("concede", seat))
            self._end_hand(Outcome(1 - self.hand_sides[seat], 2, "concede"), events)
        else:  # pragma: no cover - every legal action has a branch above
            raise AssertionError(verb)

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < self.t.n:
            raise RuleViolation("no-such-seat", f"there is no seat {seat!r} at a {self.t.n}-player table")

    def _refuse(self, seat: int, text: str) -> NoReturn:
        """Raise a precise RuleViolation (Match's reasons) for an action that public information refuses."""
        verb, _, arg = text.partition(" ")
        if verb not in _KNOWN_VERBS:
            raise RuleViolation("malformed", f"unknown action {text!r}")
        phase = self.phase
        if phase == OVER:
            raise RuleViolation("match-over", "the match is over")
        if phase == DEAL:
            raise RuleViolation("no-deck", "the cards are not shuffled yet: waiting for the deal")
        if phase == SETTLE:
            raise RuleViolation("settling", "the hand is over: waiting for the cards its obligations need opened")
        if phase == PLAY and self.raise_pending is not None and verb not in ("accept", "fold"):
            raise RuleViolation("raise-pending", "a raise is pending: it must be accepted or folded first")
        if phase == PLAY and self.schadet_pending and verb != "schadet":
            raise RuleViolation("schadet-pending", "waiting for the partner's answer to 'schadet?'")
        if verb in ("raise", "concede", "signal"):
            self._refuse_side_action(seat, verb, arg)
        if verb in ("accept", "fold") and self.raise_pending is None:
            raise RuleViolation("no-raise", "there is no raise to answer")
        if seat not in self.waiting_for:
            waiting = ", ".join(str(s) for s in self.waiting_for)
            raise RuleViolation("not-your-turn", f"waiting for seat {waiting}")
        if verb == "cut" and phase == CUT:
            raise RuleViolation("bad-cut", f"cut between 4 and {self.size - 4} cards: 'cut N'")
        raise RuleViolation("not-now", f"{text!r} is not possible now")

    def _refuse_side_action(self, seat: int, verb: str, arg: str) -> NoReturn:
        if verb == "raise":
            if self.phase != PLAY:
                raise RuleViolation("not-now", "raising starts once the trump is named")
            if self.hand_sides[seat] == self.last_raise_side:
                raise RuleViolation("raise-twice", "your side raised last: the other side must raise next")
            if any(self.gespannt):
                raise RuleViolation("gespannt", "a side is gespannt: no raising in this hand")
            raise RuleViolation("raise-cap", "the stake already covers the points your side needs")
        if verb == "concede":
            if self.rules.tight != "three-or-concede":
                raise RuleViolation("no-concede", "conceding is not part of these rules (tight = base-two)")
            if self.phase != PLAY or self.played_cards:
                raise RuleViolation("not-now", "a gespannt side concedes after the trump and before the first lead")
            raise RuleViolation("not-gespannt", "only a gespannt side may concede")
        if arg not in SIGNAL_NAMES:
            raise RuleViolation("malformed", f"unknown signal {arg!r}; signals: {' '.join(SIGNAL_NAMES)}")
        if not self.rules.signals:
            raise RuleViolation("no-signals", "signals are off at this table")
        if not self.t.hand_partners_of[self.dealer][seat]:
            raise RuleViolation("no-partner", "you have no partner to signal to")
        raise RuleViolation("not-now", "no signal now (at most 3 a hand, while you hold cards)")

    def _parse_openings(self, openings: Openings) -> dict[int, Card]:
        if not isinstance(openings, Mapping) or not openings:
            raise RuleViolation("malformed", "openings map deck positions to the cards opened there")
        parsed: dict[int, Card] = {}
        for position, card in openings.items():
            if not isinstance(position, int) or not 0 <= position < self.size:
                raise RuleViolation("malformed", f"no deck position {position!r}")
            parsed[position] = _parse_card(card)
        if len(set(parsed.values())) != len(parsed):
            raise RuleViolation("card-seen-twice", "the same card cannot be opened at two positions")
        return parsed

    def _check_opening(self, position: int, card: Card) -> None:
        """Each card once: an opened card must not have shown up at another position of this deck."""
        if card not in self.deck_set:
            raise RuleViolation("not-in-deck", f"{card} is not in a {self.size}-card deck")
        known = self.opened.get(position)
        if known is not None and known is not card:
            raise RuleViolation("opening-mismatch", f"position {position} was opened as {known}, not {card}")
        where = self.card_at.get(card)
        if where is not None and where != position:
            raise RuleViolation("card-seen-twice", f"{card} was already opened at position {where}")

    def _record_openings(self, cards: Mapping[int, Card]) -> None:
        self.opened = {**self.opened, **cards}
        self.card_at = {**self.card_at, **{card: p for p, card in cards.items()}}

    # -- cut and Schlecken
    def _cut(self, seat: int, n: int, events: list[Event]) -> None:
        self.lifted = tuple(range(n))
        self.rest = tuple(range(n, self.size))
        events.append(Event("cut", seat, {"n": n}))
        if self.rules.schlecken:
            self.phase = SCHLECKEN
            self.schlecken_seat = seat
            self.seen_index = n - 1
            self._show_seen(events)
        else:
            self._join_and_deal(events)

    def _seen_position(self) -> int:
        part = self.lifted if self.schlecken_seat == self.cutter else self.rest
        return part[self.seen_index]

    def _show_seen(self, events: list[Event]) -> None:
        # Public: everybody knows which position is shown; only the seat learns its card.
        events.append(Event("see", self.schlecken_seat, {"position": self._seen_position()}))

    def _schlecken(self, seat: int, take: bool, events: list[Event]) -> None:
        cutter_stage = seat == self.cutter
        if take:
            position = self._seen_position()
            taken = list(self.taken)
            taken[seat] = (*taken[seat], position)
            self.taken = tuple(taken)
            if not (cutter_stage and self.rules.schlecken_bluff):
                self._oblige(SchleckenObligation(seat, -1, (position,), self.f.kritische), events)
            events.append(Event("take", seat))
            events.append(Event("took", seat, {"position": position}))
            self.seen_index -= 1
            if self.seen_index >= 0 and len(self.taken[seat]) < self.rules.hand_size:
                self._show_seen(events)
                return
        else:
            events.append(Event("keep", seat))
        if cutter_stage and self.taken[seat]:
            self.schlecken_seat = self.dealer
            self.seen_index = len(self.rest) - 1
            self._show_seen(events)
            return
        self._join_and_deal(events)

    def _join_and_deal(self, events: list[Event]) -> None:
        taken = self.taken
        # As Match: the taken cards leave the bottoms of the two parts; the dealer's part goes on top.
        lifted = self.lifted[: len(self.lifted) - len(taken[self.cutter])]
        rest = self.rest[: len(self.rest) - len(taken[self.dealer])]
        self.stack = rest + lifted
        self.lifted = self.rest = ()
        self.schlecken_seat = -1
        self.hands = taken
        self._deal_packet(0, events)
        if not self.f.second_packet_later:
            self._deal_packet(1, events)
            self._all_dealt()
        self.phase = ANNOUNCE
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.forehand

    def _deal_packet(self, packet: int, events: list[Event]) -> None:
        hands = list(self.hands)
        top = 0
        for seat in self.t.seat_order_from[self.forehand]:
            count = self.f.packet_sizes[len(self.taken[seat])][packet]
            if count <= 0:
                continue
            got = self.stack[top: top + count]
            top += count
            hands[seat] = hands[seat] + got
            # The deal map is public: every seat may check which positions went where.
            events.append(Event("deal", seat, {"packet": packet + 1, "positions": list(got)}))
        self.stack = self.stack[top:]
        self.hands = tuple(hands)
        events.append(Event("packet", -1, {"packet": packet + 1, "counts": list(map(len, hands))}))

    def _all_dealt(self) -> None:
        """Every card is dealt: where Match looks for a Maschine, a seat may now claim one."""
        self.all_dealt = True
        self.dealt_hands = (*self.dealt_hands, self.hands)

    # -- announcement
    def _other_announcer(self, seat: int) -> int:
        return self.dealer if seat == self.forehand else self.forehand

    def _name_schlag(self, seat: int, rank: str, events: list[Event]) -> None:
        self.schlag = rank
        events.append(Event("schlag", seat, {"rank": rank}))
        self.announce_step = A_TRUMP
        if self.t.n == 3:
            self.announcer_turn = seat
        else:
            self.announcer_turn = self.forehand if self.swapped else self.dealer

    def _name_trump(self, seat: int, suit: str, events: list[Event]) -> None:
        assert self.schlag is not None
        self.trump = suit
        events.append(Event("trump", seat, {"suit": suit}))
        self.ranking = ranking(self.rules, self.schlag, suit)
        if self.f.second_packet_later:
            self._deal_packet(1, events)
            self._all_dealt()
        self.phase = PLAY
        self.turn = self.leader = self.forehand

    def _swap(self, seat: int, arg: str, events: list[Event]) -> None:
        if arg == "":
            self.swap_asked = True
            events.append(Event("swap?", seat))
            self.announce_step = A_SWAP
            self.announcer_turn = self.dealer
            return
        events.append(Event("swap", seat, {"answer": arg}))
        self.swapped = arg == "yes"
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.dealer if self.swapped else self.forehand

    def _bessere(self, seat: int, arg: str, events: list[Event]) -> None:
        if arg == "":
            self.bessere_asked = True
            events.append(Event("bessere?", seat))
            if self.rules.bessere == "redeal-penalty":
                self._end_hand(Outcome(1 - self.hand_sides[seat], 2, "redeal", seat), events)
                return
            self.announce_step = A_BESSERE
            self.announcer_turn = self._other_announcer(seat)
            return
        asker = self._other_announcer(seat)
        events.append(Event("bessere", seat, {"answer": arg}))
        if arg == "no":
            self.announce_step = A_SCHLAG if self.schlag is None else A_TRUMP
            self.announcer_turn = asker
            return
        self._new_announcer_cards(events)
        self.schlag = None
        self.swapped = self.swap_asked = False
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.forehand
        if self.all_dealt:
            self._all_dealt()  # the new cards may make a Maschine (Match looks again)

    def _new_announcer_cards(self, events: list[Event]) -> None:
        """Bessere yes: both announcers put their cards aside (sealed forever) and get as many from the stack."""
        hands = list(self.hands)
        for who in (self.forehand, self.dealer):
            count = len(hands[who])
            got = self.stack[:count]
            self.stack = self.stack[count:]
            events.append(Event("aside", who, {"count": count, "positions": list(hands[who])}))
            self.aside = self.aside + hands[who]
            hands[who] = got
            events.append(Event("deal", who, {"packet": 0, "positions": list(got)}))
        self.hands = tuple(hands)

    # -- play
    def _apply_play(self, seat: int, arg: str, position: int | None) -> tuple[PublicMatch, list[Event]]:
        card = _parse_card(arg)
        self._check_play(seat, card, position)
        assert position is not None
        m = self._clone()
        events: list[Event] = []
        m.inputs = ((seat, "play " + card.text, position), self.inputs)
        m._play(seat, position, card, events)
        m.log = (tuple(events), self.log)
        return m, events

    def _check_play(self, seat: int, card: Card, position: int | None) -> None:
        """Everything public information says about a card play; raises the most precise RuleViolation."""
        if self.phase != PLAY:
            if self.phase in (CUT, SCHLECKEN, ANNOUNCE):
                raise RuleViolation("not-now", "cards are played only after the announcement")
            self._refuse(seat, "play " + card.text)
        if self.raise_pending is not None:
            raise RuleViolation("raise-pending", "a raise is pending: it must be accepted or folded first")
        if self.schadet_pending:
            raise RuleViolation("schadet-pending", "waiting for the partner's answer to 'schadet?'")
        if seat != self.turn:
            raise RuleViolation("not-your-turn", f"it is seat {self.turn}'s turn to play")
        if not isinstance(position, int) or isinstance(position, bool):
            raise RuleViolation("no-position", "a played card comes with the deck position it was opened from")
        if position not in self.hands[seat]:
            raise self._foreign_position(seat, position)
        self._check_opening(position, card)

    def _foreign_position(self, seat: int, position: int) -> RuleViolation:
        """Why `position` is not one `seat` may open now (it holds only `positions_of(seat)`)."""
        for other, held in enumerate(self.hands):
            if position in held:
                return RuleViolation("not-your-position", f"position {position} was dealt to seat {other}")
        if position in self.opened:  # while cards are played, opened and not held means played
            return RuleViolation("position-played", f"the card at position {position} was played already")
        if position in self.aside:
            return RuleViolation("position-aside", f"position {position} was put aside at the Bessere")
        return RuleViolation("not-your-position", f"position {position} was not dealt to seat {seat}")

    def _play(self, seat: int, position: int, card: Card, events: list[Event]) -> None:
        ranking_ = self.ranking
        assert ranking_ is not None
        self._oblige_to_follow(seat, position, card, events)
        hands = list(self.hands)
        hands[seat] = tuple(p for p in hands[seat] if p != position)
        self.hands = tuple(hands)
        self._record_openings({position: card})
        self.trick = (*self.trick, card)
        self.trick_seats = (*self.trick_seats, seat)
        self.trick_positions = (*self.trick_positions, position)
        self.played_cards += 1
        if card in ranking_.kritische and seat == self.cutter:
            self.cutter_played_kritisch = True
        events.append(Event("play", seat, {"card": card.text, "position": position}))
        if len(self.trick) < self.t.n:
            self.turn = (seat + 1) % self.t.n
            return
        self._complete_trick(ranking_, events)

    def _oblige_to_follow(self, seat: int, position: int, card: Card, events: list[Event]) -> None:
        """Record a follow obligation when the card is legal only if the seat held no forcing card.

        Judged against every card the seat might hold (all not yet opened elsewhere): if even that hand may play
        the card, any real hand may, and nothing is owed.
        """
        if not self.trick:
            return
        possible = [c for c in self.deck_cards if c is card or c not in self.card_at]
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

    def _complete_trick(self, ranking_: Ranking, events: list[Event]) -> None:
        trick, trick_seats = self.trick, self.trick_seats
        self.trick, self.trick_seats, self.trick_positions = (), (), ()
        winner = trick_seats[ranking_.winner(trick)]
        side = self.hand_sides[winner]
        won = list(self.tricks_won)
        won[side] += 1
        self.tricks_won = (won[0], won[1])
        self.tricks = (*self.tricks, (self.leader, trick, winner))
        events.append(Event("trick", winner, {
            "cards": [c.text for c in trick], "leader": self.leader, "side": side, "tricks": won,
        }))
        if won[side] >= self.rules.tricks_to_win:
            self._end_hand(Outcome(side, self.value, "tricks"), events)
            return
        self.leader = self.turn = winner

    def _raise(self, seat: int, events: list[Event]) -> None:
        proposed = self.value + self.rules.raise_step
        self.raise_pending = (proposed, seat)
        events.append(Event("raise", seat, {"value": proposed, "from": self.value}))

    def _answer_raise(self, seat: int, verb: str, events: list[Event]) -> None:
        assert self.raise_pending is not None
        proposed, raiser = self.raise_pending
        self.raise_pending = None
        if verb == "accept":
            self.value = proposed
            self.last_raise_side = self.hand_sides[raiser]
            events.append(Event("accept", seat, {"value": proposed}))
            return
        events.append(Event("fold", seat, {"value": self.value}))
        self._end_hand(Outcome(self.hand_sides[raiser], self.value, "fold"), events)

    def _schadet(self, seat: int, arg: str, events: list[Event]) -> None:
        if arg == "":
            assert self.ranking is not None and self.ranking.hauptschlag is not None
            self._oblige(SchadetObligation(seat, 0, self.hands[seat], self.ranking.hauptschlag), events)
            self.schadet_asked = self.schadet_pending = True
            events.append(Event("schadet?", seat))
            return
        self.schadet_pending = False
        events.append(Event("schadet", seat, {"answer": arg}))

    def _signal(self, seat: int, name: str, events: list[Event]) -> None:
        sent = list(self.signals_sent)
        sent[seat] += 1
        self.signals_sent = tuple(sent)
        events.append(Event("signal", seat, {"name": name}, self.t.signal_audience_of[self.dealer][seat]))

    # -- Maschine
    def _apply_maschine(self, seat: int, cards: dict[int, Card]) -> tuple[PublicMatch, list[Event]]:
        if not self.rules.maschine_points:
            raise RuleViolation("no-maschine", "a Maschine scores nothing at this table (maschine_points = 0)")
        if not self._maschine_window():
            raise RuleViolation("not-now", "a Maschine is shown once every card is dealt and before the first card")
        for position in cards:
            if position not in self.hands[seat]:
                raise self._foreign_position(seat, position)
        if set(cards.values()) != self.f.kritische:
            shown = " ".join(sorted(c.text for c in cards.values()))
            needed = " ".join(self.f.kritische_text)
            raise RuleViolation("not-a-maschine", f"a Maschine is all of {needed}, not {shown}")
        for position, card in cards.items():
            self._check_opening(position, card)
        m = self._clone()
        events = [Event("maschine", seat, {
            "cards": list(self.f.kritische_text), "positions": [p for c in self.rules.kritische_cards
                                                              for p, k in cards.items() if k is c],
        })]
        m.inputs = ((seat, "maschine", tuple((p, c.text) for p, c in cards.items())), self.inputs)
        m._record_openings(cards)
        m._end_hand(Outcome(self.hand_sides[seat], self.rules.maschine_points, "maschine"), events)
        m.log = (tuple(events), self.log)
        return m, events

    # ------------------------------------------------------------------ settling a hand
    def _end_hand(self, outcome: Outcome, events: list[Event]) -> None:
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
        """Match's bluff penalty needs a look at the cutter's taken cards (RULES.md 5.8)."""
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
            if card is not None and card not in self.f.kritische:
                return True
            if card is None and self.cutter in self.silent:
                return True
        return False

    def _apply_open(self, seat: int, cards: dict[int, Card]) -> tuple[PublicMatch, list[Event]]:
        if self.phase != SETTLE:
            raise RuleViolation("not-now", "cards are opened at the end of a hand, when the host asks for them")
        wanted = self.wanted.get(seat)
        if wanted is None:
            raise RuleViolation("nothing-to-open", f"seat {seat} has nothing to open")
        if set(cards) != set(wanted):
            raise RuleViolation("wrong-positions", f"open exactly positions {' '.join(map(str, wanted))}")
        for position, card in cards.items():
            self._check_opening(position, card)
        m = self._clone()
        events = [Event("opened", seat, {"positions": sorted(cards), "cards": [cards[p].text for p in sorted(cards)]})]
        m.inputs = ((seat, "open", tuple((p, c.text) for p, c in sorted(cards.items()))), self.inputs)
        m._record_openings(cards)
        m._answered(seat, events)
        m.log = (tuple(events), self.log)
        return m, events

    def no_opening(self, seat: int) -> tuple[PublicMatch, list[Event]]:
        """The host's timeout: `seat` did not open what it was asked for. What it left sealed counts against it."""
        self._check_seat(seat)
        if self.phase != SETTLE or seat not in self.wanted:
            raise RuleViolation("nothing-to-open", f"seat {seat} has nothing to open now")
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
                if self.f.kritische.issubset(self.opened[p] for p in held if p in self.opened):
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
        points = 0
        if side >= 0:
            points = outcome.points
            if self.rules.tight == "base-two" and outcome.reason != "concede" and self.gespannt[1 - side]:
                points = min(points, 2)
            self._add_points(side, points)
        if self._bluff_possible(outcome) and self._bluff_shown():
            self._add_points(1 - self.hand_sides[self.cutter], 2)
            events.append(Event("bluff-penalty", self.cutter, {"points": 2}))
        data: dict[str, Any] = {
            "side": side, "seats": list(self.t.side_seats_of[self.dealer][side]) if side >= 0 else [],
            "points": points, "reason": reason, "scores": list(self.scores), "hand": self.hand_number,
            "tricks": list(self.tricks_won),
        }
        if violations:
            data["violations"] = [v.to_dict() for v in violations]
            data["decided"] = {"side": outcome.side, "points": outcome.points, "reason": outcome.reason}
        events.append(Event("hand-end", -1, data))
        if self._check_match_end(events):
            return
        self.hand_number += 1
        self.attempt = 0
        self.dealer = (self.dealer + 1) % self.t.n
        self._start_attempt(events)

    def _conclude_redeal(self, outcome: Outcome, broke: set[int], violations: list[Violation],
                         events: list[Event]) -> None:
        self._add_points(outcome.side, outcome.points)
        if len(broke) == 1:  # the attempt is lost to the side that kept its obligations
            self._add_points(1 - next(iter(broke)), self.value)
        data: dict[str, Any] = {"penalty": outcome.points, "scores": list(self.scores)}
        if violations:
            data["violations"] = [v.to_dict() for v in violations]
        events.append(Event("redeal", outcome.seat, data))
        if not self._check_match_end(events):
            self.attempt += 1
            self._start_attempt(events)

    def _add_points(self, side: int, points: int) -> None:
        scores = list(self.scores)
        for slot in self.side_slots[side]:
            scores[slot] += points
        self.scores = tuple(scores)

    def _check_match_end(self, events: list[Event]) -> bool:
        rules = self.rules
        if max(self.scores) < rules.target:
            return False
        winners = tuple(slot for slot, points in enumerate(self.scores) if points >= rules.target)
        marks = list(self.bummerl)
        for slot, points in enumerate(self.scores):
            if slot not in winners:
                marks[slot] += 2 if rules.schneider and points == 0 else 1
        self.bummerl = tuple(marks)
        self.winners = winners
        self.series_over = any(b >= rules.bummerl_limit for b in marks)
        self.phase = OVER
        self.is_over = True
        events.append(Event("match-end", data={
            "scores": list(self.scores), "winners": list(winners), "bummerl": list(marks),
            "series_over": self.series_over,
        }))
        return True

    # ------------------------------------------------------------------ observation and replay
    def observe(self, seat: int) -> PublicObservation:
        """What `seat` may see: every public fact, its own positions, the events shown to it."""
        self._check_seat(seat)
        return PublicObservation(
            seat=seat, phase=self.phase, hand_number=self.hand_number, attempt=self.attempt, dealer=self.dealer,
            forehand=self.forehand, cutter=self.cutter, hand_sides=self.hand_sides, scores=self.scores,
            bummerl=self.bummerl, positions=self.hands[seat], hand_counts=tuple(map(len, self.hands)),
            taken_counts=tuple(map(len, self.taken)), schlag=self.schlag, trump=self.trump, value=self.value,
            raise_pending=self.raise_pending,
            current_trick=tuple(zip(self.trick_seats, self.trick_positions, self.trick, strict=True)),
            tricks=self.tricks, tricks_won=self.tricks_won, to_act=self.waiting_for,
            legal_actions=tuple(self.legal_actions(seat)), openings_wanted=self.wanted.get(seat, ()),
            obligations=self.obligations, match_over=self.is_over,
            events=tuple(e for e in self.events() if e.visible_to(seat)),
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
