"""A person away longer than the grace period: a host bot stands in for the seat, the person takes it back.

Sans-I/O, whole games through `LocalTable` (host and seats in one process): seats go away at random
steps (in the middle of dealing steps too) and come back later; every game must finish, and the host's
record and every seat's record must verify. The network version (real processes, kill -9, `--grace`)
is in test_network_reconnect.py.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from watten_net.deal.stand_in import reference_v1
from watten_net.engine import Match, Rules, RuleViolation, canonical_deck
from watten_net.verify import verify_entries

from local_table import LocalTable

CASES = [(preset, players) for preset in ("bavarian", "south-tyrolean", "tyrolean") for players in (2, 3, 4, 6)]


def _absences(rng: random.Random, players: int, count: int) -> dict[int, tuple[int, int]]:
    away = {rng.randrange(0, 400): (rng.randrange(players), rng.randrange(1, 120)) for _ in range(count)}
    away[rng.randrange(2, 30)] = (rng.randrange(players), rng.randrange(5, 60))  # one early: every game has one
    return away


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "players"), CASES)
def test_games_with_people_away_finish_and_every_record_verifies(preset: str, players: int) -> None:
    kinds: set[str] = set()
    for seed in range(3):
        rng = random.Random(f"{preset}-{players}-{seed}")
        rules = Rules.preset(preset, players=players).with_flag("target", "9")
        table = LocalTable(rules, seed=seed)
        table.play(absences=_absences(rng, players, 6))
        while table.away:  # people still away at the end come back and get the record
            table.come_back(min(table.away))
        table.flush()
        assert table.host.finished
        report = verify_entries(table.host_entries())
        assert report.ok, report.errors
        for seat in range(players):
            report = verify_entries(table.seat_entries(seat))
            assert report.ok, (seat, report.errors)
        kinds |= {p.type for p in table.host.chain}
    assert "StandIn" in kinds


def test_a_seat_away_while_the_keys_are_fixed_is_waited_for_and_then_forfeits_nothing() -> None:
    """Level 1 version 2: before the first HandOpen nobody stands in (the game keys are waited for); after it a seat
    away is played by the reference stand-in, and the decks are the same as if it had stayed."""
    rules = Rules.preset("bavarian", players=4)
    table = LocalTable(rules, seed=7)
    table.deliver(table.host.start())
    while table.flush():  # the header signed, every key committed, the KeySet out: wait for its signatures
        if table.host.dealing.waiting()[0] == "key-sign":
            break
    assert table.host.dealing.waiting()[0] == "key-sign"
    table.go_away(2)
    assert table.host.chain[-1].type != "StandIn" and not table.host.absent
    while table.flush():
        pass
    step, waiting = table.host.dealing.waiting()
    assert step.startswith("key-") and waiting == (2,)  # waited for: nobody signs or reveals for it
    table.come_back(2)
    while table.flush():
        pass
    assert table.host.match is not None
    first_deck = table.host.verified_dealing.attempts[0].deck  # type: ignore[union-attr]
    table.go_away(2)
    assert table.host.chain[-1].type == "StandIn" and 2 in table.host.absent
    table.play()
    types = {p.type for p in table.host.chain}
    assert "AttemptAborted" not in types
    assert table.host.verified_dealing.attempts[0].deck == first_deck  # type: ignore[union-attr]
    assert verify_entries(table.host_entries()).ok
    table.come_back(2)
    for seat in range(4):
        assert verify_entries(table.seat_entries(seat)).ok, seat


def test_the_host_cannot_act_for_a_seat_whose_person_is_there() -> None:
    table = LocalTable(Rules.preset("bavarian", players=4), seed=1)
    table.deliver(table.host.start())
    while table.flush():
        pass
    seat = table.host.waiting_for()[1][0]
    action = table.host.match.legal_actions(seat)[0]  # type: ignore[union-attr]
    with pytest.raises(Exception) as err:
        table.host.act_for(seat, action)
    assert getattr(err.value, "reason", "") == "not-away"


def test_engine_forfeit_gives_the_hand_to_the_other_side() -> None:
    match = Match.new(Rules.preset("bavarian", players=4), first_dealer=0)
    after, events = match.forfeit(1)
    assert [e.kind for e in events][:2] == ["forfeit", "hand-end"]
    assert after.scores == (2, 0)  # seat 1 is on side 1: side 0 wins the hand's value
    assert after.hand_number == 1 and after.dealer == 1
    assert Match.replay(match.rules, after.history()) == after
    dealt = match.apply_deck(match_deck(match))
    with pytest.raises(RuleViolation) as err:
        dealt.forfeit(1)
    assert err.value.reason == "not-now"


def match_deck(match: Match) -> list[str]:
    return [c.text for c in canonical_deck(match.rules.deck)]


@pytest.mark.parametrize("raise_from", ["first-packet", "trump"])
@pytest.mark.parametrize(("preset", "players"), [("bavarian", 4), ("bavarian", 3), ("south-tyrolean", 2),
                                                 ("wurf", 6), ("austrian", 4)])
def test_reference_v1_picks_a_legal_move_in_every_phase_and_accepts_a_raise_in_the_announcement(
    preset: str, players: int, raise_from: str
) -> None:
    """docs/rules.md 6 lets a seat raise during the announcement: the frozen stand-in never raises, and when a raise
    holds the announcement it accepts, so it always has a legal move and stays a function of its view."""
    rules = dataclasses.replace(Rules.preset(preset, players), raise_from=raise_from)
    rng = random.Random(f"{preset}{players}{raise_from}")
    m = Match.new(rules, first_dealer=0)
    deck = list(canonical_deck(rules.deck))
    phases: set[str] = set()
    accepted_in_announcement = 0
    for _ in range(3000):
        if m.is_over:
            m = Match.new(rules, first_dealer=rng.randrange(players))
        if m.needs_deck:
            rng.shuffle(deck)
            m = m.apply_deck(deck)
            continue
        for seat in m.waiting_for:
            obs = m.observe(seat, history=False)
            move = reference_v1(obs)
            assert move in obs.legal_actions and move != "raise", (m.phase, move)
            assert reference_v1(obs) == move
            if m.raise_pending is not None:
                assert move == "accept"
                accepted_in_announcement += m.phase == "announce"
            phases.add(m.phase)
        seat = rng.choice(m.waiting_for)
        legal = m.legal_actions(seat)
        # A raise now and then by anyone who may, the stand-in's move otherwise (or a random one).
        raisers = [s for s in range(players) if "raise" in m.legal_actions(s)]
        if raisers and rng.random() < 0.1:
            m, _ = m.apply(rng.choice(raisers), "raise")
        elif rng.random() < 0.5:
            m, _ = m.apply(seat, reference_v1(m.observe(seat, history=False)))
        else:
            m, _ = m.apply(seat, rng.choice(legal))
    assert {"cut", "announce", "play"} <= phases
    assert (accepted_in_announcement > 0) == (raise_from == "first-packet")
