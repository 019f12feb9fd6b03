"""A match of Watten as an immutable state machine (RULES.md sections 5 to 9).

`Match.new(rules)` waits for a deck (`needs_deck`); chance is an input: `apply_deck(order)` takes the
shuffled deck from the dealing protocol. Every other step is an action in RULES.md notation:
`apply(seat, "play HK")` returns a *new* match and the events it caused; the old match stays valid,
so bots can search, the host can keep snapshots, and the verifier can replay a record.

Each apply copies one flat object of slots (no deep copies): all containers inside are tuples, and a
step replaces the few it changes. The legal actions of a state are computed once and cached.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import Any, cast

from .cards import Card, canonical_deck
from .errors import RuleViolation
from .events import Event
from .observation import Observation, build_observation
from .ranking import Ranking, ranking, schlag_choices
from .rules import SIGNAL_NAMES, Rules
from .table import Table, table_for

MAX_SIGNALS_PER_HAND = 3  # decision: enough to show a hand, bounded so no seat can flood its partner

# Phases
DEAL = "deal"  # waiting for the deck (needs_deck)
CUT = "cut"
SCHLECKEN = "schlecken"
ANNOUNCE = "announce"
PLAY = "play"
OVER = "over"  # the match has ended

# Announcement steps
A_SCHLAG = "schlag"
A_TRUMP = "trump"
A_SWAP = "swap-answer"
A_BESSERE = "bessere-answer"

_PLAY = {card: "play " + card.text for card in canonical_deck(36)}
_PLAY_BY_TEXT = {text: card for card, text in _PLAY.items()}
_DECK_SETS = {size: frozenset(canonical_deck(size)) for size in (32, 33, 36)}
_CODE = attrgetter("code")
_CUTS = {size: [f"cut {n}" for n in range(4, size - 3)] for size in (32, 33, 36)}  # RULES.md: 4 <= N <= size-4

Log = tuple[Any, ...] | None  # a persistent list: (item, previous) pairs, newest first


def _iter_log(log: Log) -> list[Any]:
    items = []
    while log is not None:
        items.append(log[0])
        log = log[1]
    items.reverse()
    return items


class Match:
    """One match to `rules.target`, one hand after another, plus the series' Bummerl."""

    __slots__ = (
        "_legal", "_pos", "actions", "announce_step", "announcer_turn", "aside", "attempt", "bessere_asked", "bluff",
        "bummerl",
        "cut_n", "cutter_played_kritisch", "dealer", "deck", "first_dealer", "gespannt", "hand_number",
        "hand_sides", "hands", "last_raise_side", "leader", "lifted", "log", "match_number", "phase",
        "played_cards", "raise_pending", "ranking", "rest", "rules", "schadet_asked",
        "schadet_pending", "schlag", "schlecken_seat", "scores", "seen_index", "series_over", "side_slots",
        "signals_sent", "stack", "swap_asked", "swapped", "t", "taken", "trick", "trick_seats", "tricks", "tricks_won",
        "trump", "turn", "value", "winners",
    )

    rules: Rules
    t: Table
    first_dealer: int
    scores: tuple[int, ...]
    bummerl: tuple[int, ...]
    match_number: int
    hand_number: int
    attempt: int
    dealer: int
    phase: str
    deck: tuple[Card, ...] | None
    cut_n: int
    lifted: tuple[Card, ...]
    rest: tuple[Card, ...]
    schlecken_seat: int
    seen_index: int
    taken: tuple[tuple[Card, ...], ...]
    bluff: bool
    stack: tuple[Card, ...]
    aside: tuple[Card, ...]  # put aside at a Bessere: out of this hand, never shown
    hands: tuple[tuple[Card, ...], ...]
    hand_sides: tuple[int, ...]
    side_slots: tuple[tuple[int, ...], ...]
    gespannt: tuple[bool, bool]
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
    tricks: tuple[tuple[int, tuple[Card, ...], int], ...]
    tricks_won: tuple[int, int]
    played_cards: int
    cutter_played_kritisch: bool
    signals_sent: tuple[int, ...]
    winners: tuple[int, ...]
    series_over: bool
    log: Log
    actions: Log
    _legal: dict[int, list[str]] | None
    _pos: list[int]  # deck position of each card, indexed by Card.code

    # ------------------------------------------------------------------ construction
    def __init__(self) -> None:
        raise TypeError("use Match.new(rules)")

    @classmethod
    def new(
        cls,
        rules: Rules,
        first_dealer: int = 0,
        start_scores: Sequence[int] | None = None,
        *,
        bummerl: Sequence[int] | None = None,
    ) -> Match:
        """A match waiting for its first deck. `start_scores`: per side (per seat with 2 or 3 players)."""
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
        m.rules = rules
        m.t = table
        m.first_dealer = first_dealer
        m.scores = scores
        m.bummerl = marks
        m.match_number = 0
        m.hand_number = 0
        m.attempt = 0
        m.dealer = first_dealer
        m.winners = ()
        m.series_over = False
        m.log = None
        m.actions = None
        m._pos = []
        m._start_attempt()
        return m

    def next_match(self) -> Match:
        """After a match ends: the next match of the series (scores back to 0, Bummerl kept)."""
        if self.phase != OVER:
            raise RuleViolation("match-not-over", "the match is still being played")
        if self.series_over:
            raise RuleViolation("series-over", "the series is over: a side has reached the Bummerl limit")
        m = Match.new(self.rules, (self.dealer + 1) % self.t.n, bummerl=self.bummerl)
        m.match_number = self.match_number + 1
        return m

    def _clone(self) -> Match:  # replaced below by a generated straight-line copy (see _make_clone)
        raise NotImplementedError

    def _emit(self, events: list[Event], event: Event) -> None:
        events.append(event)
        self.log = (event, self.log)

    # ------------------------------------------------------------------ public facts
    @property
    def needs_deck(self) -> bool:
        return self.phase == DEAL

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

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
        """Points of the side `seat` belongs to (of the seat itself with 2 or 3 players)."""
        return self.scores[self.t.slot_of[seat]]

    def events(self) -> list[Event]:
        """Every event of this match so far, oldest first (all seats' views together)."""
        return _iter_log(self.log)

    def history(self) -> list[tuple[int, str] | tuple[str, tuple[str, ...]]]:
        """The inputs of the match: `("deck", cards)` and `(seat, action)`, in order (for replay)."""
        return _iter_log(self.actions)

    @property
    def waiting_for(self) -> tuple[int, ...]:
        """Seats whose action the game waits for now (more than one while a raise is pending)."""
        phase = self.phase
        if phase in (DEAL, OVER):
            return ()
        if phase == CUT:
            return (self.cutter,)
        if phase == SCHLECKEN:
            return (self.schlecken_seat,)
        if phase == ANNOUNCE:
            return (self.announcer_turn,)
        if self.raise_pending is not None:
            raiser_side = self.hand_sides[self.raise_pending[1]]
            return tuple(s for s in self._seat_order(self.raise_pending[1]) if self.hand_sides[s] != raiser_side)
        if self.schadet_pending:
            return self.t.partners[self.forehand]
        return (self.turn,)

    def _position(self, card: Card) -> int:
        """The card's position in this hand's shuffled deck (what the deal commitments are indexed by)."""
        return self._pos[card.code]

    def _seat_order(self, start: int) -> list[int]:
        n = self.t.n
        return [(start + i) % n for i in range(n)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Match):
            return NotImplemented
        return all(
            getattr(self, name) == getattr(other, name)
            for name in Match.__slots__
            if name not in ("_legal", "log", "actions", "ranking")
        ) and self.events() == other.events()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Match {self.rules.players}p hand {self.hand_number}.{self.attempt} phase {self.phase} "
            f"scores {self.scores}>"
        )

    # ------------------------------------------------------------------ hand set-up
    def _start_attempt(self, events: list[Event] | None = None) -> None:
        rules, table = self.rules, self.t
        self.phase = DEAL
        self.deck = None
        self.cut_n = 0
        self.lifted = ()
        self.rest = ()
        self.schlecken_seat = -1
        self.seen_index = -1
        self.taken = ((),) * table.n
        self.bluff = False
        self.stack = ()
        self.aside = ()
        self.hands = ((),) * table.n
        self.hand_sides = table.sides_of[self.dealer]
        self.side_slots = table.side_slots_of[self.dealer]
        self.gespannt = (self._side_gespannt(0), self._side_gespannt(1))
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.forehand
        self.swap_asked = False
        self.swapped = False
        self.bessere_asked = False
        self.schlag = None
        self.trump = None
        self.ranking = None
        tight_three = rules.tight == "three-or-concede" and any(self.gespannt)
        self.value = 3 if tight_three else 2
        self.raise_pending = None
        self.last_raise_side = -1
        self.schadet_asked = False
        self.schadet_pending = False
        self.leader = self.forehand
        self.turn = self.forehand
        self.trick = ()
        self.trick_seats = ()
        self.tricks = ()
        self.tricks_won = (0, 0)
        self.played_cards = 0
        self.cutter_played_kritisch = False
        self.signals_sent = (0,) * table.n
        self._legal = None
        event = Event(
            "hand-start",
            data={
                "hand": self.hand_number, "attempt": self.attempt, "dealer": self.dealer,
                "forehand": self.forehand, "cutter": self.cutter, "value": self.value,
                "gespannt": list(self.gespannt),
            },
        )
        if events is None:
            self.log = (event, self.log)
        else:
            self._emit(events, event)

    def _side_seats(self, side: int) -> list[int]:
        return [s for s in range(self.t.n) if self.hand_sides[s] == side]

    def _side_gespannt(self, side: int) -> bool:
        return any(self.scores[slot] >= self.rules.target - 2 for slot in self.side_slots[side])

    def _side_needs(self, side: int) -> int:
        return self.rules.target - max(self.scores[slot] for slot in self.side_slots[side])

    # ------------------------------------------------------------------ chance
    def apply_deck(self, order: Iterable[Card | str]) -> Match:
        """The shuffled deck for this hand (top card first), from the dealing protocol."""
        if self.phase != DEAL:
            raise RuleViolation("no-deck-needed", "the match is not waiting for a deck now")
        given = tuple(order)
        canonical = _DECK_SETS[self.rules.deck]
        if canonical.issuperset(given):
            deck = cast(tuple[Card, ...], given)
        else:  # strings, or cards of another deck
            deck = tuple(c if isinstance(c, Card) else Card.parse(c) for c in given)
        if len(deck) != len(canonical) or not canonical.issuperset(deck) or len(set(deck)) != len(deck):
            raise ValueError(f"the deck must hold each of the {len(canonical)} cards exactly once")
        m = self._clone()
        m.deck = deck
        pos = [-1] * 36
        for k, card in enumerate(deck):
            pos[card.code] = k
        m._pos = pos
        m.phase = CUT
        m.actions = (("deck", tuple(c.text for c in deck)), self.actions)
        return m

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, seat: int) -> list[str]:
        """Every action `seat` may take now, in RULES.md notation (empty when it is not that seat's move)."""
        cache = self._legal
        if cache is None:
            cache = self._legal = {}
        else:
            found = cache.get(seat)
            if found is not None:
                return list(found)
        actions = self._compute_legal(seat) if 0 <= seat < self.t.n else []
        cache[seat] = actions
        return list(actions)

    def _compute_legal(self, seat: int) -> list[str]:
        phase = self.phase
        rules = self.rules
        if phase == PLAY:
            pending = self.raise_pending
            if pending is not None:
                if self.hand_sides[seat] != self.hand_sides[pending[1]]:
                    return ["accept", "fold"]
                return []
            if self.schadet_pending:
                return ["schadet yes", "schadet no"] if seat in self.t.partners[self.forehand] else []
            out: list[str] = []
            if seat == self.turn:
                hand = self.hands[seat]
                if self.trick:
                    legal = self._legal_cards(seat)
                    out = [_PLAY[c] for c in hand if c in legal]  # hands are kept sorted
                else:  # a lead: any card
                    out = [_PLAY[c] for c in hand]
                if (
                    rules.schadet and self.played_cards == 0 and not self.schadet_asked
                    and seat == self.forehand and self.ranking is not None
                    and self.ranking.hauptschlag in self.hands[seat]
                ):
                    out.append("schadet?")
            if self._can_raise(seat):
                out.append("raise")
            if self._can_concede(seat):
                out.append("concede")
            out.extend(self._signal_actions(seat))
            return out
        if phase == ANNOUNCE:
            out = []
            if seat == self.announcer_turn:
                out = self._announce_actions(seat)
            out.extend(self._signal_actions(seat))
            return out
        if phase == CUT:
            if seat != self.cutter:
                return []
            return _CUTS[self.rules.deck]
        if phase == SCHLECKEN:
            if seat != self.schlecken_seat:
                return []
            return ["take", "keep"] if self._may_take() else ["keep"]
        return []

    def _legal_cards(self, seat: int) -> frozenset[Card]:
        assert self.ranking is not None
        return self.ranking.legal(
            self.hands[seat],
            self.trick,
            first_trick=not self.tricks,
            announcer=not self.rules.blind or seat in self.announcers,
            released_allowed=not self.schadet_asked,
        )

    def _signal_actions(self, seat: int) -> list[str]:
        if (
            not self.rules.signals or self.signals_sent[seat] >= MAX_SIGNALS_PER_HAND
            or not self._hand_partners(seat) or not self.hands[seat]
        ):
            return []
        return ["signal " + name for name in SIGNAL_NAMES]

    def _hand_partners(self, seat: int) -> tuple[int, ...]:
        return self.t.hand_partners_of[self.dealer][seat]

    def _can_raise(self, seat: int) -> bool:
        rules = self.rules
        if self.raise_pending is not None or self.schadet_pending:
            return False
        side = self.hand_sides[seat]
        if side == self.last_raise_side:
            return False
        if rules.tight == "three-or-concede":
            if any(self.gespannt):
                return False
        elif self.gespannt[side]:
            return False
        # RULES.md: no raise "beyond the points it still needs": the proposed value may not exceed them.
        return not (rules.raise_cap == "target" and self.value + rules.raise_step > self._side_needs(side))

    def _can_concede(self, seat: int) -> bool:
        return (
            self.rules.tight == "three-or-concede" and self.played_cards == 0
            and self.gespannt[self.hand_sides[seat]] and self.raise_pending is None and not self.schadet_pending
        )

    def _may_take(self) -> bool:
        seat = self.schlecken_seat
        card = self._seen_card()
        if len(self.taken[seat]) >= self.rules.hand_size:
            return False
        if card in self.rules.kritische_cards:
            return True
        return self.rules.schlecken_bluff and seat == self.cutter

    def _seen_card(self) -> Card:
        if self.schlecken_seat == self.cutter:
            return self.lifted[self.seen_index]
        return self.rest[self.seen_index]

    def _announce_actions(self, seat: int) -> list[str]:
        rules = self.rules
        step = self.announce_step
        if step == A_SWAP:
            return ["swap yes", "swap no"]
        if step == A_BESSERE:
            return ["bessere yes", "bessere no"]
        out: list[str]
        if step == A_SCHLAG:
            out = ["schlag " + r for r in schlag_choices(rules)]
            if rules.schlagwechsel and self.t.n != 3 and not self.swap_asked and seat == self.forehand:
                out.append("swap?")
        else:
            out = ["trump " + s for s in ("E", "L", "H", "S")]
        if self._bessere_possible():
            out.append("bessere?")
        return out

    def _bessere_possible(self) -> bool:
        model = self.rules.bessere
        if model is None or self.bessere_asked:
            return False
        if model == "redeal-penalty":
            return True
        if self.t.n == 3:
            return False
        held = sum(len(self.hands[s]) for s in self.announcers)
        return len(self.stack) >= held + self._still_to_deal()

    def _still_to_deal(self) -> int:
        if self.rules.announce_after == self.rules.hand_size:
            return 0
        return sum(self._packet_sizes(s)[1] for s in range(self.t.n))

    def _packet_sizes(self, seat: int) -> tuple[int, int]:
        """Cards a seat gets in the first and second packet: k taken at the cut, fewer from the first first."""
        first = self.rules.first_packet
        second = self.rules.hand_size - first
        k = len(self.taken[seat])
        return max(0, first - k), second - max(0, k - first)

    # ------------------------------------------------------------------ applying actions
    def apply(self, seat: int, action: str) -> tuple[Match, list[Event]]:
        """Apply one action of `seat`; returns the new match and its events. The old match is unchanged."""
        if not isinstance(seat, int) or not 0 <= seat < self.t.n:
            raise RuleViolation("no-such-seat", f"there is no seat {seat!r} at a {self.t.n}-player table")
        if not isinstance(action, str):
            raise RuleViolation("malformed", "an action is a string such as 'play HK'")
        legal = self._legal.get(seat) if self._legal is not None else None
        if legal is None:
            legal = self.legal_actions(seat)
        text = action if action in legal else normalise_action(action)
        if text not in legal:
            self._refuse(seat, text)
        m = self._clone()
        events: list[Event] = []
        m.actions = ((seat, text), self.actions)
        verb, _, arg = text.partition(" ")
        if verb == "play":
            m._play(seat, _PLAY_BY_TEXT[text], events)
        elif verb == "raise":
            m._raise(seat, events)
        elif verb in ("accept", "fold"):
            m._answer_raise(seat, verb, events)
        elif verb == "signal":
            m._signal(seat, arg, events)
        elif verb == "cut":
            m._cut(seat, int(arg), events)
        elif verb in ("take", "keep"):
            m._schlecken(seat, verb == "take", events)
        elif verb == "schlag":
            m._name_schlag(seat, arg, events)
        elif verb == "trump":
            m._name_trump(seat, arg, events)
        elif verb in ("swap?", "swap"):
            m._swap(seat, arg, events)
        elif verb in ("bessere?", "bessere"):
            m._bessere(seat, arg, events)
        elif verb in ("schadet?", "schadet"):
            m._schadet(seat, arg, events)
        elif verb == "concede":
            m._concede(seat, events)
        else:  # pragma: no cover - every legal action has a branch above
            raise AssertionError(text)
        return m, events

    def _refuse(self, seat: int, text: str) -> None:
        """Raise the most precise RuleViolation for an action that is not legal now."""
        verb, _, arg = text.partition(" ")
        known = {
            "cut", "take", "keep", "swap?", "swap", "bessere?", "bessere", "schlag", "trump", "raise", "accept",
            "fold", "concede", "schadet?", "schadet", "play", "signal",
        }
        if verb not in known:
            raise RuleViolation("malformed", f"unknown action {text!r}")
        if self.phase == OVER:
            raise RuleViolation("match-over", "the match is over")
        if self.phase == DEAL:
            raise RuleViolation("no-deck", "the cards are not shuffled yet: waiting for the deal")
        if verb == "play":
            try:
                card = Card.parse(arg)
            except ValueError as err:
                raise RuleViolation("malformed", str(err)) from None
            if self.phase != PLAY:
                raise RuleViolation("not-now", "cards are played only after the announcement")
            if self.raise_pending is not None:
                raise RuleViolation("raise-pending", "a raise is pending: it must be accepted or folded first")
            if self.schadet_pending:
                raise RuleViolation("schadet-pending", "waiting for the partner's answer to 'schadet?'")
            if seat != self.turn:
                raise RuleViolation("not-your-turn", f"it is seat {self.turn}'s turn to play")
            if card not in self.hands[seat]:
                raise RuleViolation("card-not-in-hand", f"{card} is not in your hand")
            raise RuleViolation(
                "must-play-trump",
                "you must play a trump or a Kritischer (Trumpf oder Kritische)"
                if self.rules.follow == "hauptschlag-lead"
                else "a trump was led: you must play a trump or a Schlag card",
            )
        if verb == "raise":
            if self.phase != PLAY:
                raise RuleViolation("not-now", "raising starts once the trump is named")
            if self.raise_pending is not None:
                raise RuleViolation("raise-pending", "a raise is already pending")
            if self.schadet_pending:
                raise RuleViolation("schadet-pending", "waiting for the partner's answer to 'schadet?'")
            side = self.hand_sides[seat]
            if side == self.last_raise_side:
                raise RuleViolation("raise-twice", "your side raised last: the other side must raise next")
            if any(self.gespannt):
                raise RuleViolation("gespannt", "a side is gespannt: no raising in this hand")
            raise RuleViolation("raise-cap", "the stake already covers the points your side needs")
        if verb == "concede":
            if self.rules.tight != "three-or-concede":
                raise RuleViolation("no-concede", "conceding is not part of these rules (tight = base-two)")
            if self.phase != PLAY or self.played_cards:
                raise RuleViolation("not-now", "a gespannt side concedes after the trump and before the first lead")
            if not self.gespannt[self.hand_sides[seat]]:
                raise RuleViolation("not-gespannt", "only a gespannt side may concede")
        if verb in ("accept", "fold"):
            if self.raise_pending is None:
                raise RuleViolation("no-raise", "there is no raise to answer")
            raise RuleViolation("own-raise", "only the other side answers a raise")
        if verb == "signal":
            if arg not in SIGNAL_NAMES:
                raise RuleViolation("malformed", f"unknown signal {arg!r}; signals: {' '.join(SIGNAL_NAMES)}")
            if not self.rules.signals:
                raise RuleViolation("no-signals", "signals are off at this table")
            if not self._hand_partners(seat):
                raise RuleViolation("no-partner", "you have no partner to signal to")
            raise RuleViolation("not-now", "no signal now (at most 3 a hand, while you hold cards)")
        if verb == "cut":
            if self.phase != CUT:
                raise RuleViolation("not-now", "the deck is not being cut now")
            if seat != self.cutter:
                raise RuleViolation("not-your-turn", f"seat {self.cutter} cuts")
            size = len(self.deck or ())
            raise RuleViolation("bad-cut", f"cut between 4 and {size - 4} cards: 'cut N'")
        if seat not in self.waiting_for:
            waiting = ", ".join(str(s) for s in self.waiting_for)
            raise RuleViolation("not-your-turn", f"waiting for seat {waiting}")
        if self.phase == ANNOUNCE and self.announce_step == A_SCHLAG and verb == "schlag":
            choices = " ".join(schlag_choices(self.rules))
            raise RuleViolation("bad-schlag", f"the Schlag must be one of {choices}")
        if self.phase == ANNOUNCE and self.announce_step == A_TRUMP and verb == "trump":
            raise RuleViolation("bad-trump", "the trump is a suit: E, L, H or S")
        raise RuleViolation("not-now", f"{text!r} is not possible now")

    # -- cut and Schlecken
    def _cut(self, seat: int, n: int, events: list[Event]) -> None:
        assert self.deck is not None
        self.cut_n = n
        self.lifted = self.deck[:n]
        self.rest = self.deck[n:]
        self._emit(events, Event("cut", seat, {"n": n}))
        if self.rules.schlecken:
            self.phase = SCHLECKEN
            self.schlecken_seat = seat
            self.seen_index = n - 1
            self._show_seen(events)
        else:
            self._join_and_deal(events)

    def _show_seen(self, events: list[Event]) -> None:
        card = self._seen_card()
        position = self._position(card)
        self._emit(
            events,
            Event("see", self.schlecken_seat, {"card": card.text, "position": position}, (self.schlecken_seat,)),
        )

    def _schlecken(self, seat: int, take: bool, events: list[Event]) -> None:
        cutter_stage = seat == self.cutter  # the cutter and the dealer are never the same seat
        if take:
            card = self._seen_card()
            taken = list(self.taken)
            taken[seat] = (*taken[seat], card)
            self.taken = tuple(taken)
            if cutter_stage and card not in self.rules.kritische_cards:
                self.bluff = True
            self._emit(events, Event("take", seat))
            self._emit(
                events, Event("took", seat, {"card": card.text, "position": self._position(card)}, (seat,))
            )
            self.seen_index -= 1
            if self.seen_index >= 0 and len(self.taken[seat]) < self.rules.hand_size:
                self._show_seen(events)
                return
        else:
            self._emit(events, Event("keep", seat))
        # This seat's turn at Schlecken is over.
        if cutter_stage and self.taken[seat]:
            self.schlecken_seat = self.dealer
            self.seen_index = len(self.rest) - 1
            self._show_seen(events)
            return
        self._join_and_deal(events)

    def _join_and_deal(self, events: list[Event]) -> None:
        cutter, dealer = self.cutter, self.dealer
        lifted = self.lifted[: len(self.lifted) - len(self.taken[cutter])] if cutter != dealer else self.lifted
        rest = self.rest[: len(self.rest) - len(self.taken[dealer])] if dealer != cutter else self.rest
        self.stack = rest + lifted
        self.lifted = ()
        self.rest = ()
        self.schlecken_seat = -1
        hands = [list(cards) for cards in self.taken]
        self.hands = tuple(tuple(h) for h in hands)
        self._deal_packet(0, events)
        if self.rules.announce_after == self.rules.hand_size:
            self._deal_packet(1, events)
            if self._check_maschine(events):
                return
        self.phase = ANNOUNCE
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.forehand

    def _deal_packet(self, packet: int, events: list[Event]) -> None:
        hands = list(self.hands)
        stack = self.stack
        top = 0
        for seat in self._seat_order(self.forehand):
            count = self._packet_sizes(seat)[packet]
            if count <= 0:
                continue
            got = stack[top: top + count]
            top += count
            hands[seat] = tuple(sorted(hands[seat] + got, key=_CODE))
            self._emit(
                events,
                Event(
                    "deal", seat,
                    {"packet": packet + 1, "cards": [c.text for c in got],
                     "positions": [self._position(c) for c in got]},
                    (seat,),
                ),
            )
        self.stack = stack[top:]
        self.hands = tuple(hands)
        self._emit(events, Event("packet", data={"packet": packet + 1, "counts": [len(h) for h in hands]}))

    def _check_maschine(self, events: list[Event]) -> bool:
        points = self.rules.maschine_points
        if not points:
            return False
        needed = set(self.rules.kritische_cards)
        for seat in self._seat_order(self.forehand):
            if needed <= set(self.hands[seat]):
                shown = [c.text for c in self.rules.kritische_cards]
                self._emit(events, Event("maschine", seat, {"cards": shown}))
                self._end_hand(self.hand_sides[seat], points, "maschine", events)
                return True
        return False

    # -- announcement
    def _other_announcer(self, seat: int) -> int:
        forehand, dealer = self.forehand, self.dealer
        return dealer if seat == forehand else forehand

    def _announce_visibility(self) -> tuple[int, ...] | None:
        return self.announcers if self.rules.blind else None

    def _name_schlag(self, seat: int, rank: str, events: list[Event]) -> None:
        self.schlag = rank
        to = self._announce_visibility()
        self._emit(events, Event("schlag", seat, {"rank": rank}, to))
        if to is not None:
            self._emit(events, Event("announced", seat, {"what": "schlag"}))
        self.announce_step = A_TRUMP
        if self.t.n == 3:
            self.announcer_turn = seat
        else:
            self.announcer_turn = self.forehand if self.swapped else self.dealer

    def _name_trump(self, seat: int, suit: str, events: list[Event]) -> None:
        assert self.schlag is not None
        self.trump = suit
        to = self._announce_visibility()
        self._emit(events, Event("trump", seat, {"suit": suit}, to))
        if to is not None:
            self._emit(events, Event("announced", seat, {"what": "trump"}))
        self.ranking = ranking(self.rules, self.schlag, suit)
        if self.rules.announce_after != self.rules.hand_size:
            self._deal_packet(1, events)
            if self._check_maschine(events):
                return
        self.phase = PLAY
        self.turn = self.leader = self.forehand

    def _swap(self, seat: int, arg: str, events: list[Event]) -> None:
        if arg == "":  # swap?
            self.swap_asked = True
            self._emit(events, Event("swap?", seat))
            self.announce_step = A_SWAP
            self.announcer_turn = self.dealer
            return
        yes = arg == "yes"
        self._emit(events, Event("swap", seat, {"answer": arg}))
        self.swapped = yes
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.dealer if yes else self.forehand

    def _bessere(self, seat: int, arg: str, events: list[Event]) -> None:
        if arg == "":  # bessere?
            self.bessere_asked = True
            self._emit(events, Event("bessere?", seat))
            if self.rules.bessere == "redeal-penalty":
                side = 1 - self.hand_sides[seat]
                self._add_points(side, 2)
                self._emit(events, Event("redeal", seat, {"penalty": 2, "scores": list(self.scores)}))
                if not self._check_match_end(events):
                    self.attempt += 1
                    self._start_attempt(events)
                return
            self.announce_step = A_BESSERE
            self.announcer_turn = self._other_announcer(seat)
            return
        asker = self._other_announcer(seat)
        self._emit(events, Event("bessere", seat, {"answer": arg}))
        if arg == "no":
            # Back to the asker, at the step where the question was asked.
            self.announce_step = A_SCHLAG if self.schlag is None else A_TRUMP
            self.announcer_turn = asker
            return
        # Only the two announcers put their cards aside and get as many new ones from the stack.
        hands = list(self.hands)
        stack = self.stack
        for who in (self.forehand, self.dealer):
            count = len(hands[who])
            got = stack[:count]
            stack = stack[count:]
            self._emit(events, Event("aside", who, {"count": count}))
            self.aside = self.aside + hands[who]
            hands[who] = tuple(sorted(got, key=_CODE))
            self._emit(
                events,
                Event("deal", who, {"packet": 0, "cards": [c.text for c in got],
                                    "positions": [self._position(c) for c in got]}, (who,)),
            )
        self.hands = tuple(hands)
        self.stack = stack
        self.schlag = None
        self.swapped = False
        self.swap_asked = False
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.forehand
        if self.rules.announce_after == self.rules.hand_size:
            # Every card is dealt already, so the new cards may make a Maschine (shown before the first lead).
            self._check_maschine(events)

    # -- play
    def _play(self, seat: int, card: Card, events: list[Event]) -> None:
        hands = list(self.hands)
        hand = hands[seat]
        i = 0
        while hand[i] is not card:  # identity: cards are interned, and it avoids Python-level __eq__
            i += 1
        hands[seat] = hand[:i] + hand[i + 1:]
        self.hands = tuple(hands)
        self.trick = (*self.trick, card)
        self.trick_seats = (*self.trick_seats, seat)
        self.played_cards += 1
        if seat == self.cutter and card in self.ranking.kritische:  # type: ignore[union-attr]
            self.cutter_played_kritisch = True
        self._emit(events, Event("play", seat, {"card": card.text, "position": self._position(card)}))
        n = self.t.n
        if len(self.trick) < n:
            self.turn = (seat + 1) % n
            return
        assert self.ranking is not None
        winner = self.trick_seats[self.ranking.winner(self.trick)]
        side = self.hand_sides[winner]
        won = list(self.tricks_won)
        won[side] += 1
        self.tricks_won = (won[0], won[1])
        self.tricks = (*self.tricks, (self.leader, self.trick, winner))
        self._emit(
            events,
            Event("trick", winner, {"cards": [c.text for c in self.trick], "leader": self.leader,
                                    "side": side, "tricks": list(self.tricks_won)}),
        )
        self.trick = ()
        self.trick_seats = ()
        if won[side] >= self.rules.tricks_to_win:
            self._end_hand(side, self.value, "tricks", events)
            return
        self.leader = self.turn = winner

    def _raise(self, seat: int, events: list[Event]) -> None:
        proposed = self.value + self.rules.raise_step
        self.raise_pending = (proposed, seat)
        self._emit(events, Event("raise", seat, {"value": proposed, "from": self.value}))

    def _answer_raise(self, seat: int, verb: str, events: list[Event]) -> None:
        assert self.raise_pending is not None
        proposed, raiser = self.raise_pending
        self.raise_pending = None
        raiser_side = self.hand_sides[raiser]
        if verb == "accept":
            self.value = proposed
            self.last_raise_side = raiser_side
            self._emit(events, Event("accept", seat, {"value": proposed}))
            return
        self._emit(events, Event("fold", seat, {"value": self.value}))
        self._end_hand(raiser_side, self.value, "fold", events)

    def _concede(self, seat: int, events: list[Event]) -> None:
        self._emit(events, Event("concede", seat))
        self._end_hand(1 - self.hand_sides[seat], 2, "concede", events)

    def _schadet(self, seat: int, arg: str, events: list[Event]) -> None:
        if arg == "":
            self.schadet_asked = True
            self.schadet_pending = True
            self._emit(events, Event("schadet?", seat))
            return
        self.schadet_pending = False
        self._emit(events, Event("schadet", seat, {"answer": arg}))

    def _signal(self, seat: int, name: str, events: list[Event]) -> None:
        sent = list(self.signals_sent)
        sent[seat] += 1
        self.signals_sent = tuple(sent)
        to = (seat, *self._hand_partners(seat))
        self._emit(events, Event("signal", seat, {"name": name}, tuple(sorted(to))))

    # -- scoring
    def _add_points(self, side: int, points: int) -> None:
        scores = list(self.scores)
        for slot in self.side_slots[side]:
            scores[slot] += points
        self.scores = tuple(scores)

    def _end_hand(self, side: int, points: int, reason: str, events: list[Event]) -> None:
        rules = self.rules
        if rules.tight == "base-two" and reason != "concede" and self.gespannt[1 - side]:
            points = min(points, 2)
        self._add_points(side, points)
        penalty = 0
        if reason == "tricks" and self.bluff and not self.cutter_played_kritisch:
            penalty = 2
            self._add_points(1 - self.hand_sides[self.cutter], penalty)
            self._emit(events, Event("bluff-penalty", self.cutter, {"points": penalty}))
        if rules.blind and self.schlag is not None and self.trump is not None:
            self._emit(events, Event("announcement", data={"schlag": self.schlag, "trump": self.trump}))
        self._emit(
            events,
            Event("hand-end", data={
                "side": side, "seats": self._side_seats(side), "points": points, "reason": reason,
                "scores": list(self.scores), "hand": self.hand_number, "tricks": list(self.tricks_won),
            }),
        )
        self.raise_pending = None
        self.schadet_pending = False
        if self._check_match_end(events):
            return
        self.hand_number += 1
        self.attempt = 0
        self.dealer = (self.dealer + 1) % self.t.n
        self._start_attempt(events)

    def _check_match_end(self, events: list[Event]) -> bool:
        rules = self.rules
        winners = tuple(slot for slot, points in enumerate(self.scores) if points >= rules.target)
        if not winners:
            return False
        marks = list(self.bummerl)
        for slot, points in enumerate(self.scores):
            if slot not in winners:
                marks[slot] += 2 if rules.schneider and points == 0 else 1
        self.bummerl = tuple(marks)
        self.winners = winners
        self.series_over = any(b >= rules.bummerl_limit for b in marks)
        self.phase = OVER
        self._emit(
            events,
            Event("match-end", data={
                "scores": list(self.scores), "winners": list(winners), "bummerl": list(marks),
                "series_over": self.series_over,
            }),
        )
        return True

    # ------------------------------------------------------------------ observation
    def observe(self, seat: int) -> Observation:
        """Exactly what `seat` may see now (its own cards, public facts, the events shown to it)."""
        return build_observation(self, seat)

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
            else:
                m, _ = m.apply(who, what)  # type: ignore[arg-type]
        return m


def _make_clone() -> Any:
    # One assignment per slot, generated once: several times faster than a getattr/setattr loop,
    # and cloning is the price of immutability paid on every apply.
    lines = ["def _clone(self):", "    m = _new(_Match)"]
    lines += [f"    m.{name} = self.{name}" for name in Match.__slots__ if name != "_legal"]
    lines += ["    m._legal = None", "    return m"]
    namespace: dict[str, Any] = {"_new": object.__new__, "_Match": Match}
    exec("\n".join(lines), namespace)
    return namespace["_clone"]


Match._clone = _make_clone()  # type: ignore[method-assign]


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
