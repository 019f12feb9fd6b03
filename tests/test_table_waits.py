"""Who the table waits for when a host bot leaves the answer to a raise to the person of its side
(watten_net/deal/table_waits.py, docs/rules-decisions.md): the person alone while they are at the table, the bot too
once they are away; what is legal stays the engine's."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from watten_net.deal.table_waits import holding_back, waited_for
from watten_net.engine import Rules

from local_table import LocalTable


@dataclass
class Raised:
    """What the rule reads of a match: the pending raise (value, raiser) and the sides of the hand."""

    raise_pending: tuple[int, int] | None
    hand_sides: tuple[int, ...]


FOUR = (0, 1, 0, 1)  # seats 0 and 2 against 1 and 3
SIX = (0, 1, 0, 1, 0, 1)


@pytest.mark.parametrize(("sides", "raiser", "waiting", "bots", "absent", "expected"), [
    (FOUR, 1, (0, 2), {2, 3}, set(), (0,)),  # the person 0 is asked: its bot partner 2 holds back
    (FOUR, 1, (0, 2), {0, 2, 3}, set(), (0, 2)),  # a side of bots: no person to leave it to
    (FOUR, 1, (0, 2), {2, 3}, {0}, (0, 2)),  # the person is away (stood in for): the bot is waited for again
    (FOUR, 1, (0, 2), set(), set(), (0, 2)),  # two people: either answers, as rules.md 6 says
    (SIX, 1, (0, 2, 4), {2, 4}, set(), (0,)),  # both bots of a six-player side hold back for their person
    (SIX, 1, (0, 2, 4), {0, 4}, {2}, (0, 2, 4)),  # its person away, nobody to leave it to
    ((0, 1, 1), 0, (1, 2), {2}, set(), (1,)),  # three players: the pair of a person and a bot against the forehand
])
def test_a_bot_holds_back_only_for_a_person_of_its_side_at_the_table(
        sides: tuple[int, ...], raiser: int, waiting: tuple[int, ...], bots: set[int], absent: set[int],
        expected: tuple[int, ...]) -> None:
    match = Raised((3, raiser), sides)
    assert waited_for(match, waiting, bots, absent) == expected
    assert holding_back(match, waiting, bots, absent) == set(waiting) - set(expected)


def test_without_a_raise_nobody_holds_back() -> None:
    assert waited_for(Raised(None, FOUR), (2,), {2, 3}, set()) == (2,)
    assert waited_for(None, (), {2, 3}, set()) == ()


def test_the_host_game_waits_for_the_person_alone_and_for_the_bot_again_once_they_are_away() -> None:
    """A verified game whose roster has a person and a host bot on each side: at a raise, the engine lets either
    seat of the other side answer, the host game waits for its person (`waiting_for`, `to_act`); with that person
    stood in for, for both again; back at the table, for the person alone."""
    table = LocalTable(Rules.preset("bavarian", players=4), seed=5, bots=frozenset({2, 3}))
    rng = random.Random(11)
    raises = 0
    while raises < 8:  # a few raises, each side's person asked
        table.play_until(lambda: table.host.finished or _raised(table), rng=rng)
        if table.host.finished:
            break
        raises += 1
        match = table.host.match
        assert match is not None
        asked = match.waiting_for
        person = next(s for s in asked if s not in table.bots)
        bot = next(s for s in asked if s in table.bots)
        assert "accept" in match.legal_actions(bot), "the bot may still answer: only the table's wait changes"
        assert table.host.to_act() == (person,) and table.host.waiting_for() == ("play", (person,))

        table.go_away(person)
        assert set(table.host.to_act()) == {person, bot} == set(table.host.waiting_for()[1])
        table.come_back(person)
        assert table.host.to_act() == (person,)
        table.play_until(lambda: not _raised(table), rng=rng)
    assert raises >= 2


def _raised(table: LocalTable) -> bool:
    return table.host.match is not None and table.host.match.raise_pending is not None
