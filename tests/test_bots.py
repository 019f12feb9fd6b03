"""Bots: the `random` and `heuristic` levels decide from their seat's view alone, legally and quickly.

Seeded loops drive real matches (random decks) over every preset and player count; at every decision the
bot gets `BotView.from_observation(match.observe(seat))` and must answer with one of its legal actions.
Hand-made views check the heuristic's announcements and card play against the rules texts' advice.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from watten_net.bots import LEVELS, Bot, BotView, make_bot
from watten_net.bots.heuristic import HeuristicBot
from watten_net.engine import Match, Rules, canonical_deck, schlag_choices

from botdrive import play_hands
from view_stubs import StubTable

DECISION_LIMIT = 0.5  # seconds: the bound for one decision
HANDS_PER_CASE = 10
_BAVARIAN = Rules.preset("bavarian")
CASES = [(name, players) for name in Rules.PRESET_NAMES for players in (2, 3, 4, 6)]
# Flags no preset turns on, so that their decisions (schadet answers, base-two accepts, penalty Bessere) occur too.
VARIANTS = {
    "schadet": dataclasses.replace(_BAVARIAN, schadet=True),
    "base-two": dataclasses.replace(_BAVARIAN, tight="base-two", target=11),
    "redeal-penalty": dataclasses.replace(_BAVARIAN, bessere="redeal-penalty", raise_cap="none"),
    "free-play": dataclasses.replace(Rules.preset("tyrolean", 6), follow="none"),
}


def _drive(
    rules: Rules, seed: int, hands: int, *, mix: float = 0.25, prefer: str = ""
) -> tuple[list[tuple[int, str]], float, list[HeuristicBot]]:
    """Heuristic bots in every seat (see botdrive.play_hands): their choices, the slowest decision, the bots."""
    heuristic = [HeuristicBot(seed * 10 + s) for s in range(rules.players)]
    choices, slowest = play_hands(rules, seed, hands, heuristic, mix=mix, prefer=prefer)
    return choices, slowest, heuristic


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_bots_choose_legal_actions_quickly(preset: str, players: int) -> None:
    _, slowest, bots = _drive(Rules.preset(preset, players), seed=players, hands=HANDS_PER_CASE)
    assert all(bot.fallbacks == 0 for bot in bots), "the heuristic proposed an illegal action"
    assert slowest < DECISION_LIMIT, f"slowest decision {slowest:.3f} s"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_bots_legal_with_other_flags(variant: str) -> None:
    _, slowest, bots = _drive(VARIANTS[variant], seed=3, hands=3 * HANDS_PER_CASE, mix=0.4)
    assert all(bot.fallbacks == 0 for bot in bots)
    assert slowest < DECISION_LIMIT


def test_heuristic_answers_schadet_in_play() -> None:
    # No preset asks `schadet?`: ask it whenever the forehand may, so that partners must answer.
    choices, _, bots = _drive(VARIANTS["schadet"], seed=4, hands=40, prefer="schadet?")
    assert all(bot.fallbacks == 0 for bot in bots)
    assert any(action.startswith("schadet ") for _, action in choices)


def test_heuristic_plays_whole_matches_on_its_own() -> None:
    # No random moves mixed in: the heuristic alone steers every decision to the end of a match.
    for preset, players in (("bavarian", 4), ("tyrolean", 3), ("south-tyrolean", 6), ("blind", 4), ("wurf", 2)):
        choices, slowest, bots = _drive(Rules.preset(preset, players), seed=11, hands=25, mix=0.0)
        assert all(bot.fallbacks == 0 for bot in bots)
        assert slowest < DECISION_LIMIT
        assert any(action.startswith("play ") for _, action in choices)


def test_same_seed_same_choices() -> None:
    rules = Rules.preset("bavarian", 4)
    first, _, _ = _drive(rules, seed=21, hands=8)
    second, _, _ = _drive(rules, seed=21, hands=8)
    assert first == second


def test_levels() -> None:
    assert LEVELS[:2] == ("random", "heuristic") and set(LEVELS) >= {"easy", "medium", "strong"}
    assert isinstance(make_bot("heuristic", 1), HeuristicBot)
    assert type(make_bot("random", 1)) is Bot
    with pytest.raises(ValueError, match="levels are"):
        make_bot("grandmaster")


# ---------------------------------------------------------------------------------------------- views
@pytest.mark.parametrize(("preset", "players"), [("bavarian", 4), ("tyrolean", 3), ("blind", 6), ("wurf", 2)])
def test_table_view_and_observation_give_the_same_view(preset: str, players: int) -> None:
    """A remote bot (TableView from the host's own projection) sees exactly what a bot in the host sees."""
    from host.views import table_view

    rules = Rules.preset(preset, players)
    rng = random.Random(5)
    m = Match.new(rules)
    deck = list(canonical_deck(rules.deck))
    compared = 0
    while compared < 400:
        if m.is_over:
            m = Match.new(rules)
        if m.needs_deck:
            rng.shuffle(deck)
            m = m.apply_deck(deck)
            continue
        for seat in range(players):
            local = BotView.from_observation(m.observe(seat))
            remote = BotView.from_table_view(table_view(StubTable(m), seat))  # type: ignore[arg-type]
            assert remote == local, seat
            compared += 1
        seat = m.waiting_for[0]
        legal = m.legal_actions(seat)
        m, _ = m.apply(seat, rng.choice(legal))


def test_view_shows_the_schlecken_card_to_its_seat_only() -> None:
    rules = Rules.preset("bavarian", 4)
    m = Match.new(rules).apply_deck(canonical_deck(32))
    m, _ = m.apply(m.cutter, "cut 10")
    assert m.phase == "schlecken"
    view = BotView.from_observation(m.observe(m.cutter))
    assert view.extra == {"schlecken_card": canonical_deck(32)[9].text}
    assert all(BotView.from_observation(m.observe(s)).extra == {} for s in range(4) if s != m.cutter)


def test_view_fields_during_play() -> None:
    rules = Rules.preset("bavarian", 4)
    m = Match.new(rules, start_scores=(4, 13)).apply_deck(canonical_deck(32))
    for seat, action in [(m.cutter, "cut 10"), (m.cutter, "keep"), (1, "schlag O"), (0, "trump L")]:
        m, _ = m.apply(seat, action)
    view = BotView.from_observation(m.observe(2))
    assert view.rules == rules and view.schlag == "O" and view.trump == "L" and view.phase == "play"
    assert view.sides == (0, 1, 0, 1) and view.partners == (0,) and view.side == 0
    assert view.seat_scores == (4, 13, 4, 13) and view.gespannt == (False, True) and view.stake == 3
    assert view.hand_counts == (5, 5, 5, 5) and view.tricks == () and view.tricks_won == (0, 0)


# ---------------------------------------------------------------------------------------------- hand-made decisions
def _view(rules: Rules, seat: int, hand: str, legal: list[str], **fields: Any) -> BotView:
    n = rules.players
    defaults: dict[str, Any] = {
        "rules": rules, "sides": tuple(s % 2 for s in range(n)),
        "partners": tuple(s for s in range(n) if s % 2 == seat % 2 and s != seat),
        "tricks_won": (0, 0), "gespannt": (False, False), "seat_scores": (0,) * n,
        "hand_counts": (len(hand.split()),) * n,
    }
    defaults.update(fields)
    return BotView(seat=seat, legal_actions=tuple(legal), hand=tuple(hand.split()), **defaults)


def _schlag_view(rules: Rules, hand: str) -> BotView:
    legal = [f"schlag {r}" for r in schlag_choices(rules)]
    if rules.schlagwechsel:
        legal.append("swap?")
    if rules.bessere:
        legal.append("bessere?")
    return _view(rules, 1, hand, legal, phase="announce", announce_step="schlag")


def _trump_view(rules: Rules, schlag: str, hand: str) -> BotView:
    legal = [f"trump {s}" for s in "ELHS"] + (["bessere?"] if rules.bessere else [])
    return _view(rules, 0, hand, legal, phase="announce", announce_step="trump", schlag=schlag)


def _play_view(rules: Rules, seat: int, hand: str, trick: list[tuple[int, str]], **fields: Any) -> BotView:
    return _view(rules, seat, hand, [f"play {c}" for c in hand.split()], phase="play", schlag="O", trump="L",
                 current_trick=tuple(trick), **fields)


@pytest.mark.parametrize(("hand", "expected"), [
    ("E8 L8 HA", "schlag 8"),  # the rank held twice
    ("HK LK E9 L9 SA", "schlag 9"),  # the Max stays a Kritischer with Schlag K: HK and LK are no pair
    ("S7 E7 L7 H8 L8", "schlag 8"),  # with Schlag 7 only L7 would be a Schlag card
    ("EU LU HU E9 L9", "schlag U"),  # three beat two
])
def test_heuristic_names_the_rank_it_holds_most(hand: str, expected: str) -> None:
    assert HeuristicBot(1).choose(_schlag_view(_BAVARIAN, hand)) == expected


def test_heuristic_names_the_weli_as_schlag() -> None:
    # South Tyrolean: the Weli named as '6' is the Hauptschlag whatever the trump.
    rules = Rules.preset("south-tyrolean", 4)
    assert HeuristicBot(1).choose(_schlag_view(rules, "S6 EA LK")) == "schlag 6"


def test_heuristic_three_players_names_schlag_for_its_best_trump() -> None:
    rules = Rules.preset("bavarian", 3)
    view = _view(rules, 1, "E9 EA EK L8 H10", [f"schlag {r}" for r in schlag_choices(rules)], phase="announce")
    assert HeuristicBot(1).choose(view) in ("schlag 9", "schlag A", "schlag K")


@pytest.mark.parametrize(("schlag", "hand", "expected"), [
    ("O", "EA E9 E8 LK H10", "trump E"),  # the suit held most
    ("9", "E9 EA LA L8", "trump E"),  # two each, but E makes E9 the Hauptschlag
    ("9", "E9 EA L8 LA LU", "trump L"),  # three L beat two E with the Hauptschlag
    ("K", "HK LA L7 EA", "trump L"),  # the Max is no Herz trump
])
def test_heuristic_names_the_suit_it_holds_most(schlag: str, hand: str, expected: str) -> None:
    assert HeuristicBot(1).choose(_trump_view(_BAVARIAN, schlag, hand)) == expected


def test_heuristic_answers_swap_and_bessere() -> None:
    bot = HeuristicBot(1)
    swap = ["swap yes", "swap no"]
    assert bot.choose(_view(_BAVARIAN, 0, "E8 L8 H9", swap, phase="announce")) == "swap yes"  # a pair to name
    assert bot.choose(_view(_BAVARIAN, 0, "E8 EA H9", swap, phase="announce")) == "swap no"
    bessere = ["bessere yes", "bessere no"]
    assert bot.choose(_view(_BAVARIAN, 0, "E8 L9 HU", bessere, phase="announce")) == "bessere yes"  # nothing
    assert bot.choose(_view(_BAVARIAN, 0, "HK L9 HU", bessere, phase="announce")) == "bessere no"


def test_heuristic_throws_low_when_the_partner_wins() -> None:
    # Schlag O, trump L: the partner (seat 1 for seat 3) holds the trick with the Hauptschlag.
    view = _play_view(_BAVARIAN, 3, "HK EA H8 LA", [(0, "L9"), (1, "LO"), (2, "E10")])
    assert HeuristicBot(1).choose(view) == "play H8"


def test_heuristic_wins_cheaply() -> None:
    # The opponents hold the trick with the trump Ace: a Schlag card beats it and is cheaper than the Max.
    view = _play_view(_BAVARIAN, 3, "HK EO L7 S9", [(0, "LA"), (1, "H8"), (2, "LK")])
    assert HeuristicBot(1).choose(view) == "play EO"
    # Nothing wins: the lowest card.
    view = _play_view(_BAVARIAN, 3, "E9 H10 SA", [(0, "HK"), (1, "H8"), (2, "LK")])
    assert HeuristicBot(1).choose(view) == "play E9"


def test_heuristic_leads_a_sure_winner_else_low() -> None:
    bot = HeuristicBot(1)
    assert bot.choose(_play_view(_BAVARIAN, 1, "E8 HK LA", [])) == "play HK"  # the Max surely wins
    assert bot.choose(_play_view(_BAVARIAN, 1, "LO E8 HA", [])) == "play E8"  # the Kritische are out there
    # Once the Kritische have fallen, the Hauptschlag is the top card.
    done = ((1, ("HK", "S7", "E7", "E9"), 1),)
    assert bot.choose(_play_view(_BAVARIAN, 1, "LO E8 HA", [], tricks=done)) == "play LO"


def test_heuristic_plays_plainly_when_the_announcement_is_hidden() -> None:
    # Blind: a seat that is no announcer sees neither Schlag nor trump, so only the led suit counts.
    rules = Rules.preset("blind", 4)
    view = _view(rules, 3, "EA L7 H9", ["play EA", "play L7", "play H9"], phase="play", current_trick=((2, "EK"),))
    assert HeuristicBot(1).choose(view) == "play EA"
    lead = _view(rules, 3, "EA L7 H9", ["play EA", "play L7", "play H9"], phase="play")
    assert HeuristicBot(1).choose(lead) == "play L7"


def test_heuristic_schlecken_takes_kritische_and_bluffs_rarely() -> None:
    take = _view(_BAVARIAN, 3, "", ["take", "keep"], phase="schlecken", extra={"schlecken_card": "S7"})
    assert HeuristicBot(1).choose(take) == "take"
    bluff = dataclasses.replace(take, extra={"schlecken_card": "L8"})
    taken = sum(HeuristicBot(seed).choose(bluff) == "take" for seed in range(300))
    assert 0 < taken < 30


def test_heuristic_raises_strong_and_answers_by_strength() -> None:
    bot = HeuristicBot(1)
    legal = ["play HK", "play S7", "play LA", "play LK", "play E8", "raise"]
    strong = _view(_BAVARIAN, 1, "HK S7 LA LK E8", legal, phase="play", schlag="O", trump="L")
    assert bot.choose(strong) == "raise"  # Max + Belli + trump Ace: "a raise is almost always correct"
    weak_legal = ["play E8", "play H9", "play S10", "play HU", "play EU", "raise"]
    weak = _view(_BAVARIAN, 1, "E8 H9 S10 HU EU", weak_legal, phase="play", schlag="O", trump="L")
    assert bot.choose(weak) != "raise"
    answer = ["accept", "fold"]
    assert bot.choose(dataclasses.replace(strong, legal_actions=tuple(answer), pending_raise=(3, 0))) == "accept"
    high = dataclasses.replace(weak, legal_actions=tuple(answer), pending_raise=(6, 0), stake=5)
    assert bot.choose(high) == "fold"
    # ... unless folding hands the other side the match anyway.
    last = dataclasses.replace(high, seat_scores=(12, 0, 12, 0))
    assert bot.choose(last) == "accept"
    # Base-two: a gespannt side gives only 2 whether it folds or loses, so it plays on.
    base_two = dataclasses.replace(high, rules=VARIANTS["base-two"], gespannt=(False, True), seat_scores=(3, 9, 3, 9))
    assert bot.choose(base_two) == "accept"


def test_heuristic_concedes_only_hopeless_hands() -> None:
    legal = ["play E8", "play H9", "play S10", "play H8", "play E9", "concede"]
    hopeless = _view(_BAVARIAN, 1, "E8 H9 S10 H8 E9", legal, phase="play", schlag="O", trump="L",
                     gespannt=(False, True), seat_scores=(3, 13, 3, 13), stake=3)
    assert HeuristicBot(1).choose(hopeless) == "concede"
    # Conceding would give the other side the match: play on.
    close = dataclasses.replace(hopeless, seat_scores=(13, 13, 13, 13), gespannt=(True, True))
    assert HeuristicBot(1).choose(close) != "concede"
    good = dataclasses.replace(hopeless, hand=("HK", "H9", "S10", "LO", "E9"),
                               legal_actions=("play HK", "play H9", "play S10", "play LO", "play E9", "concede"))
    assert HeuristicBot(1).choose(good) != "concede"


def test_heuristic_answers_schadet() -> None:
    rules = dataclasses.replace(_BAVARIAN, schadet=True)
    legal = ["schadet yes", "schadet no"]
    high = _view(rules, 3, "LA LK E8 H9 S10", legal, phase="play", schlag="O", trump="L")
    assert HeuristicBot(1).choose(high) == "schadet yes"  # it would have to give up a high trump
    small = dataclasses.replace(high, hand=("LA", "L8", "E8", "H9", "S10"))
    assert HeuristicBot(1).choose(small) == "schadet no"


def test_heuristic_signals_rarely_and_only_kritische() -> None:
    legal = ["play HK", "play E8", "signal max", "signal spitz", "signal nix"]
    view = _view(_BAVARIAN, 1, "HK E8", legal, phase="play", schlag="O", trump="L")
    picks = [HeuristicBot(seed).choose(view) for seed in range(300)]
    signals = [p for p in picks if p and p.startswith("signal ")]
    assert 0 < len(signals) < 40 and set(signals) == {"signal max"}


def test_heuristic_without_rules_still_plays_legally() -> None:
    view = BotView(seat=0, legal_actions=("play HK", "play E8"), hand=("HK", "E8"), phase="play")
    assert HeuristicBot(1).choose(view) in view.legal_actions
