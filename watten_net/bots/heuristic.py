"""The `heuristic` level: plays the way the rules texts advise, from its seat's view alone.

Every decision is one small function below. They share a `_Hand`: the view with its cards parsed, the
cards this seat has not seen yet, and the card order as far as this seat knows it. That is the announced
order when the Schlag and the trump are visible to it; otherwise (Blind, for a seat that is no announcer)
only the Kritische and the led suit, because the hidden announcement must never steer its play.

The bot sees nothing but its `BotView`. Its seeded `rng` only picks the cut, the rare Schlecken bluff and
the rare signal, so the same seed and the same views give the same choices.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from watten_net.engine import SUITS, Card, Rules, canonical_deck, ranking
from watten_net.engine.notation import Phase, Verb
from watten_net.engine.ranking import GUATE, HAUPTSCHLAG, KRITISCH, SCHLAG, TRUMP, Ranking

from .base import Bot, BotView

BLUFF_RATE = 0.03  # Schlecken: take a card that is no Kritischer this rarely (it costs 2 points if never covered)
SIGNAL_RATE = 0.05  # chance per decision of showing the partner a Kritischer held
RAISE_MARGIN = 0.6  # expected tricks beyond the tricks needed before raising ...
RAISE_MARGIN_AHEAD = 0.2  # ... and when the side has already won more tricks than the other
# Folding gives the stake away for certain, accepting risks one point more: so a raise to 3 is accepted down to
# this many expected tricks below the tricks needed ...
ACCEPT_MARGIN = -1.6
ACCEPT_STEP = 0.25  # ... and every further point of stake asks this much more (weak hands fold when it is high)
CONCEDE_MARGIN = -1.7  # a gespannt side concedes a hand this far below the tricks needed
PARTNER_CARD_SHARE = 0.9  # an unseen partner card is worth this much of a fair share (1 / players) of a trick
SMALL_TRUMP_RANKS = 5  # trump cards below the Unter are the small ones a partner can follow with

SIGNALS = {"HK": "max", "S7": "belli", "E7": "spitz", "SU": "bugl"}  # the Weli is the Belli of the 36-card deck


class HeuristicBot(Bot):
    """Rules-of-thumb player. `fallbacks` counts decisions the heuristic got wrong (the tests keep it at 0)."""

    level = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.fallbacks = 0

    def choose(self, view: BotView) -> str | None:
        if not view.legal_actions:
            return None
        if view.rules is None:
            # Without the rules the cards cannot be ranked: play like the random level rather than guess.
            return super().decide(view)
        action = heuristic_action(view, view.rules, self)
        if action is None or action in view.legal_actions:
            return action
        self.fallbacks += 1  # a safety net: never send an illegal action
        return super().decide(view)

    def decide(self, view: BotView) -> str:
        return self.choose(view) or super().decide(view)


def heuristic_action(view: BotView, rules: Rules, bot: Bot) -> str | None:
    """The action for this view; None when only table talk (signals, a raise out of turn) is on offer."""
    legal = view.legal_actions
    h = _Hand.of(view, rules)
    if any(a.startswith("cut ") for a in legal):
        return choose_cut(legal, bot)
    if Verb.KEEP in legal:
        return schlecken(h, bot)
    if Verb.ACCEPT in legal:
        return "accept" if should_accept(h) else "fold"
    if "schadet yes" in legal:
        return answer_schadet(h)
    if "swap yes" in legal:
        return answer_swap(h)
    if "bessere yes" in legal:
        return answer_bessere(h)
    signal = maybe_signal(h, bot)
    if signal is not None:
        return signal
    if Verb.RAISE in legal and view.phase == Phase.ANNOUNCE and should_raise_in_announcement(h):
        return "raise"  # docs/rules.md 6: from the first packet on, on the announcer's own turn
    if any(a.startswith("schlag ") for a in legal):
        return announce_schlag(h)
    if any(a.startswith("trump ") for a in legal):
        return announce_trump(h)
    plays = [Card.parse(a[5:]) for a in legal if a.startswith("play ")]
    if plays:
        if Verb.CONCEDE in legal and should_concede(h):
            return "concede"
        if Verb.RAISE in legal and should_raise(h):
            return "raise"
        return "play " + choose_card(h, plays).text
    return None


# ---------------------------------------------------------------------------------------------- what the seat knows
class _Order:
    """The card order as this seat knows it: announced, or plainly (the Kritische, then the led suit)."""

    def __init__(self, rules: Rules, schlag: str, trump: str) -> None:
        self.rules = rules
        self.rk: Ranking | None = ranking(rules, schlag, trump) if schlag and trump else None
        self.kritische = {card: i for i, card in enumerate(rules.kritische_cards)}

    @property
    def known(self) -> bool:
        return self.rk is not None

    def winner(self, cards: Sequence[Card]) -> int:
        if self.rk is not None:
            return self.rk.winner(cards)
        # Plainly: whatever Schlag and trump were named, only the Kritische and the led suit are certain.
        led = None if cards[0] in self.kritische else cards[0].suit
        keys = [self._plain_key(c, led) for c in cards]
        return keys.index(max(keys))  # the first of equals wins

    def _plain_key(self, card: Card, led: str | None) -> int:
        if card in self.kritische:
            return 1000 - self.kritische[card]
        return 100 + card.rank_index if card.suit == led else 0

    def value(self, card: Card) -> float:
        """How much the card is worth keeping (the cheapest card is the one to spend or throw)."""
        if self.rk is not None:
            return card_value(self.rk, card)
        if card in self.kritische:
            return 3.5 - 0.1 * self.kritische[card]
        return 0.01 * card.rank_index

    def chance(self, card: Card) -> float:
        """A rough chance that the card takes a trick (when it is not sure to)."""
        if self.rk is not None:
            return tier_chance(self.rk, card)
        return 0.85 if card in self.kritische else 1 / self.rules.players

    def is_plain(self, card: Card) -> bool:
        if self.rk is not None:
            return self.rk.is_plain(card)
        return card not in self.kritische


@dataclass(frozen=True)
class _Hand:
    view: BotView
    rules: Rules
    cards: tuple[Card, ...]
    order: _Order
    trick: tuple[tuple[int, Card], ...]
    unseen: tuple[Card, ...]  # cards this seat has neither held nor seen played in this hand

    @classmethod
    def of(cls, view: BotView, rules: Rules) -> _Hand:
        cards = tuple(Card.parse(c) for c in view.hand)
        trick = tuple((s, Card.parse(c)) for s, c in view.current_trick)
        seen = set(cards) | {c for _, c in trick}
        for _, played, _ in view.tricks:
            seen.update(Card.parse(c) for c in played)
        unseen = tuple(c for c in canonical_deck(rules.deck) if c not in seen)
        return cls(view, rules, cards, _Order(rules, view.schlag, view.trump), trick, unseen)

    @property
    def side(self) -> int:
        return self.view.side

    def side_of(self, seat: int) -> int:
        sides = self.view.sides
        return sides[seat] if seat < len(sides) else seat % 2

    @property
    def won(self) -> int:
        won = self.view.tricks_won
        return won[self.side] if len(won) == 2 else 0

    @property
    def lost(self) -> int:
        won = self.view.tricks_won
        return won[1 - self.side] if len(won) == 2 else 0

    @property
    def kritische_held(self) -> list[Card]:
        return [c for c in self.cards if c in self.order.kritische]


def card_value(rk: Ranking, card: Card) -> float:
    """Worth of a card under an announcement: Kritische > Guate > Hauptschlag > Schlag > trumps > plain cards.

    A trump card counts about one; the Hauptschlag counts more than one over a Schlag card, so that a suit
    whose Schlag card becomes the Hauptschlag counts that card once more when the trump is chosen.
    """
    strength = rk.strength[card.code]
    if strength > GUATE:  # a Kritischer: KRITISCH minus its place in the order
        return 3.5 - 0.1 * (KRITISCH - strength)
    if strength == GUATE:
        return 2.9
    if strength == HAUPTSCHLAG:
        return 2.8
    if strength == SCHLAG:
        return 1.6
    if strength >= TRUMP:
        return 1.0 + 0.02 * (strength - TRUMP)
    return 0.01 * card.rank_index


def tier_chance(rk: Ranking, card: Card) -> float:
    """Rough chance that a card takes a trick, by its tier, when it is not certain to."""
    strength = rk.strength[card.code]
    if strength > GUATE:
        return 0.85
    if strength in (GUATE, HAUPTSCHLAG):
        return 0.75
    if strength == SCHLAG:
        return 0.5
    if strength >= TRUMP:
        return 0.2 + 0.03 * (strength - TRUMP)
    return 0.1 if card.rank == "A" else 0.02


def wins_now(h: _Hand, card: Card) -> bool:
    """Whether `card` played now wins the trick whatever the seats after this one play (of the cards unseen)."""
    order = h.order
    if not order.known and card not in order.kritische:
        return False  # without the announcement only a Kritischer is certain
    cards = [c for _, c in h.trick]
    me = len(cards)
    cards.append(card)
    if order.winner(cards) != me:
        return False
    if me == h.rules.players - 1:
        return True
    # One later card at a time is enough: no pair of later cards beats `card` unless one of them alone does.
    return all(order.winner([*cards, u]) == me for u in h.unseen)


def is_master(h: _Hand, card: Card) -> bool:
    """No unseen card beats `card`, whether it leads or follows: a sure trick whenever it is played."""
    order = h.order
    if not order.known and card not in order.kritische:
        return False
    return all(order.winner((card, u)) == 0 and order.winner((u, card)) == 1 for u in h.unseen)


def expected_tricks(h: _Hand) -> float:
    """Tricks this side may expect in the hand: those won, a chance per own card, a fair share per partner card."""
    own = sum(1.0 if is_master(h, c) else h.order.chance(c) for c in h.cards)
    counts = h.view.hand_counts
    partners = h.view.partners
    partner_cards = sum(counts[p] for p in partners) if counts else len(h.cards) * len(partners)
    if h.view.phase == Phase.ANNOUNCE:  # (a raise to answer) the second packet may be still to come: a fair share each
        missing = max(0, h.rules.hand_size - len(h.cards))
        own += missing / h.rules.players
        partner_cards += missing * len(partners)
    return h.won + own + partner_cards * PARTNER_CARD_SHARE / h.rules.players


def sure_tricks(h: _Hand) -> int:
    return h.won + sum(1 for c in h.cards if is_master(h, c))


def scores_against(h: _Hand) -> int:
    """The best match score among the other side's seats (0 when the view has no scores)."""
    scores = h.view.seat_scores
    return max((scores[s] for s in range(len(scores)) if h.side_of(s) != h.side), default=0)


# ---------------------------------------------------------------------------------------------- cut and Schlecken
def choose_cut(legal: Sequence[str], bot: Bot) -> str:
    # Where the deck is cut cannot be judged from a seat: any legal cut.
    return bot.rng.choice([a for a in legal if a.startswith("cut ")])


def schlecken(h: _Hand, bot: Bot) -> str:
    """Take a Kritischer that shows at the cut; bluff (take another card) only rarely."""
    if Verb.TAKE not in h.view.legal_actions:
        return "keep"
    seen = h.view.extra.get("schlecken_card", "")
    if seen and Card.parse(seen) in h.order.kritische:
        return "take"
    # A bluff costs 2 points if the hand is played out without this seat playing a Kritischer.
    if seen and bot.rng.random() < BLUFF_RATE:
        return "take"
    return "keep"


# ---------------------------------------------------------------------------------------------- announcement
def announce_value(rules: Rules, cards: Sequence[Card], schlag: str, trump: str) -> float:
    rk = ranking(rules, schlag, trump)
    return sum(card_value(rk, c) for c in cards)


def schlag_score(h: _Hand, rank: str) -> float:
    """What naming `rank` is worth: averaged over the trumps the other announcer may name (an opponent), or the
    best trump when this seat names both (3 players). A Kritischer of that rank adds nothing (it stays a
    Kritischer), and the Weli named as '6' becomes the Hauptschlag whatever the trump."""
    values = [announce_value(h.rules, h.cards, rank, suit) for suit in SUITS]
    return max(values) if h.rules.players == 3 else sum(values) / len(values)


def announce_schlag(h: _Hand) -> str:
    """The rank held most (a pair makes several high cards), unless asking for a swap or better cards pays."""
    legal = h.view.legal_actions
    ranks = [a.split()[1] for a in legal if a.startswith("schlag ")]
    if Verb.BESSERE_ASK in legal and h.rules.bessere == "announcers-agree" and weak_hand(h):
        return "bessere?"
    if Verb.SWAP_ASK in legal and wants_swap(h):
        return "swap?"
    return "schlag " + max(ranks, key=lambda rank: schlag_score(h, rank))


def announce_trump(h: _Hand) -> str:
    """The suit held most, where a Schlag card that would become the Hauptschlag (or a Guate) counts extra."""
    legal = h.view.legal_actions
    suits = [a.split()[1] for a in legal if a.startswith("trump ")]
    if Verb.BESSERE_ASK in legal and h.rules.bessere == "announcers-agree" and weak_hand(h):
        return "bessere?"
    if not h.view.schlag:  # never expected (the trump comes after the Schlag): count the suits
        counts = Counter(c.suit for c in h.cards if c not in h.order.kritische)
        return "trump " + max(suits, key=lambda s: counts[s])
    return "trump " + max(suits, key=lambda s: announce_value(h.rules, h.cards, h.view.schlag, s))


def plain_cards(h: _Hand) -> list[Card]:
    return [c for c in h.cards if c not in h.order.kritische]


def rank_count(h: _Hand) -> int:
    """Most cards of one rank that could be Schlag cards (a Kritischer of that rank stays a Kritischer)."""
    return max(Counter(c.rank for c in plain_cards(h)).values(), default=0)


def suit_count(h: _Hand) -> int:
    return max(Counter(c.suit for c in plain_cards(h)).values(), default=0)


def weak_hand(h: _Hand) -> bool:
    """Nothing to announce on: no Kritischer, no rank or suit held twice, no Ace, no Weli to name as Schlag."""
    if h.kritische_held or rank_count(h) >= 2 or suit_count(h) >= 2:
        return False
    weli_schlag = h.rules.has_weli and Card.parse("S6") in h.cards
    return not weli_schlag and not any(c.rank == "A" for c in h.cards)


def wants_swap(h: _Hand) -> bool:
    # Schlagwechsel: a hand without a pair but with a suit held twice would rather name the trump.
    return rank_count(h) < 2 <= suit_count(h)


def answer_swap(h: _Hand) -> str:
    # Refuse unless this hand is weak for naming the trump and holds a pair to name as Schlag instead.
    return "swap yes" if rank_count(h) >= 2 and suit_count(h) <= rank_count(h) else "swap no"


def answer_bessere(h: _Hand) -> str:
    # New cards for both announcers: only worth it when this hand has nothing.
    return "bessere yes" if weak_hand(h) else "bessere no"


def answer_schadet(h: _Hand) -> str:
    """'schadet?': would following a Hauptschlag lead cost this seat a good card? Yes when every trump or
    Kritischer it holds is a high one; no when it has a small trump to follow with, or none at all."""
    rk = h.order.rk
    if rk is None:
        return "schadet no"  # a seat that does not know the announcement is not bound to follow it
    forced = [c for c in h.cards if c in rk.trump_cards or c in rk.kritische]
    small = [c for c in forced if TRUMP <= rk.strength[c.code] < TRUMP + SMALL_TRUMP_RANKS]
    return "schadet yes" if forced and not small else "schadet no"


# ---------------------------------------------------------------------------------------------- signals and stakes
def maybe_signal(h: _Hand, bot: Bot) -> str | None:
    """Rarely show the partner a Kritischer held (signals are part of the game, and the partner may lead for it)."""
    held = h.kritische_held
    if not held or not any(a.startswith("signal ") for a in h.view.legal_actions):
        return None
    if bot.rng.random() >= SIGNAL_RATE:
        return None
    card = min(held, key=lambda c: h.order.kritische[c])  # the highest one
    name = SIGNALS.get(card.text) if card.text != "S6" else ("belli" if h.rules.deck == 36 else "weli")
    if name is None or f"signal {name}" not in h.view.legal_actions:
        return None
    return f"signal {name}"


def should_raise(h: _Hand) -> bool:
    """Raise only with a strong hand (Kritische, Hauptschlag, Schlag cards, high trumps), sooner when ahead."""
    if sure_tricks(h) >= h.rules.tricks_to_win:
        return True  # the hand is won: every raise is a free point (or the others fold)
    margin = expected_tricks(h) - h.rules.tricks_to_win
    return margin >= (RAISE_MARGIN_AHEAD if h.won > h.lost else RAISE_MARGIN)


def should_raise_in_announcement(h: _Hand) -> bool:
    """Before the Schlag and the trump are known only the Kritische are sure: raise on two of them (the seat
    naming the trump or the Schlag builds the rest of its hand around them), and only on its turn to announce."""
    if not any(a.startswith(("schlag ", "trump ")) for a in h.view.legal_actions):
        return False
    return len(h.kritische_held) >= 2


def should_accept(h: _Hand) -> bool:
    """Accept by hand strength against the stake: the higher the stake, the stronger the hand must be."""
    if sure_tricks(h) >= h.rules.tricks_to_win:
        return True
    if scores_against(h) + h.view.stake >= h.rules.target:
        return True  # folding hands the other side the match anyway: play on for the chance
    if h.rules.tight == "base-two" and h.side < len(h.view.gespannt) and h.view.gespannt[h.side]:
        return True  # a gespannt side gives only 2 whether it folds or loses: playing on costs nothing
    proposed = h.view.pending_raise[0] if h.view.pending_raise else h.view.stake + h.rules.raise_step
    margin = expected_tricks(h) - h.rules.tricks_to_win
    return margin >= ACCEPT_MARGIN + ACCEPT_STEP * (proposed - 3)


def should_concede(h: _Hand) -> bool:
    """A gespannt side gives up a hopeless hand (2 points for the others instead of 3)."""
    if scores_against(h) + 2 >= h.rules.target:
        return False  # conceding would hand them the match: play for the chance instead
    return expected_tricks(h) - h.rules.tricks_to_win < CONCEDE_MARGIN


# ---------------------------------------------------------------------------------------------- the card
def choose_card(h: _Hand, plays: Sequence[Card]) -> Card:
    return lead(h, plays) if not h.trick else follow(h, plays)


def lead(h: _Hand, plays: Sequence[Card]) -> Card:
    """Lead the strongest card if it surely wins; otherwise a low plain card, which costs nothing."""
    value = h.order.value
    sure = [c for c in plays if wins_now(h, c)]
    if sure:
        return max(sure, key=value)
    plain = [c for c in plays if h.order.is_plain(c)]
    return min(plain or plays, key=value)


def follow(h: _Hand, plays: Sequence[Card]) -> Card:
    """Win cheaply when the other side holds the trick; throw the lowest card when the partner holds it or it is lost.

    The cheapest winner, even if a later opponent may still beat it: a sure card (a Kritischer) takes a trick
    whenever it is played, so spending it here gains nothing over keeping it (measured: bench/bots_quick.py).
    """
    value = h.order.value
    cards = [c for _, c in h.trick]
    holder = h.trick[h.order.winner(cards)][0]
    if h.side_of(holder) == h.side:
        return min(plays, key=value)
    winners = [c for c in plays if h.order.winner([*cards, c]) == len(cards)]
    return min(winners or plays, key=value)
