"""The typed event data (watten_net.engine.event_data) says what the engines really emit: every kind is an
EventKind, and each event's keys are those of its kind's TypedDict (the required ones all there, no others)."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest
from test_engine_public import _run

from watten_net.engine import Event, Match, Rules, canonical_deck
from watten_net.engine.event_data import DATA_TYPES
from watten_net.engine.events import EventKind

UNTYPED = {EventKind.OBLIGATION, EventKind.VIOLATION}  # their data is an Obligation's or a Violation's to_dict()
CASES = [("bavarian", 4), ("bavarian", 2), ("south-tyrolean", 4), ("tyrolean", 3), ("austrian", 6)]


def _check(events: Iterable[Event], seen: set[str]) -> None:
    for e in events:
        kind = EventKind(e.kind)  # a ValueError for a kind the enum does not name
        seen.add(kind)
        if kind in UNTYPED:
            continue
        declared = DATA_TYPES.get(kind)
        if declared is None:
            assert e.data == {}, f"{kind} carries data but has no TypedDict"
            continue
        keys = set(e.data)
        assert declared.__required_keys__ <= keys, (kind, keys)  # type: ignore[attr-defined]
        assert keys <= declared.__required_keys__ | declared.__optional_keys__, (kind, keys)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("preset", "players"), CASES, ids=[f"{p}-{n}p" for p, n in CASES])
def test_both_engines_emit_the_declared_data(preset: str, players: int) -> None:
    seen: set[str] = set()
    for seed in range(3):
        table = _run(Rules.preset(preset, players), seed=seed, hands=12)
        _check(table.m.events(), seen)
        _check(table.p.events(), seen)
    assert {EventKind.HAND_START, EventKind.DEAL, EventKind.PLAY, EventKind.TRICK, EventKind.HAND_END} <= seen


def test_blind_emits_the_declared_data() -> None:
    """Blind (Match only: no trustless deal) hides the announcement and shows it at the hand's end."""
    rules, rng, seen = Rules.preset("blind", 4), random.Random(5), set[str]()
    m = Match.new(rules)
    for _ in range(2000):
        if m.is_over:
            break
        if m.needs_deck:
            deck = list(canonical_deck(rules.deck))
            rng.shuffle(deck)
            m = m.apply_deck(deck)
            continue
        seat = m.waiting_for[0]
        m, _ = m.apply(seat, rng.choice(m.legal_actions(seat)))
    _check(m.events(), seen)
    assert {EventKind.ANNOUNCED, EventKind.ANNOUNCEMENT, EventKind.HAND_END} <= seen
