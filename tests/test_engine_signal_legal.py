"""A signal keeps the legal actions the engine already worked out (core._legal_after_signal): every list it
keeps must equal the list a freshly rebuilt match (same inputs, nothing cached) works out, for every seat."""

from __future__ import annotations

import random

import pytest

from watten_net.engine import Match, Rules, canonical_deck

# two players have no partner to signal to
PRESETS = [("bavarian", 4), ("tyrolean", 3), ("austrian", 6), ("south-tyrolean", 4), ("wurf", 4)]


@pytest.mark.parametrize(("preset", "players"), PRESETS)
def test_legal_actions_after_signals_equal_a_fresh_match(preset: str, players: int) -> None:
    rules = Rules.preset(preset, players)
    rng = random.Random(f"{preset}:{players}")
    deck = list(canonical_deck(rules.deck))
    match = Match.new(rules)
    checked = 0
    for _ in range(3000):  # bounded: a match or two of random actions, signals preferred
        if match.is_over or checked >= 60:
            break
        if match.needs_deck:
            rng.shuffle(deck)
            match = match.apply_deck(deck)
            continue
        for seat in range(players):  # fill the cache for every seat, as a host asking each seat would
            match.legal_actions(seat)
        seat = match.waiting_for[0]
        legal = match.legal_actions(seat)
        signals = [action for action in legal if action.startswith("signal ")]
        action = rng.choice(signals) if signals and rng.random() < 0.6 else rng.choice(legal)
        match, _ = match.apply(seat, action)
        if action.startswith("signal "):
            fresh = Match.replay(rules, match.history())
            for each in range(players):
                assert match.legal_actions(each) == fresh.legal_actions(each), (action, each)
            checked += 1
    assert checked >= 10  # the playout did signal, so the kept lists were compared
