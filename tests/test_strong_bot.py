"""The strong bot (`easy`, `medium`, `strong`): legal, blind to hidden cards, reproducible, and sensible.

- Seeded loops drive real matches of every preset and player count; at every decision a strong bot gets only
  `BotView.from_observation(match.observe(seat))` and must answer with one of its legal actions.
- It cannot reach hidden state: nothing reachable from its view is a match, an observation or an event, and
  twin matches that differ only in other seats' hidden cards give the same view, the same sampled worlds and
  the same decisions.
- The same seed gives the same choices.
- Its samples respect what the seat has seen (follow rules, Schlecken, the partner's signals, Blind tricks),
  and a few clear decisions come out as a Watten player would make them.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import random

import pytest

from watten_net.bots import LEVELS, BotView, make_bot
from watten_net.bots import sampling as sampling_module
from watten_net.bots import strong as strong_module
from watten_net.bots.heuristic import HeuristicBot
from watten_net.bots.sampling import Knowledge, Sampler, build_world
from watten_net.bots.strong import STRONG_LEVELS, StrongBot, hint
from watten_net.engine import Card, Event, Match, Observation, Rules, RuleViolation, canonical_deck, cards

from botdrive import play_hands

# Hands per preset and player count (8 presets x 4 player counts).
# The 1,000 hands, in CI: 32 hands × 32 preset/player cases = 1,024 (about 1¾ minutes on one core).
HANDS_PER_CASE = int(os.environ.get("STRONG_BOT_HANDS_PER_CASE", "32"))
CASES = [(name, players) for name in Rules.PRESET_NAMES for players in (2, 3, 4, 6)]
_BAVARIAN = Rules.preset("bavarian")
VARIANTS = {
    "schadet": dataclasses.replace(_BAVARIAN, schadet=True),
    "base-two": dataclasses.replace(_BAVARIAN, tight="base-two", target=11),
    "redeal-penalty": dataclasses.replace(_BAVARIAN, bessere="redeal-penalty", raise_cap="none"),
    "free-play": dataclasses.replace(Rules.preset("tyrolean", 6), follow="none"),
}


def _bot(seed: int, level: str = "easy") -> StrongBot:
    return StrongBot(seed, level, time_limit=None)  # no wall-clock cap: strictly reproducible


def _drive(rules: Rules, seed: int, hands: int, *, mix: float = 0.2,
           prefer: str = "") -> tuple[list[tuple[int, str]], list[StrongBot]]:
    """Strong bots in every seat (see `botdrive.play_hands`); returns their choices and the bots."""
    bots = [_bot(seed * 10 + s) for s in range(rules.players)]
    choices, _ = play_hands(rules, seed, hands, bots, mix=mix, prefer=prefer)
    return choices, bots


# ---------------------------------------------------------------------------------------------- legal
@pytest.mark.slow
@pytest.mark.parametrize(("preset", "players"), CASES)
def test_strong_bot_always_legal(preset: str, players: int) -> None:
    choices, bots = _drive(Rules.preset(preset, players), seed=players, hands=HANDS_PER_CASE)
    assert all(bot.fallbacks == 0 for bot in bots), "a search could not run (no usable sample)"
    assert any(action.startswith("play ") for _, action in choices)


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_strong_bot_legal_with_other_flags(variant: str) -> None:
    prefer = "schadet?" if variant == "schadet" else ""
    _, bots = _drive(VARIANTS[variant], seed=3, hands=2 * HANDS_PER_CASE, mix=0.3, prefer=prefer)
    assert all(bot.fallbacks == 0 for bot in bots)


@pytest.mark.slow
def test_strong_bot_plays_whole_matches_alone() -> None:
    # No random moves: the strong bots steer every decision, raises and answers included.
    for preset, players in (("bavarian", 4), ("south-tyrolean", 2)):
        choices, bots = _drive(Rules.preset(preset, players), seed=12, hands=12, mix=0.0)
        assert all(bot.fallbacks == 0 for bot in bots)
        kinds = {action.split()[0] for _, action in choices}
        assert {"play", "schlag", "trump"} <= kinds, kinds


# ---------------------------------------------------------------------------------------------- hidden state
def _reachable(root: object) -> list[object]:
    seen: set[int] = set()
    found: list[object] = []
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        found.append(obj)
        todo.extend(gc.get_referents(obj))
    return found


def test_the_view_reaches_no_match() -> None:
    """Everything the bot is given is its view: no match, observation or event is reachable from it."""
    rules = Rules.preset("bavarian", 4)
    m = _played(rules, seed=5, actions=14)
    view = BotView.from_observation(m.observe(m.waiting_for[0]))
    reachable = _reachable(view)
    assert not [o for o in reachable if isinstance(o, (Match, Observation, Event))]
    assert any(isinstance(o, Card) for o in reachable)  # the walk does reach inside the view


def _played(rules: Rules, seed: int, actions: int) -> Match:
    """A match after `actions` heuristic actions, stopped at a decision of a seat."""
    rng = random.Random(seed)
    deck = list(canonical_deck(rules.deck))
    rng.shuffle(deck)
    m = Match.new(rules, first_dealer=rng.randrange(rules.players)).apply_deck(deck)
    bots = [HeuristicBot(seed + s) for s in range(rules.players)]
    for _ in range(actions):
        seat = m.waiting_for[0]
        action = bots[seat].choose(BotView.from_observation(m.observe(seat)))
        assert action is not None
        m2, _ = m.apply(seat, action)
        if m2.needs_deck or m2.is_over:
            break
        m = m2
    return m


def _visible_cards(m: Match, seat: int) -> set[str]:
    obs = m.observe(seat)
    seen = {c.text for c in obs.hand}
    for event in obs.events:
        for key in ("cards", "card"):
            value = event.data.get(key)
            if isinstance(value, str):
                seen.add(value)
            elif isinstance(value, list):
                seen.update(str(v) for v in value)
    return seen


def _twin(m: Match, seat: int, rng: random.Random) -> Match | None:
    """The same match with two cards hidden from `seat` swapped in the deck (one of them in another seat's hand)."""
    history = m.history()
    deck_entry = next(i for i, item in enumerate(history) if item[0] == "deck")
    deck = list(history[deck_entry][1])
    visible = _visible_cards(m, seat)
    held = [c.text for s in range(m.rules.players) if s != seat for c in m.hands[s]]
    hidden = [c for c in deck if c not in visible]
    swappable = [c for c in held if c not in visible]
    for _ in range(200 if swappable else 0):
        x = rng.choice(swappable)
        y = rng.choice(hidden)
        if x == y:
            continue
        swapped = [y if c == x else x if c == y else c for c in deck]
        inputs = list(history)
        inputs[deck_entry] = ("deck", tuple(swapped))
        try:
            twin = Match.replay(m.rules, inputs, first_dealer=m.first_dealer, start_scores=None)
        except RuleViolation:
            continue
        if twin.hands != m.hands and twin.phase == m.phase and twin.waiting_for == m.waiting_for:
            return twin
    return None


@pytest.mark.parametrize(("preset", "players"), [("bavarian", 4), ("south-tyrolean", 2), ("blind", 4),
                                                 ("tyrolean", 3), ("wurf", 6)])
def test_twin_matches_differing_only_in_hidden_cards_get_the_same_decisions(
    preset: str, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = Rules.preset(preset, players)
    built: list[tuple[tuple[Card, ...], ...]] = []

    def recording(kn: Knowledge, deal: sampling_module.Deal) -> Match | None:
        """The bot's only way to a `Match`: record the hands of every world it builds."""
        world = build_world(kn, deal)
        if world is not None:
            built.append(world.hands)
        return world

    monkeypatch.setattr(strong_module, "build_world", recording)
    rng = random.Random(7)
    compared = 0
    for seed in range(40):
        m = _played(rules, seed=seed, actions=rng.randrange(2, 30))
        seat = m.waiting_for[0] if m.waiting_for else -1
        if seat < 0 or m.phase not in ("announce", "play"):
            continue
        twin = _twin(m, seat, rng)
        if twin is None:
            continue
        assert twin.hands[seat] == m.hands[seat] and twin.hands != m.hands
        view, twin_view = (BotView.from_observation(x.observe(seat)) for x in (m, twin))
        assert view == twin_view and view.signals == twin_view.signals
        worlds = []
        actions = []
        for v in (view, twin_view):
            built.clear()
            actions.append(_bot(seed, "easy").advise(v, signals=False))
            worlds.append(list(built))
        assert actions[0] == actions[1]
        assert worlds[0] == worlds[1] and worlds[0], "the sampled worlds depend on the view alone"
        # ... and they are samples, not the real deal: some sampled world differs from the real hands.
        assert any(hands != m.hands for hands in worlds[0])
        compared += 1
    assert compared >= 10


# ---------------------------------------------------------------------------------------------- reproducible
def test_same_seed_same_choices() -> None:
    rules = Rules.preset("bavarian", 4)
    first, _ = _drive(rules, seed=21, hands=4)
    second, _ = _drive(rules, seed=21, hands=4)
    assert first == second
    m = _played(rules, seed=3, actions=10)
    view = BotView.from_observation(m.observe(m.waiting_for[0]))
    assert _bot(9, "medium").advise(view) == _bot(9, "medium").advise(view)


def test_levels() -> None:
    assert set(STRONG_LEVELS) == {"easy", "medium", "strong"} and set(STRONG_LEVELS) <= set(LEVELS)
    for level in STRONG_LEVELS:
        bot = make_bot(level, 1)
        assert isinstance(bot, StrongBot) and bot.level == level
    samples = [StrongBot(1, level).samples for level in ("easy", "medium", "strong")]
    assert samples == sorted(samples) and len(set(samples)) == 3
    with pytest.raises(ValueError, match="levels are"):
        StrongBot(1, "grandmaster")


# ---------------------------------------------------------------------------------------------- what samples respect
def _deal_match(rules: Rules, dealer: int, hands: dict[int, str], rest: str = "") -> Match:
    """A 4-player match whose deal gives each seat the cards listed (first packet: the first three)."""
    n = rules.players
    table_order = [(dealer + 1 + i) % n for i in range(n)]
    given = {s: list(cards(text)) for s, text in hands.items()}
    used = {c for cs in given.values() for c in cs} | set(cards(rest))
    spare = [c for c in canonical_deck(rules.deck) if c not in used]
    for s in table_order:
        while len(given.setdefault(s, [])) < rules.hand_size:
            given[s].append(spare.pop())
    first = rules.first_packet
    stack = [c for s in table_order for c in given[s][:first]] + [c for s in table_order for c in given[s][first:]]
    stack += list(cards(rest)) + spare
    deck = stack[-4:] + stack[:-4]
    m = Match.new(rules, first_dealer=dealer).apply_deck(deck)
    m, _ = m.apply(m.cutter, "cut 4")
    if m.phase == "schlecken":
        m, _ = m.apply(m.cutter, "keep")
    return m


def _apply(m: Match, *actions: tuple[int, str]) -> Match:
    for seat, action in actions:
        m, _ = m.apply(seat, action)
    return m


def _deals(view: BotView, count: int = 60) -> list[sampling_module.Deal]:
    sampler = Sampler(Knowledge.of(view))  # type: ignore[arg-type]
    rng = random.Random(1)
    found = [sampler.deal(rng) for _ in range(count)]
    assert all(d is not None for d in found)
    return [d for d in found if d is not None]


def test_samples_respect_the_follow_rule() -> None:
    # Dealer 0, forehand 1 leads the Hauptschlag LO (Schlag O, trump L): seat 2 must follow with a trump or a
    # Kritischer if it has one; it throws E8, so it has none, and no sample may give it one.
    m = _deal_match(_BAVARIAN, 0, {
        1: "LO E9 H9 HA SA", 2: "E8 EA H8 S8 SK", 3: "HK LA LK L8 L9", 0: "E10 EK H10 S9 S10"})
    m = _apply(m, (1, "schlag O"), (0, "trump L"), (1, "play LO"), (2, "play E8"))
    view = BotView.from_observation(m.observe(3))
    rk_forced = {c for c in canonical_deck(32) if c.suit == "L" or c.text in ("HK", "S7", "E7")}
    for deal in _deals(view):
        assert not rk_forced & set(deal.hands[2])
        assert len(deal.hands[2]) == 4 and len(deal.hands[0]) == 5


def test_samples_read_the_partners_signal_and_schlecken() -> None:
    m = _deal_match(_BAVARIAN, 0, {1: "HK E9 H9 HA SA", 3: "LA LK L8 EU SU"})
    m = _apply(m, (1, "signal max"))
    view = BotView.from_observation(m.observe(3))
    assert view.signals == ((1, "max"),)
    assert all(Card.parse("HK") in deal.hands[1] for deal in _deals(view))
    # The opponents do not see the signal.
    assert BotView.from_observation(m.observe(0)).signals == ()
    # Cards taken at the cut are Kritische: seat 1 holds the Max, so the dealer (0) and the cutter (3), who took
    # one each, hold the Belli and the Spitz between them.
    seat_1 = BotView.from_observation(m.observe(1))
    for deal in _deals(dataclasses.replace(seat_1, taken_counts=(1, 0, 0, 1))):
        assert {c.text for c in deal.hands[0] + deal.hands[3]} >= {"S7", "E7"}
    # The cutter took three: with one Kritischer left for it after the dealer's, it bluffed with two.
    for deal in _deals(dataclasses.replace(seat_1, taken_counts=(1, 0, 0, 3))):
        assert len({"S7", "E7"} & {c.text for c in deal.hands[0]}) == 1
        assert len({"S7", "E7"} & {c.text for c in deal.hands[3]}) == 1


def test_blind_non_announcer_samples_only_announcements_that_fit_the_tricks() -> None:
    rules = Rules.preset("blind", 4)
    m = _deal_match(rules, 0, {1: "LO E9 H9 HA SA", 2: "E8 EA H8 S8 SK", 3: "LA LK L8 L9 EU", 0: "E10 EK H10 S9 L7"})
    m = _apply(m, (1, "schlag O"), (0, "trump L"), (1, "play E9"), (2, "play E8"), (3, "play L9"), (0, "play E10"))
    view = BotView.from_observation(m.observe(2))  # no announcer: sees neither Schlag nor trump
    assert view.schlag == "" and view.tricks[0][2] == 3
    kn = Knowledge.of(view)
    assert kn is not None and ("O", "L") in kn.announcements and len(kn.announcements) < 36
    for schlag, trump in kn.announcements:
        assert trump == "L" or schlag == "9", (schlag, trump)  # L9 won an E9 lead: a trump or a Schlag card


def test_sampled_worlds_reach_the_seats_public_state() -> None:
    rules = Rules.preset("bavarian", 4)
    m = _played(rules, seed=8, actions=20)
    seat = m.waiting_for[0]
    view = BotView.from_observation(m.observe(seat))
    kn = Knowledge.of(view)
    assert kn is not None
    for deal in _deals(view, 20):
        world = build_world(kn, deal)
        assert world is not None
        mirrored = BotView.from_observation(world.observe(seat))
        for name in ("hand", "phase", "stake", "current_trick", "tricks", "tricks_won", "hand_counts", "schlag"):
            assert getattr(mirrored, name) == getattr(view, name), name


# ---------------------------------------------------------------------------------------------- decisions
def test_strong_bot_signals_its_kritische_once() -> None:
    m = _deal_match(_BAVARIAN, 0, {1: "HK E9 H9 HA SA"})
    view = BotView.from_observation(m.observe(1))
    assert "signal max" in view.legal_actions
    bot = _bot(1)
    assert bot.choose(view) == "signal max"
    m = _apply(m, (1, "signal max"))
    assert _bot(1).choose(BotView.from_observation(m.observe(1))) != "signal max"
    assert hint(view, "easy")[0] != "signal max"  # a hint is the move itself


def test_strong_bot_takes_a_kritischer_at_the_cut() -> None:
    deck = list(canonical_deck(32))
    deck.remove(Card.parse("S7"))
    deck.insert(9, Card.parse("S7"))  # the bottom card of a 10-card lift
    m = Match.new(_BAVARIAN).apply_deck(deck)
    m, _ = m.apply(m.cutter, "cut 10")
    view = BotView.from_observation(m.observe(m.cutter))
    assert view.extra == {"schlecken_card": "S7"}
    assert _bot(1).choose(view) == "take"


def _two_tricks_to_seat_1() -> Match:
    """Schlag O, trump L: seat 1 took two tricks with the Max and the Belli, the Spitz fell; seat 1 leads next and
    its Rechter (LO) is now the highest card: the hand is won for seat 1's side."""
    m = _deal_match(_BAVARIAN, 0, {
        1: "HK S7 LO E9 H9", 2: "E8 EA H8 S8 SK", 3: "LA LK L8 L9 EU", 0: "E10 EK H10 E7 L7"})
    return _apply(m, (1, "schlag O"), (0, "trump L"),
                  (1, "play HK"), (2, "play E8"), (3, "play L8"), (0, "play E10"),
                  (1, "play S7"), (2, "play EA"), (3, "play L9"), (0, "play E7"))


def test_strong_bot_raises_a_won_hand_and_accepts_when_it_is_won() -> None:
    m = _two_tricks_to_seat_1()
    view = BotView.from_observation(m.observe(1))
    assert m.turn == 1 and view.tricks_won == (0, 2) and "raise" in view.legal_actions
    advice = _bot(2, "medium").advise(view, signals=False)
    assert advice.action == "raise" and advice.chance == 1.0
    # The other side raises instead: seat 1 accepts, it cannot lose.
    answer = BotView.from_observation(_apply(m, (0, "raise")).observe(1))
    assert answer.legal_actions == ("accept", "fold")
    assert _bot(2, "medium").choose(answer) == "accept"


def test_strong_bot_folds_a_lost_hand() -> None:
    # The mirror: seat 0's side would need all three tricks left against the highest card; a raise is folded.
    view = BotView.from_observation(_apply(_two_tricks_to_seat_1(), (1, "raise")).observe(0))
    assert view.legal_actions == ("accept", "fold")
    assert _bot(2, "medium").choose(view) == "fold"


def test_strong_bot_throws_low_when_it_cannot_win() -> None:
    # Schlag O, trump L; seat 3 plays last and the opponents hold the trick with the Max: nothing of seat 3's
    # beats it, so it throws a low card and keeps its Aces.
    m = _deal_match(_BAVARIAN, 3, {
        0: "LA H8 L10 SA SK", 1: "LK E8 E10 H10 HU", 2: "HK EO L7 S9 S10", 3: "EA EK E9 H9 HA"})
    m = _apply(m, (0, "schlag O"), (3, "trump L"), (0, "play LA"), (1, "play E8"), (2, "play HK"))
    assert m.turn == 3
    view = BotView.from_observation(m.observe(3))
    assert _bot(4, "medium").advise(view, signals=False).action in ("play E9", "play H9")


def test_hint_gives_a_legal_move_and_a_chance() -> None:
    rules = Rules.preset("south-tyrolean", 2)
    m = _played(rules, seed=2, actions=6)
    view = BotView.from_observation(m.observe(m.waiting_for[0]))
    action, chance = hint(view, "easy")
    assert action in view.legal_actions and not action.startswith("signal ")
    if m.phase in ("announce", "play"):
        assert chance is not None and 0.0 <= chance <= 1.0


def test_strong_bot_without_rules_still_plays_legally() -> None:
    view = BotView(seat=0, legal_actions=("play HK", "play E8"), hand=("HK", "E8"), phase="play")
    assert _bot(1).choose(view) in view.legal_actions


# ---------------------------------------------------------------------------------------------- docs/rules.md 6
def test_a_raise_during_the_announcement_is_answered_by_a_search_and_the_hint() -> None:
    """From the first packet on a seat may raise; the other side's answer is searched in worlds that hold the
    pending raise in the announcement (no fallback), and the hint gives the same kind of move."""
    m = _apply(_deal_match(_BAVARIAN, 0, {1: "E9 H9 L8", 2: "HK S7 E7"}), (2, "raise"))
    assert m.phase == "announce"
    view = BotView.from_observation(m.observe(1))
    assert view.phase == "announce" and view.legal_actions == ("accept", "fold")
    kn = Knowledge.of(view)
    assert kn is not None
    for deal in _deals(view, 10):
        world = build_world(kn, deal)
        assert world is not None and world.raise_pending == (3, 2) and world.legal_actions(1) == ["accept", "fold"]
    bot = _bot(1)
    assert bot.choose(view) in ("accept", "fold") and bot.fallbacks == 0
    assert hint(view, "easy")[0] in ("accept", "fold")
    m = _apply(m, (3, "accept"))
    view = BotView.from_observation(m.observe(1))
    assert view.stake == 3 and "schlag O" in view.legal_actions
    for deal in _deals(view, 10):
        world = build_world(kn := Knowledge.of(view), deal)  # type: ignore[arg-type]
        assert world is not None and world.value == 3 and world.last_raise_side == 0
    assert _bot(1).choose(view).startswith("schlag ")


def test_bots_raise_on_two_kritische_on_their_turn_to_announce() -> None:
    m = _deal_match(_BAVARIAN, 0, {1: "HK S7 E9"})
    view = BotView.from_observation(m.observe(1))
    assert "raise" in view.legal_actions and "schlag 9" in view.legal_actions
    assert HeuristicBot(1).choose(view) == "raise"
    assert _bot(1).choose(view) in ("raise", "signal max", "signal belli")
    assert _bot(1).advise(view, signals=False).action == "raise"
    weak = BotView.from_observation(_deal_match(_BAVARIAN, 0, {1: "E8 H9 L10"}).observe(1))
    assert HeuristicBot(1).choose(weak) != "raise"
    assert BotView.from_observation(_deal_match(dataclasses.replace(_BAVARIAN, raise_from="trump"), 0,
                                                 {1: "HK S7 E9"}).observe(1)).legal_actions.count("raise") == 0
