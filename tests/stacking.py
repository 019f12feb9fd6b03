"""Stacked decks for scenario tests: choose the hands, get the deck order that deals them.

docs/rules.md 5.3-5.4: the deck is given top card first; `cut N` lifts the top N cards and the stack is
joined as `deck[N:] + deck[:N]` (the dealer's part on top of the cutter's packet, minus the cards
taken at Schlecken from the two bottoms). Packets go clockwise from the forehand (dealer + 1):
3 cards each, then 2 each (Wurf: 2 then 1); a seat that took k cards gets k fewer, first packet first.

    >>> from watten_net.engine import Rules
    >>> deck = stacked_deck(Rules.preset("bavarian", 2), {0: "HK S7 E7 EA EK", 1: "LA LK LO HA HO"}, 0, 10)
    >>> [c.text for c in deck[10:13]]  # the joined stack starts at deck[10]; seat 1 is the forehand
    ['LA', 'LK', 'LO']

`stacked_deck` inverts that layout; `play_script` applies a list of `(seat, action)` pairs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from watten_net.engine import Card, Event, Match, Rules, canonical_deck, cards


def cutter_seat(players: int, dealer: int) -> int:
    """docs/rules.md section 1: the dealer's right neighbour (4, 6), the opponent (2), the forehand (3)."""
    return (dealer + 1) % players if players in (2, 3) else (dealer - 1) % players


def packet_sizes(rules: Rules, taken: int = 0) -> tuple[int, int]:
    """Cards a seat gets in the first and the second packet when it took `taken` cards at the cut."""
    first = 3 if rules.hand_size == 5 else 2
    second = rules.hand_size - first
    return max(0, first - taken), second - max(0, taken - first)


def stacked_deck(
    rules: Rules,
    hands: Mapping[int, str],
    dealer: int,
    cut: int,
    rest: str | None = None,
    *,
    takes: Mapping[int, str] | None = None,
) -> list[Card]:
    """A deck (top card first) that, after `cut {cut}`, deals each seat of `hands` exactly those cards.

    `hands[seat]` lists the dealt cards: the first packet first, then the second packet. Seats left out
    and the undealt stack are filled with the remaining cards: those listed in `rest` first (in that
    order, from the top of the joined stack down), then the others in canonical order.

    `takes` (optional) stacks Schlecken: `takes[cutter]` are the cards at the bottom of the lifted packet
    and `takes[dealer]` those at the bottom of the rest, the first listed at the very bottom (seen first).
    A seat that takes k cards lists hand_size - k cards in `hands` (it gets k fewer, first packet first).
    """
    n, size = rules.players, rules.deck
    deck = canonical_deck(size)
    takes = dict(takes or {})
    cutter = cutter_seat(n, dealer)
    if set(takes) - {cutter, dealer}:
        raise ValueError(f"only the cutter {cutter} and the dealer {dealer} take cards at Schlecken")
    if not 4 <= cut <= size - 4:
        raise ValueError(f"cut must be 4 to {size - 4}")
    taken = {seat: list(cards(text)) for seat, text in takes.items()}
    dealt = {seat: list(cards(text)) for seat, text in hands.items()}
    used = [c for group in (*taken.values(), *dealt.values()) for c in group]
    if len(set(used)) != len(used) or not set(used) <= set(deck):
        raise ValueError(f"each card of a {size}-card deck may be stacked once: {[c.text for c in used]}")

    # The joined stack after the takes: fix the positions of the requested hands.
    joined: list[Card | None] = [None] * (size - sum(len(t) for t in taken.values()))
    order = [(dealer + 1 + i) % n for i in range(n)]
    sizes = {seat: packet_sizes(rules, len(taken.get(seat, []))) for seat in order}
    for seat, got in dealt.items():
        if len(got) != sum(sizes[seat]):
            raise ValueError(f"seat {seat} is dealt {sum(sizes[seat])} cards, not {len(got)}")
    position = 0
    for packet in (0, 1):
        for seat in order:
            count = sizes[seat][packet]
            if seat in dealt:
                start = 0 if packet == 0 else sizes[seat][0]
                joined[position: position + count] = dealt[seat][start: start + count]
            position += count

    # Fill every other position: `rest` first, then the remaining cards in canonical order.
    first = list(cards(rest)) if rest else []
    if set(first) & set(used) or len(set(first)) != len(first) or not set(first) <= set(deck):
        raise ValueError(f"rest must list other cards of the {size}-card deck, each once")
    placed = set(used) | set(first)
    fill = iter(first + [c for c in deck if c not in placed])
    stack = [c if c is not None else next(fill) for c in joined]

    # Undo the cut: joined = rest' + lifted', lifted = lifted' + cutter's takes (first taken at the bottom).
    dealer_takes = taken.get(dealer, [])
    cutter_takes = taken.get(cutter, [])
    split = size - cut - len(dealer_takes)
    lifted = stack[split:] + cutter_takes[::-1]
    rest_part = stack[:split] + dealer_takes[::-1]
    if len(lifted) != cut:
        raise ValueError(f"the cutter cannot take {len(cutter_takes)} cards from a packet of {cut}")
    return lifted + rest_part


def play_script(match: Match, script: Iterable[tuple[int, str]]) -> tuple[Match, list[Event]]:
    """Apply `(seat, action)` pairs in order; the final match and every event the script caused."""
    events: list[Event] = []
    for seat, action in script:
        match, caused = match.apply(seat, action)
        events.extend(caused)
    return match, events
