"""Per-seat projections: what one subscriber may see of the table, built on the host for that seat only.

Nothing is "sent to everyone and hidden client-side": a seat's TableView holds its own cards and the
public state, its chain entries replace envelopes it may not see by stubs, and its events are the
engine events visible to it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from watten_net.deal.host_game import HostGame, Posted
from watten_net.deal.protocol import PROTOCOL_VERSION, event_to_pb
from watten_net.deal.steps import DealStep, Stage
from watten_net.engine.event_data import event_data
from watten_net.engine.events import Event, EventKind
from watten_net.engine.notation import RAISE_PENDING, Phase
from watten_net.v1 import watten_pb2 as pb

if TYPE_CHECKING:
    from .table import Table

DEAL_NOTE = "Verified deal: the host can see all cards, of this hand and those to come"
TRUSTLESS_NOTE = "Trustless deal: the host cannot see your cards"


def chain_entry(posted: Posted, seat: int) -> Any:
    if posted.sees(seat):
        return pb.ChainEntry(chain_seq=posted.seq, envelope=posted.raw)
    return pb.ChainEntry(chain_seq=posted.seq, withheld=posted.stub())


def game_events(events: list[Event], seat: int) -> list[Any]:
    return [event_to_pb(e.kind, e.seat, e.data) for e in events if e.visible_to(seat)]


def table_info(table: Table, rules_json: str) -> Any:
    """The table's public TableInfo (what GetTable, ListTables and every seat's view carry)."""
    seats = []
    for s, o in enumerate(table.seats):
        seats.append(pb.SeatInfo(
            seat=s, occupied=o is not None, name=o.name if o else "", side=_lobby_side(table.n, s),
            ready=bool(o and o.ready), online=bool(o and o.online), bot=bool(o and o.bot),
            public_key=o.public_key if o else b"", stand_in=table.stood_in(s),
        ))
    settings, game = table.settings, table.game
    return pb.TableInfo(
        protocol_version=PROTOCOL_VERSION, table_id=table.table_id, host_name=settings.host_name,
        preset=settings.preset, rules_json=rules_json,
        settings=pb.TableSettings(deal=settings.deal, reveal=settings.reveal), player_count=table.n, seats=seats,
        phase=table.phase(), seq=len(table.log), watching=table.spectators.watching(),
        host_tls_fingerprint=settings.tls_fingerprint,
        host_public_key=settings.host_public_key,
        game_id=game.game_id if game else b"", game_fingerprint=game.fingerprint if game else "",
        step_timeout=max(settings.step_timeout, 0.0),
    )


def table_info_key(table: Table) -> tuple[Any, ...]:
    """All that `table_info` reads of the table but its `seq` (the log's length, which every change moves): an equal
    key is an equal TableInfo apart from seq. (Cheaper than building the TableInfo: its rules JSON alone is about half
    of a view.)"""
    game = table.game
    return (
        table.settings, table.table_id, table.phase(), table.spectators.watching(),
        game.game_id if game else b"", game.fingerprint if game else "",
        *((o.name, o.ready, o.online, o.bot, o.public_key, table.stood_in(s)) if o else table.stood_in(s)
          for s, o in enumerate(table.seats)),
    )


def table_view(table: Table, seat: int, *, with_table: bool = True) -> Any:
    """Seat `seat`'s view; without its TableInfo for an event stream, which sends that only when it changed."""
    moment = Moment(table)
    view = moment.view(seat, moment.own(seat))
    if with_table:
        view.table.CopyFrom(table.info())
    return view


class BuiltView:
    """One seat's view (without its TableInfo), kept as what it is built from: its change's shared part (`Moment`, one
    for every seat of that change, with its bytes) and the seat's own part. A stream compares keys, not protobufs: an
    equal key is the same view. The protobuf is written straight into the message that carries it (`write`: one copy
    of the shared part per seat and change); `view` builds one of its own only when something asks for it."""

    __slots__ = ("_moment", "_own", "_seat", "_view", "key")

    def __init__(self, moment: Moment, seat: int, own: tuple[Any, ...]) -> None:
        self._moment, self._seat, self._own = moment, seat, own
        self._view: Any = None
        self.key: tuple[bytes, tuple[Any, ...]] = (moment.key, own)

    @classmethod
    def now(cls, table: Table, seat: int) -> BuiltView:
        """`seat`'s view of the table as it is now."""
        moment = Moment(table)
        return cls(moment, seat, moment.own(seat))

    def __eq__(self, other: object) -> bool:
        """The same seat's same view (what it is built from: its bytes need not be compared)."""
        if not isinstance(other, BuiltView):
            return NotImplemented
        return self._seat == other._seat and self.key == other.key

    def __hash__(self) -> int:
        return hash((self._seat, self.key))

    def write(self, into: Any) -> None:
        """The view into `into` (a pb.TableView, whatever it held replaced)."""
        self._moment.write(into, self._seat, self._own)

    @property
    def view(self) -> Any:
        if self._view is None:
            self._view = self._moment.view(self._seat, self._own)
        return self._view


class SeatViews:
    """The views a table's changes leave its seats (ChangeLog.append): each change's shared part is built once
    (`Moment`), and a seat whose view did not change keeps the BuiltView it had, with no protobuf built for it."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.last: dict[int, BuiltView] = {}
        self.signals_at: tuple[Any, list[Event]] | None = None  # (a match's log, its hand's signals): see Moment

    def build(self, seats: list[int]) -> dict[int, BuiltView]:
        moment = Moment(self.table, self.signals_at)
        if moment.match is not None:
            self.signals_at = (moment.match.log, moment.signals)
        views: dict[int, BuiltView] = {}
        for seat in seats:
            own = moment.own(seat)
            key = (moment.key, own)
            last = self.last.get(seat)
            if last is None or last.key != key:
                last = self.last[seat] = BuiltView(moment, seat, own)
            views[seat] = last
        return views


class Moment:
    """The table at one moment: the part of its views that every seat (and a spectator) shares, built once, as a
    template and its bytes; `view(seat, own(seat))` is that template with the seat's own part added."""

    def __init__(self, table: Table, signals_at: tuple[Any, list[Event]] | None = None) -> None:
        self.table = table
        game: HostGame | None = table.game
        self.game = game
        # The engine: Level 1's Match (the host knows every card), or the trustless PublicMatch (public facts only:
        # the seat's client adds its own cards and works out its legal plays, `watten_net.deal.own_hand`).
        self.match: Any = None if game is None else game.public if game.trustless else game.match
        self.signals = hand_signal_events(self.match, signals_at) if self.match is not None else []
        self.template = self._shared()
        self.key = self.template.SerializeToString(deterministic=True)
        # (all that `write` reads besides the template: a BuiltView writes its view when a stream sends it, after
        # the match may have moved on)
        self.announced = self.match is not None and self.match.schlag is not None

    def _shared(self) -> Any:
        table, game, match = self.table, self.game, self.match
        view = pb.TableView(target=table.rules.target)
        if game is None:
            for s in range(table.n):
                o = table.seats[s]
                view.seats.append(pb.SeatView(
                    seat=s, name=o.name if o else "", side=_lobby_side(table.n, s), online=bool(o and o.online),
                    bot=bool(o and o.bot), ready=bool(o and o.ready),
                ))
            return view
        view.game_fingerprint = game.fingerprint
        view.chain_seq = len(game.chain)
        view.chain_head = game.chain[-1].hash if game.chain else b""
        step, waiting = game.waiting_for()
        trustless = game.trustless
        view.deal.CopyFrom(pb.DealStatus(mode="trustless" if trustless else "verified", step=DealStep(step).wire,
                                         waiting_for=list(waiting) if step != DealStep.PLAY else [],
                                         note=TRUSTLESS_NOTE if trustless else DEAL_NOTE))
        if match is not None:
            _hand_rows(view, table, game, match)
        _seat_rows(view, table, match)
        return view

    def own(self, seat: int) -> tuple[Any, ...]:
        """What of `seat`'s view is its own (its cards, legal actions, partners, signals, whether the Blind
        announcement is hidden from it, the Schlecken card it sees), as a value to compare."""
        match, game = self.match, self.game
        if match is None or game is None:
            return ()
        spectator = not 0 <= seat < self.table.n
        trustless = game.trustless
        in_protocol = game.phase != Stage.PLAY
        schlecken = ""
        if not spectator and not trustless and match.phase == Phase.SCHLECKEN and match.schlecken_seat == seat:
            schlecken = match.seen_card().text
        return (
            () if spectator or trustless else tuple(c.text for c in match.hands[seat]),
            () if spectator or in_protocol else tuple(match.legal_actions(seat)),
            () if spectator else match.t.hand_partners_of[match.dealer][seat],
            tuple((e.seat, event_data(e, EventKind.SIGNAL)["name"]) for e in self.signals if e.visible_to(seat)),
            match.rules.blind and (spectator or seat not in match.announcers),
            schlecken,
        )

    def view(self, seat: int, own: tuple[Any, ...]) -> Any:
        """`seat`'s whole view (without the TableInfo): a copy of the shared template with its own part."""
        view = pb.TableView()
        self.write(view, seat, own)
        return view

    def write(self, view: Any, seat: int, own: tuple[Any, ...]) -> None:
        """`view` made `seat`'s whole view (without the TableInfo), from this moment's template and the seat's own
        part; it reads nothing of the table as it is now."""
        view.CopyFrom(self.template)
        view.your_seat = seat
        if 0 <= seat < len(view.seats):
            view.seats[seat].you = True
        if not own:
            return
        hand, legal, partners, signals, hidden, schlecken = own
        view.your_hand.extend(hand)
        view.legal_actions.extend(legal)
        view.partners.extend(partners)
        view.signals.extend(pb.SignalSeen(seat=s, name=name) for s, name in signals)
        if hidden:
            view.schlag = view.trump = ""
            view.announcement_hidden = self.announced
        if schlecken:
            view.extra["schlecken_card"] = schlecken


def _hand_rows(view: Any, table: Table, game: HostGame, match: Any) -> None:
    """The hand under way as every seat sees it: its phase, the announcements, the tricks, the stake, the score
    (the announcement as its announcers see it: `Moment.view` hides it from the others in a Blind game)."""
    view.hand_phase = RAISE_PENDING if match.raise_pending is not None else match.phase
    view.announce_step = (match.announce_step if match.phase == Phase.ANNOUNCE else None) or ""
    view.match_number = match.match_number
    view.winners.extend(match.winners)
    view.series_over = match.series_over or any(
        marks >= table.rules.bummerl_limit for marks in table.rematch.series_bummerl(tuple(match.bummerl)))
    view.hand = match.hand_number
    view.attempt = match.attempt
    view.announcers.extend(match.announcers)
    view.dealer = match.dealer
    view.forehand = match.forehand
    view.cutter = match.cutter
    view.to_act.extend(game.to_act())  # (not a host bot that leaves a raise to its person: table_waits.py)
    if match.trick:
        view.current_trick.CopyFrom(pb.Trick(
            leader=match.leader, winner=-1,
            cards=[pb.TrickCard(seat=s, card=c.text) for s, c in zip(match.trick_seats, match.trick, strict=True)],
        ))
    view.tricks.extend(_trick_rows(match.tricks, table.n))
    view.stake = match.value
    if match.raise_pending is not None:
        proposed, raiser = match.raise_pending
        view.pending_raise.CopyFrom(pb.PendingRaise(seat=raiser, side=match.hand_sides[raiser],
                                                    proposed_value=proposed))
    view.schlag = match.schlag or ""
    view.trump = match.trump or ""
    view.tricks_per_side.extend(match.tricks_won)
    view.tight_per_side.extend(match.gespannt)
    view.last_raise_side = match.last_raise_side
    if match.schadet_asked:
        view.extra["schadet_asked"] = "1"  # (a seat that knows its cards works out its legal plays with it)


@functools.lru_cache(maxsize=256)
def _trick_rows(tricks: tuple[tuple[int, tuple[Any, ...], int], ...], n: int) -> tuple[Any, ...]:
    """The hand's completed tricks as rows of a view: built once (a view is built at every change, and the tricks
    of a hand change once a trick); only read from here on (`extend` copies them into the view)."""
    return tuple(pb.Trick(leader=leader, winner=winner,
                          cards=[pb.TrickCard(seat=(leader + i) % n, card=c.text) for i, c in enumerate(cards)])
                 for leader, cards, winner in tricks)


def hand_signals(match: Any, seat: int) -> list[Any]:
    """The signals of the hand under way (this deal attempt) that `seat` may see, oldest first.

    The same filter as the seat's events (`Event.visible_to`: the sender and its partners; nobody else, a spectator
    included), so a view never holds a signal its stream would not."""
    return [pb.SignalSeen(seat=e.seat, name=event_data(e, EventKind.SIGNAL)["name"])
            for e in hand_signal_events(match) if e.visible_to(seat)]


def hand_signal_events(match: Any, known: tuple[Any, list[Event]] | None = None) -> list[Event]:
    """The signal events of the hand under way (this deal attempt), oldest first. The match's log is read newest
    first and only back to the hand's `hand-start`: a view late in a match costs no more than one early on; and
    only back to `known`'s log node, when given (a node of this log and its signals, from a call before: the log
    is persistent, so the steps since are the new ones)."""
    found: list[Event] = []
    log = match.log
    while log is not None:
        if known is not None and log is known[0]:
            found.reverse()
            return known[1] + found
        step, log = log
        for event in reversed(step):
            if event.kind == EventKind.HAND_START:
                log = None
                break
            if event.kind == EventKind.SIGNAL:
                found.append(event)
    found.reverse()
    return found


def _lobby_side(n: int, seat: int) -> int:
    return -1 if n == 3 else seat % 2


def _seat_rows(view: Any, table: Table, match: Any) -> None:
    n = table.n
    seats = table.seats  # (read once: this runs at every change)
    for s in range(n):
        occupant = seats[s]
        if occupant is not None and not occupant.online and occupant.offline_since:
            # When the seat went away, so that every screen can show for how long.
            view.extra[f"offline_since.{s}"] = f"{occupant.offline_since:.0f}"
        stand_in = table.stood_in(s)
        view.seats.append(pb.SeatView(
            seat=s, name=occupant.name if occupant else "",
            side=match.hand_sides[s] if match is not None else _lobby_side(n, s),
            online=bool(occupant and occupant.online), bot=bool(occupant and occupant.bot) or stand_in,
            ready=bool(occupant and occupant.ready), stand_in=stand_in,
            hand_size=len(match.hands[s]) if match is not None else 0,
            taken=len(match.taken[s]) if match is not None else 0,
        ))
    scores = match.scores if match is not None else ()
    marks = table.rematch.series_bummerl(tuple(match.bummerl)) if match is not None else []
    t = match.t if match is not None else None
    if t is not None:
        for scorer in range(t.scorers):
            view.sides.append(pb.SideView(
                side=scorer, seats=[s for s in range(n) if t.scorer_of[s] == scorer],
                score=scores[scorer], bummerl=marks[scorer],
            ))


def own_chain(snap: Any, table: Table, seat: int) -> None:
    """The subscriber's own envelope chain head (Snapshot.your_envelope_seq/_hash), full or resumed."""
    game = table.game
    if game is not None and 0 <= seat < len(game.seat_chains):
        own = game.seat_chains[seat]
        snap.your_envelope_seq = own.seq
        snap.your_envelope_hash = own.head


def snapshot(table: Table, seat: int, seq: int, known_chain_seq: int) -> Any:
    """What a new event stream starts with: the seat's view, the chain entries it lacks, the hand's events."""
    snap = pb.Snapshot(seq=seq, resumed=False, view=table_view(table, seat))
    game = table.game
    if game is not None:
        for posted in game.chain[known_chain_seq:]:
            snap.chain.append(chain_entry(posted, seat))
        own_chain(snap, table, seat)
        if game.match is not None:
            hand_events = game.match.events()
            starts = [i for i, e in enumerate(hand_events) if e.kind == "hand-start"]
            recent = hand_events[starts[-1]:] if starts else hand_events
            snap.recent_events.extend(game_events(recent, seat))
    return snap
