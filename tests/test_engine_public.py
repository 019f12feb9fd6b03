"""`PublicMatch`, the engine of a trustless host: the same match as `Match` from public information only.

The differential tests play random matches with `Match` (every preset but blind, 2/3/4/6 players, and the flags
no preset turns on) and run a `PublicMatch` in lockstep, fed only with what a trustless host learns: the deck
size, every action, each played card with its deck position, the Maschine when `Match` shows one, and the
openings the public match asks for at a hand's end. Both must agree on every public event, trick, score and
Bummerl, and honest play must never break an obligation.

The cheating tests stack decks (tests/stacking.py) and do what `Match` refuses.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest

from watten_net.engine import Card, Event, Match, Rules, RuleViolation, canonical_deck
from watten_net.engine.public import PublicMatch

from stacking import stacked_deck

PRESETS = [name for name in Rules.PRESET_NAMES if name != "blind"]
CASES = [(name, players) for name in PRESETS for players in (2, 3, 4, 6)]
FLAG_VARIANTS: list[dict[str, Any]] = [
    {"schadet": True},
    {"schadet": True, "players": 6},
    {"follow_released": False},
    {"schlecken_bluff": False},
    {"bessere": "redeal-penalty"},
    {"bessere": "redeal-penalty", "players": 3},
    {"announce_after": 5},
    {"announce_after": 5, "players": 2},
    {"tight": "base-two"},
    {"raise_cap": "none", "raise_step": 2},
    {"schneider": True, "target": 5, "bummerl_limit": 2},
    {"raise_from": "trump"},
]
HANDS_PER_CASE = 60  # 28 cases x 60 + 12 variants x 80: about 2,600 hands in lockstep

SEEN: Counter[str] = Counter()  # event kinds, obligation kinds and caught cheats reached by the lockstep runs

# Match's events as a trustless host may see them: kind, seat, and the public part of the data.
_SAME_DATA = {
    "hand-start", "cut", "take", "keep", "schlag", "trump", "swap?", "swap", "bessere?", "bessere", "redeal",
    "raise", "accept", "fold", "concede", "schadet?", "schadet", "signal", "play", "trick", "packet",
    "bluff-penalty", "hand-end", "match-end", "forfeit",
}


def _public(event: Event) -> tuple[Any, ...] | None:
    """The part of an event both engines must agree on (None: an event only one of them has)."""
    kind, data = event.kind, event.data
    if kind in _SAME_DATA:
        return kind, event.seat, data, event.to if kind == "signal" else None
    if kind == "deal":
        return kind, event.seat, data["packet"], data["positions"]
    if kind in ("see", "took"):
        return kind, event.seat, data["position"]
    if kind == "aside":
        return kind, event.seat, data["count"]
    if kind == "maschine":
        return kind, event.seat, data["cards"]
    return None


def _public_events(events: Iterable[Event]) -> list[tuple[Any, ...]]:
    return [p for p in map(_public, events) if p is not None]


class Lockstep:
    """A Match and a PublicMatch side by side; the public one is fed only what a trustless host learns."""

    def __init__(self, rules: Rules, first_dealer: int) -> None:
        self.rules = rules
        self.m = Match.new(rules, first_dealer)
        self.p = PublicMatch.new(rules, first_dealer)
        self.start_bummerl = self.p.bummerl
        self.cards: dict[int, Card] = {}  # the deck of the attempt: what the seats' clients decrypt between them
        self.position: dict[Card, int] = {}

    def deal(self, deck: list[Card]) -> None:
        self.m = self.m.apply_deck(deck)
        self.p = self.p.apply_sealed_deck(len(deck))
        self.cards = dict(enumerate(deck))
        self.position = {card: k for k, card in self.cards.items()}

    def forfeit(self, seat: int) -> None:
        self.m, events = self.m.forfeit(seat)
        self.p, public = self.p.forfeit(seat)
        self._agree(events, public)

    def step(self, seat: int, action: str) -> list[Event]:
        if action in ("raise", "accept", "fold") and self.m.phase == "announce":
            SEEN[action + "-in-announcement"] += 1
        self.m, events = self.m.apply(seat, action)
        if action.startswith("play "):
            position = self.position[Card.parse(action[5:])]
            self.p, public = self.p.apply(seat, action, position=position)
        else:
            self.p, public = self.p.apply(seat, action)
        public = list(public)
        for event in events:
            if event.kind == "maschine":  # Match shows it at once; in a trustless deal the holder claims it
                claim = {self.position[Card.parse(text)]: Card.parse(text) for text in event.data["cards"]}
                self.p, more = self.p.claim_maschine(event.seat, claim)
                public += more
        public += self._settle()
        self._agree(events, public)
        return events

    def _settle(self) -> list[Event]:
        """Every honest seat opens what it is asked for at the end of a hand."""
        out: list[Event] = []
        while self.p.phase == "settle":
            seat, wanted = next(iter(self.p.openings_wanted.items()))
            self.p, events = self.p.open_cards(seat, {k: self.cards[k] for k in wanted})
            SEEN["opened"] += len(wanted)
            out += events
        return out

    def _agree(self, events: list[Event], public: list[Event]) -> None:
        assert _public_events(public) == _public_events(events)
        for event in public:
            SEEN[event.kind] += 1
            assert event.kind not in ("violation", "not-opened"), event
            if event.kind == "obligation":
                SEEN["obligation-" + event.data["kind"]] += 1
            assert event.kind == "signal" or event.to is None, event  # all public but a partner's signal
            if event.kind not in ("play", "trick", "maschine", "opened"):  # no card but those opened
                assert "card" not in event.data and "cards" not in event.data, event
        self.check_state()

    def check_state(self) -> None:
        m, p = self.m, self.p
        for name in (
            "phase", "hand_number", "attempt", "dealer", "scores", "bummerl", "value", "gespannt", "raise_pending",
            "last_raise_side", "schlag", "trump", "tricks", "tricks_won", "trick", "trick_seats", "is_over",
            "winners", "series_over", "waiting_for", "played_cards", "signals_sent",
        ):
            assert getattr(m, name) == getattr(p, name), name
        for seat in range(m.rules.players):  # what a seat's view is built from
            known, public = m.observe(seat, history=False), p.observe(seat, history=False)
            assert (known.partners, known.announce_step) == (public.partners, public.announce_step), seat
        if m.phase in ("deal", "over"):
            return
        for seat in range(self.rules.players):
            assert sorted(p.positions_of(seat)) == sorted(self.position[c] for c in m.hands[seat]), seat
            self._check_legal(seat)

    def _check_legal(self, seat: int) -> None:
        m, p = self.m, self.p
        exact = [a for a in m.legal_actions(seat) if not a.startswith("play ")]
        public = [a for a in p.legal_actions(seat) if a not in ("play", "maschine")]
        # The host cannot see whether a Schlecken card may be taken or the forehand holds the Hauptschlag.
        assert set(exact) <= set(public) and set(public) - set(exact) <= {"take", "schadet?"}, (exact, public)
        plays = sorted(a[5:] for a in m.legal_actions(seat) if a.startswith("play "))
        assert ("play" in p.legal_actions(seat)) == bool(plays)
        if plays:
            hand = {self.position[c]: c for c in m.hands[seat]}
            assert sorted(c.text for _, c in p.legal_plays(seat, hand)) == plays


def _shuffled(rules: Rules, rng: random.Random) -> list[Card]:
    deck = list(canonical_deck(rules.deck))
    rng.shuffle(deck)
    return deck


def _run(rules: Rules, seed: int, hands: int) -> Lockstep:
    """Random legal play through `hands` hands (new matches as needed); every step checked in lockstep.

    Now and then the run forks: a copy of the public match breaks a rule the host cannot check live, plays the
    hand to its end honestly, and must be caught (the lockstep itself goes on unchanged).
    """
    rng = random.Random(seed)
    table = Lockstep(rules, rng.randrange(rules.players))
    played = steps = 0
    while played < hands:
        steps += 1
        assert steps < 50_000, "a playout did not end"
        if table.m.is_over:
            _check_replay(table, rules)
            first = rng.randrange(rules.players)
            if table.m.series_over:
                table = Lockstep(rules, first)
            else:
                table.m, table.p = table.m.next_match(), table.p.next_match()
                table.start_bummerl = table.p.bummerl
            continue
        if table.m.needs_deck:
            if rng.random() < 0.02:
                table.forfeit(rng.randrange(rules.players))
                played += 1
            else:
                table.deal(_shuffled(rules, rng))
            continue
        seats = list(table.m.waiting_for)
        if rng.random() < 0.15:
            seats = [s for s in range(rules.players) if table.m.legal_actions(s)]
        seat = rng.choice(seats)
        if rng.random() < 0.3:
            _fork_a_cheat(table, seat, rng)
        events = table.step(seat, _pick(table.m.legal_actions(seat), rng))
        played += sum(e.kind == "hand-end" for e in events)
    return table


def _pick(actions: list[str], rng: random.Random) -> str:
    """A random action, with fewer raises and folds than uniform, so that more hands are played out."""
    action = rng.choice(actions)
    if action in ("raise", "fold") and rng.random() < 0.7:
        action = rng.choice(actions)
    return action


# --------------------------------------------------------------------------------------------------
# Cheating forks: break a hidden-information rule on a copy of the public match and finish the hand honestly
# --------------------------------------------------------------------------------------------------


def _fork_a_cheat(table: Lockstep, seat: int, rng: random.Random) -> None:
    m, p = table.m, table.p
    exact, public = m.legal_actions(seat), p.legal_actions(seat)
    if m.phase == "play" and seat == m.turn and m.raise_pending is None and not m.schadet_pending:
        refused = [c for c in m.hands[seat] if "play " + c.text not in exact]
        if refused:
            card = rng.choice(refused)
            forked, _ = p.apply(seat, "play " + card.text, position=table.position[card])
            _caught(table, forked, seat, "must-play-trump")
    if m.phase == "schlecken" and "take" in public and "take" not in exact:
        forked, _ = p.apply(seat, "take")
        _caught(table, forked, seat, "took-non-kritischer")
    if "schadet?" in public and "schadet?" not in exact:
        forked, _ = p.apply(seat, "schadet?")
        forked, _ = forked.apply(forked.waiting_for[0], "schadet no")
        _caught(table, forked, seat, "schadet-without-hauptschlag")


def _caught(table: Lockstep, p: PublicMatch, cheat: int, reason: str) -> None:
    """Finish the hand honestly; the cheat must be the one breach found, and cost its side the hand."""
    events = _finish_hand(p, table.cards)
    found = [(e.seat, e.data["reason"]) for e in events if e.kind == "violation"]
    assert found == [(cheat, reason)], found
    SEEN["caught-" + reason] += 1
    end = next(e for e in events if e.kind in ("hand-end", "redeal"))
    side = p.hand_sides[cheat]
    if end.kind == "redeal":  # the attempt's value goes to the other side, on top of the redeal's 2
        assert end.data["violations"][0]["seat"] == cheat
        return
    decided = end.data["decided"]
    if decided["side"] == side:
        assert (end.data["side"], end.data["reason"]) == (1 - side, "violation")
        gained = [new - old for new, old in zip(end.data["scores"], p.scores, strict=True)]
        assert all(gained[slot] >= min(decided["points"], 2) for slot in p.side_scorers[1 - side])
        assert all(gained[slot] in (0, 2) for slot in p.side_scorers[side])  # at most the bluff penalty
    else:
        assert (end.data["side"], end.data["reason"]) == (decided["side"], decided["reason"])


def _finish_hand(p: PublicMatch, cards: dict[int, Card]) -> list[Event]:
    """Play the rest of the hand as honest clients that know their cards: the first legal choice each time."""
    events: list[Event] = []
    kritische = set(p.rules.kritische_cards)
    skip = {"take", "swap?", "bessere?", "raise", "concede", "schadet?", "maschine", "fold"}
    while p.phase not in ("deal", "over"):
        held = {s: {k: cards[k] for k in p.positions_of(s)} for s in range(p.rules.players)}
        owner = next((s for s in range(p.rules.players) if "maschine" in p.legal_actions(s)
                      and kritische <= set(held[s].values())), None)
        if owner is not None:
            p, caused = p.claim_maschine(owner, {k: c for k, c in held[owner].items() if c in kritische})
        elif p.phase == "settle":
            seat, wanted = next(iter(p.openings_wanted.items()))
            p, caused = p.open_cards(seat, {k: cards[k] for k in wanted})
        else:
            seat = p.waiting_for[0]
            actions = p.legal_actions(seat)
            if "play" in actions:
                position, card = p.legal_plays(seat, held[seat])[0]
                p, caused = p.apply(seat, "play " + card.text, position=position)
            else:
                p, caused = p.apply(seat, next(a for a in actions if a not in skip and not a.startswith("signal")))
        events += caused
    return events


def _check_replay(table: Lockstep, rules: Rules) -> None:
    again = PublicMatch.replay(rules, table.p.history(), table.p.first_dealer, bummerl=table.start_bummerl)
    assert again.events() == table.p.events()
    assert again.scores == table.p.scores and again.bummerl == table.p.bummerl


@pytest.mark.parametrize(("preset", "players"), CASES, ids=[f"{p}-{n}p" for p, n in CASES])
def test_public_match_agrees_with_match(preset: str, players: int) -> None:
    _run(Rules.preset(preset, players), seed=players * 101 + len(preset), hands=HANDS_PER_CASE)


@pytest.mark.parametrize("flags", FLAG_VARIANTS, ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()))
def test_public_match_agrees_with_match_for_flags_no_preset_sets(flags: dict[str, Any]) -> None:
    players = flags.get("players", 4)
    rules = dataclasses.replace(Rules.preset("bavarian", players), **flags)
    _run(rules, seed=17, hands=80)


@pytest.mark.slow
def test_the_differential_runs_reach_every_obligation_and_settlement() -> None:
    """The lockstep runs above must reach the hidden-information cases, or their agreement proves little."""
    SEEN.clear()  # independent of which other tests ran: a sample of the same runs
    for preset, players in CASES[::3]:
        _run(Rules.preset(preset, players), seed=players, hands=20)
    for flags in FLAG_VARIANTS[:6]:
        _run(dataclasses.replace(Rules.preset("bavarian", flags.get("players", 4)), **flags), seed=5, hands=40)
    wanted = {
        "obligation-follow", "obligation-schlecken", "obligation-schadet", "open?", "opened", "maschine",
        "bluff-penalty", "redeal", "took", "aside", "forfeit", "match-end", "caught-must-play-trump",
        "caught-took-non-kritischer", "caught-schadet-without-hauptschlag",
        "raise-in-announcement", "accept-in-announcement", "fold-in-announcement",
    }
    missing = {kind for kind in wanted if SEEN[kind] == 0}
    assert not missing, f"never reached: {sorted(missing)}"


# --------------------------------------------------------------------------------------------------
# Scenarios: a stacked deck, the public match alone, and the cards each honest client would know
# --------------------------------------------------------------------------------------------------

BAVARIAN = Rules.preset("bavarian")
# Seat 0 deals, seat 1 is the forehand, seat 3 cuts 10; sides {0, 2} and {1, 3}. Schlag O, trump L: the
# Hauptschlag LO leads the hand, so every follower holding a Laub card or a Kritischer must play one.
HANDS = {1: "LO EA HA S8 SK", 2: "LA E8 H7 SA EK", 3: "E9 H8 S9 HU EU", 0: "HK S7 H9 S10 LK"}


class Scene:
    """A PublicMatch on a known deck: `deck` is what the seats' clients decrypt; the match never sees it."""

    def __init__(self, rules: Rules, deck: list[Card], *, dealer: int = 0, start_scores: Any = None) -> None:
        self.cards = dict(enumerate(deck))
        self.position = {card: k for k, card in self.cards.items()}
        self.p = PublicMatch.new(rules, dealer, start_scores).apply_sealed_deck(len(deck))
        self.events: list[Event] = []

    def do(self, *script: tuple[int, str]) -> Scene:
        for seat, action in script:
            if action.startswith("play "):
                self.p, events = self.p.apply(seat, action, position=self.at(action[5:]))
            else:
                self.p, events = self.p.apply(seat, action)
            self.events += events
        return self

    def at(self, card: str) -> int:
        return self.position[Card.parse(card)]

    def tricks(self, text: str) -> Scene:
        """Play tricks written 'LO E8 E9 HK / ...', each from its leader on (the public match says who)."""
        for trick in text.split("/"):
            for card in trick.split():
                self.do((self.p.turn, "play " + card))
        return self

    def open_all(self, *, silent: Iterable[int] = ()) -> Scene:
        while self.p.phase == "settle":
            seat, wanted = next(iter(self.p.openings_wanted.items()))
            if seat in silent:
                self.p, events = self.p.no_opening(seat)
            else:
                self.p, events = self.p.open_cards(seat, {k: self.cards[k] for k in wanted})
            self.events += events
        return self

    def kinds(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]


def scene(rules: Rules = BAVARIAN, hands: dict[int, str] = HANDS, *, takes: dict[int, str] | None = None,
          **kwargs: Any) -> Scene:
    """Cut 10; at Schlecken the cutter, then the dealer, take the cards of `takes` and keep."""
    deck = stacked_deck(rules, hands, kwargs.get("dealer", 0), 10, takes=takes)
    s = Scene(rules, deck, **kwargs)
    s.do((s.p.cutter, "cut 10"))
    for seat in (s.p.cutter, s.p.dealer):
        for _ in (takes or {}).get(seat, "").split():
            s.do((seat, "take"))
        if s.p.phase == "schlecken" and s.p.schlecken_seat == seat:
            s.do((seat, "keep"))
    return s


def announced(s: Scene) -> Scene:
    return s.do((1, "schlag O"), (0, "trump L"))


def _stacked_match(rules: Rules = BAVARIAN, hands: dict[int, str] = HANDS) -> Match:
    m = Match.new(rules, 0).apply_deck(stacked_deck(rules, hands, 0, 10))
    for seat, action in ((3, "cut 10"), (3, "keep"), (1, "schlag O"), (0, "trump L")):
        m, _ = m.apply(seat, action)
    return m


def test_blind_is_refused_with_a_reason() -> None:
    with pytest.raises(RuleViolation) as refused:
        PublicMatch.new(Rules.preset("blind"))
    assert refused.value.reason == "blind-not-trustless"
    assert "blind" in refused.value.message


def test_the_deal_map_is_public_and_holds_no_card() -> None:
    s = announced(scene())
    deals = s.kinds("deal")
    assert all(e.to is None and "cards" not in e.data for e in deals)
    assert sorted(s.p.positions_of(2)) == sorted(s.at(c) for c in HANDS[2].split())
    assert s.p.observe(2).positions == s.p.positions_of(2)


def test_breaking_the_follow_rule_is_caught_at_hand_end_and_costs_the_hand() -> None:
    # Match refuses the E8: seat 2 holds the Laub LA under a Hauptschlag lead.
    m, _ = _stacked_match().apply(1, "play LO")
    with pytest.raises(RuleViolation) as refused:
        m.apply(2, "play E8")
    assert refused.value.reason == "must-play-trump"
    # The trustless host cannot know it: it records an obligation and settles it at the end of the hand.
    s = announced(scene()).tricks("LO E8 E9 HK / S7 EA H7 H8 / LK HA SA S9")
    obligations = s.kinds("obligation")
    assert [(e.seat, e.data["kind"], e.data["trick"]) for e in obligations] == [(2, "follow", 0), (3, "follow", 0)]
    # Seat 2 opens what it still holds (LA EK), seat 3 too (HU EU); seats 0 and 1 keep theirs sealed.
    assert s.p.openings_wanted == {2: tuple(sorted((s.at("LA"), s.at("EK")))), 3: tuple(sorted((s.at("HU"),
                                                                                               s.at("EU"))))}
    s.open_all()
    [violation] = s.kinds("violation")
    assert (violation.seat, violation.data["reason"], violation.data["trick"]) == (2, "must-play-trump", 0)
    [end] = s.kinds("hand-end")
    # Side {0, 2} took three tricks, but broke an obligation: the hand's 2 points go to {1, 3}.
    assert end.data["decided"] == {"side": 0, "points": 2, "reason": "tricks"}
    assert (end.data["side"], end.data["points"], end.data["reason"]) == (1, 2, "violation")
    assert s.p.scores == (0, 2)


def test_an_honest_follower_without_trumps_keeps_its_obligation() -> None:
    s = announced(scene()).tricks("LO LA E9 HK / S7 EA H7 H8 / LK HA SA S9").open_all()
    assert [e.seat for e in s.kinds("obligation")] == [3]  # LA and HK satisfy the rule; seat 3 had nothing
    assert [e.seat for e in s.kinds("opened")] == [3]  # every other unplayed card stays sealed
    assert not s.kinds("violation")
    assert s.p.scores == (2, 0)


def test_a_violation_by_the_losing_side_changes_nothing_but_is_recorded() -> None:
    hands = {1: "LO EA HA S8 SK", 2: "LA E8 H7 SA EK", 3: "E9 H8 S9 HU LU", 0: "HK S7 H9 S10 LK"}
    # Seat 3 (side {1, 3}) holds LU and throws E9; side {0, 2} wins anyway.
    s = announced(scene(hands=hands)).tricks("LO LA E9 HK / S7 EA H7 H8 / LK HA SA S9").open_all()
    [violation] = s.kinds("violation")
    assert (violation.seat, violation.data["reason"]) == (3, "must-play-trump")
    [end] = s.kinds("hand-end")
    assert (end.data["side"], end.data["reason"]) == (0, "tricks")
    assert s.p.scores == (2, 0)


def test_a_seat_that_does_not_open_breaks_its_obligation() -> None:
    s = announced(scene()).tricks("LO LA E9 HK / S7 EA H7 H8 / LK HA SA S9").open_all(silent=[3])
    [violation] = s.kinds("violation")
    assert (violation.seat, violation.data["reason"]) == (3, "not-opened")
    assert s.p.scores == (2, 0)  # seat 3 lost anyway


def test_a_card_from_another_seats_position_is_refused() -> None:
    s = announced(scene())
    with pytest.raises(RuleViolation) as refused:
        s.p.apply(1, "play LA", position=s.at("LA"))
    assert refused.value.reason == "not-your-position"
    with pytest.raises(RuleViolation) as refused:
        s.p.apply(1, "play LO")  # no position
    assert refused.value.reason == "no-position"
    with pytest.raises(RuleViolation) as refused:
        s.p.apply(1, "play E7", position=s.at("E7"))  # a position of the undealt stack
    assert refused.value.reason == "not-your-position"


def test_a_position_played_twice_is_refused() -> None:
    s = announced(scene()).tricks("LO LA E9 HK")
    with pytest.raises(RuleViolation) as refused:
        s.p.apply(0, "play HK", position=s.at("HK"))
    assert refused.value.reason == "position-played"


def test_a_card_seen_twice_is_refused() -> None:
    s = announced(scene()).tricks("LO")
    # Seat 2 claims its position of LA holds the LO, which was opened at another position already.
    with pytest.raises(RuleViolation) as refused:
        s.p.apply(2, "play LO", position=s.at("LA"))
    assert refused.value.reason == "card-seen-twice"
    with pytest.raises(RuleViolation) as refused:
        s.p.apply(2, "play S6", position=s.at("LA"))  # no Sechs in a 32-card deck
    assert refused.value.reason == "not-in-deck"


def test_the_dealer_taking_a_non_kritischer_is_caught_even_with_schlecken_bluff() -> None:
    # The cutter 3 takes E7 (a Kritischer); then the dealer 0 takes SK, which only a Kritischer may be.
    hands = {1: "LO EA HA S8 E10", 2: "LA E8 H7 SA EK", 3: "E9 H8 S9 HU", 0: "HK S7 H9 LK"}
    s = scene(hands=hands, takes={3: "E7", 0: "SK"})
    assert [(e.seat, e.data["kind"]) for e in s.kinds("obligation")] == [(0, "schlecken")]
    announced(s).tricks("LO LA E7 HK / S7 EA H7 H8 / LK HA SA S9")
    assert s.p.openings_wanted == {0: (s.at("SK"),)}  # the cutter's E7 is its own business with schlecken_bluff
    s.open_all()
    [violation] = s.kinds("violation")
    assert (violation.seat, violation.data["reason"]) == (0, "took-non-kritischer")
    [end] = s.kinds("hand-end")
    assert (end.data["side"], end.data["points"], end.data["reason"]) == (1, 2, "violation")


def test_without_schlecken_bluff_the_cutter_taking_a_non_kritischer_is_caught() -> None:
    rules = dataclasses.replace(BAVARIAN, schlecken_bluff=False)
    hands = {1: "LO EA HA S8 E10", 2: "LA E8 H7 SA EK", 3: "E9 H8 S9 HU", 0: "HK S7 H9 LK SK"}
    s = announced(scene(rules, hands, takes={3: "S10"}))
    s.tricks("LO LA E9 HK / S7 EA H7 H8 / LK HA SA S9").open_all()
    [violation] = s.kinds("violation")
    assert (violation.seat, violation.data["reason"]) == (3, "took-non-kritischer")
    assert "position" in violation.data["message"]
    assert s.p.scores == (2, 0)  # side {1, 3} lost anyway
    assert not s.kinds("bluff-penalty")  # without schlecken_bluff it is a breach, not a bluff


def test_a_breach_found_at_a_redeal_gives_the_attempts_value_to_the_other_side() -> None:
    rules = dataclasses.replace(BAVARIAN, bessere="redeal-penalty")
    hands = {1: "LO EA HA S8 E10", 2: "LA E8 H7 SA EK", 3: "E9 H8 S9 HU", 0: "HK S7 H9 LK"}
    s = scene(rules, hands, takes={3: "E7", 0: "SK"}).do((1, "bessere?"))
    assert s.p.openings_wanted == {0: (s.at("SK"),)}
    s.open_all()
    [violation] = s.kinds("violation")
    assert (violation.seat, violation.data["reason"]) == (0, "took-non-kritischer")
    [redeal] = s.kinds("redeal")
    # The redeal's 2 go to {0, 2} (seat 1 called it); the attempt's 2 to {1, 3} (seat 0 broke its obligation).
    assert redeal.data["scores"] == [2, 2] and s.p.scores == (2, 2)
    assert (s.p.phase, s.p.hand_number, s.p.attempt, s.p.dealer) == ("deal", 0, 1, 0)


def test_a_bluffing_cutter_opens_the_taken_card_and_the_opponents_score_2() -> None:
    hands = {1: "LO EA HA S8 E10", 2: "LA E8 H7 SA EK", 3: "E9 H8 S9 HU", 0: "HK S7 H9 LK SK"}
    s = announced(scene(hands=hands, takes={3: "S10"})).tricks("LO LA E9 HK / S7 EA H7 H8 / LK HA SA S9")
    assert s.p.openings_wanted[3] == tuple(sorted((s.at("S10"), s.at("HU"))))  # the bluff check and trick 1
    s.open_all()
    assert not s.kinds("violation")
    [penalty] = s.kinds("bluff-penalty")
    assert penalty.seat == 3
    assert s.p.scores == (4, 0)  # the hand's 2 and the bluff's 2


def test_a_maschine_is_claimed_with_its_openings() -> None:
    hands = {1: "LO EA HA S8 E10", 2: "LA E8 H7 SA EK", 3: "E9 H8 S9 HU SK", 0: "HK S7 E7 LK H9"}
    s = scene(hands=hands).do((1, "schlag O"))
    claim = {s.at(c): c for c in ("HK", "S7", "E7")}
    with pytest.raises(RuleViolation) as refused:
        s.p.claim_maschine(0, claim)  # the second packet is not dealt yet
    assert refused.value.reason == "not-now"
    s.do((0, "trump L"))
    s.p, events = s.p.claim_maschine(0, claim)
    [end] = [e for e in events if e.kind == "hand-end"]
    assert (end.data["side"], end.data["points"], end.data["reason"]) == (0, 2, "maschine")


def test_a_false_maschine_claim_is_refused() -> None:
    hands = {1: "LO EA HA S8 E10", 2: "LA E8 H7 SA EK", 3: "E9 H8 S9 HU SK", 0: "HK S7 E7 LK H9"}
    s = announced(scene(hands=hands))
    for seat, claim, reason in [
        (0, {s.at("HK"): "HK", s.at("S7"): "S7"}, "not-a-maschine"),
        (0, {s.at("HK"): "HK", s.at("S7"): "S7", s.at("LK"): "LK"}, "not-a-maschine"),
        (1, {s.at("HK"): "HK", s.at("S7"): "S7", s.at("E7"): "E7"}, "not-your-position"),
    ]:
        before = s.p
        with pytest.raises(RuleViolation) as refused:
            s.p.claim_maschine(seat, claim)
        assert refused.value.reason == reason, claim
        assert s.p is before


def test_an_unshown_maschine_is_caught_when_its_cards_are_opened() -> None:
    hands = {1: "LO EA HA S8 E10", 2: "LA E8 H7 SA EK", 3: "E9 H8 S9 HU SK", 0: "HK S7 E7 LK H9"}
    s = announced(scene(hands=hands)).tricks("LO LA E9 HK / S7 EA H7 H8 / E7 HA SA S9").open_all()
    [violation] = s.kinds("violation")
    assert (violation.seat, violation.data["reason"]) == (0, "maschine-not-shown")
    assert s.p.scores == (0, 2)


def test_schadet_without_the_hauptschlag_is_caught() -> None:
    rules = dataclasses.replace(BAVARIAN, schadet=True)
    hands = {1: "LU EA HA S8 SK", 2: "LA E8 H7 SA EK", 3: "E9 H8 S9 HU EU", 0: "HK S7 H9 S10 LK"}
    s = announced(scene(rules, hands)).do((1, "schadet?"), (3, "schadet no"))
    s.tricks("EA E8 E9 HK / S7 HA H7 H8 / LK SK SA S9")
    assert s.p.openings_wanted == {1: tuple(sorted((s.at("LU"), s.at("S8"))))}
    s.open_all()
    [violation] = s.kinds("violation")
    assert (violation.seat, violation.data["reason"]) == (1, "schadet-without-hauptschlag")


def test_an_honest_schadet_needs_no_opening_once_the_hauptschlag_is_played() -> None:
    rules = dataclasses.replace(BAVARIAN, schadet=True)
    s = announced(scene(rules)).do((1, "schadet?"), (3, "schadet yes"))
    s.tricks("LO LA E9 HK / S7 EA H7 H8 / LK HA SA S9").open_all()
    assert not s.kinds("violation")
    assert 1 not in {e.seat for e in s.kinds("opened")}


def test_openings_must_be_exactly_the_wanted_positions() -> None:
    s = announced(scene()).tricks("LO E8 E9 HK / S7 EA H7 H8 / LK HA SA S9")
    with pytest.raises(RuleViolation) as refused:
        s.p.open_cards(2, {s.at("LA"): "LA"})
    assert refused.value.reason == "wrong-positions"
    with pytest.raises(RuleViolation) as refused:
        s.p.open_cards(1, {s.at("S8"): "S8"})
    assert refused.value.reason == "nothing-to-open"
    with pytest.raises(RuleViolation) as refused:
        s.p.apply(1, "raise")
    assert refused.value.reason == "settling"


def test_the_observation_shows_public_facts_and_the_own_positions() -> None:
    s = announced(scene()).tricks("LO E8")
    seen = s.p.observe(3)
    assert seen.positions == s.p.positions_of(3)
    assert seen.current_trick == ((1, s.at("LO"), Card.parse("LO")), (2, s.at("E8"), Card.parse("E8")))
    assert [o.seat for o in seen.obligations] == [2]
    assert "play" in seen.legal_actions
