"""Partner signals (docs/rules.md 9) in the seat's view: the TableView carries the signals of the current hand that the
seat may see, filled on the host from the same visibility as the events, so a remote bot or the hint (built with
`BotView.from_table_view`) decides from exactly what a bot in the host sees (`BotView.from_observation`).

The network side (a signal sent by one `watten-join` seat reaches its partner and no opponent; whole matches with
signalling bots never leak one) is in tests/test_signals_network.py.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from client.i18n import LANGS, Words
from host.views import hand_signals, table_view
from watten_net.bots import BotView
from watten_net.engine import SIGNAL_NAMES, Match, Rules, canonical_deck
from watten_net.engine.errors import RuleViolation
from watten_net.engine.events import EventKind
from watten_net.engine.seating import seating_for
from watten_net.refusal import Code, Reason

from view_stubs import StubTable


def _signalling_steps(rules: Rules, seed: int, steps: int) -> Any:
    """Random legal play where every seat that may signal does so often, out of turn too (a signal is a side
    action): yields the match after every step."""
    rng = random.Random(seed)
    deck = list(canonical_deck(rules.deck))
    m = Match.new(rules)
    for _ in range(steps):
        if m.is_over:
            m = Match.new(rules)
        if m.needs_deck:
            rng.shuffle(deck)
            m = m.apply_deck(deck)
            continue
        talkers = [s for s in range(rules.players) if any(a.startswith("signal ") for a in m.legal_actions(s))]
        if talkers and rng.random() < 0.3:
            seat = rng.choice(talkers)
            m, _ = m.apply(seat, rng.choice([a for a in m.legal_actions(seat) if a.startswith("signal ")]))
        else:
            seat = m.waiting_for[0]
            legal = m.legal_actions(seat)
            moves = [a for a in legal if not a.startswith("signal ")] or legal
            m, _ = m.apply(seat, rng.choice(moves))
        yield m


CASES = [("austrian", 4), ("bavarian", 4), ("tyrolean", 3), ("south-tyrolean", 6), ("bavarian", 2), ("blind", 4)]


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_a_remote_view_holds_the_same_signals_as_the_hosts_own_bots_see(preset: str, players: int) -> None:
    """At every step of hands full of signals, for every seat: the BotView from the TableView the host sends equals
    the BotView from the engine's observation, signals included; and each signal in it is the seat's own or a
    partner's of this hand (docs/rules.md 9), none at all in Blind or without a partner."""
    rules = Rules.preset(preset, players)
    audience = seating_for(rules).signal_audience_of
    seen_from_partner = 0
    for m in _signalling_steps(rules, seed=players, steps=600):
        for seat in range(players):
            local = BotView.from_observation(m.observe(seat))
            remote = BotView.from_table_view(table_view(StubTable(m), seat))  # type: ignore[arg-type]
            assert remote == local, (seat, remote.signals, local.signals)
            for sender, name in remote.signals:
                assert seat in audience[m.dealer][sender] and name in SIGNAL_NAMES
                seen_from_partner += sender != seat
    if rules.signals and players != 2:
        assert seen_from_partner > 20, "the hands had partner signals to compare"
    else:
        assert seen_from_partner == 0


def test_the_view_keeps_only_the_current_hands_signals() -> None:
    """A new hand (or deal attempt) starts with no signals: the view reads back to its `hand-start` only."""
    rules = Rules.preset("bavarian", 4)
    previous: tuple[int, int] | None = None
    emptied = 0
    for m in _signalling_steps(rules, seed=9, steps=900):
        hand = (m.match_number, m.hand_number * 100 + m.attempt)
        signals = [(s.seat, s.name) for s in hand_signals(m, 0)]
        starts = [i for i, e in enumerate(m.events()) if e.kind == EventKind.HAND_START]
        this_hand = m.events()[starts[-1]:] if starts else []
        assert signals == [(e.seat, e.data["name"]) for e in this_hand if e.kind == "signal" and e.visible_to(0)]
        if previous is not None and hand != previous:
            emptied += 1
            assert signals == [], "a fresh hand carries no signal of the last one"
        previous = hand
    assert emptied >= 5


def test_a_spectator_sees_no_signal() -> None:
    rules = Rules.preset("bavarian", 4)
    sent = 0
    for m in _signalling_steps(rules, seed=3, steps=200):
        sent += sum(1 for s in range(4) for _ in hand_signals(m, s))
        assert not table_view(StubTable(m), -1).signals  # type: ignore[arg-type]
    assert sent


@pytest.mark.parametrize("bogus", ["bogus", "", "trump", "max belli"])
def test_an_unknown_signal_is_refused_with_the_list_of_signals(bogus: str) -> None:
    m = Match.new(Rules.preset("bavarian", 4)).apply_deck(canonical_deck(32))
    m, _ = m.apply(m.cutter, "cut 10")
    m, _ = m.apply(m.cutter, "keep")
    assert "signal max" in m.legal_actions(2)
    with pytest.raises(RuleViolation) as refused:
        m.apply(2, f"signal {bogus}".rstrip())
    assert refused.value.reason == Reason.UNKNOWN_SIGNAL and refused.value.code == Code.INVALID
    assert refused.value.message.endswith("signals: " + " ".join(SIGNAL_NAMES))


@pytest.mark.parametrize("lang", LANGS)
def test_the_clients_words_for_an_unknown_signal_list_the_signals(lang: str) -> None:
    said = Words(lang).reason(Reason.UNKNOWN_SIGNAL, "the host's sentence")
    assert " ".join(SIGNAL_NAMES) in said
    assert said != Words(lang).reason(Reason.MALFORMED, "")


@pytest.mark.slow
def test_a_trustless_tables_views_carry_the_same_signals_as_its_events() -> None:
    """deal=trustless: the host's view is built from the PublicMatch (it knows no card); its signals are, at every
    delivery of a whole game of random actions, exactly the hand's `signal` events each seat is shown."""
    import dataclasses

    from local_table import LocalTable

    class Checking(LocalTable):
        compared = 0
        shown = 0

        def deliver(self, posted: list[Any]) -> None:
            super().deliver(posted)
            public = self.host.public
            if public is None:
                return
            for seat in range(self.rules.players):
                events = public.observe(seat).events
                starts = [i for i, e in enumerate(events) if e.kind == EventKind.HAND_START]
                hand = events[starts[-1]:] if starts else ()
                expected = [(e.seat, e.data["name"]) for e in hand if e.kind == EventKind.SIGNAL]
                assert [(s.seat, s.name) for s in hand_signals(public, seat)] == expected
                self.compared += 1
                self.shown += len(expected)

    table = Checking(dataclasses.replace(Rules.preset("bavarian", 4), target=5), seed=3, deal="trustless")
    table.play()
    assert table.host.finished and table.compared > 500 and table.shown > 100
