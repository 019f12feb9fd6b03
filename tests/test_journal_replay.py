"""A trustless table of host bots crashes twice, the second time right after steps it rebuilt in the first resume.

The journal must give back the same bots after every resume: a bot that draws fresh bytes during a replay (the crash
came in the middle of its shuffle's draws) must find them journaled the next time, and a bot's played card (whose
opening draws a proof) must draw again in the replay, or its later key shares, shuffles and shares differ from the
ones the chain holds and the host cannot start again (tests/test_crash_recovery.py does the same with real
processes and random kill points; this one picks the points).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.journal import DRAW, SUBMIT, read_journal
from host.table import Table, TableSettings
from watten_net.deal.protocol import parse_envelope
from watten_net.engine import Rules

from host_bots import crash, until, write_journal


@pytest.mark.slow
def test_a_resumed_host_bot_shuffling_when_the_host_died_is_rebuilt_alike_by_the_next_resume(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="watten.host")
    asyncio.run(_crash_twice(tmp_path))
    assert not [r.getMessage() for r in caplog.records if r.name == "watten.host"]


async def _crash_twice(tmp_path: Path) -> None:
    host_key = Ed25519PrivateKey.generate()
    rules = Rules.preset("bavarian", 4).with_flag("target", "3")
    whole = Table(TableSettings(rules, deal="trustless", host_key=host_key))
    whole.journal_path = tmp_path / "whole.wjournal"
    await whole.add_bots(4, "random")
    await whole.start()
    await until(whole.finished.is_set, "the first match to end")
    meta, entries = read_journal(whole.journal_path.with_suffix(".done"))

    # The last shuffle of a bot (hands were played before it): the host dies halfway through its draws.
    shuffles = [i for i, (kind, _, raw) in enumerate(entries)
                if kind == SUBMIT and parse_envelope(raw, host=False).type == "Shuffle"]
    last = shuffles[-1]
    shuffler = entries[last][1]
    draws = 0
    while entries[last - draws - 1][:2] == (DRAW, shuffler):
        draws += 1
    assert draws >= 2, "a shuffle draws many times"
    cut = tmp_path / "cut.wjournal"
    write_journal(cut, meta, entries[:last - draws // 2])

    first = await Table.resume(cut, host_key)
    shuffled = sum(1 for i in shuffles if entries[i][1] == shuffler)
    await until(lambda: _shuffles_of(cut, shuffler) == shuffled, "the resumed bot to shuffle")
    await crash(first)
    chain = [p.hash for p in first.game.chain] if first.game is not None else []

    second = await Table.resume(cut, host_key)  # a bot rebuilt otherwise would fail its own shuffle here
    assert second.game is not None and [p.hash for p in second.game.chain[:len(chain)]] == chain
    await crash(second)



def _shuffles_of(path: Path, seat: int) -> int:
    _, entries = read_journal(path)
    return sum(1 for kind, who, raw in entries
               if kind == SUBMIT and who == seat and parse_envelope(raw, host=False).type == "Shuffle")




def test_a_trustless_table_waiting_for_a_seat_away_resumes_its_forfeits_and_its_clock(tmp_path: Path) -> None:
    """A person who never shows up at a trustless table: the host forfeits a hand per grace period (journaled as
    its own decision). The host dies after such a forfeit; the resumed table rebuilds the same chain from the
    journal, goes on waiting on the same clock, and the match ends by itself."""
    asyncio.run(_away_then_crash(tmp_path))


async def _away_then_crash(tmp_path: Path) -> None:
    from host.journal import FORFEIT_AWAY

    from netutil import signed_join

    host_key = Ed25519PrivateKey.generate()
    rules = Rules.preset("bavarian", 2).with_flag("target", "7")
    table = Table(TableSettings(rules, deal="trustless", host_key=host_key, grace=0.05))
    table.journal_path = tmp_path / "away.wjournal"
    person = Ed25519PrivateKey.generate()
    await table.join(signed_join(person, table.info(), name="Gone", nonce=bytes(range(32))))
    await table.add_bots(1, "random")
    await table.start()  # the person never subscribes: offline from the start, so the grace period starts now

    def forfeits() -> int:
        return sum(1 for kind, _, _ in read_journal(table.journal_path)[1] if kind == FORFEIT_AWAY)

    await until(lambda: forfeits() >= 1 or table.finished.is_set(), "the host to forfeit a hand it waited for")
    await crash(table)
    assert table.game is not None and not table.game.finished, "a match to 7 outlasts one forfeit"
    chain = [p.hash for p in table.game.chain]

    resumed = await Table.resume(table.journal_path, host_key, grace=0.05)
    assert resumed.game is not None and [p.hash for p in resumed.game.chain[:len(chain)]] == chain
    await until(resumed.finished.is_set, "the resumed match to end, hand by hand, without the person")
    types = [p.type for p in resumed.game.chain]
    assert types.count("StandIn") == 1 and types.count("AttemptAborted") >= 2
