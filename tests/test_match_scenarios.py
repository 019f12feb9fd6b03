"""Scenario tests of whole hands through `Match`: the table tests at the match level (docs/rules.md sections 5 to 9).

Every test deals a fixed deck built by `tests/stacking.py`, so the hands are known, and plays a short script.
Unless a test says otherwise the table is Bavarian with four players, seat 0 deals, seat 1 is the forehand,
seat 3 cuts (10 cards, and keeps at Schlecken), seats {0, 2} play against {1, 3}, Schlag O and trump L:
the Kritische HK > S7 > E7, then the Hauptschlag LO, the Schlag cards EO HO SO, then the Laub cards.

Where docs/rules.md is silent the engine's documented decisions are tested as the project's rules. Where the
engine contradicts docs/rules.md the test says what docs/rules.md demands and is marked `xfail(strict=True)`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from watten_net.engine import Card, Event, Match, Rules, RuleViolation, canonical_deck, cards

from stacking import cutter_seat, packet_sizes, play_script, stacked_deck

# --------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------


def rules(preset: str = "bavarian", players: int = 4, **flags: Any) -> Rules:
    return dataclasses.replace(Rules.preset(preset, players), **flags)


BAVARIAN = rules()

# Schlag O, trump L: nobody holds a Kritischer or the Hauptschlag LO, every trick is won as scripted below.
PLAIN = {1: "EA HA S8 SK H10", 2: "E8 H7 SA EK SU", 3: "E9 H8 S9 HU EU", 0: "E10 H9 S10 LA LK"}
# The forehand's side {1, 3} takes the first three tricks (EA, HA and H10 lead and win).
FOREHAND_SIDE_WINS = "EA E8 E9 E10 / HA H7 H8 H9 / H10 SU EU S10"
# The dealer's side {0, 2} wins 3-2: SA, then LA, then LK take the last three tricks.
DEALER_SIDE_WINS = "EA E8 E9 E10 / HA H7 H8 H9 / S8 SA S9 S10 / EK HU LA SK / LK H10 SU EU"

# Three players (seat 0 deals, seat 1 is the forehand alone, seats 2 and 0 are the pair).
PLAIN_3 = {1: "EA HA S8 SK H10", 2: "E8 H7 SA EK SU", 0: "E10 H9 S10 LA LK"}
SOLO_WINS_3 = "EA E8 E10 / HA H7 H9 / H10 SU S10"
PAIR_WINS_3 = "EA E8 E10 / HA H7 H9 / S8 SA S10 / EK LA SK / LK H10 SU"


def start(r: Rules, deck: list[Card], *, dealer: int = 0, cut: int = 10, start_scores: Any = None,
          bummerl: Any = None) -> Match:
    """A match with this deck, cut by the cutter, who keeps at Schlecken: the first packet is dealt."""
    m = Match.new(r, dealer, start_scores, bummerl=bummerl).apply_deck(deck)
    cutter = cutter_seat(r.players, dealer)
    m, _ = m.apply(cutter, f"cut {cut}")
    if m.phase == "schlecken":
        m, _ = m.apply(cutter, "keep")
    return m


def dealt(r: Rules, hands: dict[int, str], *, dealer: int = 0, cut: int = 10, rest: str | None = None,
          start_scores: Any = None, bummerl: Any = None) -> Match:
    return start(r, stacked_deck(r, hands, dealer, cut, rest), dealer=dealer, cut=cut,
                 start_scores=start_scores, bummerl=bummerl)


def announce(m: Match, schlag: str = "O", trump: str = "L") -> Match:
    """The forehand names the Schlag, the dealer the trump (with 3 players the forehand names both)."""
    forehand = (m.dealer + 1) % m.rules.players
    trumper = forehand if m.rules.players == 3 else m.dealer
    m, _ = play_script(m, [(forehand, f"schlag {schlag}"), (trumper, f"trump {trump}")])
    return m


def announced(r: Rules, hands: dict[int, str], schlag: str = "O", trump: str = "L", **kw: Any) -> Match:
    return announce(dealt(r, hands, **kw), schlag, trump)


def play_cards(m: Match, played: str) -> tuple[Match, list[Event]]:
    """Each card (`/` separates tricks, for the reader) is played by the seat whose turn it is."""
    events: list[Event] = []
    for card in played.replace("/", " ").split():
        (seat,) = m.waiting_for
        m, caused = m.apply(seat, f"play {card}")
        events.extend(caused)
    return m, events


def hand(m: Match, seat: int) -> set[str]:
    return {c.text for c in m.hands[seat]}


def refusal(m: Match, seat: int, action: str) -> str:
    with pytest.raises(RuleViolation) as err:
        m.apply(seat, action)
    return err.value.reason


def of_kind(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e.kind == kind]


def seen_by(m: Match, seat: int, kind: str) -> list[Event]:
    return [e for e in m.observe(seat).events if e.kind == kind]


def hand_end(events: list[Event]) -> dict[str, Any]:
    (end,) = of_kind(events, "hand-end")
    return end.data


# --------------------------------------------------------------------------------------------------
# The stacking helper (tests/stacking.py)
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "players", "dealer", "cut", "hands"),
    [
        ("bavarian", 2, 0, 10, {0: "HK S7 EA EK EO", 1: "LA LK LO HA HO"}),
        ("bavarian", 3, 2, 7, {0: "HK S8 EA EK EO", 1: "LA LK LO HA HO", 2: "SA SK SO S9 H7"}),
        ("bavarian", 4, 1, 4, {0: "HK S8 EA EK EO", 2: "LA LK LO HA HO"}),
        ("bavarian", 6, 3, 28, {4: "HK S8 EA EK EO", 5: "LA LK LO HA HO", 2: "E7 H8 H9 S9 S10"}),
        ("wurf", 4, 0, 12, {1: "HK S8 EA", 2: "LA LK LO", 3: "HA HO SA", 0: "SK E8 E9"}),
        ("south-tyrolean", 6, 5, 20, {0: "S6 LA LO", 3: "EO HO SO"}),
    ],
    ids=["2 players", "3 players", "4 players, two seats", "6 players, three seats", "wurf", "south-tyrolean 6"],
)
def test_stacked_deck_deals_each_seat_the_requested_cards(
    preset: str, players: int, dealer: int, cut: int, hands: dict[int, str]
) -> None:
    r = rules(preset, players, maschine_points=0)
    m = start(r, stacked_deck(r, hands, dealer, cut), dealer=dealer, cut=cut)
    first = packet_sizes(r)[0]
    for seat, text in hands.items():
        assert hand(m, seat) == set(text.split()[: len(m.hands[seat])]), f"first packet of seat {seat}"
        assert len(m.hands[seat]) in (first, r.hand_size)
    m = announce(m)
    for seat, text in hands.items():
        assert hand(m, seat) == set(text.split()), f"hand of seat {seat}"


def test_stacked_deck_puts_the_forehand_at_joined_stack_cards_0_to_2_and_12_to_13() -> None:
    deck = stacked_deck(BAVARIAN, {1: "HA HO HU SA SK"}, dealer=0, cut=10)
    joined = deck[10:] + deck[:10]
    assert [c.text for c in joined[0:3] + joined[12:14]] == ["HA", "HO", "HU", "SA", "SK"]


def test_stacked_deck_fills_the_undealt_stack_with_rest_first_then_canonical_order() -> None:
    deck = stacked_deck(BAVARIAN, PLAIN, dealer=0, cut=10, rest="HK S7")
    joined = deck[10:] + deck[:10]
    undealt = [c.text for c in joined[20:]]
    assert undealt[:2] == ["HK", "S7"]
    placed = {*" ".join(PLAIN.values()).split(), "HK", "S7"}
    assert undealt[2:] == [c.text for c in canonical_deck(32) if c.text not in placed]


def test_stacked_deck_puts_schlecken_takes_at_the_bottoms_of_the_two_parts() -> None:
    deck = stacked_deck(BAVARIAN, {3: "E9 H8 S9", 0: "E10 H9 S10 LA"}, 0, 10, takes={3: "HK S7", 0: "E7"})
    assert [deck[9].text, deck[8].text, deck[-1].text] == ["HK", "S7", "E7"]


def test_play_script_returns_the_final_match_and_every_event() -> None:
    m = dealt(BAVARIAN, PLAIN)
    final, events = play_script(m, [(1, "schlag O"), (0, "trump L"), (1, "play EA")])
    assert final.phase == "play" and final.waiting_for == (2,)
    assert [e.kind for e in events if e.to is None] == ["schlag", "trump", "packet", "play"]


# --------------------------------------------------------------------------------------------------
# 5.3 Cut
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "dealer", "cutter"),
    [(2, 0, 1), (3, 0, 1), (3, 2, 0), (4, 0, 3), (4, 2, 1), (6, 0, 5)],
    ids=lambda v: str(v),
)
def test_the_cutter_is_the_dealers_right_neighbour_the_opponent_or_the_forehand(
    players: int, dealer: int, cutter: int
) -> None:
    m = Match.new(rules(players=players), dealer).apply_deck(canonical_deck(32))
    assert m.phase == "cut" and m.waiting_for == (cutter,)
    other = (cutter + 1) % players
    assert refusal(m, other, "cut 10") == "not-your-turn"


@pytest.mark.parametrize(("preset", "size"), [("bavarian", 32), ("tyrolean", 33), ("austrian", 36)])
def test_a_cut_lifts_between_4_and_size_minus_4_cards(preset: str, size: int) -> None:
    m = Match.new(rules(preset), 0).apply_deck(canonical_deck(size))
    assert m.legal_actions(3) == [f"cut {n}" for n in range(4, size - 3)]
    assert refusal(m, 3, "cut 3") == "bad-cut"
    assert refusal(m, 3, f"cut {size - 3}") == "bad-cut"
    for n in (4, size - 4):
        after, events = m.apply(3, f"cut {n}")
        assert of_kind(events, "cut")[0].data == {"n": n} and after.phase in ("schlecken", "announce")


# --------------------------------------------------------------------------------------------------
# 5.4 Deal layout, computed here from docs/rules.md on a canonical deck (independent of stacking.py)
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "players", "dealer", "cut"),
    [
        ("bavarian", 2, 0, 10), ("bavarian", 2, 1, 4), ("bavarian", 3, 0, 7), ("bavarian", 3, 2, 28),
        ("bavarian", 4, 0, 10), ("bavarian", 4, 3, 17), ("bavarian", 6, 0, 5), ("bavarian", 6, 4, 26),
        ("wurf", 2, 1, 9), ("wurf", 4, 0, 12), ("wurf", 6, 2, 15), ("south-tyrolean", 6, 0, 11),
    ],
    ids=lambda v: str(v),
)
def test_packets_go_clockwise_from_the_forehand_three_then_two_or_two_then_one(
    preset: str, players: int, dealer: int, cut: int
) -> None:
    r = rules(preset, players)
    deck = canonical_deck(r.deck)
    m = announce(start(r, list(deck), dealer=dealer, cut=cut))
    joined = deck[cut:] + deck[:cut]
    first, second = (3, 2) if r.hand_size == 5 else (2, 1)
    for i in range(players):
        seat = (dealer + 1 + i) % players
        expected = joined[i * first: (i + 1) * first] + joined[players * first + i * second:][:second]
        assert hand(m, seat) == {c.text for c in expected}, f"seat {seat}, {i}th from the forehand"


def test_four_players_the_forehand_holds_joined_stack_cards_0_to_2_then_12_to_13() -> None:
    deck = canonical_deck(32)
    joined = deck[10:] + deck[:10]
    m = start(BAVARIAN, list(deck))
    assert hand(m, 1) == {c.text for c in joined[0:3]}
    m = announce(m)
    assert hand(m, 1) == {c.text for c in joined[0:3] + joined[12:14]}


def test_with_announce_after_3_the_second_packet_follows_the_named_trump() -> None:
    m = dealt(BAVARIAN, PLAIN)
    assert m.phase == "announce" and [len(h) for h in m.hands] == [3, 3, 3, 3]
    m, events = play_script(m, [(1, "schlag O"), (0, "trump L")])
    assert [e.kind for e in events if e.to is None] == ["schlag", "trump", "packet"]
    assert [hand(m, s) for s in range(4)] == [set(PLAIN[s].split()) for s in range(4)]


def test_with_announce_after_5_the_whole_hand_is_dealt_before_the_announcement() -> None:
    m = dealt(rules(announce_after=5), PLAIN)
    assert m.phase == "announce"
    assert [hand(m, s) for s in range(4)] == [set(PLAIN[s].split()) for s in range(4)]


def test_dealt_cards_are_seen_only_by_their_holder() -> None:
    m = announce(dealt(BAVARIAN, PLAIN))
    for seat in range(4):
        deals = seen_by(m, seat, "deal")
        assert {e.seat for e in deals} == {seat}
        assert {c for e in deals for c in e.data["cards"]} == set(PLAIN[seat].split())
        assert set(m.observe(seat).hand) == set(cards(PLAIN[seat]))


# --------------------------------------------------------------------------------------------------
# 5.3 Schlecken (Bavarian): the cutter takes Kritische from the bottom of the lifted packet
# --------------------------------------------------------------------------------------------------


def cut_only(r: Rules, deck: list[Card], cut: int = 10) -> tuple[Match, list[Event]]:
    return Match.new(r, 0).apply_deck(deck).apply(3, f"cut {cut}")


def test_the_cutter_alone_sees_the_bottom_card_of_the_lifted_packet() -> None:
    deck = stacked_deck(BAVARIAN, {}, 0, 10, takes={3: "HK"})
    m, events = cut_only(BAVARIAN, deck)
    (see,) = of_kind(events, "see")
    assert (see.seat, see.data["card"], see.to) == (3, "HK", (3,))
    assert m.phase == "schlecken" and m.waiting_for == (3,)
    assert m.legal_actions(3) == ["take", "keep"]
    assert all(not seen_by(m, s, "see") for s in (0, 1, 2))


def test_after_a_take_the_cutter_sees_the_next_card_up() -> None:
    deck = stacked_deck(BAVARIAN, {}, 0, 10, takes={3: "HK S7"})
    m, _ = cut_only(BAVARIAN, deck)
    m, events = m.apply(3, "take")
    assert [(e.kind, e.data.get("card")) for e in events] == [("take", None), ("took", "HK"), ("see", "S7")]
    assert of_kind(events, "took")[0].to == (3,)


@pytest.mark.parametrize(("bluff", "legal"), [(True, ["take", "keep"]), (False, ["keep"])])
def test_the_cutter_may_take_a_plain_card_only_with_schlecken_bluff(bluff: bool, legal: list[str]) -> None:
    r = rules(schlecken_bluff=bluff)
    m, events = cut_only(r, stacked_deck(r, {}, 0, 10, takes={3: "SA"}))
    assert of_kind(events, "see")[0].data["card"] == "SA"
    assert m.legal_actions(3) == legal


def test_the_dealer_gets_no_schlecken_when_the_cutter_kept() -> None:
    deck = stacked_deck(BAVARIAN, {}, 0, 10, takes={3: "HK", 0: "S7"})
    m, _ = cut_only(BAVARIAN, deck)
    m, events = m.apply(3, "keep")
    assert m.phase == "announce" and not of_kind(events, "see")


def test_after_the_cutter_took_the_dealer_sees_the_bottom_of_the_rest() -> None:
    deck = stacked_deck(BAVARIAN, {}, 0, 10, takes={3: "HK", 0: "S7"})
    m, _ = cut_only(BAVARIAN, deck)
    m, events = play_script(m, [(3, "take"), (3, "keep")])
    see = of_kind(events, "see")[-1]
    assert (see.seat, see.data["card"], see.to) == (0, "S7", (0,))
    assert m.waiting_for == (0,) and m.legal_actions(0) == ["take", "keep"]


def test_the_dealer_may_take_only_kritische_even_with_schlecken_bluff() -> None:
    deck = stacked_deck(BAVARIAN, {}, 0, 10, takes={3: "SA"})
    m, _ = cut_only(BAVARIAN, deck)
    m, events = play_script(m, [(3, "take"), (3, "keep")])
    assert of_kind(events, "see")[-1].data["card"] == deck[-1].text
    assert deck[-1].text not in ("HK", "S7", "E7")
    assert m.legal_actions(0) == ["keep"]


def test_cards_taken_at_the_cut_are_hidden_from_the_others() -> None:
    deck = stacked_deck(BAVARIAN, {}, 0, 10, takes={3: "HK"})
    m, _ = cut_only(BAVARIAN, deck)
    m, _ = play_script(m, [(3, "take"), (3, "keep"), (0, "keep")])
    for seat in (0, 1, 2):
        view = m.observe(seat)
        assert "HK" not in str(view.to_dict()["events"])
        assert view.taken_counts == (0, 0, 0, 1)
    assert [e.data["card"] for e in seen_by(m, 3, "took")] == ["HK"]


def test_a_seat_that_took_one_card_gets_one_fewer_in_the_first_packet() -> None:
    hands = {1: "EA HA S8 SK H10", 2: "E8 H7 SA EK SU", 3: "E9 H8 S9 HU", 0: "E10 H9 S10 LA LK"}
    m, _ = cut_only(BAVARIAN, stacked_deck(BAVARIAN, hands, 0, 10, takes={3: "HK"}))
    m, _ = play_script(m, [(3, "take"), (3, "keep"), (0, "keep")])
    assert hand(m, 3) == {"HK", "E9", "H8"}
    assert [len(h) for h in m.hands] == [3, 3, 3, 3]
    m = announce(m)
    assert hand(m, 3) == {"HK", "E9", "H8", "S9", "HU"}
    assert all(hand(m, s) == set(hands[s].split()) for s in (0, 1, 2))


def test_a_seat_that_took_four_cards_gets_only_one_card_of_the_second_packet() -> None:
    r = rules(maschine_points=0)
    hands = {1: "EA HA S8 SK H10", 2: "E8 H7 SA EK SU", 3: "E9", 0: "E10 H9 S10 LA LK"}
    m, _ = cut_only(r, stacked_deck(r, hands, 0, 10, takes={3: "HK S7 E7 LO"}))
    m, _ = play_script(m, [(3, "take")] * 4 + [(3, "keep"), (0, "keep")])
    assert hand(m, 3) == {"HK", "S7", "E7", "LO"}
    m = announce(m)
    assert hand(m, 3) == {"HK", "S7", "E7", "LO", "E9"}
    assert all(hand(m, s) == set(hands[s].split()) for s in (0, 1, 2))


def test_the_cutter_takes_at_most_hand_size_cards() -> None:
    deck = stacked_deck(BAVARIAN, {}, 0, 10, takes={3: "SA SK SO SU S10"})
    m, _ = cut_only(BAVARIAN, deck)
    m, events = play_script(m, [(3, "take")] * 5)
    assert [e.data["card"] for e in of_kind(events, "took")] == ["SA", "SK", "SO", "SU", "S10"]
    assert m.observe(1).taken_counts == (0, 0, 0, 5)
    assert m.waiting_for == (0,), "five cards taken: the cutter's turn is over, the dealer's starts"


BLUFF_HANDS = {1: "EA HA S8 SK H10", 2: "E8 H7 SA EK SU", 3: "E9 H8 S9 HU", 0: "E10 H9 S10 LA LK"}


def bluffed(r: Rules = BAVARIAN, hands: dict[int, str] = BLUFF_HANDS, took: str = "EU") -> Match:
    """The cutter (seat 3) takes `took` at the cut; the hands then equal PLAIN (or `hands` plus `took`)."""
    m, _ = cut_only(r, stacked_deck(r, hands, 0, 10, takes={3: took}))
    m, _ = play_script(m, [(3, "take"), (3, "keep"), (0, "keep")])
    return announce(m)


def test_a_bluffing_cutter_who_never_plays_a_kritischer_gives_the_opponents_2() -> None:
    m, events = play_cards(bluffed(), DEALER_SIDE_WINS)
    assert [(e.kind, e.seat, e.data) for e in of_kind(events, "bluff-penalty")] == [("bluff-penalty", 3, {"points": 2})]
    assert m.scores == (2 + 2, 0)


def test_a_bluffing_cutter_on_the_winning_side_still_gives_the_opponents_2() -> None:
    m, events = play_cards(bluffed(), FOREHAND_SIDE_WINS)
    assert hand_end(events)["side"] == 1
    assert m.scores == (2, 2)


def test_no_bluff_penalty_when_the_cutter_played_a_kritischer() -> None:
    hands = {1: "EA HA S8 SK H10", 2: "E8 H7 S7 EK SU", 3: "E9 H8 E7 HU", 0: "E10 H9 S10 LA LK"}
    script = "EA E8 E9 E10 / HA H7 H8 H9 / S8 S7 E7 S10 / EK HU LA SK / LK H10 SU EU"  # the cutter plays E7
    m, events = play_cards(bluffed(hands=hands), script)
    assert not of_kind(events, "bluff-penalty")
    assert m.scores == (2, 0)


def test_no_bluff_penalty_when_the_cutter_took_a_kritischer() -> None:
    hands = {1: "EA HA S8 SK H10", 2: "E8 H7 SA EK SU", 3: "E9 H8 S9 EU", 0: "E10 H9 S10 LA LK"}
    m, events = play_cards(bluffed(hands=hands, took="HK"), FOREHAND_SIDE_WINS)
    assert not of_kind(events, "bluff-penalty")
    assert m.scores == (0, 2)


def test_no_bluff_penalty_when_the_hand_ends_by_a_fold() -> None:
    m, events = play_script(bluffed(), [(3, "raise"), (0, "fold")])
    assert hand_end(events)["reason"] == "fold" and not of_kind(events, "bluff-penalty")
    assert m.scores == (0, 2)


# --------------------------------------------------------------------------------------------------
# 5.5 Maschine
# --------------------------------------------------------------------------------------------------

MASCHINE = {1: "EA HA S8 SK H10", 2: "HK S7 E8 E7 SU", 3: "E9 H8 S9 HU EU", 0: "E10 H9 S10 LA LK"}


def test_a_maschine_wins_the_hand_at_once_when_the_second_packet_completes_it() -> None:
    m, events = play_script(dealt(BAVARIAN, MASCHINE), [(1, "schlag O"), (0, "trump L")])
    (shown,) = of_kind(events, "maschine")
    assert (shown.seat, shown.data["cards"], shown.to) == (2, ["HK", "S7", "E7"], None)
    assert (hand_end(events)["side"], hand_end(events)["points"], hand_end(events)["reason"]) == (0, 2, "maschine")
    assert m.scores == (2, 0) and m.needs_deck and m.dealer == 1


def test_with_announce_after_5_a_maschine_ends_the_hand_before_the_announcement() -> None:
    m = dealt(rules(announce_after=5), MASCHINE)
    assert m.needs_deck and m.scores == (2, 0)
    assert not [e for e in m.events() if e.kind in ("schlag", "trump")]


def test_a_maschine_can_be_taken_at_the_cut() -> None:
    hands = {1: "EA HA S8 SK H10", 2: "E8 H7 SA EK SU", 3: "E9 H8", 0: "E10 H9 S10 LA LK"}
    m, _ = cut_only(BAVARIAN, stacked_deck(BAVARIAN, hands, 0, 10, takes={3: "HK S7 E7"}))
    m, events = play_script(m, [(3, "take"), (3, "take"), (3, "take"), (3, "keep"), (0, "keep"),
                                (1, "schlag O"), (0, "trump L")])
    assert of_kind(events, "maschine")[0].seat == 3
    assert m.scores == (0, 2)


def test_without_maschine_points_all_the_kritische_are_just_played() -> None:
    m = announced(rules(maschine_points=0), MASCHINE)
    assert m.phase == "play" and m.scores == (0, 0)


def test_a_maschine_scores_maschine_points_even_when_the_hand_is_worth_3() -> None:
    m = dealt(BAVARIAN, MASCHINE, start_scores=(0, 13))
    assert m.value == 3
    m, _ = play_script(m, [(1, "schlag O"), (0, "trump L")])
    assert m.scores == (2, 13)


def test_a_maschine_dealt_by_a_bessere_still_wins_before_the_first_lead() -> None:
    # docs/rules.md 5.5: "a player holding all the Kritische shows them before the first lead; that player's
    # side wins the hand at once". Here the Bessere gives the forehand HK S7 E7 after the whole deal, so
    # (as after any complete deal) the Maschine is shown at once, before the announcement starts again.
    r = rules(announce_after=5)
    hands = {1: "EO EK LA HA SA", 2: "E8 E9 L8 L9 H8", 3: "EA LK L10 S8 S9", 0: "L7 EU LU H9 H10"}
    m = dealt(r, hands, rest="HK S7 E7")
    m, events = play_script(m, [(1, "bessere?"), (0, "bessere yes")])
    maschine = of_kind(events, "maschine")
    assert maschine and maschine[0].seat == 1 and m.scores == (0, 2)


# --------------------------------------------------------------------------------------------------
# 5.6 Announcement: order, Schlagwechsel, Bessere
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "schlag_by", "trump_by"), [(2, 1, 0), (3, 1, 1), (4, 1, 0), (6, 1, 0)], ids=lambda v: str(v)
)
def test_the_forehand_names_the_schlag_and_the_dealer_the_trump_with_3_players_the_forehand_both(
    players: int, schlag_by: int, trump_by: int
) -> None:
    m = start(rules(players=players), list(canonical_deck(32)))
    assert m.waiting_for == (schlag_by,) and "schlag O" in m.legal_actions(schlag_by)
    m, _ = m.apply(schlag_by, "schlag O")
    assert m.waiting_for == (trump_by,) and "trump L" in m.legal_actions(trump_by)
    m, _ = m.apply(trump_by, "trump L")
    assert m.phase == "play" and m.waiting_for == (1,) and m.observe(0).schlag == "O"


def test_schlagwechsel_yes_lets_the_dealer_name_the_schlag_and_the_forehand_the_trump() -> None:
    m, events = play_script(dealt(BAVARIAN, PLAIN), [(1, "swap?"), (0, "swap yes"), (0, "schlag O"), (1, "trump L")])
    assert [(e.kind, e.seat) for e in events if e.kind in ("schlag", "trump")] == [("schlag", 0), ("trump", 1)]
    assert m.phase == "play" and m.waiting_for == (1,), "the forehand still leads"


def test_schlagwechsel_no_leaves_the_order_and_cannot_be_asked_again() -> None:
    m, _ = play_script(dealt(BAVARIAN, PLAIN), [(1, "swap?"), (0, "swap no")])
    assert m.waiting_for == (1,) and "swap?" not in m.legal_actions(1)
    m, _ = play_script(m, [(1, "schlag O"), (0, "trump L")])
    assert m.phase == "play"


def test_only_the_dealer_answers_swap() -> None:
    m, _ = dealt(BAVARIAN, PLAIN).apply(1, "swap?")
    assert m.waiting_for == (0,) and m.legal_actions(0)[:2] == ["swap yes", "swap no"]
    assert refusal(m, 2, "swap yes") == "not-your-turn"
    assert refusal(m, 1, "schlag O") == "not-your-turn"


def test_three_players_have_no_schlagwechsel_and_no_agreed_bessere() -> None:
    m = dealt(rules(players=3), PLAIN_3)
    assert "swap?" not in m.legal_actions(1) and "bessere?" not in m.legal_actions(1)


def test_bessere_yes_gives_both_announcers_new_cards_from_the_top_forehand_first() -> None:
    deck = canonical_deck(32)
    joined = deck[10:] + deck[:10]
    m = start(BAVARIAN, list(deck))
    before = {s: hand(m, s) for s in (2, 3)}
    m, events = play_script(m, [(1, "bessere?"), (0, "bessere yes")])
    assert [(e.kind, e.seat) for e in events if e.kind == "aside"] == [("aside", 1), ("aside", 0)]
    assert hand(m, 1) == {c.text for c in joined[12:15]}
    assert hand(m, 0) == {c.text for c in joined[15:18]}
    assert {s: hand(m, s) for s in (2, 3)} == before, "only the two announcers change cards"
    assert m.waiting_for == (1,) and "bessere?" not in m.legal_actions(1), "the announcement restarts, once"
    m = announce(m)
    assert hand(m, 1) == {c.text for c in joined[12:15] + joined[18:20]}, "the second packet follows the new cards"


def test_bessere_no_returns_to_the_asker_at_the_same_step() -> None:
    m, _ = play_script(dealt(BAVARIAN, PLAIN), [(1, "schlag O"), (0, "bessere?")])
    assert m.waiting_for == (1,) and m.legal_actions(1)[:2] == ["bessere yes", "bessere no"]
    m, _ = m.apply(1, "bessere no")
    assert m.waiting_for == (0,) and "trump L" in m.legal_actions(0) and "bessere?" not in m.legal_actions(0)


def test_bessere_yes_after_the_schlag_restarts_the_announcement_from_the_schlag() -> None:
    m, _ = play_script(dealt(BAVARIAN, PLAIN), [(1, "schlag O"), (0, "bessere?"), (1, "bessere yes")])
    assert m.waiting_for == (1,) and "schlag A" in m.legal_actions(1)
    m = announce(m, "A", "H")
    assert (m.observe(2).schlag, m.observe(2).trump) == ("A", "H")


def test_bessere_needs_enough_undealt_cards() -> None:
    # Six players, 32 cards: after the first packet 14 remain, but the announcers' 6 and the 12 of the
    # second packet would need 18.
    m = start(rules(players=6), list(canonical_deck(32)))
    assert "bessere?" not in m.legal_actions(1)


def test_bessere_with_redeal_penalty_scores_2_for_the_opponents_and_the_same_dealer_deals_again() -> None:
    m, events = dealt(rules(bessere="redeal-penalty"), PLAIN).apply(1, "bessere?")
    assert [e.kind for e in events] == ["bessere?", "redeal", "hand-start"]
    assert m.scores == (2, 0) and m.needs_deck
    assert (m.dealer, m.observe(0).hand_number, m.observe(0).attempt) == (0, 0, 1)


def test_bessere_with_redeal_penalty_scores_for_both_of_the_pair_with_3_players() -> None:
    m, _ = dealt(rules(players=3, bessere="redeal-penalty"), PLAIN_3).apply(1, "bessere?")
    assert m.scores == (2, 0, 2)


# --------------------------------------------------------------------------------------------------
# 5.6 / 4 Blind
# --------------------------------------------------------------------------------------------------

BLIND = rules("blind")
# South Tyrolean, Schlag O trump L: Guate LK, Hauptschlag LO; L8 is a trump lead.
BLIND_HANDS = {1: "L8 EA HA S8 SK", 2: "L9 E8 H7 SA EK", 3: "E9 H8 S9 HU EU", 0: "LA E10 H9 S10 H10"}


def test_blind_shows_the_announcement_only_to_the_two_announcers() -> None:
    m = announced(BLIND, BLIND_HANDS)
    assert [(m.observe(s).schlag, m.observe(s).trump) for s in range(4)] == [
        ("O", "L"), ("O", "L"), (None, None), (None, None)]
    for seat in (2, 3):
        assert not seen_by(m, seat, "schlag") and not seen_by(m, seat, "trump")
        assert [e.data["what"] for e in seen_by(m, seat, "announced")] == ["schlag", "trump"]


def test_blind_reveals_the_announcement_to_everyone_at_the_end_of_the_hand() -> None:
    m, events = play_cards(
        announced(BLIND, BLIND_HANDS), "EA E8 E9 E10 / HA H7 H8 H9 / SK SA S9 S10 / EK HU LA L8 / H10 S8 L9 EU"
    )
    (shown,) = of_kind(events, "announcement")
    assert (shown.data, shown.to) == ({"schlag": "O", "trump": "L"}, None)
    assert all(seen_by(m, s, "announcement") for s in range(4))


def test_blind_binds_only_the_announcers_to_the_follow_rule() -> None:
    m, _ = play_cards(announced(BLIND, BLIND_HANDS), "L8")
    assert "play E8" in m.legal_actions(2), "seat 2 does not know that L8 is a trump"
    m, _ = play_cards(m, "E8 E9")
    assert m.legal_actions(0)[:1] == ["play LA"] and refusal(m, 0, "play H9") == "must-play-trump"


def test_blind_has_no_signals() -> None:
    m = announced(BLIND, BLIND_HANDS)
    assert refusal(m, 2, "signal trumpf") == "no-signals"


# --------------------------------------------------------------------------------------------------
# 4 / 5.7 Trumpf oder Kritische (hauptschlag-lead), schadet, and the South Tyrolean trump lead
# --------------------------------------------------------------------------------------------------

# The forehand holds the Hauptschlag LO; seat 2 holds the Max, a trump and a Schlag card of another suit.
HAUPTSCHLAG = {1: "LO EA HA S8 SK", 2: "HK L8 EO E8 H7", 3: "L9 EU E9 H8 S9", 0: "E10 H9 S10 LA LK"}


def test_a_hauptschlag_lead_forces_a_trump_or_a_kritischer_and_a_schlag_card_does_not_count() -> None:
    m, _ = play_cards(announced(BAVARIAN, HAUPTSCHLAG), "LO")
    assert [a for a in m.legal_actions(2) if a.startswith("play")] == ["play L8", "play HK"]
    assert refusal(m, 2, "play EO") == "must-play-trump"
    m, _ = play_cards(m, "L8")
    assert [a for a in m.legal_actions(3) if a.startswith("play")] == ["play L9"]


def test_a_kritischer_played_to_the_trick_releases_the_obligation() -> None:
    m, _ = play_cards(announced(BAVARIAN, HAUPTSCHLAG), "LO HK")
    assert "play E9" in m.legal_actions(3)


def test_with_follow_released_false_a_kritischer_does_not_release_it() -> None:
    m, _ = play_cards(announced(rules(follow_released=False), HAUPTSCHLAG), "LO HK")
    assert [a for a in m.legal_actions(3) if a.startswith("play")] == ["play L9"]


def test_the_obligation_holds_only_when_the_first_card_of_the_hand_is_the_hauptschlag() -> None:
    m, _ = play_cards(announced(BAVARIAN, HAUPTSCHLAG), "EA E8 E9 E10 / LO")
    assert "play EO" in m.legal_actions(2)


def test_a_hand_without_trumps_or_kritische_may_play_anything_after_the_hauptschlag() -> None:
    hands = {1: "LO EA HA S8 SK", 2: "EO E8 H7 SA SU", 3: "L9 EU E9 H8 S9", 0: "E10 H9 S10 LA LK"}
    m, _ = play_cards(announced(BAVARIAN, hands), "LO")
    assert {a for a in m.legal_actions(2) if a.startswith("play")} == {f"play {c}" for c in hands[2].split()}


def test_schadet_may_be_asked_by_the_forehand_holding_the_hauptschlag_before_the_first_lead() -> None:
    r = rules(schadet=True)
    m = announced(r, HAUPTSCHLAG)
    assert "schadet?" in m.legal_actions(1)
    assert "schadet?" not in announced(r, PLAIN).legal_actions(1), "no Hauptschlag, no schadet?"
    m, _ = play_cards(m, "EA E8 E9 E10")
    assert m.waiting_for == (1,) and "schadet?" not in m.legal_actions(1), "not after the first lead"


def test_schadet_is_answered_publicly_by_a_partner_and_blocks_everything_else() -> None:
    m, events = announced(rules(schadet=True), HAUPTSCHLAG).apply(1, "schadet?")
    assert m.waiting_for == (3,) and m.legal_actions(3) == ["schadet yes", "schadet no"]
    assert m.legal_actions(1) == [] and m.legal_actions(0) == []
    assert refusal(m, 1, "play LO") == "schadet-pending"
    m, events = m.apply(3, "schadet no")
    assert [(e.kind, e.seat, e.data, e.to) for e in events] == [("schadet", 3, {"answer": "no"}, None)]
    assert m.waiting_for == (1,)


def test_after_schadet_a_kritischer_never_releases_the_obligation() -> None:
    m, _ = play_script(announced(rules(schadet=True), HAUPTSCHLAG), [(1, "schadet?"), (3, "schadet yes")])
    m, _ = play_cards(m, "LO HK")
    assert [a for a in m.legal_actions(3) if a.startswith("play")] == ["play L9"]


def test_a_raise_refused_while_schadet_is_pending_names_the_pending_question() -> None:
    m, _ = announced(rules(schadet=True), HAUPTSCHLAG).apply(1, "schadet?")
    assert refusal(m, 0, "raise") == "schadet-pending"


SOUTH = rules("south-tyrolean")
# Schlag O trump L: Guate LK, Hauptschlag LO, Schlag cards EO HO SO.
SOUTH_HANDS = {1: "L8 E8 EO HA S8", 2: "L9 EU E9 H8 S9", 3: "LO E10 H9 S10 SK", 0: "HO EA H7 SA EK"}


def test_a_trump_lead_forces_a_trump_or_a_schlag_card() -> None:
    m, _ = play_cards(announced(SOUTH, SOUTH_HANDS), "L8")
    assert [a for a in m.legal_actions(2) if a.startswith("play")] == ["play L9"]
    m, _ = play_cards(m, "L9")
    assert "play E10" in m.legal_actions(3), "the Hauptschlag LO alone is never forced"
    m, _ = play_cards(m, "E10")
    assert [a for a in m.legal_actions(0) if a.startswith("play")] == ["play HO"], "a Schlag card qualifies"


@pytest.mark.parametrize("lead", ["E8", "EO"], ids=["a plain lead", "a Schlag card of another suit"])
def test_only_a_trump_lead_forces(lead: str) -> None:
    m, _ = play_cards(announced(SOUTH, SOUTH_HANDS), lead)
    assert "play E9" in m.legal_actions(2)


def test_the_trump_lead_rule_applies_in_every_trick() -> None:
    m, _ = play_cards(announced(SOUTH, SOUTH_HANDS), "HA H8 H9 H7 / L8")
    assert [a for a in m.legal_actions(2) if a.startswith("play")] == ["play L9"]


# --------------------------------------------------------------------------------------------------
# 5.7 Tricks
# --------------------------------------------------------------------------------------------------


def test_the_hand_ends_when_a_side_has_three_tricks_and_the_rest_is_not_played() -> None:
    m, events = play_cards(announced(BAVARIAN, PLAIN), FOREHAND_SIDE_WINS)
    assert len(of_kind(events, "play")) == 12
    end = hand_end(events)
    assert (end["side"], end["seats"], end["points"], end["reason"], end["tricks"]) == (1, [1, 3], 2, "tricks", [0, 3])
    assert m.scores == (0, 2) and m.needs_deck and m.dealer == 1, "the next dealer is seat 1"


def test_the_winner_of_a_trick_leads_the_next() -> None:
    m, events = play_cards(announced(BAVARIAN, PLAIN), "EA E8 E9 E10 / HA H7 H8 H9 / S8 SA S9 S10")
    assert [e.seat for e in of_kind(events, "trick")] == [1, 1, 2]
    assert m.waiting_for == (2,)
    assert refusal(m, 1, "play SK") == "not-your-turn"
    assert refusal(m, 2, "play HK") == "card-not-in-hand"


def test_wurf_ends_at_two_tricks() -> None:
    hands = {1: "EA HA S8", 2: "E8 H7 SA", 3: "E9 H8 S9", 0: "E10 H9 S10"}
    m, events = play_cards(announced(rules("wurf"), hands), "EA E8 E9 E10 / HA H7 H8 H9")
    assert hand_end(events)["tricks"] == [0, 2] and m.scores == (0, 2)


# --------------------------------------------------------------------------------------------------
# 6 Raising, folding
# --------------------------------------------------------------------------------------------------


def test_a_hand_starts_worth_2_and_an_accepted_raise_makes_it_3() -> None:
    m = announced(BAVARIAN, PLAIN)
    assert m.value == 2
    m, events = m.apply(2, "raise")
    assert [(e.kind, e.seat, e.data) for e in events] == [("raise", 2, {"value": 3, "from": 2})]
    assert m.waiting_for == (3, 1), "any player of the other side may answer"
    m, events = m.apply(1, "accept")
    assert m.value == 3 and [e.kind for e in events] == ["accept"]
    m, events = play_cards(m, DEALER_SIDE_WINS)
    assert m.scores == (3, 0)


def test_with_raise_from_trump_any_seat_may_raise_at_any_time_after_the_trump() -> None:
    m = dealt(rules(raise_from="trump"), PLAIN)
    assert refusal(m, 1, "raise") == "not-now", "not during the announcement"
    assert "raise" not in m.legal_actions(1) and "raise" not in m.legal_actions(0)
    m = announce(m)
    assert "raise" in m.legal_actions(3) and m.waiting_for == (1,)
    m, _ = play_cards(m, "EA E8")
    assert all("raise" in m.legal_actions(s) for s in range(4))


def test_raises_alternate_between_the_sides() -> None:
    m, _ = play_script(announced(BAVARIAN, PLAIN), [(2, "raise"), (3, "accept")])
    assert refusal(m, 0, "raise") == "raise-twice"
    m, _ = play_script(m, [(3, "raise"), (0, "accept")])
    assert m.value == 4
    assert refusal(m, 1, "raise") == "raise-twice" and "raise" in m.legal_actions(2)


def test_a_pending_raise_blocks_play_and_only_the_other_side_answers() -> None:
    m, _ = announced(BAVARIAN, PLAIN).apply(2, "raise")
    assert m.legal_actions(1) == ["accept", "fold"] and m.legal_actions(0) == []
    assert refusal(m, 1, "play EA") == "raise-pending"
    assert refusal(m, 0, "accept") == "own-raise"
    assert refusal(m, 3, "raise") == "raise-pending"


def test_a_fold_gives_the_raising_side_the_value_before_the_raise() -> None:
    m, _ = play_script(announced(BAVARIAN, PLAIN), [(2, "raise"), (1, "accept"), (1, "raise")])
    m, events = m.apply(0, "fold")
    end = hand_end(events)
    assert (end["side"], end["points"], end["reason"]) == (1, 3, "fold")
    assert m.scores == (0, 3)


def test_fold_only_answers_a_pending_raise() -> None:
    assert refusal(announced(BAVARIAN, PLAIN), 1, "fold") == "no-raise"


# docs/rules.md 6: raising from the first packet on (the default); a pending raise holds the announcement.


def test_a_raise_during_the_announcement_holds_it_until_accepted_and_the_stake_stays() -> None:
    m = dealt(BAVARIAN, PLAIN)
    assert m.phase == "announce" and all("raise" in m.legal_actions(s) for s in range(4))
    m, events = m.apply(2, "raise")
    assert [(e.kind, e.data) for e in events] == [("raise", {"value": 3, "from": 2})]
    assert m.phase == "announce" and m.waiting_for == (3, 1)
    assert m.legal_actions(1) == ["accept", "fold"] and m.legal_actions(0) == [] and m.legal_actions(2) == []
    assert refusal(m, 1, "schlag O") == "raise-pending" and refusal(m, 2, "signal max") == "not-now"
    m, _ = m.apply(3, "accept")
    assert (m.value, m.waiting_for) == (3, (1,)) and "schlag O" in m.legal_actions(1)
    assert "raise" in m.legal_actions(1) and refusal(m, 0, "raise") == "raise-twice"
    m, _ = play_cards(announce(m), DEALER_SIDE_WINS)
    assert m.scores == (3, 0)


def test_a_fold_during_the_announcement_ends_the_hand_at_the_value_before_the_raise() -> None:
    m, events = play_script(dealt(BAVARIAN, PLAIN), [(0, "raise"), (3, "fold")])
    end = hand_end(events)
    assert (end["side"], end["points"], end["reason"]) == (0, 2, "fold")
    assert m.scores == (2, 0) and m.needs_deck and m.dealer == 1


def test_a_raise_while_the_schlagwechsel_is_asked_holds_the_answer_until_it_is_accepted() -> None:
    m, _ = dealt(BAVARIAN, PLAIN).apply(1, "swap?")
    assert m.waiting_for == (0,) and "raise" in m.legal_actions(3)
    m, _ = m.apply(3, "raise")
    assert m.waiting_for == (0, 2) and refusal(m, 0, "swap yes") == "raise-pending"
    m, _ = m.apply(2, "accept")
    assert m.value == 3 and m.legal_actions(0)[:2] == ["swap yes", "swap no"] and "raise" in m.legal_actions(0)
    m, _ = m.apply(0, "swap yes")
    assert m.waiting_for == (0,) and "schlag O" in m.legal_actions(0), "the dealer names the Schlag"


def test_a_fold_while_the_schlagwechsel_is_asked_ends_the_hand_unanswered() -> None:
    m, events = play_script(dealt(BAVARIAN, PLAIN), [(1, "swap?"), (1, "raise"), (0, "fold")])
    assert not of_kind(events, "swap") and hand_end(events)["side"] == 1 and m.scores == (0, 2)


def test_a_raise_while_a_bessere_is_asked_holds_it_and_the_stake_outlives_the_new_cards() -> None:
    m, _ = dealt(BAVARIAN, PLAIN).apply(1, "bessere?")
    m, _ = m.apply(2, "raise")
    assert m.waiting_for == (3, 1) and refusal(m, 0, "bessere yes") == "raise-pending"
    m, _ = m.apply(3, "accept")
    assert m.legal_actions(0)[:2] == ["bessere yes", "bessere no"]
    m, events = m.apply(0, "bessere yes")
    assert len(of_kind(events, "aside")) == 2 and m.announce_step == "schlag" and m.waiting_for == (1,)
    assert (m.value, m.last_raise_side) == (3, 0)
    assert "raise" in m.legal_actions(3) and refusal(m, 2, "raise") == "raise-twice"


def test_a_fold_while_a_bessere_is_asked_ends_the_hand_without_new_cards() -> None:
    m, events = play_script(dealt(BAVARIAN, PLAIN), [(1, "bessere?"), (2, "raise"), (1, "fold")])
    assert not of_kind(events, "aside") and not of_kind(events, "bessere")
    assert hand_end(events)["reason"] == "fold" and m.scores == (2, 0)


def test_a_gespannt_table_does_not_raise_during_the_announcement_either() -> None:
    m = dealt(BAVARIAN, PLAIN, start_scores=(13, 0))
    assert all(refusal(m, s, "raise") == "gespannt" for s in range(4))


def test_with_announce_after_5_a_raise_comes_before_the_schlag() -> None:
    m, _ = play_script(dealt(rules(announce_after=5), PLAIN), [(1, "raise"), (2, "accept")])
    assert m.value == 3 and m.phase == "announce" and m.waiting_for == (1,)


@pytest.mark.parametrize(("points", "may_raise"), [(12, False), (11, True)], ids=["needs 3", "needs 4"])
def test_a_side_may_raise_only_while_the_value_is_below_the_points_it_still_needs(points: int, may_raise: bool) -> None:
    m, _ = play_script(announced(BAVARIAN, PLAIN, start_scores=(points, 0)), [(1, "raise"), (0, "accept")])
    assert m.value == 3 and ("raise" in m.legal_actions(2)) == may_raise
    if not may_raise:
        assert refusal(m, 2, "raise") == "raise-cap"


def test_without_a_raise_cap_the_stake_may_pass_the_points_needed() -> None:
    m = announced(rules(raise_cap="none"), PLAIN, start_scores=(12, 0))
    m, _ = play_script(m, [(2, "raise"), (1, "accept"), (1, "raise"), (0, "accept"), (0, "raise")])
    assert m.observe(1).raise_pending == (5, 0)


def test_the_kritischer_turnier_raises_by_2() -> None:
    m, events = announced(rules("kritischer-turnier"), PLAIN).apply(1, "raise")
    assert events[0].data == {"value": 4, "from": 2}
    m, _ = m.apply(0, "accept")
    assert m.value == 4


# --------------------------------------------------------------------------------------------------
# 6 Gespannt
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scores", [(13, 0), (0, 14), (13, 13)], ids=lambda s: f"scores {s}")
def test_three_or_concede_a_gespannt_table_plays_for_3_and_nobody_raises(scores: tuple[int, int]) -> None:
    m = announced(BAVARIAN, PLAIN, start_scores=scores)
    assert m.value == 3 and m.observe(0).gespannt == (scores[0] >= 13, scores[1] >= 13)
    assert all(refusal(m, s, "raise") == "gespannt" for s in range(4))
    m, _ = play_cards(m, FOREHAND_SIDE_WINS)
    assert m.scores[1] == scores[1] + 3


def test_a_side_below_target_minus_2_is_not_gespannt() -> None:
    assert announced(BAVARIAN, PLAIN, start_scores=(12, 12)).value == 2


def test_a_gespannt_side_may_concede_after_the_trump_and_the_other_side_scores_2() -> None:
    m = dealt(BAVARIAN, PLAIN, start_scores=(13, 0))
    assert "concede" not in m.legal_actions(0), "not before the trump is named"
    m = announce(m)
    assert "concede" in m.legal_actions(2) and "concede" not in m.legal_actions(1)
    m, events = m.apply(2, "concede")
    assert (hand_end(events)["side"], hand_end(events)["points"], hand_end(events)["reason"]) == (1, 2, "concede")
    assert m.scores == (13, 2)


def test_concede_is_over_once_the_first_card_is_led() -> None:
    m, _ = play_cards(announced(BAVARIAN, PLAIN, start_scores=(13, 0)), "EA")
    assert "concede" not in m.legal_actions(0)


BASE_TWO = rules(tight="base-two")


def test_base_two_a_gespannt_side_may_not_raise_but_may_accept() -> None:
    m = announced(BASE_TWO, PLAIN, start_scores=(0, 13))
    assert m.value == 2 and refusal(m, 1, "raise") == "gespannt"
    m, _ = play_script(m, [(0, "raise"), (3, "accept")])
    assert m.value == 3
    assert "concede" not in m.legal_actions(1), "no concede under base-two"


def test_base_two_a_gespannt_side_that_loses_gives_only_2() -> None:
    m, _ = play_script(announced(BASE_TWO, PLAIN, start_scores=(0, 13)), [(0, "raise"), (3, "accept")])
    m, events = play_cards(m, DEALER_SIDE_WINS)
    assert hand_end(events)["points"] == 2 and m.scores == (2, 13)


def test_base_two_a_gespannt_side_that_wins_scores_the_full_stake() -> None:
    m, _ = play_script(announced(BASE_TWO, PLAIN, start_scores=(0, 13)), [(0, "raise"), (3, "accept")])
    m, _ = play_cards(m, FOREHAND_SIDE_WINS)
    assert m.scores == (0, 16)


def test_base_two_a_gespannt_side_losing_to_a_maschine_gives_only_2() -> None:
    m = dealt(rules(tight="base-two", maschine_points=4), MASCHINE, start_scores=(0, 13))
    m, _ = play_script(m, [(1, "schlag O"), (0, "trump L")])
    assert m.scores == (2, 13)


# --------------------------------------------------------------------------------------------------
# 8 Three players
# --------------------------------------------------------------------------------------------------

THREE = rules(players=3)


def test_three_players_the_forehand_cuts_and_plays_alone_against_the_pair() -> None:
    m = announced(THREE, PLAIN_3)
    view = m.observe(1)
    assert (view.cutter, view.forehand, view.announcers, view.hand_sides) == (1, 1, (1,), (1, 0, 1))


def test_three_players_when_the_pair_wins_both_score() -> None:
    m, events = play_cards(announced(THREE, PLAIN_3), PAIR_WINS_3)
    assert hand_end(events)["seats"] == [0, 2]
    assert m.scores == (2, 0, 2) and (m.score(0), m.score(1), m.score(2)) == (2, 0, 2)


def test_three_players_when_the_forehand_wins_only_the_forehand_scores() -> None:
    m, _ = play_cards(announced(THREE, PLAIN_3), SOLO_WINS_3)
    assert m.scores == (0, 2, 0)


def test_three_players_a_fold_by_the_pair_scores_for_the_forehand_alone() -> None:
    m, _ = play_script(announced(THREE, PLAIN_3), [(1, "raise"), (0, "fold")])
    assert m.scores == (0, 2, 0)


def test_three_players_the_pair_may_raise_only_while_below_what_its_leader_still_needs() -> None:
    m = announced(THREE, PLAIN_3, start_scores=(12, 0, 5))
    m, _ = play_script(m, [(1, "raise"), (0, "accept")])
    assert m.value == 3 and refusal(m, 2, "raise") == "raise-cap", "seat 0 needs 3, although seat 2 needs 10"


# --------------------------------------------------------------------------------------------------
# 9 Signals
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "sender", "audience"),
    [(4, 2, (0, 2)), (4, 1, (1, 3)), (6, 3, (1, 3, 5)), (3, 2, (0, 2))],
    ids=lambda v: str(v),
)
def test_a_signal_is_seen_only_by_the_sender_and_its_partners(
    players: int, sender: int, audience: tuple[int, ...]
) -> None:
    m = start(rules(players=players), list(canonical_deck(32)))
    m, events = m.apply(sender, "signal max")
    assert [(e.kind, e.seat, e.data, e.to) for e in events] == [("signal", sender, {"name": "max"}, audience)]
    for seat in range(players):
        assert bool(seen_by(m, seat, "signal")) == (seat in audience)


def test_austrian_partners_may_signal() -> None:
    """Seeds 001 and 002 forbid signals only in Blind (docs/rules.md 10)."""
    r = rules("austrian")
    m = start(r, list(canonical_deck(36)))
    assert m.phase == "announce" and "signal belli" in m.legal_actions(2)
    m, events = m.apply(2, "signal belli")
    assert [(e.kind, e.seat, e.data, e.to) for e in events] == [("signal", 2, {"name": "belli"}, (0, 2))]
    assert seen_by(m, 0, "signal") and not seen_by(m, 1, "signal")


@pytest.mark.parametrize("players", [2, 3], ids=["two players", "the three-player forehand"])
def test_a_seat_without_a_partner_cannot_signal(players: int) -> None:
    m = start(rules(players=players), list(canonical_deck(32)))
    assert not [a for a in m.legal_actions(1) if a.startswith("signal")]
    assert refusal(m, 1, "signal nix") == "no-partner"


def test_a_seat_sends_at_most_three_signals_a_hand() -> None:
    m, _ = play_script(dealt(BAVARIAN, PLAIN), [(2, "signal max"), (2, "signal trumpf"), (1, "schlag O")])
    m, _ = play_script(m, [(0, "trump L"), (2, "signal nix")])
    assert refusal(m, 2, "signal lass") == "not-now"
    assert "signal lass" in m.legal_actions(0)


def test_signals_are_only_for_the_announcement_and_the_play() -> None:
    m = Match.new(BAVARIAN, 0).apply_deck(stacked_deck(BAVARIAN, {}, 0, 10, takes={3: "HK"}))
    assert refusal(m, 2, "signal max") == "not-now", "not at the cut"
    m, _ = m.apply(3, "cut 10")
    assert m.phase == "schlecken" and refusal(m, 2, "signal max") == "not-now"


def test_no_signals_while_a_raise_is_pending() -> None:
    m, _ = announced(BAVARIAN, PLAIN).apply(2, "raise")
    assert refusal(m, 0, "signal max") == "not-now"
    assert m.legal_actions(1) == ["accept", "fold"]


def test_a_seat_that_has_played_its_last_card_cannot_signal() -> None:
    m, _ = play_cards(announced(BAVARIAN, PLAIN), DEALER_SIDE_WINS.rsplit("/", 1)[0] + " LK")
    assert m.observe(0).tricks_won == (2, 2)
    assert refusal(m, 0, "signal nix") == "not-now"
    assert "signal nix" in m.legal_actions(2)


# --------------------------------------------------------------------------------------------------
# 7 Match and series
# --------------------------------------------------------------------------------------------------


def won_match(bummerl: tuple[int, int] = (0, 0), **flags: Any) -> tuple[Match, list[Event]]:
    """Side 0 (13 points, playing for 3) wins a hand against side 1 (0 points) and reaches 16."""
    m = announced(rules(**flags), PLAIN, start_scores=(13, 0), bummerl=bummerl)
    return play_cards(m, DEALER_SIDE_WINS)


def test_a_side_reaching_the_target_wins_and_the_other_gets_a_bummerl() -> None:
    m, events = won_match()
    assert (m.phase, m.scores, m.winners, m.bummerl, m.series_over) == ("over", (16, 0), (0,), (0, 1), False)
    (end,) = of_kind(events, "match-end")
    assert end.data == {"scores": [16, 0], "winners": [0], "bummerl": [0, 1], "series_over": False}
    assert m.legal_actions(1) == [] and refusal(m, 1, "play SK") == "match-over"


def test_schneider_gives_two_bummerl_to_a_side_with_0_points() -> None:
    m, _ = won_match(schneider=True)
    assert m.bummerl == (0, 2)


def test_schneider_gives_one_bummerl_to_a_side_with_points() -> None:
    m = announced(rules(schneider=True), PLAIN, start_scores=(13, 1))
    m, _ = play_cards(m, DEALER_SIDE_WINS)
    assert m.bummerl == (0, 1)


def test_a_side_with_bummerl_limit_bummerl_has_lost_the_series() -> None:
    m, _ = won_match(bummerl=(1, 2))
    assert m.bummerl == (1, 3) and m.series_over
    with pytest.raises(RuleViolation) as err:
        m.next_match()
    assert err.value.reason == "series-over"


def test_next_match_starts_at_0_points_keeps_the_bummerl_and_moves_the_dealer_on() -> None:
    m, _ = won_match()
    nxt = m.next_match()
    assert (nxt.scores, nxt.bummerl, nxt.dealer, nxt.observe(0).match_number, nxt.needs_deck) == (
        (0, 0), (0, 1), 1, 1, True)


def test_next_match_is_refused_while_the_match_is_played() -> None:
    with pytest.raises(RuleViolation) as err:
        announced(BAVARIAN, PLAIN).next_match()
    assert err.value.reason == "match-not-over"


def test_three_players_every_seat_below_the_target_gets_a_bummerl() -> None:
    m = announced(THREE, PLAIN_3, start_scores=(13, 5, 0))
    m, _ = play_cards(m, PAIR_WINS_3)
    assert (m.scores, m.winners, m.bummerl) == ((16, 5, 3), (0,), (0, 1, 1)), "seat 2 too, although its pair won"


# docs/rules.md 7: one winner. A bluff penalty after the hand's points cannot make a second winner.
# Seat 3 (the cutter) bluffs with EU; side {1, 3} wins the hand 3-2 and the cutter never plays a Kritischer.
FOREHAND_SIDE_WINS_3_2 = "EA E8 E9 E10 / S8 SA S9 LA / LK SK SU HU / H9 HA H7 H8 / H10 EK EU S10"


def test_when_the_hand_and_a_bluff_penalty_lift_both_sides_the_hands_winner_wins_alone() -> None:
    m = Match.new(BAVARIAN, 0, (13, 13)).apply_deck(stacked_deck(BAVARIAN, BLUFF_HANDS, 0, 10, takes={3: "EU"}))
    m, _ = play_script(m, [(3, "cut 10"), (3, "take"), (3, "keep"), (0, "keep")])
    m, events = play_cards(announce(m), FOREHAND_SIDE_WINS_3_2)
    assert hand_end(events)["tricks"] == [2, 3] and of_kind(events, "bluff-penalty")
    assert (m.scores, m.winners, m.bummerl) == ((15, 16), (1,), (1, 0)), "side 0 reached 15 by the penalty only"
    (end,) = of_kind(events, "match-end")
    assert end.data["winners"] == [1] and end.data["bummerl"] == [1, 0]
    from watten_net.verify import describe  # watten-verify --show names the one winner

    assert "Match over: 15-16, won by side 1; Bummerl 1-0." in "\n".join(describe(m))


def test_three_players_a_bluffing_forehand_who_wins_is_the_only_winner() -> None:
    hands = {1: "EA HA S8 H10", 2: "E8 H7 SA EK SU", 0: "E10 H9 S10 LA LK"}
    deck = stacked_deck(THREE, hands, 0, 10, takes={1: "SK"})
    m = Match.new(THREE, 0, (13, 13, 13)).apply_deck(deck)
    m, _ = play_script(m, [(1, "cut 10"), (1, "take"), (1, "keep"), (0, "keep")])
    m, events = play_cards(announce(m), SOLO_WINS_3)
    assert of_kind(events, "bluff-penalty")
    assert (m.scores, m.winners, m.bummerl) == ((15, 16, 15), (1,), (1, 0, 1)), "not all three seats"


def test_when_only_the_penalty_reaches_the_target_its_side_wins() -> None:
    m = Match.new(BAVARIAN, 0, (13, 0)).apply_deck(stacked_deck(BAVARIAN, BLUFF_HANDS, 0, 10, takes={3: "EU"}))
    m, _ = play_script(m, [(3, "cut 10"), (3, "take"), (3, "keep"), (0, "keep")])
    m, _ = play_cards(announce(m), FOREHAND_SIDE_WINS_3_2)
    assert (m.scores, m.winners, m.bummerl) == ((15, 3), (0,), (0, 1)), "the hand's 3 points do not reach 15"


def test_a_redeal_penalty_can_end_the_match() -> None:
    m, events = dealt(rules(bessere="redeal-penalty"), PLAIN, start_scores=(13, 0)).apply(1, "bessere?")
    assert m.phase == "over" and m.winners == (0,) and of_kind(events, "match-end")


# --------------------------------------------------------------------------------------------------
# Refusals and replay
# --------------------------------------------------------------------------------------------------


def in_play() -> Match:
    return announced(BAVARIAN, HAUPTSCHLAG)


@pytest.mark.parametrize(
    ("setup", "seat", "action", "reason"),
    [
        ([], 2, "play HK", "not-your-turn"),
        ([], 1, "play HK", "card-not-in-hand"),
        ([(1, "play LO")], 2, "play EO", "must-play-trump"),
        ([(2, "raise")], 1, "play LO", "raise-pending"),
        ([(2, "raise")], 0, "accept", "own-raise"),
        ([(2, "raise"), (1, "accept")], 0, "raise", "raise-twice"),
        ([], 1, "accept", "no-raise"),
        ([], 1, "play XX", "bad-card"),
        ([], 1, "signal hello", "unknown-signal"),
        ([], 1, "trump E", "not-now"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_a_refused_action_leaves_the_match_equal_to_before(
    setup: list[tuple[int, str]], seat: int, action: str, reason: str
) -> None:
    m, _ = play_script(in_play(), setup)
    snapshot = Match.replay(BAVARIAN, m.history())
    legal = {s: m.legal_actions(s) for s in range(4)}
    assert refusal(m, seat, action) == reason
    assert m == snapshot
    assert {s: m.legal_actions(s) for s in range(4)} == legal


def test_replaying_the_history_of_a_scripted_hand_gives_an_equal_match() -> None:
    hands = {1: "EA HA S8 SK H10", 2: "E8 H7 SA EK SU", 3: "E9 H8 S9 HU", 0: "E10 H9 S10 LA LK"}
    m = Match.new(BAVARIAN, 0, (3, 4)).apply_deck(stacked_deck(BAVARIAN, hands, 0, 10, takes={3: "EU"}))
    m, _ = play_script(m, [
        (3, "cut 10"), (3, "take"), (3, "keep"), (0, "keep"), (2, "signal nix"), (1, "swap?"), (0, "swap yes"),
        (0, "schlag O"), (1, "trump L"), (2, "raise"), (3, "accept"),
    ])
    m, _ = play_cards(m, DEALER_SIDE_WINS)
    assert m.scores == (3 + 3 + 2, 4)
    again = Match.replay(BAVARIAN, m.history(), 0, (3, 4))
    assert again == m and again.events() == m.events()
    assert all(again.observe(s) == m.observe(s) for s in range(4))


def test_replaying_a_hand_dealt_twice_gives_an_equal_match() -> None:
    r = rules(players=3, bessere="redeal-penalty")
    deck = stacked_deck(r, PLAIN_3, 0, 10)
    m, _ = play_script(Match.new(r, 0).apply_deck(deck), [(1, "cut 10"), (1, "keep"), (1, "bessere?")])
    m, _ = play_script(m.apply_deck(deck), [(1, "cut 10"), (1, "keep"), (1, "schlag O"), (1, "trump L")])
    m, _ = play_cards(m, PAIR_WINS_3)
    assert m.scores == (2 + 2, 0, 2 + 2)
    assert [item[0] for item in m.history()].count("deck") == 2
    assert Match.replay(r, m.history()) == m
