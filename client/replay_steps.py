"""A recorded match, step by step, for `watten-replay`: the engine's own replay of the match's inputs.

Pure: `steps_of(match)` rebuilds the match from a fresh engine with the inputs it was played with (`history()`, the
decks of a Level 1 match recomputed from the seeds by `watten-verify`'s path, the public inputs of a trustless one)
and keeps the engine's state after every action, with the events that action made. Decks and sealed decks are no
steps of their own: they come with the action that follows them. A step is a moment the table showed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from watten_net.engine import Match
from watten_net.engine.events import Event, EventKind
from watten_net.engine.public import PublicMatch

SEALED_MARK = "▒▒"  # a trustless card nobody opened: it stays sealed in the record too


@dataclass(frozen=True)
class Step:
    """The match after one action: the engine's state, the events the action made, who did what."""

    match: Any  # Match (Level 1: every card known) or PublicMatch (trustless: opened cards only)
    events: tuple[Event, ...]
    seat: int  # who acted (-1: the match as it stood before the first action)
    action: str
    hand: int  # the hand the action was made in (a hand's last action leaves the engine at the next hand)

    def ends_trick(self) -> bool:
        return any(e.kind == EventKind.TRICK for e in self.events)

    def starts_hand(self) -> bool:
        return any(e.kind == EventKind.HAND_START for e in self.events)


def steps_of(match: Match | PublicMatch) -> list[Step]:
    """Every moment of `match` from its start: the first step is the table before any action."""
    current: Any = type(match).new(match.rules, match.first_dealer)
    pending: list[Event] = list(current.events())
    steps: list[Step] = []
    for item in match.history():
        who, what, *detail = item
        if who in ("deck", "sealed"):
            current = current.apply_deck(what) if who == "deck" else current.apply_sealed_deck(what)
            continue
        if not steps:
            steps.append(Step(current, tuple(pending), -1, "", current.hand_number))
        hand = current.hand_number
        current, events = _apply(current, int(who), str(what), detail)
        steps.append(Step(current, tuple(events), int(who), str(what), hand))
    if not steps:
        steps.append(Step(current, tuple(pending), -1, "", current.hand_number))
    return steps


def _apply(match: Any, seat: int, action: str, detail: list[Any]) -> tuple[Any, list[Event]]:
    """One input, the way the engine's own `replay` applies it."""
    if action == "forfeit":
        result: tuple[Any, list[Event]] = match.forfeit(seat)
        return result
    if action == "no-opening":
        result = match.no_opening(seat)
        return result
    if isinstance(match, PublicMatch):
        if action in ("maschine", "open"):
            return match.apply(seat, action, openings=dict(detail[0]))
        return match.apply(seat, action, position=detail[0] if detail else None)
    result = match.apply(seat, action)
    return result


def cards_of(match: Any, seat: int) -> list[str]:
    """The cards `seat` holds now as far as the record reveals them: a Level 1 match knows every one; a trustless
    one knows the cards opened from the seat's positions, the rest are sealed (`SEALED_MARK`)."""
    if isinstance(match, PublicMatch):
        return [match.opened[p].text if p in match.opened else SEALED_MARK for p in match.hands[seat]]
    return [card.text for card in match.hands[seat]]


def next_index(steps: list[Step], at: int, forward: bool, test: str) -> int:
    """The step the key goes to: the next (or previous) one that ends a trick (`test` "trick") or starts a hand
    ("hand"); the last (or first) step when there is none."""
    def hits(i: int) -> bool:
        return steps[i].ends_trick() if test == "trick" else steps[i].starts_hand()

    order = range(at + 1, len(steps)) if forward else range(at - 1, -1, -1)
    return next((i for i in order if hits(i)), len(steps) - 1 if forward else 0)
