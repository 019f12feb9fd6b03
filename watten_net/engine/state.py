"""What a match of Watten is, for both engines: its state, its set-up and its scoring (docs/rules.md 5 to 9).

`MatchState` holds one match to `rules.target`, hand after hand, plus the series' Bummerl: the phase and
turns, the cut and the hands, the announcement, the stake, the tricks, the scores and the logs of events
and inputs. What it holds for one card is a *piece* (see `core`). It starts a hand attempt, scores a
decided hand or a redeal, and ends the match; how a match moves from one state to the next is `core.MatchCore`.

Every step is immutable: an action returns a *new* state and the events it caused. A step copies one flat
object of slots (no deep copies; every container inside is a tuple, a frozenset or a dict that is replaced,
never changed) with a straight-line copy written out (`_copied_into` here, plus each engine's own slots in its
`_clone`), and the legal actions of a state are computed once and cached. Speed matters (bots search by random
playouts), so the play path reads plain slots into locals, and a few lists of a handful of items are built by
plain loops: in Python 3.11 a comprehension is a function call of its own, which costs more than the loop for two
to five items.

This module, `core`, `match`, `ranking` and `public.match` are compiled by mypyc where a C compiler is at hand
(setup.py; `compiled` decides at import which runs), about 1.8x faster; the same source runs as plain Python
everywhere else. So they keep to what mypyc compiles: nothing generated or set on a class at run time, a
`_clone` written out (`_copied_into` here, each engine's own slots in its `_clone`), no `__init__` on a state (`new`
and `_clone` fill a bare instance).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from typing import Any, Generic, Self, TypeVar, cast

from watten_net.refusal import Reason

from .cards import Card, canonical_deck
from .errors import RuleViolation
from .events import Event
from .notation import (
    A_SCHLAG,
    ANNOUNCE,
    CUT,
    CUT_ACTIONS,
    DEAL,
    OVER,
    PLAY,
    SCHLECKEN,
    AnnounceStep,
    Phase,
)
from .ranking import Ranking, schlag_choices
from .rules import Rules
from .seating import Seating, seating_for

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


# What the scores fix for a whole hand attempt: gespannt, the raise limit and may-concede per side, the stake.
Stakes = tuple[tuple[bool, bool], tuple[int, int], tuple[bool, bool], int]
_STAKES_KEPT = 4096  # bound on the cache below (a long series of odd start scores could otherwise grow it)


class Facts:
    """What follows from the rules and the player count alone, worked out once instead of on every action."""

    __slots__ = (
        "bessere", "cuts", "deck", "deck_set", "kritische", "kritische_text", "packet_sizes", "raise_in_announce",
        "rules", "schlag_actions", "second_packet_later", "signal_seats", "stakes",
    )

    def __init__(self, rules: Rules, seating: Seating) -> None:
        self.rules = rules
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
            tuple(rules.signals and bool(partners) for partners in per_seat) for per_seat in seating.hand_partners_of
        )
        self.bessere = rules.bessere
        # docs/rules.md 6: a raise from the first packet on (the announcement included), unless raise_from = "trump".
        self.raise_in_announce = rules.raise_from != "trump"
        # MatchState._set_stakes per (scores, dealer): a match meets few score lines, and playouts meet them often.
        self.stakes: dict[tuple[tuple[int, ...], int], Stakes] = {}


    # Worked out once per rules and shared (see `facts`); its one changing part is a cache. A copy is the object
    # itself, and a pickle rebuilds it from the rules (the compiled class has no bare constructor for either).
    def __copy__(self) -> Facts:
        return self

    def __deepcopy__(self, memo: object) -> Facts:
        return self

    def __reduce__(self) -> tuple[object, tuple[Rules]]:
        return (facts, (self.rules,))


@lru_cache(maxsize=64)
def facts(rules: Rules) -> Facts:
    return Facts(rules, seating_for(rules))


def all_slots(cls: type) -> list[str]:
    """Every slot of `cls` and its bases: the whole state of an engine."""
    native = getattr(cls, "__mypyc_attrs__", None)  # compiled by mypyc (engine/compiled.py): no __slots__ there
    if native is not None:
        return [name for name in native if not name.startswith("__")]
    return [name for klass in reversed(cls.__mro__) for name in getattr(klass, "__slots__", ())]


Piece = TypeVar("Piece")  # what the state holds for one card: a Card (Match) or its deck position (PublicMatch)


class MatchState(Generic[Piece]):
    """The state of one match to `rules.target`, hand after hand, plus the series' Bummerl; set-up and scoring."""

    # With Match's two slots of its own these make 57: a 488-byte object. Past 60 it would outgrow CPython's
    # small-object allocator (512 bytes) and every copy would cost a malloc.
    __slots__ = (
        "_concede_ok", "_f", "_legal", "_raise_limit", "announce_step", "announcer_turn", "aside", "attempt",
        "bessere_asked", "bummerl", "cut_n", "cutter_played_kritisch", "dealer", "deck", "first_dealer", "gespannt",
        "hand_number", "hand_sides", "hands", "inputs", "is_over", "last_raise_side", "leader", "lifted", "log",
        "match_number", "needs_deck", "phase", "played_cards", "raise_pending", "ranking", "rest", "rules",
        "schadet_asked", "schadet_pending", "schlag", "schlecken_seat", "scores", "seen_index", "series_over",
        "side_scorers", "signals_sent", "stack", "swap_asked", "swapped", "t", "taken", "trick", "trick_seats",
        "tricks", "tricks_won", "trump", "turn", "value", "winners",
    )

    rules: Rules
    t: Seating
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
    phase: Phase
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
    side_scorers: tuple[tuple[int, ...], ...]
    gespannt: tuple[bool, bool]
    announce_step: AnnounceStep
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

    def _clone(self) -> Self:
        """A copy of this state to change: each engine fills a bare instance of its own class by `_copied_into`,
        then copies its own slots, one assignment each."""
        raise NotImplementedError

    def _copied_into(self, m: Self) -> Self:
        """`m` (a bare instance) with every slot of this state but the cached legal actions: one assignment per slot
        (a test checks that none is missing), several times faster than copy.copy, and compiled to plain C by mypyc
        (see engine/compiled.py)."""
        m._concede_ok, m._f, m._raise_limit = self._concede_ok, self._f, self._raise_limit
        m.announce_step, m.announcer_turn, m.aside = self.announce_step, self.announcer_turn, self.aside
        m.attempt, m.bessere_asked, m.bummerl = self.attempt, self.bessere_asked, self.bummerl
        m.cut_n, m.cutter_played_kritisch, m.dealer = self.cut_n, self.cutter_played_kritisch, self.dealer
        m.deck, m.first_dealer, m.gespannt = self.deck, self.first_dealer, self.gespannt
        m.hand_number, m.hand_sides, m.hands = self.hand_number, self.hand_sides, self.hands
        m.inputs, m.is_over, m.last_raise_side = self.inputs, self.is_over, self.last_raise_side
        m.leader, m.lifted, m.log = self.leader, self.lifted, self.log
        m.match_number, m.needs_deck, m.phase = self.match_number, self.needs_deck, self.phase
        m.played_cards, m.raise_pending, m.ranking = self.played_cards, self.raise_pending, self.ranking
        m.rest, m.rules, m.schadet_asked = self.rest, self.rules, self.schadet_asked
        m.schadet_pending, m.schlag, m.schlecken_seat = self.schadet_pending, self.schlag, self.schlecken_seat
        m.scores, m.seen_index, m.series_over = self.scores, self.seen_index, self.series_over
        m.side_scorers, m.signals_sent, m.stack = self.side_scorers, self.signals_sent, self.stack
        m.swap_asked, m.swapped, m.t = self.swap_asked, self.swapped, self.t
        m.taken, m.trick, m.trick_seats = self.taken, self.trick, self.trick_seats
        m.tricks, m.tricks_won, m.trump = self.tricks, self.tricks_won, self.trump
        m.turn, m.value, m.winners = self.turn, self.value, self.winners
        m._legal = None
        return m

    # ------------------------------------------------------------------ construction
    # No __init__: `new` makes a match, `_clone` a copy (a bare `Match()` is an empty shell that only they fill).

    @classmethod
    def new(
        cls,
        rules: Rules,
        first_dealer: object = 0,
        start_scores: Sequence[int] | None = None,
        *,
        bummerl: Sequence[int] | None = None,
    ) -> Self:
        """A match waiting for its first deck. `start_scores`: per side (per seat with 2 or 3 players)."""
        cls._check_rules(rules)
        table = seating_for(rules)
        if not isinstance(first_dealer, int) or not 0 <= first_dealer < rules.players:
            raise ValueError(f"first_dealer must be a seat 0..{rules.players - 1}")
        scores = tuple(start_scores) if start_scores is not None else (0,) * table.scorers
        if len(scores) != table.scorers or any(not isinstance(s, int) or s < 0 for s in scores):
            raise ValueError(f"start_scores needs {table.scorers} points of 0 or more")
        if any(s >= rules.target for s in scores):
            raise ValueError("start_scores must be below the target")
        marks = tuple(bummerl) if bummerl is not None else (0,) * table.scorers
        if len(marks) != table.scorers:
            raise ValueError(f"bummerl needs {table.scorers} counts")
        m = cls()
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
            raise RuleViolation(Reason.MATCH_NOT_OVER, "the match is still being played")
        if self.series_over:
            raise RuleViolation(Reason.SERIES_OVER, "the series is over: a side has reached the Bummerl limit")
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
        return self.scores[self.t.scorer_of[seat]]

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
            pending = self.raise_pending
            if pending is not None:  # a raise during the announcement holds it until it is answered
                return self.t.answerers_of[self.dealer][pending[1]]
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
        table, dealer = self.t, self.dealer
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
        self.side_scorers = table.side_scorers_of[dealer]
        self._set_stakes()
        self.announce_step = A_SCHLAG
        self.announcer_turn = forehand
        self.swap_asked = False
        self.swapped = False
        self.bessere_asked = False
        self.schlag = None
        self.trump = None
        self.ranking = None
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
                "gespannt": list(self.gespannt),
            },
            None,
        )))

    def _set_stakes(self) -> None:
        """What follows from the scores for a whole attempt (they do not change within one): who is gespannt, the
        starting stake, each side's raise limit and whether it may concede."""
        known = self._f.stakes
        key = (self.scores, self.dealer)
        stakes = known.get(key)
        if stakes is None:
            if len(known) >= _STAKES_KEPT:
                known.clear()
            stakes = known[key] = self._work_out_stakes()
        self.gespannt, self._raise_limit, self._concede_ok, self.value = stakes

    def _work_out_stakes(self) -> Stakes:
        rules = self.rules
        side_scorers, scores, target = self.side_scorers, self.scores, rules.target
        score_of = scores.__getitem__
        best = (max(map(score_of, side_scorers[0])), max(map(score_of, side_scorers[1])))  # per side
        gespannt = (best[0] >= target - 2, best[1] >= target - 2)
        three_or_concede = rules.tight == "three-or-concede"
        # No raising when gespannt: with three-or-concede when any side is, with base-two for that side.
        blocked = (any(gespannt),) * 2 if three_or_concede else gespannt
        # docs/rules.md: no raise "beyond the points it still needs": the proposed value may not exceed them.
        needs = (target - best[0], target - best[1]) if rules.raise_cap == "target" else (_NO_CAP, _NO_CAP)
        raise_limit = (-1 if blocked[0] else needs[0], -1 if blocked[1] else needs[1])
        concede_ok = (three_or_concede and gespannt[0], three_or_concede and gespannt[1])
        return gespannt, raise_limit, concede_ok, 3 if three_or_concede and (gespannt[0] or gespannt[1]) else 2

    def _reset_attempt(self) -> None:
        """Hook: the engine's own state of a new deal attempt."""
        raise NotImplementedError

    # ------------------------------------------------------------------ scoring
    def _capped(self, side: int, points: int, reason: str) -> int:
        """The points `side` scores for a hand decided for `reason`: base-two caps them at 2 when the
        losers are gespannt (a concession is always 2)."""
        if self.rules.tight == "base-two" and reason != "concede" and self.gespannt[1 - side]:
            return min(points, 2)
        return points

    def _add_points(self, side: int, points: int) -> None:
        scores = list(self.scores)
        for slot in self.side_scorers[side]:
            scores[slot] += points
        self.scores = tuple(scores)

    def _score_hand(
        self, side: int, points: int, reason: str, bluff_penalty: bool, events: list[Event],
        extra: dict[str, Any] | None = None,
    ) -> None:
        """Score a hand for `side` (-1: nobody) and go on to the next one, or end the match.

        `bluff_penalty`: the cutter bluffed at the Schlecken and played no Kritischer (docs/rules.md 5.8);
        `extra` goes into the hand-end event.
        """
        if side >= 0:
            self._add_points(side, points)
        # docs/rules.md 7: the points of the hand count first, so a penalty that lifts another side to the target too
        # does not make it a winner (exactly one side wins the match).
        first = self._reached()
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
        if self._check_match_end(events, first):
            return
        self.hand_number += 1
        self.attempt = 0
        self.dealer = (self.dealer + 1) % self.t.n
        self._start_attempt(events)

    def _score_redeal(
        self, seat: int, penalty: int, events: list[Event], extra: dict[str, Any] | None = None,
        first: tuple[int, ...] = (),
    ) -> None:
        """After the points of a redeal are added: its event, then the next attempt of the same hand.
        `first`: the score slots the redeal's own points lifted to the target before any other points."""
        data: dict[str, Any] = {"penalty": penalty, "scores": list(self.scores)}
        if extra:
            data.update(extra)
        events.append(Event("redeal", seat, data))
        if not self._check_match_end(events, first):
            self.attempt += 1
            self._start_attempt(events)

    def _reached(self) -> tuple[int, ...]:
        """The score slots at or above the target now."""
        target = self.rules.target
        if max(self.scores) < target:  # the usual case, without building the tuple below
            return ()
        return tuple(slot for slot, points in enumerate(self.scores) if points >= target)

    def _check_match_end(self, events: list[Event], first: tuple[int, ...] = ()) -> bool:
        """End the match when a score reached the target. `first`: the slots that reached it first (by the points
        of the hand, before a penalty): they alone win; otherwise every slot at the target wins (one side)."""
        rules = self.rules
        if max(self.scores) < rules.target:  # the usual case, without building the tuple below
            return False
        winners = first or self._reached()
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
