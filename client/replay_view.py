"""One step of a recorded match as the live table's own `TableView`, so that the replay draws it with the client's
panes (client/viewmodel.py) and tells it with the client's table log (client/story.py).

The host builds a seat's view from its engine (host/views.py); the client may not import the host, and a replay
needs only the part the panes read, so this builds that part from the step's engine state. The names are the
record's roster (hostile text: the panes show them through `visible`).
"""

from __future__ import annotations

from typing import Any, cast

from watten_net.deal.protocol import event_to_pb
from watten_net.engine.notation import RAISE_PENDING
from watten_net.engine.public import PublicMatch
from watten_net.v1 import watten_pb2 as pb

from . import viewmodel as vm
from .columns import fit_columns
from .i18n import Words
from .replay_steps import SEALED_MARK, Step, cards_of
from .replay_words import said


def step_view(step: Step, names: list[str], bots: list[bool], owner: int | None, fingerprint: str) -> Any:
    """The table at `step` as `owner`'s seat saw it, with every seat's cards in `your_hand` left to `hands_pane`."""
    match = step.match
    n = match.rules.players
    trustless = isinstance(match, PublicMatch)
    seat = owner if owner is not None else -1
    phase = vm.MATCH_OVER if match.is_over else vm.PLAYING
    view = pb.TableView(your_seat=seat, target=match.rules.target, game_fingerprint=fingerprint)
    view.table.CopyFrom(pb.TableInfo(rules_json=match.rules.to_json(), player_count=n,
                                     settings=pb.TableSettings(deal="trustless" if trustless else "verified")))
    view.table.phase = cast(Any, phase)  # (the viewmodel's phase numbers are the enum's values)
    view.deal.mode = "trustless" if trustless else "verified"
    view.hand_phase = RAISE_PENDING if match.raise_pending is not None else match.phase
    view.hand, view.attempt = match.hand_number, match.attempt
    view.dealer, view.forehand, view.cutter = match.dealer, match.forehand, match.cutter
    view.winners.extend(match.winners)
    # (who could move: the live table leaves out a host bot holding a raise back for its person, table_waits.py, but
    # that needs who was away at this step, which the engine's steps do not carry)
    view.to_act.extend(match.waiting_for)
    if match.trick:
        view.current_trick.CopyFrom(pb.Trick(leader=match.leader, winner=-1, cards=[
            pb.TrickCard(seat=s, card=c.text) for s, c in zip(match.trick_seats, match.trick, strict=True)]))
    view.stake = match.value
    if match.raise_pending is not None:
        proposed, raiser = match.raise_pending
        view.pending_raise.CopyFrom(pb.PendingRaise(seat=raiser, side=match.hand_sides[raiser],
                                                    proposed_value=proposed))
    view.schlag, view.trump = match.schlag or "", match.trump or ""
    view.tricks_per_side.extend(match.tricks_won)
    view.tight_per_side.extend(match.gespannt)
    for s in range(n):
        view.seats.append(pb.SeatView(
            seat=s, name=names[s] if s < len(names) else "", side=match.hand_sides[s], online=True,
            bot=s < len(bots) and bots[s], hand_size=len(match.hands[s]), you=s == seat))
    for scorer in range(match.t.scorers):
        view.sides.append(pb.SideView(side=scorer, seats=[s for s in range(n) if match.t.scorer_of[s] == scorer],
                                      score=match.scores[scorer], bummerl=match.bummerl[scorer]))
    return view


def step_events(step: Step) -> list[Any]:
    """The step's engine events as the stream carries them (the table log reads those)."""
    return [event_to_pb(e.kind, e.seat, e.data) for e in step.events]


def hands_pane(step: Step, view: Any, words: Words) -> vm.Fragments:
    """A row per seat: the cards it holds now, as far as the record reveals them (sealed: ▒▒), strongest first."""
    out: vm.Fragments = [("class:heading", said(words.lang, "cards") + "\n")]
    for s in range(step.match.rules.players):
        cards = cards_of(step.match, s)
        known = [c for c in cards if c != SEALED_MARK]
        ordered = vm.sort_hand(known, view.table.rules_json, view.schlag, view.trump) + [
            c for c in cards if c == SEALED_MARK]
        name = vm.seat_name(view, s, words)
        out.append(("class:you" if s == view.your_seat else "", f"  {s} {fit_columns(name, 14)} "))
        for card in ordered:
            out += [("class:dim", f" {card}")] if card == SEALED_MARK else [("", " "), *vm.card_fragments(
                words, card, "bold")]
        out.append(("", "\n" if ordered else " –\n"))
    return out
