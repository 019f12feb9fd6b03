"""A host resumed from its journal runs the step timeout its header names (GameHeader.step_timeout_ms, which its seats
signed), whatever `--step-timeout` the restart was given: the header again byte for byte, the clock agreed to. A
journal of an older host (no step timeout in its metadata) played a header without one: it resumes without one.
In process: a Table of host bots, its journal cut where a kill -9 would leave it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.journal import SUBMIT, read_journal
from host.table import Table, TableSettings
from watten_net.deal.protocol import parse_envelope
from watten_net.engine import Rules
from watten_net.record import KIND_HOST, Entry
from watten_net.verify import verify_entries

from host_bots import crash, until, write_journal


@pytest.mark.parametrize(("played", "old_meta"), [(7.0, False), (0.0, True)])
def test_a_resumed_host_keeps_the_journaled_step_timeout(tmp_path: Path, played: float, old_meta: bool) -> None:
    asyncio.run(_resumed(tmp_path, played, old_meta))


async def _resumed(tmp_path: Path, played: float, old_meta: bool) -> None:
    host_key = Ed25519PrivateKey.generate()
    whole = Table(TableSettings(Rules.preset("bavarian", 2).with_flag("target", "5"), host_key=host_key,
                                step_timeout=played))
    whole.journal_path = tmp_path / "whole.wjournal"
    await whole.add_bots(2, "random")
    await whole.start()
    await until(whole.finished.is_set, "the first match to end")
    assert whole.game is not None
    chain = [p.hash for p in whole.game.chain]
    assert parse_envelope(whole.game.chain[0].raw, host=True).payload.step_timeout_ms == round(played * 1000)
    meta, entries = read_journal(whole.journal_path.with_suffix(".done"))
    if old_meta:
        assert meta.pop("step_timeout") == played  # (what a host before GameHeader.step_timeout_ms journaled)
    submits = [i for i, (kind, _, _) in enumerate(entries) if kind == SUBMIT]
    cut = tmp_path / "cut.wjournal"
    write_journal(cut, meta, entries[:submits[len(submits) // 2]])

    resumed = await Table.resume(cut, host_key, step_timeout=12.0)  # (the restart's --step-timeout 12)
    assert resumed.game is not None
    assert resumed.game.step_timeout_ms == round(played * 1000) and resumed.settings.step_timeout == played
    held = len(resumed.game.chain)
    assert [p.hash for p in resumed.game.chain] == chain[:held]  # the same header, the same chain up to the crash
    assert resumed.info().step_timeout == played  # (what its TableInfo says, too)
    await until(resumed.finished.is_set, "the resumed match to end")
    assert verify_entries([Entry(KIND_HOST, p.raw) for p in resumed.game.chain]).verdict == "verified"
    await crash(resumed)
