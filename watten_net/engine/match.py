"""A match of Watten as an immutable state machine (RULES.md sections 5 to 9).

`Match.new(rules)` waits for a deck (`needs_deck`); chance is an input: `apply_deck(order)` takes the
shuffled deck from the dealing protocol. Every other step is an action in RULES.md notation:
`apply(seat, "play HK")` returns a *new* match and the events it caused; the old match stays valid,
so bots can search, the host can keep snapshots, and the verifier can replay a record.

Each apply copies one flat object of slots (no deep copies): all containers inside are tuples, and a
step replaces the few it changes. The legal actions of a state are computed once and cached.

Speed matters here (bots search by random playouts), so what depends only on the rules is worked out
once per rules (`_Facts`), what is fixed for a hand once per hand (`_raise_limit`, `_concede_ok`),
and the hot path of a card play reads plain slots instead of calling helpers. On the hot paths a few
lists of a handful of items are built by plain loops: in Python 3.11 a comprehension is a function
call of its own, which costs more than the loop for two to five items.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache, partial
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
FORFEIT = "forfeit"  # in history(): the dealing protocol forfeited the attempt for this seat (Match.forfeit)

# Announcement steps
A_SCHLAG = "schlag"
A_TRUMP = "trump"
A_SWAP = "swap-answer"
A_BESSERE = "bessere-answer"

_PLAY = {card: "play " + card.text for card in canonical_deck(36)}
_PLAY_BY_TEXT = {text: card for card, text in _PLAY.items()}
_SIGNALS = tuple("signal " + name for name in SIGNAL_NAMES)
_TRUMPS = ("trump E", "trump L", "trump H", "trump S")
_DECK_SETS = {size: frozenset(canonical_deck(size)) for size in (32, 33, 36)}
_CODE = attrgetter("code")
_CUTS = {size: [f"cut {n}" for n in range(4, size - 3)] for size in (32, 33, 36)}  # RULES.md: 4 <= N <= size-4
_NO_CAP = 1 << 30  # a raise limit no stake reaches (raise_cap = "none")

# Events are made on every action: building the named tuple in one C call skips its Python-level
# __new__. The result is an ordinary Event; `_NO_DATA` is the very default `Event(kind, seat)` uses.
_event = cast(
    Callable[[tuple[str, int, dict[str, Any], tuple[int, ...] | None]], Event], partial(tuple.__new__, Event)
)
_NO_DATA: dict[str, Any] = Event._field_defaults["data"]

Log = tuple[Any, ...] | None  # a persistent list: (item, previous) pairs, newest first


def _iter_log(log: Log) -> list[Any]:
    items = []
    while log is not None:
        items.append(log[0])
        log = log[1]
    items.reverse()
    return items


class _Facts:
    """What follows from the rules and the player count alone, worked out once instead of on every action."""

    __slots__ = (
        "bessere", "cuts", "kritische", "kritische_text", "packet_sizes", "schlag_actions", "second_packet_later",
        "signal_seats",
    )

    def __init__(self, rules: Rules, table: Table) -> None:
        self.cuts = _CUTS[rules.deck]
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
def _facts(rules: Rules) -> _Facts:
    return _Facts(rules, table_for(rules))


class Match:
    """One match to `rules.target`, one hand after another, plus the series' Bummerl."""

    # Every apply copies all of these (see _make_clone). 57 slots make a 488-byte object; past 60 it would
    # outgrow CPython's small-object allocator (512 bytes) and every copy would cost a malloc.
    __slots__ = (
        "_concede_ok", "_f", "_legal", "_pos", "_raise_limit", "actions", "announce_step", "announcer_turn", "aside",
        "attempt", "bessere_asked", "bluff", "bummerl", "cut_n", "cutter_played_kritisch", "dealer", "deck",
        "first_dealer", "gespannt", "hand_number", "hand_sides", "hands", "is_over", "last_raise_side", "leader",
        "lifted", "log", "match_number", "needs_deck", "phase", "played_cards", "raise_pending", "ranking", "rest",
        "rules", "schadet_asked", "schadet_pending", "schlag", "schlecken_seat", "scores", "seen_index",
        "series_over", "side_slots", "signals_sent", "stack", "swap_asked", "swapped", "t", "taken", "trick",
        "trick_seats", "tricks", "tricks_won", "trump", "turn", "value", "winners",
    )

    rules: Rules
    t: Table
    # Plain slots rather than properties: playout loops read them on every step, and in Python 3.11 a
    # property read is a Python call. They change with the phase in three places only: _start_attempt
    # (DEAL), apply_deck (leaves DEAL) and _check_match_end (OVER).
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
    log: Log  # items: the tuple of events of one step (one node per apply, not one per event)
    actions: Log  # items: (seat, action) and ("deck", card texts), the inputs for `history`
    _legal: dict[int, list[str]] | None
    _pos: dict[Card, int]  # deck position of each card in this hand's deck
    _f: _Facts
    # Fixed for a hand attempt (scores and gespannt do not change within one), per hand side:
    _raise_limit: tuple[int, int]  # the highest stake the side may propose (-1: no raising in this hand)
    _concede_ok: tuple[bool, bool]  # may the side concede (before the first lead)?

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
        m._f = _facts(rules)
        m.first_dealer = first_dealer
        m.scores = scores
        m.bummerl = marks
        m.match_number = 0
        m.hand_number = 0
        m.attempt = 0
        m.dealer = first_dealer
        m.winners = ()
        m.series_over = False
        m.is_over = False
        m.log = None
        m.actions = None
        m._pos = {}
        events: list[Event] = []
        m._start_attempt(events)
        m.log = (tuple(events), None)
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
        return [event for step in _iter_log(self.log) for event in step]

    @property
    def last_action(self) -> tuple[int, str] | None:
        """The last action applied, as `(seat, action)` spelled the engine's way (None before any)."""
        item = self.actions[0] if self.actions is not None else None
        if item is None or item[0] == "deck":
            return None
        return int(item[0]), str(item[1])

    def history(self) -> list[tuple[int, str] | tuple[str, tuple[str, ...]]]:
        """The inputs of the match: `("deck", cards)` and `(seat, action)`, in order (for replay)."""
        return _iter_log(self.actions)

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
        self.bluff = False
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
        events.append(_event((
            "hand-start", -1,
            {
                "hand": self.hand_number, "attempt": self.attempt, "dealer": dealer,
                "forehand": forehand, "cutter": table.cutter_of[dealer], "value": self.value,
                "gespannt": list(gespannt),
            },
            None,
        )))

    def _side_seats(self, side: int) -> list[int]:
        return list(self.t.side_seats_of[self.dealer][side])

    # ------------------------------------------------------------------ chance
    def apply_deck(self, order: Iterable[Card | str]) -> Match:
        """The shuffled deck for this hand (top card first), from the dealing protocol."""
        if self.phase != DEAL:
            raise RuleViolation("no-deck-needed", "the match is not waiting for a deck now")
        given = tuple(order)
        canonical = _DECK_SETS[self.rules.deck]
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
        m = self._clone()
        m.deck = deck
        m._pos = positions
        m.phase = CUT
        m.needs_deck = False
        m.actions = (("deck", tuple([c.text for c in deck])), self.actions)
        return m

    def forfeit(self, seat: int) -> tuple[Match, list[Event]]:
        """`seat` did not reveal its seed in time (PROTOCOL.md Level 1, step 4): its side loses the hand at its
        current value, before a card is dealt. Only the dealing protocol calls this; it is no player's action."""
        if not isinstance(seat, int) or not 0 <= seat < self.t.n:
            raise RuleViolation("no-such-seat", f"there is no seat {seat!r} at a {self.t.n}-player table")
        if self.phase != DEAL:
            raise RuleViolation("not-now", "a deal attempt is forfeited only while its deck is still being made")
        m = self._clone()
        events: list[Event] = [Event("forfeit", seat)]
        m.actions = ((seat, FORFEIT), self.actions)
        m._end_hand(1 - self.hand_sides[seat], self.value, "forfeit", events)
        m.log = (tuple(events), self.log)
        return m, events

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
            out: list[str]
            if seat == self.turn:
                hand = self.hands[seat]
                trick = self.trick
                if trick:  # following: the ranking says which cards of the hand may be played (in hand order)
                    assert self.ranking is not None
                    rules = self.rules
                    cards = self.ranking.playable(
                        hand, trick, not self.tricks, not rules.blind or seat in self.t.announcers_of[self.dealer],
                        not self.schadet_asked,
                    )
                else:  # a lead: any card
                    cards = hand
                out = []
                for card in cards:  # a loop, not a comprehension (see the module's docstring)
                    out.append(_PLAY[card])
                if (
                    self.played_cards == 0 and self.rules.schadet and not self.schadet_asked
                    and seat == self.forehand and self.ranking is not None
                    and self.ranking.hauptschlag in hand
                ):
                    out.append("schadet?")
            else:
                out = []
            # Side actions, from what was worked out for this hand (see _start_attempt).
            side = self.hand_sides[seat]
            if side != self.last_raise_side and self.value + self.rules.raise_step <= self._raise_limit[side]:
                out.append("raise")
            if self.played_cards == 0 and self._concede_ok[side]:
                out.append("concede")
            if self._f.signal_seats[self.dealer][seat] and self.signals_sent[seat] < MAX_SIGNALS_PER_HAND and (
                self.hands[seat]
            ):
                out.extend(_SIGNALS)
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
            return ["take", "keep"] if self._may_take() else ["keep"]
        return []

    def _signal_actions(self, seat: int) -> list[str]:
        if (
            not self._f.signal_seats[self.dealer][seat] or self.signals_sent[seat] >= MAX_SIGNALS_PER_HAND
            or not self.hands[seat]
        ):
            return []
        return list(_SIGNALS)

    def _hand_partners(self, seat: int) -> tuple[int, ...]:
        return self.t.hand_partners_of[self.dealer][seat]

    def _may_take(self) -> bool:
        seat = self.schlecken_seat
        card = self._seen_card()
        if len(self.taken[seat]) >= self.rules.hand_size:
            return False
        if card in self._f.kritische:
            return True
        return self.rules.schlecken_bluff and seat == self.t.cutter_of[self.dealer]

    def _seen_card(self) -> Card:
        if self.schlecken_seat == self.t.cutter_of[self.dealer]:
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
            out = list(self._f.schlag_actions)
            if rules.schlagwechsel and self.t.n != 3 and not self.swap_asked and seat == self.forehand:
                out.append("swap?")
        else:
            out = list(_TRUMPS)
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
        if not self._f.second_packet_later:
            return 0
        sizes = self._f.packet_sizes
        total = 0
        for taken in self.taken:  # per seat
            total += sizes[len(taken)][1]
        return total

    # ------------------------------------------------------------------ applying actions
    def apply(self, seat: int, action: str) -> tuple[Match, list[Event]]:
        """Apply one action of `seat`; returns the new match and its events. The old match is unchanged."""
        if not isinstance(seat, int) or not 0 <= seat < self.t.n:
            raise RuleViolation("no-such-seat", f"there is no seat {seat!r} at a {self.t.n}-player table")
        if not isinstance(action, str):
            raise RuleViolation("malformed", "an action is a string such as 'play HK'")
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
        m = self._clone()
        events: list[Event] = []
        m.actions = ((seat, text), self.actions)
        card = _PLAY_BY_TEXT.get(text)
        if card is not None:  # the most common action by far; every other one is "verb [argument]"
            m._play(seat, card, events)
            m.log = (tuple(events), self.log)
            return m, events
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
        deck = self.deck
        assert deck is not None
        self.cut_n = n
        self.lifted = deck[:n]
        self.rest = deck[n:]
        events.append(_event(("cut", seat, {"n": n}, None)))
        if self.rules.schlecken:
            self.phase = SCHLECKEN
            self.schlecken_seat = seat
            self.seen_index = n - 1
            self._show_seen(events)
        else:
            self._join_and_deal(events)

    def _show_seen(self, events: list[Event]) -> None:
        card = self._seen_card()
        seat = self.schlecken_seat
        events.append(_event(("see", seat, {"card": card.text, "position": self._pos[card]}, (seat,))))

    def _schlecken(self, seat: int, take: bool, events: list[Event]) -> None:
        cutter_stage = seat == self.t.cutter_of[self.dealer]  # the cutter and the dealer are never the same seat
        if take:
            card = self._seen_card()
            taken = list(self.taken)
            taken[seat] = (*taken[seat], card)
            self.taken = tuple(taken)
            if cutter_stage and card not in self._f.kritische:
                self.bluff = True
            events.append(_event(("take", seat, _NO_DATA, None)))
            events.append(_event(("took", seat, {"card": card.text, "position": self._pos[card]}, (seat,))))
            self.seen_index -= 1
            if self.seen_index >= 0 and len(self.taken[seat]) < self.rules.hand_size:
                self._show_seen(events)
                return
        else:
            events.append(_event(("keep", seat, _NO_DATA, None)))
        # This seat's turn at Schlecken is over.
        if cutter_stage and self.taken[seat]:
            self.schlecken_seat = self.dealer
            self.seen_index = len(self.rest) - 1
            self._show_seen(events)
            return
        self._join_and_deal(events)

    def _join_and_deal(self, events: list[Event]) -> None:
        dealer = self.dealer
        cutter = self.t.cutter_of[dealer]
        taken = self.taken
        # The cards taken at the cut leave the bottom of the lifted packet (cutter) and of the rest (dealer).
        lifted = self.lifted[: len(self.lifted) - len(taken[cutter])] if taken[cutter] else self.lifted
        rest = self.rest[: len(self.rest) - len(taken[dealer])] if taken[dealer] else self.rest
        self.stack = rest + lifted
        self.lifted = ()
        self.rest = ()
        self.schlecken_seat = -1
        # The taken cards start the hands, sorted like every hand (a seat that took a whole first packet
        # gets no cards from it, so the packet's sort would never reach them).
        self.hands = tuple(tuple(sorted(cards, key=_CODE)) if len(cards) > 1 else cards for cards in taken)
        self._deal_packet(0, events)
        if not self._f.second_packet_later:
            self._deal_packet(1, events)
            if self._check_maschine(events):
                return
        self.phase = ANNOUNCE
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.t.forehand_of[dealer]

    def _deal_packet(self, packet: int, events: list[Event]) -> None:
        hands = list(self.hands)
        stack = self.stack
        taken = self.taken
        sizes = self._f.packet_sizes
        pos = self._pos
        number = packet + 1
        top = 0
        for seat in self.t.seat_order_from[self.t.forehand_of[self.dealer]]:
            count = sizes[len(taken[seat])][packet]
            if count <= 0:
                continue
            got = stack[top: top + count]
            top += count
            hands[seat] = tuple(sorted(hands[seat] + got, key=_CODE))
            texts = []
            positions = []
            for card in got:  # a loop, not two comprehensions (see the module's docstring)
                texts.append(card.text)
                positions.append(pos[card])
            events.append(_event(("deal", seat, {"packet": number, "cards": texts, "positions": positions}, (seat,))))
        self.stack = stack[top:]
        self.hands = tuple(hands)
        events.append(_event(("packet", -1, {"packet": number, "counts": list(map(len, hands))}, None)))

    def _check_maschine(self, events: list[Event]) -> bool:
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

    # -- announcement
    def _other_announcer(self, seat: int) -> int:
        forehand, dealer = self.forehand, self.dealer
        return dealer if seat == forehand else forehand

    def _announce_visibility(self) -> tuple[int, ...] | None:
        return self.t.announcers_of[self.dealer] if self.rules.blind else None

    def _name_schlag(self, seat: int, rank: str, events: list[Event]) -> None:
        self.schlag = rank
        to = self._announce_visibility()
        events.append(_event(("schlag", seat, {"rank": rank}, to)))
        if to is not None:
            events.append(_event(("announced", seat, {"what": "schlag"}, None)))
        self.announce_step = A_TRUMP
        if self.t.n == 3:
            self.announcer_turn = seat
        else:
            self.announcer_turn = self.forehand if self.swapped else self.dealer

    def _name_trump(self, seat: int, suit: str, events: list[Event]) -> None:
        assert self.schlag is not None
        self.trump = suit
        to = self._announce_visibility()
        events.append(_event(("trump", seat, {"suit": suit}, to)))
        if to is not None:
            events.append(_event(("announced", seat, {"what": "trump"}, None)))
        self.ranking = ranking(self.rules, self.schlag, suit)
        if self._f.second_packet_later:
            self._deal_packet(1, events)
            if self._check_maschine(events):
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
                side = 1 - self.hand_sides[seat]
                self._add_points(side, 2)
                events.append(Event("redeal", seat, {"penalty": 2, "scores": list(self.scores)}))
                if not self._check_match_end(events):
                    self.attempt += 1
                    self._start_attempt(events)
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
            events.append(Event("aside", who, {"count": count}))
            self.aside = self.aside + hands[who]
            hands[who] = tuple(sorted(got, key=_CODE))
            events.append(Event(
                "deal", who, {"packet": 0, "cards": [c.text for c in got], "positions": [self._pos[c] for c in got]},
                (who,),
            ))
        self.hands = tuple(hands)
        self.stack = stack
        self.schlag = None
        self.swapped = False
        self.swap_asked = False
        self.announce_step = A_SCHLAG
        self.announcer_turn = self.forehand
        if not self._f.second_packet_later:
            # Every card is dealt already, so the new cards may make a Maschine (shown before the first lead).
            self._check_maschine(events)

    # -- play
    def _play(self, seat: int, card: Card, events: list[Event]) -> None:
        # The hot path of every playout: plain slot reads into locals, no helper calls but the trick winner.
        hands = list(self.hands)
        hand = hands[seat]
        i = 0
        while hand[i] is not card:  # identity: cards are interned, and tuple.index would call Card's rich compare
            i += 1
        hands[seat] = hand[:i] + hand[i + 1:]
        self.hands = tuple(hands)
        trick = (*self.trick, card)
        trick_seats = (*self.trick_seats, seat)
        self.played_cards += 1
        ranking = self.ranking
        assert ranking is not None
        if card in ranking.kritische and seat == self.t.cutter_of[self.dealer]:
            self.cutter_played_kritisch = True
        events.append(_event(("play", seat, {"card": card.text, "position": self._pos[card]}, None)))
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
        events.append(_event((
            "trick", winner, {"cards": texts, "leader": leader, "side": side, "tricks": [won_0, won_1]}, None,
        )))
        if (won_1 if side else won_0) >= self.rules.tricks_to_win:
            self._end_hand(side, self.value, "tricks", events)
            return
        self.leader = self.turn = winner

    def _raise(self, seat: int, events: list[Event]) -> None:
        proposed = self.value + self.rules.raise_step
        self.raise_pending = (proposed, seat)
        events.append(_event(("raise", seat, {"value": proposed, "from": self.value}, None)))

    def _answer_raise(self, seat: int, verb: str, events: list[Event]) -> None:
        assert self.raise_pending is not None
        proposed, raiser = self.raise_pending
        self.raise_pending = None
        raiser_side = self.hand_sides[raiser]
        if verb == "accept":
            self.value = proposed
            self.last_raise_side = raiser_side
            events.append(_event(("accept", seat, {"value": proposed}, None)))
            return
        events.append(_event(("fold", seat, {"value": self.value}, None)))
        self._end_hand(raiser_side, self.value, "fold", events)

    def _concede(self, seat: int, events: list[Event]) -> None:
        events.append(Event("concede", seat))
        self._end_hand(1 - self.hand_sides[seat], 2, "concede", events)

    def _schadet(self, seat: int, arg: str, events: list[Event]) -> None:
        if arg == "":
            self.schadet_asked = True
            self.schadet_pending = True
            events.append(Event("schadet?", seat))
            return
        self.schadet_pending = False
        events.append(Event("schadet", seat, {"answer": arg}))

    def _signal(self, seat: int, name: str, events: list[Event]) -> None:
        sent = list(self.signals_sent)
        sent[seat] += 1
        self.signals_sent = tuple(sent)
        events.append(_event(("signal", seat, {"name": name}, self.t.signal_audience_of[self.dealer][seat])))

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
            events.append(Event("bluff-penalty", self.cutter, {"points": penalty}))
        if rules.blind and self.schlag is not None and self.trump is not None:
            events.append(_event(("announcement", -1, {"schlag": self.schlag, "trump": self.trump}, None)))
        events.append(_event((
            "hand-end", -1,
            {
                "side": side, "seats": self._side_seats(side), "points": points, "reason": reason,
                "scores": list(self.scores), "hand": self.hand_number, "tricks": list(self.tricks_won),
            },
            None,
        )))
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

    # ------------------------------------------------------------------ observation
    def observe(self, seat: int, *, history: bool = True) -> Observation:
        """Exactly what `seat` may see now (its own cards, public facts, the events shown to it).

        `history=False` leaves out the match's events (a view of the present only, much cheaper late in a match).
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
                m, _ = m.forfeit(who)  # type: ignore[arg-type]
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
