"""Invariant playouts: random matches over every preset and player count, checked at every step.

Seeded loops (reproducible, no wall clock): each test plays whole matches with every action drawn
uniformly from the legal ones of a seat the game waits for, plus random side actions (raises and
signals of other seats), and checks docs/rules.md's invariants after every step.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from watten_net.engine import SIGNAL_NAMES, Card, Match, Rules, RuleViolation, canonical_deck

PRESET_COUNTS = [
    (name, players)
    for name in Rules.PRESET_NAMES
    for players in (2, 3, 4, 6)
]
HANDS_PER_CASE = 70  # 8 presets x 4 player counts x 70 = 2,240 random hands in CI


def _shuffled(rules: Rules, rng: random.Random) -> list[Card]:
    deck = list(canonical_deck(rules.deck))
    rng.shuffle(deck)
    return deck


def _cards_in_play(m: Match) -> Counter[Card]:
    counted: Counter[Card] = Counter()
    for hand in m.hands:
        counted.update(hand)
    for _, cards, _ in m.tricks:
        counted.update(cards)
    counted.update(m.trick)
    counted.update(m.stack)
    counted.update(m.aside)
    counted.update(m.lifted)
    counted.update(m.rest)
    return counted


def _illegal_candidates(m: Match, seat: int, rng: random.Random) -> list[str]:
    pool = [
        "play " + rng.choice(canonical_deck(36)).text, "raise", "accept", "fold", "concede", "cut 3", "cut 40",
        "take", "keep", "schlag 7", "trump H", "swap?", "swap yes", "bessere?", "bessere no", "schadet?",
        "signal " + rng.choice(SIGNAL_NAMES), "dance", "", "play", "play XX",
    ]
    legal = set(m.legal_actions(seat))
    return [a for a in pool if a not in legal]


def _check_state(m: Match, rules: Rules) -> None:
    n = rules.players
    # Each card exactly once, once the deck is in.
    if m.deck is not None:
        counted = _cards_in_play(m)
        assert all(count == 1 for count in counted.values()), counted
        assert set(counted) == set(canonical_deck(rules.deck))
    # Hand sizes: before the first card everyone holds the dealt cards; then one fewer per card played.
    if m.phase == "play":
        played: Counter[int] = Counter()
        for leader, cards, _ in m.tricks:
            for i in range(len(cards)):
                played[(leader + i) % n] += 1
        for seat in m.trick_seats:
            played[seat] += 1
        for seat in range(n):
            assert len(m.hands[seat]) == rules.hand_size - played[seat], (seat, m.hands[seat])
    # Only the right seats can act: outside `waiting_for` a seat has only side actions.
    waiting = set(m.waiting_for)
    side_actions = {"raise", "concede"} | {"signal " + s for s in SIGNAL_NAMES}
    for seat in range(n):
        actions = m.legal_actions(seat)
        if seat not in waiting:
            assert set(actions) <= side_actions, (seat, actions)
    # Something to do until the match ends.
    if not m.is_over and not m.needs_deck:
        assert any(m.legal_actions(s) for s in waiting)


def _check_observation(m: Match, rules: Rules) -> None:
    for seat in range(rules.players):
        obs = m.observe(seat)
        assert obs.hand == m.hands[seat]
        assert set(obs.legal_actions) == set(m.legal_actions(seat))
        starts = [i for i, e in enumerate(obs.events) if e.kind == "hand-start"]
        this_hand = obs.events[starts[-1]:] if starts else obs.events
        own_seen = {e.data["card"] for e in this_hand if e.kind in ("see", "took") and e.seat == seat}
        public_cards = set()
        for e in this_hand:
            if e.kind in ("play", "maschine"):
                public_cards.update([e.data["card"]] if e.kind == "play" else e.data["cards"])
        for other in range(rules.players):
            if other == seat:
                continue
            for card in m.hands[other]:
                text = card.text
                # Another seat's hidden card may be known only from what this seat saw at the cut.
                if text in own_seen or text in public_cards:
                    continue
                for e in this_hand:
                    assert text not in e.data.get("cards", ()), (seat, other, e)
                    assert e.data.get("card") != text, (seat, other, e)
        if rules.blind and seat not in m.announcers and m.phase in ("announce", "play"):
            assert obs.schlag is None and obs.trump is None
            assert not any(e.kind in ("schlag", "trump") for e in this_hand)


SEEN_KINDS: Counter[str] = Counter()


def _playout(rules: Rules, seed: int, hands: int, *, deep: bool) -> int:
    rng = random.Random(seed)
    m = Match.new(rules, first_dealer=rng.randrange(rules.players))
    played_hands = 0
    steps = 0
    while played_hands < hands:
        steps += 1
        assert steps < 100_000, "a playout did not end"
        if m.is_over:
            assert max(m.scores) >= rules.target
            m = Match.new(rules, first_dealer=rng.randrange(rules.players)) if m.series_over else m.next_match()
            continue
        if m.needs_deck:
            m = m.apply_deck(_shuffled(rules, rng))
            continue
        before = m
        # Mostly the seat the game waits for; sometimes any seat with a side action.
        seats = list(m.waiting_for)
        if rng.random() < 0.15:
            seats = [s for s in range(rules.players) if m.legal_actions(s)]
        seat = rng.choice(seats)
        actions = m.legal_actions(seat)
        if rng.random() < 0.1:
            for bad in _illegal_candidates(m, seat, rng)[:3]:
                with pytest.raises(RuleViolation) as refused:
                    m.apply(seat, bad)
                assert refused.value.reason
                assert m == before
        action = rng.choice(actions)
        value_before = m.value
        if action in ("raise", "accept", "fold") and m.phase == "announce":
            SEEN_KINDS[action + "-in-announcement"] += 1  # docs/rules.md 6: raising from the first packet on
        m, events = m.apply(seat, action)
        assert before.legal_actions(seat) == actions, "apply changed the old match"
        for old, new in zip(before.scores, m.scores, strict=True):
            assert new >= old, "scores only rise"
        for e in events:
            SEEN_KINDS[e.kind] += 1
            if e.kind == "hand-end":
                played_hands += 1
                reason = e.data["reason"]
                if reason in ("tricks", "fold"):
                    expected = value_before
                    if rules.tight == "base-two" and before.gespannt[1 - e.data["side"]]:
                        expected = min(expected, 2)
                    assert e.data["points"] == expected, (reason, e.data, value_before)
                elif reason == "concede":
                    assert e.data["points"] == 2
                elif reason == "maschine":
                    expected = rules.maschine_points
                    if rules.tight == "base-two" and before.gespannt[1 - e.data["side"]]:
                        expected = min(expected, 2)
                    assert e.data["points"] == expected
            if e.kind == "match-end":
                assert max(m.scores) >= rules.target
                assert max(before.scores) < rules.target
                # docs/rules.md 7: exactly one side wins (with 3 players: seats of one side of the deciding hand),
                # and every other score slot gets its Bummerl.
                winners = e.data["winners"]
                assert winners and all(m.scores[w] >= rules.target for w in winners)
                if rules.players == 3:
                    assert len({before.hand_sides[w] for w in winners}) == 1, e.data
                else:
                    assert len(winners) == 1, e.data
                for slot, marks in enumerate(m.bummerl):
                    assert marks == before.bummerl[slot] + (0 if slot in winners else 1 if not (
                        rules.schneider and m.scores[slot] == 0) else 2)
        _check_state(m, rules)
        if deep:
            _check_observation(m, rules)
    return played_hands


@pytest.mark.parametrize(("preset", "players"), PRESET_COUNTS, ids=[f"{p}-{n}p" for p, n in PRESET_COUNTS])
def test_random_hands_keep_every_invariant(preset: str, players: int) -> None:
    rules = Rules.preset(preset, players)
    assert _playout(rules, seed=players * 1000 + len(preset), hands=HANDS_PER_CASE, deep=False) >= HANDS_PER_CASE


@pytest.mark.parametrize(("preset", "players"), PRESET_COUNTS, ids=[f"{p}-{n}p" for p, n in PRESET_COUNTS])
def test_observations_never_leak(preset: str, players: int) -> None:
    rules = Rules.preset(preset, players)
    _playout(rules, seed=7 + players, hands=6, deep=True)


@pytest.mark.parametrize(
    "flags",
    [
        {"tight": "base-two"},
        {"schadet": True},
        {"follow_released": False},
        {"bessere": "redeal-penalty"},
        {"announce_after": 5},
        {"raise_cap": "none", "raise_step": 2},
        {"schneider": True, "target": 5, "bummerl_limit": 2},
        {"raise_from": "trump"},
    ],
    ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()),
)
def test_flag_variants_keep_every_invariant(flags: dict[str, object]) -> None:
    rules = dataclasses.replace(Rules.preset("bavarian"), **flags)
    _playout(rules, seed=99, hands=60, deep=False)
    _playout(rules, seed=100, hands=4, deep=True)


@pytest.mark.parametrize(("preset", "players"), [("bavarian", 4), ("south-tyrolean", 2), ("tyrolean", 3),
                                                 ("blind", 6), ("wurf", 4), ("austrian", 2)])
def test_replay_rebuilds_the_same_match(preset: str, players: int) -> None:
    rules = Rules.preset(preset, players)
    rng = random.Random(5)
    m = Match.new(rules, first_dealer=2 % players, start_scores=None)
    while not m.is_over:
        if m.needs_deck:
            m = m.apply_deck(_shuffled(rules, rng))
            continue
        seat = m.waiting_for[0]
        m, _ = m.apply(seat, rng.choice(m.legal_actions(seat)))
    again = Match.replay(rules, m.history(), first_dealer=2 % players)
    assert again == m
    assert again.events() == m.events()
    assert again.scores == m.scores and again.winners == m.winners


def test_the_playouts_reach_every_special_case() -> None:
    """The random walks above must actually exercise the rare rules, or their invariants prove little."""
    for preset, players in PRESET_COUNTS:
        _playout(Rules.preset(preset, players), seed=players, hands=25, deep=False)
    for flags in ({"schadet": True}, {"bessere": "redeal-penalty"}):
        _playout(dataclasses.replace(Rules.preset("bavarian"), **flags), seed=3, hands=200, deep=False)
    wanted = {
        "take", "took", "see", "keep", "swap?", "swap", "bessere?", "bessere", "aside", "redeal", "maschine",
        "raise", "accept", "fold", "concede", "schadet?", "schadet", "signal", "bluff-penalty", "announcement",
        "trick", "hand-end", "match-end", "announced",
        "raise-in-announcement", "accept-in-announcement", "fold-in-announcement",
    }
    missing = {kind for kind in wanted if SEEN_KINDS[kind] == 0}
    assert not missing, f"never reached: {sorted(missing)}"
