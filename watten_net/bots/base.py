"""The bot interface, the seat's view a bot decides from, and the `random` level."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from watten_net.engine import Observation, Rules
from watten_net.engine.event_data import event_data
from watten_net.engine.events import EventKind
from watten_net.engine.notation import RAISE_PENDING, Phase, Verb
from watten_net.engine.seating import seating_for

if TYPE_CHECKING:
    from watten_net.v1 import watten_pb2


@dataclass(frozen=True)
class BotView:
    """What a bot may know: its seat's view, the same fields the host sends a client in its TableView.

    Cards are strings in docs/rules.md notation. Build it with `from_observation` (bots in the host process)
    or `from_table_view` (remote bots): both give the same view of the same state. Every field beyond
    `seat` and `legal_actions` has a safe default, so a bot must cope with a view that lacks them.
    """

    seat: int
    legal_actions: tuple[str, ...]
    hand: tuple[str, ...] = ()
    schlag: str = ""  # empty before it is named, or when Blind hides it from this seat
    trump: str = ""
    phase: str = ""  # engine phase: cut, schlecken, announce, play (also while a raise is pending), over
    stake: int = 2
    current_trick: tuple[tuple[int, str], ...] = ()  # (seat, card) in play order
    extra: dict[str, str] = field(default_factory=dict)  # e.g. "schlecken_card": the card the seat sees at the cut
    rules: Rules | None = None
    announce_step: str = ""  # during the announcement: schlag, trump, swap-answer, bessere-answer
    tricks: tuple[tuple[int, tuple[str, ...], int], ...] = ()  # completed tricks of this hand: (leader, cards, winner)
    tricks_won: tuple[int, ...] = ()  # per hand side
    sides: tuple[int, ...] = ()  # hand side (0 or 1) of every seat
    partners: tuple[int, ...] = ()  # the seats on this seat's side in this hand (who receive its signals)
    announcers: tuple[int, ...] = ()
    pending_raise: tuple[int, int] | None = None  # (proposed value, raising seat)
    last_raise_side: int = -1
    gespannt: tuple[bool, ...] = ()  # per hand side
    seat_scores: tuple[int, ...] = ()  # match points of every seat (its side's score; its own with 3 players)
    hand_counts: tuple[int, ...] = ()  # cards every seat holds
    taken_counts: tuple[int, ...] = ()  # cards every seat took at the cut (Schlecken) in this hand; which is hidden
    # Signals this seat has seen in this hand (deal attempt), its own and its partners': (sender, name), oldest first
    # (the observation's `signal` events; the TableView's `signals`, which the host fills from the same events).
    signals: tuple[tuple[int, str], ...] = ()

    @property
    def side(self) -> int:
        """This seat's side in this hand (seat % 2 when the view does not say)."""
        return self.sides[self.seat] if 0 <= self.seat < len(self.sides) else self.seat % 2

    @classmethod
    def from_observation(cls, obs: Observation) -> BotView:
        """The view of an engine `Observation` (what `Match.observe(seat)` returns)."""
        extra: dict[str, str] = {}
        if obs.phase == Phase.SCHLECKEN and obs.seat in obs.to_act:
            # The card the seat looks at is shown to it alone, in a `see` event; the newest one is the current card.
            for event in reversed(obs.events):
                if event.kind == EventKind.SEE and event.seat == obs.seat:
                    extra["schlecken_card"] = str(event_data(event, EventKind.SEE)["card"])
                    break
        scorer_of = seating_for(obs.rules).scorer_of
        return cls(
            seat=obs.seat,
            legal_actions=obs.legal_actions,
            hand=tuple(c.text for c in obs.hand),
            schlag=obs.schlag or "",
            trump=obs.trump or "",
            phase=obs.phase,
            stake=obs.value,
            current_trick=tuple((s, c.text) for s, c in obs.current_trick),
            extra=extra,
            rules=obs.rules,
            announce_step=obs.announce_step or "",
            tricks=tuple((leader, tuple(c.text for c in cards), winner) for leader, cards, winner in obs.tricks),
            tricks_won=tuple(obs.tricks_won),
            sides=tuple(obs.hand_sides),
            partners=tuple(obs.partners),
            announcers=tuple(obs.announcers),
            pending_raise=obs.raise_pending,
            last_raise_side=obs.last_raise_side,
            gespannt=tuple(obs.gespannt),
            seat_scores=tuple(obs.scores[scorer_of[s]] for s in range(obs.rules.players)),
            hand_counts=tuple(obs.hand_counts),
            taken_counts=tuple(obs.taken_counts),
            signals=_hand_signals(obs),
        )

    @classmethod
    def from_table_view(cls, view: watten_pb2.TableView) -> BotView:
        """The view of a `watten_net.v1.TableView` message (what a remote seat receives)."""
        pending: tuple[int, int] | None = None
        if view.HasField("pending_raise"):
            pending = (view.pending_raise.proposed_value, view.pending_raise.seat)
        seat_scores: dict[int, int] = {}
        for side in view.sides:
            for s in side.seats:
                seat_scores[s] = side.score
        n = len(view.seats)
        return cls(
            seat=view.your_seat,
            legal_actions=tuple(view.legal_actions),
            hand=tuple(view.your_hand),
            schlag=view.schlag,
            trump=view.trump,
            # The TableView names a pending raise as a phase of its own; the engine phase is still "play", or
            # "announce" for a raise during the announcement (which keeps its step, docs/rules.md 6).
            phase=(
                (Phase.ANNOUNCE if view.announce_step else Phase.PLAY) if view.hand_phase == RAISE_PENDING
                else view.hand_phase
            ),
            stake=view.stake,
            current_trick=tuple((tc.seat, tc.card) for tc in view.current_trick.cards),
            extra=dict(view.extra),
            rules=_rules_from_json(view.table.rules_json) if view.table.rules_json else None,
            announce_step=view.announce_step,
            tricks=tuple((t.leader, tuple(tc.card for tc in t.cards), t.winner) for t in view.tricks),
            tricks_won=tuple(view.tricks_per_side),
            sides=tuple(s.side for s in view.seats),
            partners=tuple(view.partners),
            announcers=tuple(view.announcers),
            pending_raise=pending,
            last_raise_side=view.last_raise_side,
            gespannt=tuple(view.tight_per_side),
            seat_scores=tuple(seat_scores.get(s, 0) for s in range(n)) if seat_scores else (),
            # Outside a match the seats carry no hand sizes (the scoring sides are listed only during one).
            hand_counts=tuple(s.hand_size for s in view.seats) if view.sides else (),
            taken_counts=tuple(s.taken for s in view.seats) if view.sides else (),
            signals=tuple((signal.seat, signal.name) for signal in view.signals),
        )


def _hand_signals(obs: Observation) -> tuple[tuple[int, str], ...]:
    """The signals shown to the seat since the current hand (attempt) started."""
    found: list[tuple[int, str]] = []
    for event in reversed(obs.events):
        if event.kind == EventKind.HAND_START:
            break
        if event.kind == EventKind.SIGNAL:
            found.append((event.seat, str(event_data(event, EventKind.SIGNAL)["name"])))
    found.reverse()
    return tuple(found)


@lru_cache(maxsize=64)
def _rules_from_json(text: str) -> Rules:
    # A table's rules do not change during a game: parse each JSON text once, not on every view.
    return Rules.from_json(text)


class Bot:
    """Base: a bot decides one action from a view. Subclasses override `decide`."""

    level = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: BotView) -> str | None:
        if not view.legal_actions:
            return None
        return self.decide(view)

    def decide(self, view: BotView) -> str:
        # Signals and giving up are rare table talk, not moves: a random bot prefers real moves.
        moves = [a for a in view.legal_actions if not a.startswith("signal ") and a not in (Verb.CONCEDE, Verb.FOLD)]
        if not moves or self.rng.random() < 0.05:
            moves = list(view.legal_actions)
        return self.rng.choice(moves)


LEVELS = ("random", "heuristic", "easy", "medium", "strong")


def make_bot(level: str, seed: int | None = None) -> Bot:
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; the levels are: {', '.join(LEVELS)}")
    if level == "heuristic":
        from .heuristic import HeuristicBot  # here, not at the top: heuristic.py builds on this module

        return HeuristicBot(seed)
    if level in ("easy", "medium", "strong"):
        from .strong import StrongBot  # sampling search (strong.py); the levels trade strength for time

        return StrongBot(seed, level)
    return Bot(seed)

