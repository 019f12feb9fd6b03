"""Samples of the hidden cards, consistent with what one seat has seen, and an engine `Match` built from each.

`Knowledge.of(view)` reads a `BotView` (nothing else) into what the seat knows of this hand: its own cards,
every card played and by whom, how many cards each seat holds, the announcement (or, in Blind, the
announcements that fit the tricks' winners), and the constraints its observations put on the others:

- the follow rules: a seat that was bound to follow (Trumpf oder Kritische after a Hauptschlag lead, a trump
  after a trump lead) and did not, holds no card that would have forced it;
- Schlecken: a seat that took k cards at the cut holds k Kritische (counting those it has played since);
- the partner's signals: `max`, `belli`, `weli`, `spitz`, `bugl`, `rechter`, `guate` name a card the partner
  holds, `trumpf` and `schlag` a trump or a Schlag card, `nix` none of the Kritische, Rechter or Guate;
- a Maschine was not shown, so no seat was dealt all the Kritische.

`Sampler.deal(rng)` then deals the unseen cards to the other seats and the undealt stack under those
constraints, and weighs each deal by how well it explains the public choices (the Schlag and trump named,
a raise). `build_world` turns a deal into a real engine `Match` that reaches the same public state: a deck
order is made so that the engine's own deal gives every seat its sampled cards, then the announcement, the
raises and the played cards are replayed through `Match.apply`. A sample that the engine refuses (it would
contradict a rule) is dropped.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from watten_net.engine import SUITS, Card, Match, Rules, RuleViolation, canonical_deck, ranking, schlag_choices
from watten_net.engine.notation import AnnounceStep, Phase
from watten_net.engine.ranking import Ranking
from watten_net.engine.seating import seating_for

from .base import BotView
from .heuristic import card_value
from .playout import CARD_OF, PLAY_TEXT

STACK = -1  # the pseudo-seat of the undealt cards (and cards put aside at a Bessere)
CUT = 4  # sampled worlds are cut at 4 or just above (where the real deck was cut is irrelevant once cards are dealt)
SIGNAL_CARDS = {"max": "HK", "belli": "S7", "weli": "S6", "spitz": "E7", "bugl": "SU"}
# How strongly the public choices tell about a hand (likelihood factors per card; see `Sampler.weight`).
SCHLAG_WEIGHT = 1.5  # per card of the named Schlag rank held by the seat that named it
TRUMP_WEIGHT = 0.6  # per trump held by the seat that named the trump
RAISE_WEIGHT = 0.7  # per point of hand value (the heuristic's card values) of a seat that raised
RESAMPLE = 3  # candidate deals drawn per sample kept when the deals are weighed
MAX_TRIES = 30


def signal_card(rules: Rules, name: str) -> Card | None:
    if name == "belli" and rules.deck == 36:
        return CARD_OF["S6"]  # the Austrian Belli
    text = SIGNAL_CARDS.get(name)
    return CARD_OF[text] if text else None


@dataclass
class Constraints:
    """What the play so far says about the hidden hands: cards a seat cannot hold, cards it surely holds, and sets of
    cards of which a seat holds at least a given number (the sampler deals only worlds that fit)."""

    forbid: dict[int, frozenset[Card]] = field(default_factory=dict)  # cards a seat cannot hold
    must: dict[int, list[Card]] = field(default_factory=dict)  # cards a seat surely holds
    at_least: list[tuple[int, tuple[Card, ...], int]] = field(default_factory=list)  # (seat, cards, how many)


@dataclass(frozen=True)
class Knowledge:
    """What one seat knows of the current hand, from its `BotView` alone."""

    view: BotView
    rules: Rules
    seat: int
    n: int
    dealer: int
    forehand: int
    phase: str
    hand: tuple[Card, ...]
    plays: tuple[tuple[int, Card], ...]  # every card played in this hand, in order, with its seat
    played_by: tuple[tuple[Card, ...], ...]  # per seat, the cards it played in this hand
    counts: tuple[int, ...]  # cards each seat holds now
    unseen: tuple[Card, ...]  # neither held by this seat nor played (sorted by code)
    announcements: tuple[tuple[str, str], ...]  # the announcement, or those Blind leaves possible (play only)
    scorer_scores: tuple[int, ...]  # match points per scorer (a side, or a seat at three)

    @classmethod
    def of(cls, view: BotView) -> Knowledge | None:
        rules = view.rules
        if rules is None:
            return None
        n = rules.players
        table = seating_for(rules)
        if len(view.announcers) == 2:
            dealer = view.announcers[1]
        elif len(view.announcers) == 1:
            dealer = (view.announcers[0] - 1) % n
        else:
            return None
        hand = tuple(CARD_OF[c] for c in view.hand)
        plays: list[tuple[int, Card]] = []
        for leader, cards, _ in view.tricks:
            plays.extend(((leader + i) % n, CARD_OF[c]) for i, c in enumerate(cards))
        plays.extend((s, CARD_OF[c]) for s, c in view.current_trick)
        played_by: list[list[Card]] = [[] for _ in range(n)]
        for s, c in plays:
            played_by[s].append(c)
        known = set(hand) | {c for _, c in plays}
        unseen = tuple(c for c in canonical_deck(rules.deck) if c not in known)
        counts = view.hand_counts
        if len(counts) != n:
            if view.phase != Phase.PLAY:
                return None
            counts = tuple(rules.hand_size - len(played_by[s]) for s in range(n))
        scores = [0] * table.scorers
        if len(view.seat_scores) == n:
            for s in range(n):
                scores[table.scorer_of[s]] = view.seat_scores[s]
        kn = cls(
            view=view, rules=rules, seat=view.seat, n=n, dealer=dealer, forehand=table.forehand_of[dealer],
            phase=view.phase, hand=hand, plays=tuple(plays), played_by=tuple(tuple(p) for p in played_by),
            counts=tuple(counts), unseen=unseen, announcements=(), scorer_scores=tuple(scores),
        )
        return _with_announcements(kn)

    @property
    def scorer(self) -> int:
        return seating_for(self.rules).scorer_of[self.seat]

    @property
    def side(self) -> int:
        return self.view.side

    @property
    def second_packet_pending(self) -> bool:
        return self.phase == Phase.ANNOUNCE and self.rules.announce_after != self.rules.hand_size

    def partners(self) -> tuple[int, ...]:
        return self.view.partners


def _with_announcements(kn: Knowledge) -> Knowledge:
    view = kn.view
    if view.schlag and view.trump:
        found: tuple[tuple[str, str], ...] = ((view.schlag, view.trump),)
    elif kn.phase == Phase.PLAY:
        # Blind, and this seat is no announcer: every announcement under which the tricks went as they went.
        options = [(r, s) for r in schlag_choices(kn.rules) for s in SUITS]
        fits = tuple(a for a in options if _fits(kn, ranking(kn.rules, *a)))
        found = fits or tuple(options)
    else:
        found = ()
    return dataclasses.replace(kn, announcements=found)


def _fits(kn: Knowledge, rk: Ranking) -> bool:
    """Whether every completed trick went to the seat that took it under this announcement."""
    for leader, cards, winner in kn.view.tricks:
        if (leader + rk.winner([CARD_OF[c] for c in cards])) % kn.n != winner:
            return False
    return True


# ---------------------------------------------------------------------------------------------- constraints
def constraints(kn: Knowledge, rk: Ranking | None) -> Constraints:
    """What the seat's observations say about the others' hidden cards, under the announcement `rk`."""
    unseen = set(kn.unseen)
    forbid: dict[int, set[Card]] = {}
    cons = Constraints()
    if rk is not None and kn.rules.follow != "none":
        _follow_constraints(kn, rk, forbid)
    _schlecken_constraints(kn, unseen, cons)
    _signal_constraints(kn, rk, unseen, forbid, cons)
    cons.forbid = {s: frozenset(cards & unseen) for s, cards in forbid.items()}
    # A forbidden card cannot be a must (a contradiction among the signals: trust the rules).
    for s, cards in list(cons.must.items()):
        cons.must[s] = [c for c in cards if c not in cons.forbid.get(s, frozenset())]
    return cons


def _follow_constraints(kn: Knowledge, rk: Ranking, forbid: dict[int, set[Card]]) -> None:
    """The follow rules: a seat bound to follow that did not holds none of the cards that forced it."""
    rules = kn.rules
    tricks = [tuple(CARD_OF[c] for c in cards) for _, cards, _ in kn.view.tricks]
    leaders = [leader for leader, _, _ in kn.view.tricks]
    if kn.view.current_trick:
        tricks.append(tuple(CARD_OF[c] for _, c in kn.view.current_trick))
        leaders.append(kn.view.current_trick[0][0])
    for t, (trick, leader) in enumerate(zip(tricks, leaders, strict=True)):
        for i in range(1, len(trick)):
            seat = (leader + i) % kn.n
            if seat == kn.seat or (rules.blind and seat not in kn.view.announcers):
                continue
            void = _revealed_void(rules, rk, trick, i, first_trick=t == 0)
            if void:
                forbid.setdefault(seat, set()).update(void)


def _schlecken_constraints(kn: Knowledge, unseen: set[Card], cons: Constraints) -> None:
    """Schlecken: cards taken at the cut are Kritische. The dealer takes nothing else; the cutter may bluff, which is
    rare, but it must have bluffed with every card beyond the Kritische the dealer left for it."""
    kritische = kn.rules.kritische_cards
    taken = kn.view.taken_counts
    if len(taken) != kn.n or not kritische:
        return
    left = tuple(c for c in kritische if c in unseen)
    spare = len(left)
    table = seating_for(kn.rules)
    for seat in (kn.dealer, table.cutter_of[kn.dealer]):
        shown = sum(1 for c in kn.played_by[seat] if c in kritische)
        if seat == kn.seat:
            continue  # this seat's own takes are in its hand, not among the unseen cards
        need = min(taken[seat] - shown, spare)
        if need > 0:
            cons.at_least.append((seat, left, need))
            spare -= need


def _signal_constraints(
    kn: Knowledge, rk: Ranking | None, unseen: set[Card], forbid: dict[int, set[Card]], cons: Constraints,
) -> None:
    """The partners' signals."""
    rules = kn.rules
    for sender, name in kn.view.signals:
        if sender not in kn.partners():
            continue
        card = signal_card(rules, name)
        if card is None and rk is not None:
            card = rk.hauptschlag if name == "rechter" else rk.guate if name == "guate" else None
        if card is not None:
            if card in unseen:
                cons.must.setdefault(sender, []).append(card)
        elif rk is not None and name in ("trumpf", "schlag"):
            group = rk.trump_cards if name == "trumpf" else rk.schlag_cards
            if not any(c in group for c in kn.played_by[sender]):
                left = tuple(c for c in kn.unseen if c in group)
                if left:
                    cons.at_least.append((sender, left, 1))
        elif name == "nix":
            nothing = set(rules.kritische_cards)
            if rk is not None:
                nothing.update(c for c in (rk.hauptschlag, rk.guate) if c is not None)
            forbid.setdefault(sender, set()).update(nothing)


def _revealed_void(rules: Rules, rk: Ranking, trick: Sequence[Card], i: int, *, first_trick: bool) -> frozenset[Card]:
    """The cards the player of `trick[i]` cannot have held, if playing it shows that (else empty)."""
    card = trick[i]
    if rules.follow == "hauptschlag-lead":
        if not first_trick or rk.hauptschlag is None or trick[0] is not rk.hauptschlag:
            return frozenset()
        released = any(c in rk.kritische for c in trick[1:i])
        if released and (rules.follow_released or rules.schadet):
            return frozenset()  # no longer bound (with schadet: unknown whether it was asked)
        return frozenset() if card in rk.trump_or_kritisch else rk.trump_or_kritisch
    if rules.follow == "trump-lead":
        if trick[0] not in rk.trump_like or card in rk.qualifying:
            return frozenset()
        return rk.forcing
    return frozenset()


# ---------------------------------------------------------------------------------------------- dealing samples
@dataclass(frozen=True)
class Deal:
    """One sample of the hidden cards: each other seat's current cards, the undealt stack, the announcement."""

    hands: tuple[tuple[Card, ...], ...]  # per seat (this seat's own cards included)
    stack: tuple[Card, ...]
    announcement: tuple[str, str] | None
    weight: float


class Sampler:
    """Deals the unseen cards consistently with a seat's `Knowledge`."""

    def __init__(self, kn: Knowledge) -> None:
        self.kn = kn
        self._cons: dict[tuple[str, str] | None, Constraints] = {}
        self.relaxed = 0  # deals that had to drop a constraint (the observations contradicted each other)
        self._strictest = 2  # a constraint level that failed once is not tried again for this view

    def constraints_for(self, announcement: tuple[str, str] | None) -> Constraints:
        if announcement not in self._cons:
            rk = ranking(self.kn.rules, *announcement) if announcement else None
            self._cons[announcement] = constraints(self.kn, rk)
        return self._cons[announcement]

    def deal(self, rng: random.Random) -> Deal | None:
        kn = self.kn
        announcement = rng.choice(kn.announcements) if kn.announcements else None
        cons = self.constraints_for(announcement)
        for level in (2, 1, 0):  # 2: every constraint; 1: the hard ones (the rules); 0: none
            if level > self._strictest:
                continue
            for _ in range(MAX_TRIES if level else 1):
                hands = self._try(rng, cons, level)
                if hands is not None and self._no_maschine(hands):
                    if level < 2:
                        self.relaxed += 1
                    stack = hands.pop(STACK)
                    full = tuple(kn.hand if s == kn.seat else tuple(sorted(hands[s], key=_code)) for s in range(kn.n))
                    rk = ranking(kn.rules, *announcement) if announcement else None
                    return Deal(full, tuple(stack), announcement, self.weight(full, rk))
            self._strictest = level - 1
        return None

    def _try(self, rng: random.Random, cons: Constraints, level: int) -> dict[int, list[Card]] | None:
        kn = self.kn
        pool = list(kn.unseen)
        caps = {s: kn.counts[s] for s in range(kn.n) if s != kn.seat}
        caps[STACK] = len(pool) - sum(caps.values())
        if caps[STACK] < 0:
            return None
        forbid = cons.forbid if level >= 1 else {}
        hands: dict[int, list[Card]] = {s: [] for s in caps}
        left = set(pool)

        def give(seat: int, card: Card) -> None:
            hands[seat].append(card)
            caps[seat] -= 1
            left.discard(card)

        if level >= 2:
            for seat, cards in cons.must.items():
                for card in cards:
                    if card in left and caps.get(seat, 0) > 0:
                        give(seat, card)
            for seat, group, k in cons.at_least:
                need = k - sum(1 for c in hands[seat] if c in group)
                free = [c for c in group if c in left and c not in forbid.get(seat, ())]
                for card in rng.sample(free, max(0, min(need, len(free), caps.get(seat, 0)))):
                    give(seat, card)
        rest = [c for c in pool if c in left]
        rng.shuffle(rest)
        seats = list(caps)
        # The most constrained cards first, so that a seat that cannot take them does not fill up with others.
        rest.sort(key=lambda c: sum(1 for s in seats if c in forbid.get(s, ())), reverse=True)
        for card in rest:
            takers = [s for s in seats if caps[s] > 0 and card not in forbid.get(s, ())]
            if not takers:
                return None
            # A seat with more room left is likelier to have the card: every consistent deal about equally likely.
            pick = rng.random() * sum(caps[s] for s in takers)
            for taker in takers:
                pick -= caps[taker]
                if pick < 0:
                    break
            give(taker, card)
        return hands

    def _no_maschine(self, hands: dict[int, list[Card]]) -> bool:
        """No seat was dealt all the Kritische (it would have shown a Maschine and ended the hand)."""
        kn = self.kn
        needed = kn.rules.kritische_cards
        if not kn.rules.maschine_points or not needed or kn.second_packet_pending:
            return True
        for seat in range(kn.n):
            held = set(kn.hand if seat == kn.seat else hands[seat]) | set(kn.played_by[seat])
            if all(c in held for c in needed):
                return False
        return True

    def weight(self, hands: Sequence[Sequence[Card]], rk: Ranking | None) -> float:
        """How well this deal explains the public choices: the Schlag and trump named, a raise."""
        kn = self.kn
        if rk is None:
            return 1.0
        log_w = 0.0
        schlag_seat = kn.forehand  # who named what (a swap cannot be seen in the view: the usual case)
        trump_seat = kn.forehand if kn.n == 3 else kn.dealer
        if schlag_seat != kn.seat and kn.phase == Phase.PLAY:
            held = list(hands[schlag_seat]) + list(kn.played_by[schlag_seat])
            log_w += math.log1p(SCHLAG_WEIGHT * sum(1 for c in held if c.rank == rk.schlag and c in rk.schlag_cards))
        if trump_seat != kn.seat and kn.phase == Phase.PLAY:
            held = list(hands[trump_seat]) + list(kn.played_by[trump_seat])
            log_w += math.log1p(TRUMP_WEIGHT * sum(1 for c in held if c in rk.trump_like))
        view = kn.view
        raisers: tuple[int, ...] = ()
        if view.pending_raise is not None and view.pending_raise[1] != kn.seat:
            raisers = (view.pending_raise[1],)
        elif view.last_raise_side not in (-1, kn.side):
            raisers = tuple(s for s in range(kn.n) if view.sides and view.sides[s] == view.last_raise_side)
        if raisers:
            log_w += RAISE_WEIGHT * max(sum(card_value(rk, c) for c in hands[s]) for s in raisers)
        return math.exp(log_w)


def _code(card: Card) -> int:
    return card.code


# ---------------------------------------------------------------------------------------------- worlds
def build_world(kn: Knowledge, deal: Deal) -> Match | None:
    """An engine match whose public state is the seat's, with the sampled cards (None if the engine refuses)."""
    made = _deck(kn, deal)
    if made is None:
        return None
    deck, cut, takes = made
    rules = kn.rules
    cutter = seating_for(rules).cutter_of[kn.dealer]
    try:
        m = Match.new(rules, first_dealer=kn.dealer, start_scores=kn.scorer_scores).apply_deck(deck)
        m, _ = m.apply(cutter, f"cut {cut}")
        for seat in (cutter, kn.dealer):  # Schlecken: the cards taken at the cut, then keep
            for _ in range(takes.get(seat, 0)):
                m, _ = m.apply(seat, "take")
            if m.phase == Phase.SCHLECKEN and m.schlecken_seat == seat:
                m, _ = m.apply(seat, "keep")
        for seat, action in announce_script(kn, deal.announcement):
            m, _ = m.apply(seat, action)
        if kn.phase == Phase.PLAY:
            m = _replay_play(kn, m)
        elif kn.phase == Phase.ANNOUNCE:  # raises while announcing (docs/rules.md 6): the stake, a pending one
            m = _replay_raises(kn, m)
            if kn.view.pending_raise is not None:
                m, _ = m.apply(kn.view.pending_raise[1], "raise")
    except RuleViolation:
        return None
    # As sets: a seat that took a whole packet at the cut holds its cards in the order taken (the engine sorts a
    # hand only when a packet adds to it).
    if m.phase != kn.phase or sorted(m.hands[kn.seat], key=_code) != sorted(kn.hand, key=_code):
        return None
    return m


def _deck(kn: Knowledge, deal: Deal) -> tuple[list[Card], int, dict[int, int]] | None:
    """A deck order, a cut and the Schlecken takes under which the engine deals every seat its sampled cards.

    Dealing is deterministic once the deck is ordered: the joined stack (the dealer's part on top of the cutter's
    packet, taken cards removed) is dealt from the top in packets, clockwise from the forehand. So the stack is
    laid out packet by packet, and the cards a seat took at the cut are put at the bottom of the lifted packet
    (the cutter) or of the rest (the dealer), where Schlecken finds them.
    """
    rules = kn.rules
    n = kn.n
    table = seating_for(rules)
    cutter, dealer = table.cutter_of[kn.dealer], kn.dealer
    counts = kn.view.taken_counts if len(kn.view.taken_counts) == n and rules.schlecken else (0,) * n
    if any(k for s, k in enumerate(counts) if s not in (cutter, dealer)):
        return None
    pending = kn.second_packet_pending
    own = [list(deal.hands[s]) + ([] if pending else list(kn.played_by[s])) for s in range(n)]
    taken: dict[int, list[Card]] = {}
    for seat in (cutter, dealer):
        k = counts[seat]
        if not k:
            continue
        # Which cards were taken is hidden (for the seat itself too, in its view): the Kritische first; the cutter
        # may have bluffed with any other card.
        kritische = [c for c in rules.kritische_cards if c in own[seat]]
        others = [c for c in own[seat] if c not in kritische] if seat == cutter and rules.schlecken_bluff else []
        taken[seat] = (kritische + others)[:k]
        if len(taken[seat]) < k:
            return None
    if taken.get(dealer) and not taken.get(cutter):
        return None  # the dealer schleckt only after the cutter took a card
    first, second = rules.first_packet, rules.hand_size - rules.first_packet
    packets = []
    for seat in range(n):
        k = counts[seat]
        rest = [c for c in own[seat] if c not in taken.get(seat, ())]
        sizes = (max(0, first - k), second - max(0, k - first))
        if len(rest) != (sizes[0] if pending else sizes[0] + sizes[1]):
            return None  # e.g. cards taken at the cut and then put aside at a Bessere: not rebuilt
        packets.append((rest[: sizes[0]], rest[sizes[0]:]))
    order = table.seat_order_from[kn.forehand]
    stack = [c for s in order for c in packets[s][0]] + [c for s in order for c in packets[s][1]] + list(deal.stack)
    took_cut, took_deal = taken.get(cutter, []), taken.get(dealer, [])
    cut = max(CUT, len(took_cut) + 1)  # the cutter's packet keeps a card to be seen and kept after its takes
    split = len(stack) - (cut - len(took_cut))
    lifted = stack[split:] + took_cut[::-1]  # the bottom card of the lifted packet is seen (and taken) first
    rest_part = stack[:split] + took_deal[::-1]
    return lifted + rest_part, cut, {cutter: len(took_cut), dealer: len(took_deal)}


def announce_script(kn: Knowledge, announcement: tuple[str, str] | None) -> list[tuple[int, str]]:
    """The announcement actions that lead to the seat's announcement step (or through it, in play)."""
    view = kn.view
    f, d = kn.forehand, kn.dealer
    me = kn.seat
    if kn.phase == Phase.PLAY:
        assert announcement is not None
        schlag, trump = announcement
        return [(f, "schlag " + schlag), (f if kn.n == 3 else d, "trump " + trump)]
    step = view.announce_step
    if view.pending_raise is not None:
        # Answering a raise that holds the announcement (docs/rules.md 6): the seat need not be the announcer on turn,
        # so whether a Schlagwechsel happened cannot be told from its turn; the usual case, none, is assumed. In
        # Blind a seat that is no announcer does not know the Schlag named: any Schlag stands in for it.
        schlag = view.schlag or schlag_choices(kn.rules)[0]
        if step == AnnounceStep.SWAP:
            return [(f, "swap?")]
        if step == AnnounceStep.TRUMP:
            return [(f, "schlag " + schlag)]
        if step == AnnounceStep.BESSERE:
            named = bool(view.schlag) if not kn.rules.blind or me in view.announcers else False
            return [(f, "bessere?")] if not named else [(f, "schlag " + schlag), (d, "bessere?")]
        return []
    swap = [(f, "swap?"), (d, "swap yes")]
    if step == AnnounceStep.SCHLAG:
        return swap if me == d and kn.n != 3 else []
    if step == AnnounceStep.SWAP:
        return [(f, "swap?")]
    if step == AnnounceStep.TRUMP:
        if kn.n == 3:
            return [(f, "schlag " + view.schlag)]
        return [(f, "schlag " + view.schlag)] if me == d else [*swap, (d, "schlag " + view.schlag)]
    if step == AnnounceStep.BESSERE:
        asker = f if me == d else d
        if not view.schlag:  # asked when naming the Schlag
            return [(f, "bessere?")] if asker == f else [*swap, (d, "bessere?")]
        if asker == d:
            return [(f, "schlag " + view.schlag), (d, "bessere?")]
        return [*swap, (d, "schlag " + view.schlag), (f, "bessere?")]
    return []


def _replay_raises(kn: Knowledge, m: Match) -> Match:
    """The accepted raises that make the view's stake, alternating sides and ending with the side that raised last."""
    view = kn.view
    rules = kn.rules
    table = seating_for(rules)
    step = rules.raise_step
    raises = max(0, (view.stake - m.value) // step) if view.last_raise_side >= 0 else 0
    if raises:
        side_seats = table.side_seats_of[kn.dealer]
        for i in range(raises):
            side = view.last_raise_side if (raises - 1 - i) % 2 == 0 else 1 - view.last_raise_side
            raiser = side_seats[side][0]
            m, _ = m.apply(raiser, "raise")
            m, _ = m.apply(side_seats[1 - side][0], "accept")
    return m


def _replay_play(kn: Knowledge, m: Match) -> Match:
    view = kn.view
    m = _replay_raises(kn, m)
    for seat, card in kn.plays:
        m, _ = m.apply(seat, PLAY_TEXT[card])
    if view.pending_raise is not None:
        m, _ = m.apply(view.pending_raise[1], "raise")
    return m

