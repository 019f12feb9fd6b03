"""The lobby the host arranges (host/arrange.py) and another match (host/rematch.py), in process and without the
network: the host's person frees a bot's seat or an absent person's and swaps seats; every refusal with its reason,
and a refusal changes nothing. tests/test_play_again.py covers ChooseSeat, SetName and whole matches over real gRPC.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.server import _Stream, _updates
from host.table import Table, TableRefusal, TableSettings
from watten_net.engine import Rules
from watten_net.refusal import Refusal

from host_bots import until
from netutil import signed_join

FP = b"\x11" * 32
RULES = Rules.preset("bavarian", players=4)


def run(body: Callable[[Table], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        t = Table(TableSettings(RULES, tls_fingerprint=FP))
        try:
            return await body(t)
        finally:
            await t.shutdown()

    return asyncio.run(asyncio.wait_for(main(), 30))


async def refused(awaitable: Awaitable[Any], reason: str) -> None:
    with pytest.raises(TableRefusal) as err:
        await awaitable
    assert err.value.reason == reason, err.value.message


async def person(t: Table, name: str, seat: int) -> str:
    taken, token = await t.join(signed_join(Ed25519PrivateKey.generate(), t.info(), fingerprint=FP, name=name,
                                            seat=seat))
    assert taken == seat
    return token


def names(t: Table) -> list[str]:
    return [o.name if o is not None else "" for o in t.seats]


def test_the_host_frees_a_bots_seat_and_an_absent_persons_but_not_one_who_is_there() -> None:
    async def body(t: Table) -> None:
        await person(t, "Theres", 0)
        await t.add_bots(3, "random")
        await refused(t.add_bots(1, "random"), "table-full")
        await t.arrange.vacate(2)  # a bot's seat: free, and its bot is gone
        assert names(t) == ["Theres", "Vroni (bot)", "", "Resi (bot)"] and 2 not in t.bots
        await t.add_bots(1, "random")
        assert t.seats[2] is not None and t.seats[2].bot and 2 in t.bots
        await t.set_online(0, True)
        before = names(t)
        await refused(t.arrange.vacate(0), "person-seated")  # Theres is at the table
        await refused(t.arrange.vacate(4), "bad-seat")
        await refused(t.arrange.vacate(-1), "bad-seat")
        assert names(t) == before
        await t.set_online(0, False)
        await t.arrange.vacate(0)  # away: the host may give the seat to somebody else
        assert t.seats[0] is None

    run(body)


def test_the_host_swaps_seats_bots_move_with_their_seat_games() -> None:
    async def body(t: Table) -> None:
        await person(t, "Theres", 0)
        await t.add_bots(1, "random")  # seat 1
        await t.arrange.swap(0, 1)
        assert names(t)[:2] == ["Vroni (bot)", "Theres"]
        assert set(t.bots) == {0} and t.bots[0].seat == 0
        await t.arrange.swap(1, 3)  # to a free seat
        assert names(t) == ["Vroni (bot)", "", "", "Theres"]
        await refused(t.arrange.swap(0, 9), "bad-seat")
        assert names(t) == ["Vroni (bot)", "", "", "Theres"]

    run(body)


def test_choose_seat_and_set_name_refusals_change_nothing() -> None:
    async def body(t: Table) -> None:
        await person(t, "Resi", 0)
        await person(t, "Hias", 1)
        await refused(t.arrange.choose_seat(0, 1), "seat-taken")
        await refused(t.arrange.choose_seat(0, 4), "bad-seat")
        await refused(t.arrange.set_name(0, " \u202e "), "bad-name")
        await refused(t.arrange.set_name(0, "x" * 40), "bad-name")
        assert names(t) == ["Resi", "Hias", "", ""]
        assert await t.arrange.choose_seat(0, 3) == 3
        await t.arrange.set_name(3, "  Theres\x1b ")
        assert names(t) == ["", "Hias", "", "Theres"]
        await t.add_bots(2, "random")
        await t.start()
        await refused(t.arrange.choose_seat(3, 0), "game-started")
        await refused(t.arrange.set_name(3, "Sepp"), "game-started")
        await refused(t.arrange.swap(0, 1), "game-started")
        await refused(t.arrange.vacate(0), "game-started")
        assert names(t)[3] == "Theres"

    run(body)


def test_ready_during_a_match_is_refused_and_asks_for_nothing() -> None:
    async def body(t: Table) -> None:
        await person(t, "Theres", 0)
        await t.add_bots(3, "random")
        await t.start()
        await refused(t.set_ready(0, True), "game-started")
        assert not t.rematch.between_matches() and t.rematch.waiting_for() == [0]
        assert t.rematch.matches == 1

    run(body)


def test_after_the_hosts_last_match_ready_is_refused_and_no_other_match_begins() -> None:
    """A headless host's last match of `--matches M` (rematch.offered is False): once it is over, Ready (which means
    "another match" between matches) is refused, and the table stays as the match left it."""

    async def body(t: Table) -> None:
        t.rematch.offered = False
        await t.add_bots(4, "random")
        await t.start()
        await until(t.finished.is_set, "the match to end")
        assert t.rematch.between_matches()
        changes = len(t.log)
        with pytest.raises(TableRefusal) as err:
            await t.set_ready(0, True)
        assert err.value.reason == "game-started" and "last match" in err.value.message
        assert len(t.log) == changes and t.rematch.matches == 1 and t.game is not None and t.game.finished

    run(body)


def test_a_stream_that_is_sending_when_its_seat_moves_ends_before_it_sends_the_old_seats_view() -> None:
    """The move may come while the stream is between two changes (its client reading the one before): the next change
    it would send is the old seat's, so it ends with `subscriber-lagging` there, not only when it next waits (a lobby
    may not change again for minutes, and its client would show the old seat as its own till then)."""
    async def body(t: Table) -> None:
        await person(t, "Josef", 3)
        await t.add_bots(1, "random")  # seat 0
        updates = _updates(_Stream(context=None, table=t), 3, len(t.log) - 1)
        first = await anext(updates)  # the stream sent a change and waits for its client to read it
        assert first.HasField("event")
        await t.arrange.swap(3, 1)  # meanwhile the host's person moves Josef to seat 1
        with pytest.raises(Refusal) as err:
            await anext(updates)
        assert err.value.reason == "subscriber-lagging"

    run(body)


def test_a_stream_whose_person_left_ends_before_it_sends_the_next_occupants_cards() -> None:
    """A hostile client keeps reading the stream of a seat it left in the lobby (its token is dead). A bot that takes
    the seat never subscribes, so no newer stream replaces it: the stream must end at the Leave, not go on with the
    bot's view and CardDelivery (the cards of a seat its reader may now play against, from another seat)."""
    async def body(t: Table) -> None:
        await person(t, "Anna", 2)
        updates = _updates(_Stream(context=None, table=t), 2, len(t.log) - 1)
        assert (await anext(updates)).HasField("event")  # (the stream is open, between two changes)
        await t.leave(2)
        await t.add_bots(4, "random")
        await t.start()
        await until(lambda: any(p.type == "CardDelivery" for p in (t.game.chain if t.game else ())), "a deal")
        sent = []
        with pytest.raises(StopAsyncIteration):
            sent.append(await anext(updates))
        assert not sent

    run(body)
