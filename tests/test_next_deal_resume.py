"""A host that dies while the seats sign a hand's checkpoint and the next deal's seal together (GameHeader.next_deal =
with-checkpoint) resumes from its journal in that order, and a journal of an older host (no next_deal in its
metadata) resumes in the order it was played. In process: a Table of host bots, its journal cut where a kill -9
would leave it (tests/test_crash_recovery.py kills real processes at random points)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.journal import SUBMIT, read_journal
from host.table import Table, TableSettings
from watten_net.deal.host_game import WITH_CHECKPOINT
from watten_net.deal.protocol import parse_envelope
from watten_net.engine import Rules
from watten_net.record import KIND_HOST, Entry
from watten_net.verify import verify_entries

from host_bots import crash, until, write_journal


def test_a_host_killed_between_the_checkpoint_and_the_cut_resumes_in_that_order(tmp_path: Path) -> None:
    asyncio.run(_killed_between_hands(tmp_path, WITH_CHECKPOINT, old_meta=False))


def test_a_journal_of_an_older_host_resumes_in_the_order_it_was_played(tmp_path: Path) -> None:
    asyncio.run(_killed_between_hands(tmp_path, "", old_meta=True))


async def _killed_between_hands(tmp_path: Path, next_deal: str, *, old_meta: bool) -> None:
    host_key = Ed25519PrivateKey.generate()
    rules = Rules.preset("bavarian", 4).with_flag("target", "15")
    for attempt in range(5):  # (random bots: a match whose first hand reached the target has no hand after it)
        whole = Table(TableSettings(rules, host_key=host_key, next_deal=next_deal))
        whole.journal_path = tmp_path / f"whole{attempt}.wjournal"
        await whole.add_bots(4, "random")
        await whole.start()
        await until(whole.finished.is_set, "the first match to end")
        assert whole.game is not None
        if sum(1 for p in whole.game.chain if p.type == "HandEnd") > 1:
            break
    played = [p.hash for p in whole.game.chain]
    assert parse_envelope(whole.game.chain[0].raw, host=True).payload.next_deal == next_deal
    meta, entries = read_journal(whole.journal_path.with_suffix(".done"))
    if old_meta:
        assert meta.pop("next_deal") == ""  # (what a host before GameHeader.next_deal journaled)

    # A hand's end (not the match's): the seats' checkpoint signatures; the host dies after three submits (in the new
    # order one of them a seal signature), before the checkpoint is complete and before the cut.
    submits = [i for i, (kind, _, raw) in enumerate(entries) if kind == SUBMIT]
    types = {i: parse_envelope(entries[i][2], host=False).type for i in submits}
    first = next(i for i in submits if types[i] == "CheckpointSignature")
    after = [i for i in submits if i >= first][:4]
    assert [types[i] for i in after] == (["CheckpointSignature", "DeckSealedSignature"] * 2 if next_deal
                                         else ["CheckpointSignature"] * 4)
    cut = tmp_path / "cut.wjournal"
    write_journal(cut, meta, entries[:after[-1]])

    resumed = await Table.resume(cut, host_key)
    assert resumed.game is not None and resumed.game.next_deal == next_deal
    held = len(resumed.game.chain)
    assert [p.hash for p in resumed.game.chain] == played[:held]  # the same chain up to the crash
    await until(resumed.finished.is_set, "the resumed match to end")
    chain = resumed.game.chain
    assert verify_entries([Entry(KIND_HOST, p.raw) for p in chain]).verdict == "verified"
    await crash(resumed)
