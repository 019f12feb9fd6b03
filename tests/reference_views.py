"""Today's seat view as host/views.py built it before its shared part was built once per change (f8d460f, each
seat's view whole on its own): the reference that tests hold the cheap path against (test_view_moments.py).

Kept verbatim but for its name; it reads the table exactly as the host's code of that commit did."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from host.views import DEAL_NOTE, TRUSTLESS_NOTE
from watten_net.deal.host_game import HostGame
from watten_net.deal.steps import DealStep, Stage
from watten_net.engine.event_data import event_data
from watten_net.engine.events import EventKind
from watten_net.engine.notation import RAISE_PENDING, Phase
from watten_net.v1 import watten_pb2 as pb

if TYPE_CHECKING:
    from host.table import Table


def reference_view(table: Table, seat: int, *, with_table: bool = True) -> Any:
    """Seat `seat`'s view; without its TableInfo for an event stream, which sends that only when it changed."""
    view = pb.TableView(your_seat=seat, target=table.rules.target)
    if with_table:
        view.table.CopyFrom(table.info())
    game: HostGame | None = table.game
    if game is None:
        for s in range(table.n):
            o = table.seats[s]
            view.seats.append(pb.SeatView(
                seat=s, name=o.name if o else "", side=_lobby_side(table.n, s), online=bool(o and o.online),
                bot=bool(o and o.bot), ready=bool(o and o.ready), you=(s == seat),
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
    # The engine: Level 1's Match (the host knows every card), or the trustless PublicMatch (public facts only:
    # the seat's client adds its own cards and works out its legal plays, `watten_net.deal.own_hand`).
    match: Any = game.public if trustless else game.match
    if match is None:
        _seat_rows(view, table, seat, None)
        return view
    _hand_rows(view, table, seat, game, match)
    view.signals.extend(hand_signals(match, seat))
    _seat_rows(view, table, seat, match)
    spectator = not 0 <= seat < table.n
    if not spectator and not trustless and match.phase == Phase.SCHLECKEN and match.schlecken_seat == seat:
        view.extra["schlecken_card"] = match.seen_card().text
    return view


def _hand_rows(view: Any, table: Table, seat: int, game: HostGame, match: Any) -> None:
    """The hand under way as `seat` sees it: its phase, the announcements, the tricks, the stake, the score."""
    trustless = game.trustless
    spectator = not 0 <= seat < table.n
    obs: Any = match.observe(seat if not spectator else 0, history=False)
    view.hand_phase = RAISE_PENDING if match.raise_pending is not None else match.phase
    view.announce_step = obs.announce_step or ""
    view.match_number = match.match_number
    view.winners.extend(match.winners)
    view.series_over = match.series_over
    view.hand = match.hand_number
    view.attempt = match.attempt
    view.announcers.extend(match.announcers)
    if not spectator:
        view.partners.extend(obs.partners)
    view.dealer = match.dealer
    view.forehand = match.forehand
    view.cutter = match.cutter
    in_protocol = game.phase != Stage.PLAY
    # (amended since: the seats the table waits for, not a host bot that leaves a raise to its person; table_waits.py)
    view.to_act.extend(game.to_act())
    if not spectator:
        if not trustless:
            view.your_hand.extend(c.text for c in obs.hand)
        if not in_protocol:
            view.legal_actions.extend(obs.legal_actions)
    if match.trick:
        view.current_trick.CopyFrom(pb.Trick(
            leader=match.leader, winner=-1,
            cards=[pb.TrickCard(seat=s, card=c.text) for s, c in zip(match.trick_seats, match.trick, strict=True)],
        ))
    n = table.n
    for leader, cards, winner in match.tricks:
        view.tricks.append(pb.Trick(
            leader=leader, winner=winner,
            cards=[pb.TrickCard(seat=(leader + i) % n, card=c.text) for i, c in enumerate(cards)],
        ))
    view.stake = match.value
    if match.raise_pending is not None:
        proposed, raiser = match.raise_pending
        view.pending_raise.CopyFrom(pb.PendingRaise(seat=raiser, side=match.hand_sides[raiser],
                                                    proposed_value=proposed))
    hidden = match.rules.blind and (spectator or seat not in match.announcers)
    view.schlag = "" if hidden else (match.schlag or "")
    view.trump = "" if hidden else (match.trump or "")
    view.announcement_hidden = hidden and match.schlag is not None
    view.tricks_per_side.extend(match.tricks_won)
    view.tight_per_side.extend(match.gespannt)
    view.last_raise_side = match.last_raise_side
    if match.schadet_asked:
        view.extra["schadet_asked"] = "1"  # (a seat that knows its cards works out its legal plays with it)


def hand_signals(match: Any, seat: int) -> list[Any]:
    """The signals of the hand under way (this deal attempt) that `seat` may see, oldest first.

    The same filter as the seat's events (`Event.visible_to`: the sender and its partners; nobody else, a spectator
    included), so a view never holds a signal its stream would not. The match's log is read newest first and only
    back to the hand's `hand-start`: a view late in a match costs no more than one early on."""
    found: list[Any] = []
    log = match.log
    while log is not None:
        step, log = log
        for event in reversed(step):
            if event.kind == EventKind.HAND_START:
                log = None
                break
            if event.kind == EventKind.SIGNAL and event.visible_to(seat):
                found.append(pb.SignalSeen(seat=event.seat, name=event_data(event, EventKind.SIGNAL)["name"]))
    found.reverse()
    return found


def _lobby_side(n: int, seat: int) -> int:
    return -1 if n == 3 else seat % 2


def _seat_rows(view: Any, table: Table, seat: int, match: Any) -> None:
    n = table.n
    for s in range(n):
        occupant = table.seats[s]
        if occupant is not None and not occupant.online and occupant.offline_since:
            # When the seat went away, so that every screen can show for how long.
            view.extra[f"offline_since.{s}"] = f"{occupant.offline_since:.0f}"
        view.seats.append(pb.SeatView(
            seat=s, name=occupant.name if occupant else "",
            side=match.hand_sides[s] if match is not None else _lobby_side(n, s),
            online=bool(occupant and occupant.online), bot=bool(occupant and occupant.bot) or table.stood_in(s),
            ready=bool(occupant and occupant.ready), stand_in=table.stood_in(s),
            hand_size=len(match.hands[s]) if match is not None else 0, you=(s == seat),
            taken=len(match.taken[s]) if match is not None else 0,
        ))
    scores = match.scores if match is not None else ()
    marks = match.bummerl if match is not None else ()
    t = match.t if match is not None else None
    if t is not None:
        for scorer in range(t.scorers):
            view.sides.append(pb.SideView(
                side=scorer, seats=[s for s in range(n) if t.scorer_of[s] == scorer],
                score=scores[scorer], bummerl=marks[scorer],
            ))
