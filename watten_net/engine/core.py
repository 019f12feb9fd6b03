"""The state machine both engines share: one match of Watten, hand after hand (RULES.md sections 5 to 9).

`Match` knows the cards; `PublicMatch` (a trustless host) knows only what is public. The rules are the same,
so they live here once, in `MatchCore`: phases and turns, the cut and the Schlecken, the deal map, the
announcement (Schlagwechsel, Bessere), raising, folding, gespannt, conceding, signals, tricks, scoring, the
Bummerl and the log of inputs. What a state holds for one card is its *piece*: the `Card` itself in `Match`,
its deck position in `PublicMatch`. Whatever needs to look behind a piece is a hook the two engines fill in
(marked "hook" below): whether the card shown at the cut may be taken, what the events of a dealt or shown
card reveal, which cards the seat on turn may play, what a Maschine or a Schlecken take means, and how a
decided hand is ended (at once, or after its obligations are settled).

Every step is immutable: an action returns a *new* state and the events it caused. A step copies one flat
object of slots (no deep copies; every container inside is a tuple, a frozenset or a dict that is replaced,
never changed) with a straight-line copy generated per engine, and the legal actions of a state are computed
once and cached. Speed matters (bots search by random playouts), so the play path reads plain slots into
locals, and a few lists of a handful of items are built by plain loops: in Python 3.11 a comprehension is a
function call of its own, which costs more than the loop for two to five items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from operator import attrgetter
from typing import Any, ClassVar, Generic, NoReturn, Self, TypeVar, cast

from .cards import Card, canonical_deck
from .errors import RuleViolation
from .events import Event
from .notation import (
    A_BESSERE,
    A_SCHLAG,
    A_SWAP,
    A_TRUMP,
    ANNOUNCE,
    CUT,
    CUT_ACTIONS,
    DEAL,
    FORFEIT,
    OVER,
    PLAY,
    SCHLECKEN,
    SIGNAL_ACTIONS,
    TRUMP_ACTIONS,
    VERBS,
)
from .ranking import Ranking, ranking, schlag_choices
from .rules import SIGNAL_NAMES, Rules
from .table import Table, table_for

MAX_SIGNALS_PER_HAND = 3  # decision: enough to show a hand, bounded so no seat can flood its partner
_NO_CAP = 1 << 30  # a raise limit no stake reaches (raise_cap = "none")

# Events are made on every action: building the named tuple in one C call skips its Python-level
# __new__. The result is an ordinary Event; `NO_DATA` is the very default `Event(kind, seat)` uses.
make_event = cast(
    Callable[[tuple[str, int, dict[str, Any], tuple[int, ...] | None]], Event], partial(tuple.__new__, Event)
)
NO_DATA: dict[str, Any] = Event._field_defaults["data"]

Log = tuple[Any, ...] | None  # a persistent list: (item, previous) pairs, newest first


def iter_log(log: Log) -> list[Any]:
    items = []
    while log is not None:
        items.append(log[0])
        log = log[1]
    items.reverse()
    return items


class Facts:
    """What follows from the rules and the player count alone, worked out once instead of on every action."""

    __slots__ = (
        "bessere", "cuts", "deck", "deck_set", "kritische", "kritische_text", "packet_sizes", "schlag_actions",
        "second_packet_later", "signal_seats",
    )

    def __init__(self, rules: Rules, table: Table) -> None:
        self.deck = canonical_deck(rules.deck)
        self.deck_set = frozenset(self.deck)
        self.cuts = CUT_ACTIONS[rules.deck]
        self.schlag_actions = ["schlag " + r for r in schlag_choices(rules)]
        self.kritische = frozenset(rules.kritische_cards)
        self.kritische_text = [c.text for c in rules.kritische_cards]
        # Cards a seat gets in the first and second packet, by the number k of cards it took at the cut
        # (those count against the first packet first).
        first = rules.first_packet
        second = rules.hand_size - first
        self.packet_sizes = tuple(
            (max(0, first - k), second - max(0, k - first)) for k in range(rules.hand_size + 1)
        )
        self.second_packet_later = rules.announce_after != rules.hand_size
        # Per dealer and seat: may the seat signal at all in that hand (signals on, someone to signal to)?
        self.signal_seats = tuple(
            tuple(rules.signals and bool(partners) for partners in per_seat) for per_seat in table.hand_partners_of
        )
        self.bessere = rules.bessere


@lru_cache(maxsize=64)
def facts(rules: Rules) -> Facts:
    return Facts(rules, table_for(rules))


def all_slots(cls: type) -> list[str]:
    """Every slot of `cls` and its bases: the whole state of an engine."""
    return [name for klass in reversed(cls.__mro__) for name in getattr(klass, "__slots__", ())]


def _make_clone(cls: type) -> Callable[[Any], Any]:
    # One assignment per slot, generated once per engine: several times faster than a getattr/setattr loop
    # or copy.copy, and cloning is the price of immutability paid on every apply.
    lines = ["def _clone(self):", "    m = _new(_cls)"]
    lines += [f"    m.{name} = self.{name}" for name in all_slots(cls) if name != "_legal"]
    lines += ["    m._legal = None", "    return m"]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    exec("\n".join(lines), namespace)
    return cast(Callable[[Any], Any], namespace["_clone"])


Piece = TypeVar("Piece")  # what the state holds for one card: a Card (Match) or its deck position (PublicMatch)


class MatchCore(Generic[Piece]):
    """One match to `rules.target`, one hand after another, plus the series' Bummerl, without looking at a card."""

    # With Match's two slots of its own these make 57: a 488-byte object. Past 60 it would outgrow CPython's
    # small-object allocator (512 bytes) and every copy would cost a malloc.
    __slots__ = (
        "_concede_ok", "_f", "_legal", "_raise_limit", "announce_step", "announcer_turn", "aside", "attempt",
        "bessere_asked", "bummerl", "cut_n", "cutter_played_kritisch", "dealer", "deck", "first_dealer", "gespannt",
        "hand_number", "hand_sides", "hands", "inputs", "is_over", "last_raise_side", "leader", "lifted", "log",
        "match_number", "needs_deck", "phase", "played_cards", "raise_pending", "ranking", "rest", "rules",
        "schadet_asked", "schadet_pending", "schlag", "schlecken_seat", "scores", "seen_index", "series_over",
        "side_slots", "signals_sent", "stack", "swap_asked", "swapped", "t", "taken", "trick", "trick_seats",
        "tricks", "tricks_won", "trump", "turn", "value", "winners",
    )

    VERBS: ClassVar[frozenset[str]] = VERBS  # the verbs this engine knows (others are malformed)
    # How the engine keeps a hand: sorted by this key, or (None) in the order the pieces were received.
    # A key rather than a hook: sorted() with a C key costs no Python call on the deal path.
    HAND_ORDER: ClassVar[attrgetter[Any] | None] = None

    rules: Rules
    t: Table
    # Plain slots rather than properties: playout loops read them on every step, and in Python 3.11 a
    # property read is a Python call. They change with the phase in three places only: _start_attempt
    # (DEAL), _with_deck (leaves DEAL) and _check_match_end (OVER).
    needs_deck: bool  # phase == DEAL: waiting for the shuffled deck of the next hand
    is_over: bool  # phase == OVER: the match has ended
    first_dealer: int
    scores: tuple[int, ...]
    bummerl: tuple[int, ...]
    match_number: int
    hand_number: int
    attempt: int
    dealer: int
    phase: str
    deck: tuple[Piece, ...] | None  # the deck of the attempt, top first (None until it is given)
    cut_n: int
    lifted: tuple[Piece, ...]
    rest: tuple[Piece, ...]
    schlecken_seat: int
    seen_index: int
    taken: tuple[tuple[Piece, ...], ...]
    stack: tuple[Piece, ...]
    aside: tuple[Piece, ...]  # put aside at a Bessere: out of this hand, never shown
    hands: tuple[tuple[Piece, ...], ...]
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
    log: Log  # items: the tuple of events of one step (one node per apply, not one per event)
    inputs: Log  # items: the inputs for `history` (decks and actions)
    _legal: dict[int, list[str]] | None
    _f: Facts
    # Fixed for a hand attempt (scores and gespannt do not change within one), per hand side:
    _raise_limit: tuple[int, int]  # the highest stake the side may propose (-1: no raising in this hand)
    _concede_ok: tuple[bool, bool]  # may the side concede (before the first lead)?

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        setattr(cls, "_clone", _make_clone(cls))  # noqa: B010 - mypy refuses an assignment to a method

    def _clone(self) -> Self:
        """A copy of this state to change (generated per engine, see _make_clone)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ construction
    def __init__(self) -> None:
        raise TypeError(f"use {type(self).__name__}.new(rules)")

    @classmethod
    def new(
        cls,
        rules: Rules,
        first_dealer: int = 0,
        start_scores: Sequence[int] | None = None,
        *,
        bummerl: Sequence[int] | None = None,
    ) -> Self:
        """A match waiting for its first deck. `start_scores`: per side (per seat with 2 or 3 players)."""
        cls._check_rules(rules)
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
        m._f = facts(rules)
        m.first_dealer = m.dealer = first_dealer
        m.scores = scores
        m.bummerl = marks
        m.match_number = m.hand_number = m.attempt = 0
        m.winners = ()
        m.series_over = m.is_over = False
        m.log = m.inputs = None
        events: list[Event] = []
        m._start_attempt(events)
        m.log = (tuple(events), None)
        return m

    @classmethod
    def _check_rules(cls, rules: Rules) -> None:
        """Refuse rules this engine cannot play (a RuleViolation); every rule set unless an engine says otherwise."""

    def next_match(self) -> Self:
        """After a match ends: the next match of the series (scores back to 0, Bummerl kept)."""
        if self.phase != OVER:
            raise RuleViolation("match-not-over", "the match is still being played")
        if self.series_over:
            raise RuleViolation("series-over", "the series is over: a side has reached the Bummerl limit")
        m = self.new(self.rules, (self.dealer + 1) % self.t.n, bummerl=self.bummerl)
        m.match_number = self.match_number + 1
        return m

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
        """Points of the side `seat` belongs to (of the seat itself with 2 or 3 players)."""
        return self.scores[self.t.slot_of[seat]]

    def events(self) -> list[Event]:
        """Every event of this match so far, oldest first (all seats' views together)."""
        return [event for step in iter_log(self.log) for event in step]

    @property
    def waiting_for(self) -> tuple[int, ...]:
        """Seats whose action the game waits for now (more than one while a raise is pending)."""
        phase = self.phase
        if phase == PLAY:  # the most common phase first
            pending = self.raise_pending
            if pending is not None:
                return self.t.answerers_of[self.dealer][pending[1]]
            if self.schadet_pending:
                return self.t.partners[self.forehand]
            return (self.turn,)
        if phase == ANNOUNCE:
            return (self.announcer_turn,)
        if phase == CUT:
            return (self.cutter,)
        if phase == SCHLECKEN:
            return (self.schlecken_seat,)
        return ()  # DEAL, OVER

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.rules.players}p hand {self.hand_number}.{self.attempt} phase {self.phase} "
            f"scores {self.scores}>"
        )

    # ------------------------------------------------------------------ hand set-up
    def _start_attempt(self, events: list[Event]) -> None:
        rules, table, dealer = self.rules, self.t, self.dealer
        n = table.n
        forehand = table.forehand_of[dealer]
        self.phase = DEAL
        self.needs_deck = True
        self.deck = None
        self.cut_n = 0
        self.lifted = ()
        self.rest = ()
        self.schlecken_seat = -1
        self.seen_index = -1
        self.taken = ((),) * n
        self.stack = ()
        self.aside = ()
        self.hands = ((),) * n
        self.hand_sides = table.sides_of[dealer]
        side_slots = self.side_slots = table.side_slots_of[dealer]
        # Scores stay as they are for the whole attempt, so what follows from them is worked out here.
        scores, target = self.scores, rules.target
        score_of = scores.__getitem__
        best = (max(map(score_of, side_slots[0])), max(map(score_of, side_slots[1])))  # per side
        gespannt = self.gespannt = (best[0] >= target - 2, best[1] >= target - 2)
        three_or_concede = rules.tight == "three-or-concede"
        # No raising when gespannt: with three-or-concede when any side is, with base-two for that side.
        blocked = (any(gespannt),) * 2 if three_or_concede else gespannt
        # RULES.md: no raise "beyond the points it still needs": the proposed value may not exceed them.
        needs = (target - best[0], target - best[1]) if rules.raise_cap == "target" else (_NO_CAP, _NO_CAP)
        self._raise_limit = (-1 if blocked[0] else needs[0], -1 if blocked[1] else needs[1])
        self._concede_ok = (three_or_concede and gespannt[0], three_or_concede and gespannt[1])
        self.announce_step = A_SCHLAG
        self.announcer_turn = forehand
        self.swap_asked = False
        self.swapped = False
        self.bessere_asked = False
        self.schlag = None
        self.trump = None
        self.ranking = None
        self.value = 3 if three_or_concede and (gespannt[0] or gespannt[1]) else 2
        self.raise_pending = None
        self.last_raise_side = -1
        self.schadet_asked = False
        self.schadet_pending = False
        self.leader = forehand
        self.turn = forehand
        self.trick = ()
        self.trick_seats = ()
        self.tricks = ()
        self.tricks_won = (0, 0)
        self.played_cards = 0
        self.cutter_played_kritisch = False
        self.signals_sent = (0,) * n
        self._legal = None
        self._reset_attempt()
        events.append(make_event((
            "hand-start", -1,
            {
                "hand": self.hand_number, "attempt": self.attempt, "dealer": dealer,
                "forehand": forehand, "cutter": table.cutter_of[dealer], "value": self.value,
                "gespannt": list(gespannt),
            },
            None,
        )))

    def _reset_attempt(self) -> None:
        """Hook: the engine's own state of a new deal attempt."""
        raise NotImplementedError

    # ------------------------------------------------------------------ chance and the dealing protocol
    def _with_deck(self, deck: tuple[Piece, ...], item: Any) -> Self:
        """A copy that has the deck of this attempt (`item` records it in history()) and waits for the cut."""
        m = self._clone()
        m.deck = deck
        m.phase = CUT
        m.needs_deck = False
        m.inputs = (item, self.inputs)
        return m

    def _refuse_deck(self) -> None:
        if self.phase != DEAL:
            raise RuleViolation("no-deck-needed", "the match is not waiting for a deck now")

    def forfeit(self, seat: int) -> tuple[Self, list[Event]]:
        """`seat` did not reveal its seed in time (PROTOCOL.md Level 1, step 4): its side loses the hand at its
        current value, before a card is dealt. Only the dealing protocol calls this; it is no player's action."""
        self._check_seat(seat)
        if self.phase != DEAL:
            raise RuleViolation("not-now", "a deal attempt is forfeited only while its deck is still being made")
        return self._forfeited(seat)

    def _forfeited(self, seat: int) -> tuple[Self, list[Event]]:
        """`seat`'s side loses the hand at its current value, whatever the phase (the caller decides when)."""
        m = self._clone()
        events: list[Event] = [Event("forfeit", seat)]
        m.inputs = ((seat, FORFEIT), self.inputs)
        m._end_hand(1 - self.hand_sides[seat], self.value, "forfeit", events)
        m.log = (tuple(events), self.log)
        return m, events

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < self.t.n:
            raise RuleViolation("no-such-seat", f"there is no seat {seat!r} at a {self.t.n}-player table")

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
        if phase == PLAY:
            pending = self.raise_pending
            if pending is not None:
                if self.hand_sides[seat] != self.hand_sides[pending[1]]:
                    return ["accept", "fold"]
                return []
            if self.schadet_pending:
                return ["schadet yes", "schadet no"] if seat in self.t.partners[self.forehand] else []
            out = self._turn_actions(seat) if seat == self.turn else []
            # Side actions, from what was worked out for this hand (see _start_attempt).
            side = self.hand_sides[seat]
            if side != self.last_raise_side and self.value + self.rules.raise_step <= self._raise_limit[side]:
                out.append("raise")
            if self.played_cards == 0 and self._concede_ok[side]:
                out.append("concede")
            if self._f.signal_seats[self.dealer][seat] and self.signals_sent[seat] < MAX_SIGNALS_PER_HAND and (
                self.hands[seat]
            ):
                out.extend(SIGNAL_ACTIONS)
            return out
        if phase == ANNOUNCE:
            out = self._announce_actions(seat) if seat == self.announcer_turn else []
            out.extend(self._signal_actions(seat))
            return out
        if phase == CUT:
            if seat != self.cutter:
                return []
            return self._f.cuts
        if phase == SCHLECKEN:
            if seat != self.schlecken_seat:
                return []
            may_take = len(self.taken[seat]) < self.rules.hand_size and self._may_take_seen()
            return ["take", "keep"] if may_take else ["keep"]
        return []

    def _turn_actions(self, seat: int) -> list[str]:
        """Hook: the plays (and `schadet?`) of the seat whose turn it is, no raise or answer pending."""
        raise NotImplementedError

    def _may_take_seen(self) -> bool:
        """Hook: may the Schlecken seat take the card it is shown (it has room for it)?"""
        raise NotImplementedError

    def _may_ask_schadet(self, seat: int) -> bool:
        """`schadet?` as far as the state says, before the card that allows it: the forehand, before the
        first card, once a hand, where the rules play it."""
        return self.played_cards == 0 and self.rules.schadet and not self.schadet_asked and seat == self.forehand

    def _signal_actions(self, seat: int) -> list[str]:
        if (
            not self._f.signal_seats[self.dealer][seat] or self.signals_sent[seat] >= MAX_SIGNALS_PER_HAND
            or not self.hands[seat]
        ):
            return []
        return list(SIGNAL_ACTIONS)

    def _announce_actions(self, seat: int) -> list[str]:
        rules = self.rules
        step = self.announce_step
        if step == A_SWAP:
            return ["swap yes", "swap no"]
        if step == A_BESSERE:
            return ["bessere yes", "bessere no"]
        out: list[str]
        if step == A_SCHLAG:
            out = list(self._f.schlag_actions)
            if rules.schlagwechsel and self.t.n != 3 and not self.swap_asked and seat == self.forehand:
                out.append("swap?")
        else:
            out = list(TRUMP_ACTIONS)
        if self._bessere_possible():
            out.append("bessere?")
        return out

    def _bessere_possible(self) -> bool:
        model = self._f.bessere
        if model is None or self.bessere_asked:
            return False
        if model == "redeal-penalty":
            return True
        if self.t.n == 3:
            return False
        # The announcers (forehand and dealer with 2, 4 or 6 players) would need as many new cards as they hold.
        hands, dealer = self.hands, self.dealer
        held = len(hands[self.t.forehand_of[dealer]]) + len(hands[dealer])
        return len(self.stack) >= held + self._still_to_deal()

    def _still_to_deal(self) -> int:
        """Cards of the second packet still on the stack (the Bessere is asked during the announcement)."""
        if not self._f.second_packet_later:
            return 0
        sizes = self._f.packet_sizes
        total = 0
        for taken in self.taken:  # per seat
            total += sizes[len(taken)][1]
        return total

    # ------------------------------------------------------------------ applying actions
    def _applied(self, seat: int, text: str) -> tuple[Self, list[Event]]:
        """The step of a legal action other than a card play, spelled `text`."""
        m = self._clone()
        events: list[Event] = []
        m.inputs = ((seat, text), self.inputs)
        verb, _, arg = text.partition(" ")
        if verb == "raise":
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
        m.log = (tuple(events), self.log)
        return m, events

    # -- refusals: the precise RuleViolation for an action that is not legal now
    def _refuse_idle(self, verb: str, text: str) -> None:
        """An unknown action, or any action while no hand is being played."""
        if verb not in self.VERBS:
            raise RuleViolation("malformed", f"unknown action {text!r}")
        if self.phase == OVER:
            raise RuleViolation("match-over", "the match is over")
        if self.phase == DEAL:
            raise RuleViolation("no-deck", "the cards are not shuffled yet: waiting for the deal")

    def _refuse_play_now(self, seat: int) -> None:
        """A card play where the state alone refuses it: not this phase, something pending, another's turn."""
        if self.phase != PLAY:
            raise RuleViolation("not-now", "cards are played only after the announcement")
        if self.raise_pending is not None:
            raise RuleViolation("raise-pending", "a raise is pending: it must be accepted or folded first")
        if self.schadet_pending:
            raise RuleViolation("schadet-pending", "waiting for the partner's answer to 'schadet?'")
        if seat != self.turn:
            raise RuleViolation("not-your-turn", f"it is seat {self.turn}'s turn to play")

    def _refuse_raise(self, seat: int) -> NoReturn:
        """A raise, once no raise or `schadet?` is pending."""
        if self.phase != PLAY:
            raise RuleViolation("not-now", "raising starts once the trump is named")
        if self.hand_sides[seat] == self.last_raise_side:
            raise RuleViolation("raise-twice", "your side raised last: the other side must raise next")
        if any(self.gespannt):
            raise RuleViolation("gespannt", "a side is gespannt: no raising in this hand")
        raise RuleViolation("raise-cap", "the stake already covers the points your side needs")

    def _refuse_concede(self, seat: int) -> None:
        if self.rules.tight != "three-or-concede":
            raise RuleViolation("no-concede", "conceding is not part of these rules (tight = base-two)")
        if self.phase != PLAY or self.played_cards:
            raise RuleViolation("not-now", "a gespannt side concedes after the trump and before the first lead")
        if not self.gespannt[self.hand_sides[seat]]:
            raise RuleViolation("not-gespannt", "only a gespannt side may concede")

    def _refuse_signal(self, seat: int, name: str) -> NoReturn:
        if name not in SIGNAL_NAMES:
            raise RuleViolation("malformed", f"unknown signal {name!r}; signals: {' '.join(SIGNAL_NAMES)}")
        if not self.rules.signals:
            raise RuleViolation("no-signals", "signals are off at this table")
        if not self.t.hand_partners_of[self.dealer][seat]:
            raise RuleViolation("no-partner", "you have no partner to signal to")
        raise RuleViolation("not-now", "no signal now (at most 3 a hand, while you hold cards)")

    def _refuse_bad_cut(self) -> NoReturn:
        raise RuleViolation("bad-cut", f"cut between 4 and {len(self.deck or ()) - 4} cards: 'cut N'")

    def _refuse_not_waiting(self, seat: int) -> None:
        if seat not in self.waiting_for:
            waiting = ", ".join(str(s) for s in self.waiting_for)
            raise RuleViolation("not-your-turn", f"waiting for seat {waiting}")

    # -- cut and Schlecken
    def _cut(self, seat: int, n: int, events: list[Event]) -> None:
        deck = self.deck
        assert deck is not None
        self.cut_n = n
        self.lifted = deck[:n]
        self.rest = deck[n:]
        events.append(make_event(("cut", seat, {"n": n}, None)))
        if self.rules.schlecken:
            self.phase = SCHLECKEN
            self.schlecken_seat = seat
            self.seen_index = n - 1
            events.append(self._show("see", seat, self._seen()))
        else:
            self._join_and_deal(events)

    def _seen(self) -> Piece:
        """The card the Schlecken seat is shown: the cutter sees the lifted packet, the dealer the rest."""
        if self.schlecken_seat == self.t.cutter_of[self.dealer]:
            return self.lifted[self.seen_index]
        return self.rest[self.seen_index]

    def _schlecken(self, seat: int, take: bool, events: list[Event]) -> None:
        cutter_stage = seat == self.t.cutter_of[self.dealer]  # the cutter and the dealer are never the same seat
        if take:
            piece = self._seen()
            taken = list(self.taken)
            taken[seat] = (*taken[seat], piece)
            self.taken = tuple(taken)
            self._took(seat, piece, cutter_stage, events)
            events.append(make_event(("take", seat, NO_DATA, None)))
            events.append(self._show("took", seat, piece))
            self.seen_index -= 1
            if self.seen_index >= 0 and len(self.taken[seat]) < self.rules.hand_size:
                events.append(self._show("see", seat, self._seen()))
                return
        else:
            events.append(make_event(("keep", seat, NO_DATA, None)))
        # This seat's turn at Schlecken is over.
        if cutter_stage and self.taken[seat]:
            self.schlecken_seat = self.dealer
            self.seen_index = len(self.rest) - 1
            events.append(self._show("see", self.dealer, self._seen()))
            return
        self._join_and_deal(events)

    def _show(self, kind: str, seat: int, piece: Piece) -> Event:
        """Hook: the event of a card shown to `seat` at the Schlecken (`see`) or taken by it (`took`)."""
        raise NotImplementedError

    def _took(self, seat: int, piece: Piece, cutter_stage: bool, events: list[Event]) -> None:
        """Hook: what taking `piece` at the cut commits the seat to (only a Kritischer, but for a bluff)."""
        raise NotImplementedError

    # -- the deal
    def _join_and_deal(self, events: list[Event]) -> None:
        dealer = self.dealer
        cutter = self.t.cutter_of[dealer]
        taken = self.taken
        # The cards taken at the cut leave the bottom of the lifted packet (cutter) and of the rest (dealer);
        # the dealer's part goes on top.
        lifted = self.lifted[: len(self.lifted) - len(taken[cutter])] if taken[cutter] else self.lifted
        rest = self.rest[: len(self.rest) - len(taken[dealer])] if taken[dealer] else self.rest
        self.stack = rest + lifted
        self.lifted = ()
        self.rest = ()
        self.schlecken_seat = -1
        # The taken cards start the hands (a seat that took a whole first packet gets no cards from it).
        order = self.HAND_ORDER
        self.hands = tuple(tuple(sorted(pieces, key=order)) for pieces in taken) if order else taken
        self._deal_packet(0, events)
        if not self._f.second_packet_later:
            self._deal_packet(1, events)
            if self._all_cards_dealt(events):
                return
        self.phase = ANNOUNCE
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.t.forehand_of[dealer]

    def _deal_packet(self, packet: int, events: list[Event]) -> None:
        hands = list(self.hands)
        stack = self.stack
        taken = self.taken
        sizes = self._f.packet_sizes
        order = self.HAND_ORDER
        number = packet + 1
        top = 0
        for seat in self.t.seat_order_from[self.t.forehand_of[self.dealer]]:
            count = sizes[len(taken[seat])][packet]
            if count <= 0:
                continue
            got = stack[top: top + count]
            top += count
            hands[seat] = tuple(sorted(hands[seat] + got, key=order)) if order else hands[seat] + got
            events.append(self._deal_event(seat, number, got))
        self.stack = stack[top:]
        self.hands = tuple(hands)
        events.append(make_event(("packet", -1, {"packet": number, "counts": list(map(len, hands))}, None)))

    def _deal_event(self, seat: int, packet: int, got: tuple[Piece, ...]) -> Event:
        """Hook: the event of `got` dealt to `seat` in `packet` (0: new cards at a Bessere)."""
        raise NotImplementedError

    def _aside_event(self, seat: int, pieces: tuple[Piece, ...]) -> Event:
        """Hook: the event of `seat` putting `pieces` aside at a Bessere."""
        raise NotImplementedError

    def _all_cards_dealt(self, events: list[Event]) -> bool:
        """Hook: every card of the hand is dealt, where a Maschine shows; True when that ended the hand."""
        raise NotImplementedError

    # -- announcement
    def _other_announcer(self, seat: int) -> int:
        forehand, dealer = self.forehand, self.dealer
        return dealer if seat == forehand else forehand

    def _announce_visibility(self) -> tuple[int, ...] | None:
        return self.t.announcers_of[self.dealer] if self.rules.blind else None

    def _name_schlag(self, seat: int, rank: str, events: list[Event]) -> None:
        self.schlag = rank
        to = self._announce_visibility()
        events.append(make_event(("schlag", seat, {"rank": rank}, to)))
        if to is not None:
            events.append(make_event(("announced", seat, {"what": "schlag"}, None)))
        self.announce_step = A_TRUMP
        if self.t.n == 3:
            self.announcer_turn = seat
        else:
            self.announcer_turn = self.forehand if self.swapped else self.dealer

    def _name_trump(self, seat: int, suit: str, events: list[Event]) -> None:
        assert self.schlag is not None
        self.trump = suit
        to = self._announce_visibility()
        events.append(make_event(("trump", seat, {"suit": suit}, to)))
        if to is not None:
            events.append(make_event(("announced", seat, {"what": "trump"}, None)))
        self.ranking = ranking(self.rules, self.schlag, suit)
        if self._f.second_packet_later:
            self._deal_packet(1, events)
            if self._all_cards_dealt(events):
                return
        self.phase = PLAY
        self.turn = self.leader = self.t.forehand_of[self.dealer]

    def _swap(self, seat: int, arg: str, events: list[Event]) -> None:
        if arg == "":  # swap?
            self.swap_asked = True
            events.append(Event("swap?", seat))
            self.announce_step = A_SWAP
            self.announcer_turn = self.dealer
            return
        yes = arg == "yes"
        events.append(Event("swap", seat, {"answer": arg}))
        self.swapped = yes
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.dealer if yes else self.forehand

    def _bessere(self, seat: int, arg: str, events: list[Event]) -> None:
        if arg == "":  # bessere?
            self.bessere_asked = True
            events.append(Event("bessere?", seat))
            if self.rules.bessere == "redeal-penalty":
                self._redeal(seat, events)
                return
            self.announce_step = A_BESSERE
            self.announcer_turn = self._other_announcer(seat)
            return
        asker = self._other_announcer(seat)
        events.append(Event("bessere", seat, {"answer": arg}))
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
            events.append(self._aside_event(who, hands[who]))
            self.aside = self.aside + hands[who]
            hands[who] = tuple(sorted(got, key=self.HAND_ORDER)) if self.HAND_ORDER else got
            events.append(self._deal_event(who, 0, got))
        self.hands = tuple(hands)
        self.stack = stack
        self.schlag = None
        self.swapped = False
        self.swap_asked = False
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.forehand
        if not self._f.second_packet_later:
            # Every card is dealt already, so the new cards may make a Maschine (shown before the first lead).
            self._all_cards_dealt(events)

    # -- play
    def _add_to_trick(self, seat: int, card: Card, position: int, events: list[Event]) -> None:
        """`seat` plays `card` (opened from deck `position`) to the trick; a full trick goes to its winner."""
        trick = (*self.trick, card)
        trick_seats = (*self.trick_seats, seat)
        self.played_cards += 1
        ranking = self.ranking
        assert ranking is not None
        if card in ranking.kritische and seat == self.t.cutter_of[self.dealer]:
            self.cutter_played_kritisch = True
        events.append(make_event(("play", seat, {"card": card.text, "position": position}, None)))
        n = self.t.n
        if len(trick) < n:
            self.trick = trick
            self.trick_seats = trick_seats
            self.turn = (seat + 1) % n
            return
        # The trick is complete: it goes to its winner, and the next one starts empty.
        self.trick = ()
        self.trick_seats = ()
        winner = trick_seats[ranking.winner(trick)]
        side = self.hand_sides[winner]
        won_0, won_1 = self.tricks_won
        if side:
            won_1 += 1
        else:
            won_0 += 1
        self.tricks_won = (won_0, won_1)
        leader = self.leader
        self.tricks = (*self.tricks, (leader, trick, winner))
        texts = []
        for played in trick:  # a loop, not a comprehension (see the module's docstring)
            texts.append(played.text)
        events.append(make_event((
            "trick", winner, {"cards": texts, "leader": leader, "side": side, "tricks": [won_0, won_1]}, None,
        )))
        if (won_1 if side else won_0) >= self.rules.tricks_to_win:
            self._end_hand(side, self.value, "tricks", events)
            return
        self.leader = self.turn = winner

    def _raise(self, seat: int, events: list[Event]) -> None:
        proposed = self.value + self.rules.raise_step
        self.raise_pending = (proposed, seat)
        events.append(make_event(("raise", seat, {"value": proposed, "from": self.value}, None)))

    def _answer_raise(self, seat: int, verb: str, events: list[Event]) -> None:
        assert self.raise_pending is not None
        proposed, raiser = self.raise_pending
        self.raise_pending = None
        raiser_side = self.hand_sides[raiser]
        if verb == "accept":
            self.value = proposed
            self.last_raise_side = raiser_side
            events.append(make_event(("accept", seat, {"value": proposed}, None)))
            return
        events.append(make_event(("fold", seat, {"value": self.value}, None)))
        self._end_hand(raiser_side, self.value, "fold", events)

    def _concede(self, seat: int, events: list[Event]) -> None:
        events.append(Event("concede", seat))
        self._end_hand(1 - self.hand_sides[seat], 2, "concede", events)

    def _schadet(self, seat: int, arg: str, events: list[Event]) -> None:
        if arg == "":
            self._asked_schadet(seat, events)
            self.schadet_asked = True
            self.schadet_pending = True
            events.append(Event("schadet?", seat))
            return
        self.schadet_pending = False
        events.append(Event("schadet", seat, {"answer": arg}))

    def _asked_schadet(self, seat: int, events: list[Event]) -> None:
        """Hook: what asking `schadet?` commits the forehand to (it holds the Hauptschlag)."""
        raise NotImplementedError

    def _signal(self, seat: int, name: str, events: list[Event]) -> None:
        sent = list(self.signals_sent)
        sent[seat] += 1
        self.signals_sent = tuple(sent)
        events.append(make_event(("signal", seat, {"name": name}, self.t.signal_audience_of[self.dealer][seat])))

    # ------------------------------------------------------------------ scoring
    def _end_hand(self, side: int, points: int, reason: str, events: list[Event]) -> None:
        """Hook: the hand is decided for `side`, worth `points` (before base-two's cap), for `reason`
        (tricks, fold, concede, maschine, forfeit)."""
        raise NotImplementedError

    def _redeal(self, seat: int, events: list[Event]) -> None:
        """Hook: `seat` asked for a Bessere where it means a redeal (bessere = "redeal-penalty")."""
        raise NotImplementedError

    def _capped(self, side: int, points: int, reason: str) -> int:
        """The points `side` scores for a hand decided for `reason`: base-two caps them at 2 when the
        losers are gespannt (a concession is always 2)."""
        if self.rules.tight == "base-two" and reason != "concede" and self.gespannt[1 - side]:
            return min(points, 2)
        return points

    def _add_points(self, side: int, points: int) -> None:
        scores = list(self.scores)
        for slot in self.side_slots[side]:
            scores[slot] += points
        self.scores = tuple(scores)

    def _score_hand(
        self, side: int, points: int, reason: str, bluff_penalty: bool, events: list[Event],
        extra: dict[str, Any] | None = None,
    ) -> None:
        """Score a hand for `side` (-1: nobody) and go on to the next one, or end the match.

        `bluff_penalty`: the cutter bluffed at the Schlecken and played no Kritischer (RULES.md 5.8);
        `extra` goes into the hand-end event.
        """
        if side >= 0:
            self._add_points(side, points)
        if bluff_penalty:
            self._add_points(1 - self.hand_sides[self.cutter], 2)
            events.append(Event("bluff-penalty", self.cutter, {"points": 2}))
        if self.rules.blind and self.schlag is not None and self.trump is not None:
            events.append(make_event(("announcement", -1, {"schlag": self.schlag, "trump": self.trump}, None)))
        data: dict[str, Any] = {
            "side": side, "seats": list(self.t.side_seats_of[self.dealer][side]) if side >= 0 else [],
            "points": points, "reason": reason, "scores": list(self.scores), "hand": self.hand_number,
            "tricks": list(self.tricks_won),
        }
        if extra:
            data.update(extra)
        events.append(make_event(("hand-end", -1, data, None)))
        self.raise_pending = None
        self.schadet_pending = False
        if self._check_match_end(events):
            return
        self.hand_number += 1
        self.attempt = 0
        self.dealer = (self.dealer + 1) % self.t.n
        self._start_attempt(events)

    def _score_redeal(self, seat: int, penalty: int, events: list[Event], extra: dict[str, Any] | None = None) -> None:
        """After the points of a redeal are added: its event, then the next attempt of the same hand."""
        data: dict[str, Any] = {"penalty": penalty, "scores": list(self.scores)}
        if extra:
            data.update(extra)
        events.append(Event("redeal", seat, data))
        if not self._check_match_end(events):
            self.attempt += 1
            self._start_attempt(events)

    def _check_match_end(self, events: list[Event]) -> bool:
        rules = self.rules
        if max(self.scores) < rules.target:  # the usual case, without building the tuple below
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
