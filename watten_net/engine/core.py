"""How a match of Watten moves, for both engines: legal actions and every step (docs/rules.md sections 5 to 9).

`Match` knows the cards; `PublicMatch` (a trustless host) knows only what is public. The rules are the same,
so they live here once, in `MatchCore` (over the state of `state.MatchState`): phases and turns, the cut and
the Schlecken, the deal map, the announcement (Schlagwechsel, Bessere), raising, folding, gespannt, conceding,
signals, tricks, the forfeit of the dealing protocol and the refusals of actions that are not legal now.
What a state holds for one card is its *piece*: the `Card` itself in `Match`, its deck position in
`PublicMatch`. Whatever needs to look behind a piece is a hook the two engines fill in (marked "Hook" below):
whether the card shown at the cut may be taken, what the events of a dealt or shown card reveal, which cards
the seat on turn may play, what a Maschine, a Schlecken take or a `schadet?` means, and how a decided hand is
ended (at once, or after its obligations are settled).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar, NoReturn, Self

from watten_net.refusal import Reason

from .cards import Card
from .errors import RuleViolation
from .events import Event
from .notation import (
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
    SIGNAL_ACTIONS,
    TRUMP_ACTIONS,
    VERBS,
    Verb,
)
from .ranking import ranking
from .rules import SIGNAL_NAMES
from .state import MAX_SIGNALS_PER_HAND, NO_DATA, MatchState, Piece, make_event

HAND_PHASES = frozenset({CUT, SCHLECKEN, ANNOUNCE, PLAY})
"""The phases of a hand under way once its cards are dealt."""


class MatchCore(MatchState[Piece]):
    """The rules of a match as legal actions and steps, without looking at a card."""

    __slots__ = ()  # the state is MatchState's; each engine adds its own

    VERBS: ClassVar[frozenset[str]] = VERBS  # the verbs this engine knows (others are malformed)
    # How the engine keeps a hand: sorted by this key, or (None) in the order the pieces were received.
    # A key rather than a hook: sorted() with a C key costs no Python call on the deal path.
    HAND_ORDER: ClassVar[attrgetter[Any] | None] = None

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
            raise RuleViolation(Reason.NO_DECK_NEEDED, "the match is not waiting for a deck now")

    def forfeit(self, seat: object, *, after_the_deal: bool = False) -> tuple[Self, list[Event]]:
        """`seat` did not reveal its seed in time (docs/protocol.md Level 1 step 4): its side loses the hand at its
        current value, before a card is dealt. Only the dealing protocol calls this; it is no player's action.
        `after_the_deal`: a trustless hand also stops when a seat goes away later, since nobody else can give its
        shares or play its cards (deal/level2.py); then any phase of a hand under way will do."""
        who = self._check_seat(seat)
        if after_the_deal and self.phase not in HAND_PHASES | {DEAL}:
            raise RuleViolation(Reason.NOT_NOW, f"no hand to forfeit (phase {self.phase})")
        if not after_the_deal and self.phase != DEAL:
            raise RuleViolation(Reason.NOT_NOW, "a deal attempt is forfeited only while its deck is still being made")
        return self._forfeited(who)

    def _forfeited(self, seat: int) -> tuple[Self, list[Event]]:
        """`seat`'s side loses the hand at its current value, whatever the phase (the caller decides when)."""
        m = self._clone()
        events: list[Event] = [Event("forfeit", seat)]
        m.inputs = ((seat, FORFEIT), self.inputs)
        m._end_hand(1 - self.hand_sides[seat], self.value, "forfeit", events)
        m.log = (tuple(events), self.log)
        return m, events

    # The entry points take their seat (and action) as `object` and check it themselves: compiled by mypyc, a
    # parameter typed `int` would refuse a string with a TypeError before the check could say `no-such-seat`.
    def _check_seat(self, seat: object) -> int:
        if not isinstance(seat, int) or not 0 <= seat < self.t.n:
            self._refuse_seat(seat)
        return seat

    def _refuse_seat(self, seat: object) -> NoReturn:
        raise RuleViolation(Reason.NO_SUCH_SEAT, f"there is no seat {seat!r} at a {self.t.n}-player table")

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, seat: int) -> list[str]:
        """Every action `seat` may take now, in docs/rules.md notation (empty when it is not that seat's move).

        >>> from watten_net.engine import Match, Rules, canonical_deck
        >>> rules = Rules.preset("bavarian")
        >>> match = Match.new(rules).apply_deck(canonical_deck(rules.deck_size))
        >>> match.legal_actions(3)[:3], len(match.legal_actions(3)), match.legal_actions(0)  # seat 3 cuts
        (['cut 4', 'cut 5', 'cut 6'], 25, [])
        """
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
            if seat == self.turn:
                out = self._plays(seat)
                if (
                    self.played_cards == 0 and self.rules.schadet and not self.schadet_asked and seat == self.forehand
                    and self._may_hold_hauptschlag(seat)
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
            ):  # _signal_actions without the call: this runs in nearly every state of a playout
                out.extend(SIGNAL_ACTIONS)
            return out
        if phase == ANNOUNCE:
            # docs/rules.md 6: a raise during the announcement holds it (a pending Schlagwechsel or Bessere question
            # included) until the raise is answered; raise_from = "trump" keeps raising for after the trump.
            pending = self.raise_pending
            if pending is not None:
                if self.hand_sides[seat] != self.hand_sides[pending[1]]:
                    return ["accept", "fold"]
                return []
            out = self._announce_actions(seat) if seat == self.announcer_turn else []
            side = self.hand_sides[seat]
            if (
                self._f.raise_in_announce and side != self.last_raise_side
                and self.value + self.rules.raise_step <= self._raise_limit[side]
            ):
                out.append("raise")
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

    def _plays(self, seat: int) -> list[str]:
        """Hook: the card plays of the seat whose turn it is (no raise or `schadet?` pending)."""
        raise NotImplementedError

    def _may_take_seen(self) -> bool:
        """Hook: may the Schlecken seat take the card it is shown (it has room for it)?"""
        raise NotImplementedError

    def _may_hold_hauptschlag(self, seat: int) -> bool:
        """Hook: `schadet?` is asked by the holder of the Hauptschlag; may `seat` (the forehand) hold it?"""
        raise NotImplementedError

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
        _ACTION_STEPS[verb](m, seat, verb, arg, events)  # every legal action's verb has a step
        m.log = (tuple(events), self.log)
        if verb == "signal" and self._legal:
            m._legal = self._legal_after_signal(seat, m.signals_sent[seat])
        return m, events

    def _legal_after_signal(self, seat: int, sent: int) -> dict[int, list[str]]:
        """The legal actions known for this state that still hold after `seat` signalled (its `sent`th signal).

        A signal changes nothing but the signaller's count, and a seat's legal actions depend on its own count
        only through "fewer than MAX_SIGNALS_PER_HAND": so every list stays, unless the signaller used its last
        signal. Random playouts signal often (a dozen signal actions beside a few card plays), and working the
        lists out again would cost more than the signal itself."""
        assert self._legal is not None
        kept = dict(self._legal)  # a dict of its own: the new state adds to it (the lists are never changed)
        if sent >= MAX_SIGNALS_PER_HAND:
            kept.pop(seat, None)
        return kept

    # -- refusals: the precise RuleViolation for an action that is not legal now
    def _refuse_idle(self, verb: str, text: str) -> None:
        """An unknown action, or any action while no hand is being played."""
        if verb not in self.VERBS:
            # A word outside the grammar is no verb (`bad-action`); nothing at all is no action (`malformed`).
            raise RuleViolation(Reason.BAD_ACTION if verb else Reason.MALFORMED, f"unknown action {text!r}")
        if self.phase == OVER:
            raise RuleViolation(Reason.MATCH_OVER, "the match is over")
        if self.phase == DEAL:
            raise RuleViolation(Reason.NO_DECK, "the cards are not shuffled yet: waiting for the deal")

    def _refuse_play_now(self, seat: int) -> None:
        """A card play where the state alone refuses it: not this phase, something pending, another's turn."""
        if self.phase != PLAY:
            raise RuleViolation(Reason.NOT_NOW, "cards are played only after the announcement")
        if self.raise_pending is not None:
            raise RuleViolation(Reason.RAISE_PENDING, "a raise is pending: it must be accepted or folded first")
        if self.schadet_pending:
            raise RuleViolation(Reason.SCHADET_PENDING, "waiting for the partner's answer to 'schadet?'")
        if seat != self.turn:
            raise RuleViolation(Reason.NOT_YOUR_TURN, f"it is seat {self.turn}'s turn to play")

    def _refuse_raise(self, seat: int) -> NoReturn:
        """A raise, once no raise or `schadet?` is pending."""
        if self.phase != PLAY and not (self.phase == ANNOUNCE and self._f.raise_in_announce):
            if self._f.raise_in_announce:
                raise RuleViolation(Reason.NOT_NOW, "raising starts once the first packet is dealt")
            raise RuleViolation(Reason.NOT_NOW, "raising starts once the trump is named (raise_from = trump)")
        if self.hand_sides[seat] == self.last_raise_side:
            raise RuleViolation(Reason.RAISE_TWICE, "your side raised last: the other side must raise next")
        if any(self.gespannt):
            raise RuleViolation(Reason.GESPANNT, "a side is gespannt: no raising in this hand")
        raise RuleViolation(Reason.RAISE_CAP, "the stake already covers the points your side needs")

    def _refuse_concede(self, seat: int) -> None:
        if self.rules.tight != "three-or-concede":
            raise RuleViolation(Reason.NO_CONCEDE, "conceding is not part of these rules (tight = base-two)")
        if self.phase != PLAY or self.played_cards:
            raise RuleViolation(Reason.NOT_NOW, "a gespannt side concedes after the trump and before the first lead")
        if not self.gespannt[self.hand_sides[seat]]:
            raise RuleViolation(Reason.NOT_GESPANNT, "only a gespannt side may concede")

    def _refuse_signal(self, seat: int, name: str) -> NoReturn:
        if name not in SIGNAL_NAMES:
            raise RuleViolation(Reason.UNKNOWN_SIGNAL, f"unknown signal {name!r}; signals: {' '.join(SIGNAL_NAMES)}")
        if not self.rules.signals:
            raise RuleViolation(Reason.NO_SIGNALS, "signals are off at this table")
        if not self.t.hand_partners_of[self.dealer][seat]:
            raise RuleViolation(Reason.NO_PARTNER, "you have no partner to signal to")
        raise RuleViolation(Reason.NOT_NOW, "no signal now (at most 3 a hand, while you hold cards)")

    def _refuse_bad_cut(self) -> NoReturn:
        raise RuleViolation(Reason.BAD_CUT, f"cut between 4 and {len(self.deck or ()) - 4} cards: 'cut N'")

    def _refuse_not_waiting(self, seat: int) -> None:
        if seat not in self.waiting_for:
            waiting = ", ".join(str(s) for s in self.waiting_for)
            raise RuleViolation(Reason.NOT_YOUR_TURN, f"waiting for seat {waiting}")

    # -- cut and Schlecken
    def _cut(self, seat: int, verb: str, arg: str, events: list[Event]) -> None:
        n = int(arg)
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

    def seen_card(self) -> Piece:
        """The card the Schlecken seat is shown now (the host's view of that seat names it)."""
        return self._seen()

    def _seen(self) -> Piece:
        """The card the Schlecken seat is shown: the cutter sees the lifted packet, the dealer the rest."""
        if self.schlecken_seat == self.t.cutter_of[self.dealer]:
            return self.lifted[self.seen_index]
        return self.rest[self.seen_index]

    def _schlecken(self, seat: int, verb: str, arg: str, events: list[Event]) -> None:
        take = verb == Verb.TAKE
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
        if any(taken):
            self.hands = tuple(self._in_hand_order(pieces) for pieces in taken)
        else:  # nobody took a card (the usual case): every hand starts empty
            self.hands = taken
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
            # _in_hand_order without the call: this runs for every seat and packet of every hand
            hands[seat] = tuple(sorted(hands[seat] + got, key=order)) if order else hands[seat] + got
            events.append(self._deal_event(seat, number, got))
        self.stack = stack[top:]
        self.hands = tuple(hands)
        events.append(make_event(("packet", -1, {"packet": number, "counts": list(map(len, hands))}, None)))

    def _in_hand_order(self, hand: tuple[Piece, ...]) -> tuple[Piece, ...]:
        order = self.HAND_ORDER
        return tuple(sorted(hand, key=order)) if order and len(hand) > 1 else hand

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

    def _name_schlag(self, seat: int, verb: str, rank: str, events: list[Event]) -> None:
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

    def _name_trump(self, seat: int, verb: str, suit: str, events: list[Event]) -> None:
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

    def _swap(self, seat: int, verb: str, arg: str, events: list[Event]) -> None:
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

    def _bessere(self, seat: int, verb: str, arg: str, events: list[Event]) -> None:
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
            hands[who] = self._in_hand_order(got)
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
        for played in trick:  # a loop, not a comprehension (see state's docstring)
            texts.append(played.text)
        events.append(make_event((
            "trick", winner, {"cards": texts, "leader": leader, "side": side, "tricks": [won_0, won_1]}, None,
        )))
        if (won_1 if side else won_0) >= self.rules.tricks_to_win:
            self._end_hand(side, self.value, "tricks", events)
            return
        self.leader = self.turn = winner

    def _raise(self, seat: int, verb: str, arg: str, events: list[Event]) -> None:
        proposed = self.value + self.rules.raise_step
        self.raise_pending = (proposed, seat)
        events.append(make_event(("raise", seat, {"value": proposed, "from": self.value}, None)))

    def _answer_raise(self, seat: int, verb: str, arg: str, events: list[Event]) -> None:
        assert self.raise_pending is not None
        proposed, raiser = self.raise_pending
        self.raise_pending = None
        raiser_side = self.hand_sides[raiser]
        if verb == Verb.ACCEPT:
            self.value = proposed
            self.last_raise_side = raiser_side
            events.append(make_event(("accept", seat, {"value": proposed}, None)))
            return
        events.append(make_event(("fold", seat, {"value": self.value}, None)))
        self._end_hand(raiser_side, self.value, "fold", events)

    def _concede(self, seat: int, verb: str, arg: str, events: list[Event]) -> None:
        events.append(Event("concede", seat))
        self._end_hand(1 - self.hand_sides[seat], 2, "concede", events)

    def _schadet(self, seat: int, verb: str, arg: str, events: list[Event]) -> None:
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

    def _signal(self, seat: int, verb: str, name: str, events: list[Event]) -> None:
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


# The step of each verb other than `play` (a card play has a path of its own in each engine): one dict lookup
# instead of a chain of comparisons. Each step takes (state, seat, verb, the rest of the action, events).
_ACTION_STEPS: dict[str, Callable[[MatchCore[Any], int, str, str, list[Event]], None]] = {
    Verb.RAISE: MatchCore._raise,
    Verb.ACCEPT: MatchCore._answer_raise,
    Verb.FOLD: MatchCore._answer_raise,
    Verb.SIGNAL: MatchCore._signal,
    Verb.CUT: MatchCore._cut,
    Verb.TAKE: MatchCore._schlecken,
    Verb.KEEP: MatchCore._schlecken,
    Verb.SCHLAG: MatchCore._name_schlag,
    Verb.TRUMP: MatchCore._name_trump,
    Verb.SWAP_ASK: MatchCore._swap,
    Verb.SWAP: MatchCore._swap,
    Verb.BESSERE_ASK: MatchCore._bessere,
    Verb.BESSERE: MatchCore._bessere,
    Verb.SCHADET_ASK: MatchCore._schadet,
    Verb.SCHADET: MatchCore._schadet,
    Verb.CONCEDE: MatchCore._concede,
}
