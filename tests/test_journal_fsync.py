"""The journal's fsync runs off the event loop, and still nothing that depends on an entry leaves the host before the
fsync of that entry returned (host/journal.py's rule).

An attack: the journal's fsync is slowed down in its thread, and the host's own gRPC service is watched at the last
point before its messages go on the wire: every SubmitEnvelope reply and every stream message names a change of the
table's log (its seq), and the journal must have been durable up to that change's last entry before it leaves. A
second test blocks one table's fsync outright: the host's other table plays a whole match meanwhile, and the blocked
table shows nothing of its change (no log item, no view, no TableInfo) until the fsync returns.
"""

from __future__ import annotations

import asyncio
import os
import struct
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.connection import Connection
from host.changelog import LogItem
from host.journal import DRAW, MAGIC, SUBMIT, Journal, fsync_threads, read_journal
from host.server import WattenTableService, start_server, stop_server
from host.table import Table, TableSettings
from watten_net.bots import make_bot
from watten_net.deal.protocol import event_to_pb
from watten_net.engine import Rules
from watten_net.v1 import watten_pb2 as pb

from host_bots import POLLS, until
from netutil import bot_turn

SLOW_FSYNC = 0.02  # seconds each fsync of the attacked journal sleeps: a wide window for a message to leak through


class DurableWatch:
    """What of the journal is on disk: the fsync hook remembers the file's size at the call, once it has returned;
    and, for each log item of the table as it is appended, where the journal's last input entry ends (what that
    change depends on: every input the host accepted so far, and the draws before them; a draw after the last
    input, such as a bot's seed drawn as it reads the change, belongs to a later change)."""

    def __init__(self) -> None:
        self.durable = 0
        self.needed: dict[int, int] = {}  # log seq -> the journal's size when that change was logged
        self.checked = {"reply": 0, "event": 0, "snapshot": 0}
        self.leaks: list[str] = []
        self._lock = threading.Lock()

    def slow_fsync(self, fd: int) -> None:
        size = os.fstat(fd).st_size
        time.sleep(SLOW_FSYNC)  # (the window in which an eager host would send the change)
        os.fsync(fd)
        with self._lock:
            self.durable = max(self.durable, size)

    def watch_log(self, table: Table) -> None:
        """Note, at every change the table logs, how long its journal is (everything that change depends on)."""
        append = table.changes.append

        async def noting(item: LogItem) -> None:
            if table.journal is not None:
                self.needed[item.seq] = _end_of_last_input(table.journal.path.read_bytes())
            await append(item)

        table.changes.append = noting  # type: ignore[method-assign]

    def leaving(self, kind: str, seq: int) -> None:
        """A message naming log item `seq` is about to go on the wire."""
        with self._lock:
            durable = self.durable
        self.checked[kind] += 1
        if self.needed.get(seq, 0) > durable:
            self.leaks.append(f"{kind} of change {seq}: journal needed to {self.needed[seq]} bytes, durable {durable}")


class WatchedService(WattenTableService):
    """The host's service, its answers checked as they leave (the last host code before the wire)."""

    watch: DurableWatch

    async def SubmitEnvelope(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        answer = await super().SubmitEnvelope(request, context)
        self.watch.leaving("reply", int(answer.seq))
        return answer

    async def Subscribe(self, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        async for update in super().Subscribe(request, context):
            if update.HasField("snapshot"):
                self.watch.leaving("snapshot", int(update.snapshot.seq))
            else:
                self.watch.leaving("event", int(update.event.seq))
            yield update


@pytest.mark.network
@pytest.mark.parametrize("on_the_loop", [False, True], ids=["fsync-in-a-thread", "fsync-on-the-loop"])
def test_no_reply_or_stream_event_leaves_before_the_fsync_of_its_change(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        on_the_loop: bool) -> None:
    """Both ways a host runs its journal's fsync: in its threads, and on the event loop (a host of one table)."""
    watch = DurableWatch()
    monkeypatch.setattr(Journal, "sync_file", staticmethod(watch.slow_fsync))
    with fsync_threads() as fsyncs:
        fsyncs.serves_one_table(on_the_loop)
        assert Journal.syncs_on_the_loop() == on_the_loop
        asyncio.run(asyncio.wait_for(_play_two_hands(tmp_path, watch), 300))
    assert not watch.leaks, watch.leaks[:5]
    # The watch saw the messages that matter: replies to the person's envelopes and the stream's events.
    assert watch.checked["reply"] >= 10 and watch.checked["event"] >= 20 and watch.checked["snapshot"] == 1, \
        watch.checked
    assert watch.durable > 0


async def _play_two_hands(tmp_path: Path, watch: DurableWatch) -> None:
    rules = Rules.preset("bavarian", 4).with_flag("target", "11")
    table = Table(TableSettings(rules, host_key=Ed25519PrivateKey.generate()))
    table.journal_path = tmp_path / "watched.wjournal"
    watch.watch_log(table)
    await table.add_bots(3, "random")
    service = WatchedService(table)
    service.watch = watch
    server, port = await start_server(service, 0, None, bind="127.0.0.1")
    conn = Connection(grpc.aio.insecure_channel(f"127.0.0.1:{port}"))
    try:
        await conn.join("Resi")
        await table.start()
        me = make_bot("random", 7)
        async for view in conn.updates():
            if (view is not None and view.hand >= 3) or table.finished.is_set():
                break
            if view is not None:
                await bot_turn(conn, me, view)
    finally:
        await conn.close()
        await stop_server(server, 0)
        await table.shutdown()


def test_a_table_waiting_for_its_fsync_shows_nothing_of_the_change_while_another_table_plays(tmp_path: Path) -> None:
    asyncio.run(asyncio.wait_for(_one_blocked_one_playing(tmp_path), 300))


async def _one_blocked_one_playing(tmp_path: Path) -> None:
    rules = Rules.preset("bavarian", 4).with_flag("target", "3")
    blocked, playing = (Table(TableSettings(rules, host_key=Ed25519PrivateKey.generate())) for _ in range(2))
    for name, table in (("blocked", blocked), ("playing", playing)):
        table.journal_path = tmp_path / f"{name}.wjournal"
        await table.add_bots(4, "random")
    release = threading.Event()
    await blocked.start()
    journal = blocked.journal
    assert journal is not None and journal.durable
    blocked.journal.sync_file = _blocking(release)  # type: ignore[union-attr]
    await until(lambda: not blocked.settled.is_set(), "the blocked table's next change to wait for its fsync")
    log_length, info = len(blocked.log), blocked.info()
    await playing.start()
    await until(playing.finished.is_set, "the other table's match to end")
    # Nothing of the waiting change was logged, and what reads the table without its lock waits for the fsync.
    assert len(blocked.log) == log_length and not journal.durable
    reader = asyncio.ensure_future(_settled_info(blocked))
    # A lobby change that comes without the table's lock (a seat's stream going offline) waits too: its views would
    # show the game change.
    offline = asyncio.ensure_future(blocked.changes.lobby_event(event_to_pb("offline", 0, {})))
    await asyncio.sleep(0.05)
    assert not reader.done() and not offline.done() and len(blocked.log) == log_length
    release.set()
    assert (await reader).seq >= info.seq
    await offline
    await until(lambda: len(blocked.log) > log_length, "the blocked table's change after its fsync")
    assert journal.written >= journal.synced > 0
    for table in (blocked, playing):
        await table.shutdown()


def _end_of_last_input(data: bytes) -> int:
    """Where the journal's last entry other than a random draw ends (entries: u8 kind, u32 length, bytes)."""
    offset, end = len(MAGIC), len(MAGIC)
    while offset + 5 <= len(data):
        kind, length = struct.unpack_from(">BI", data, offset)
        offset += 5 + length
        if kind != DRAW:
            end = offset
    return end


def _blocking(release: threading.Event) -> Callable[[int], None]:
    def fsync(fd: int) -> None:
        if not release.wait(POLLS * 0.01):
            raise AssertionError("the test never released the fsync")
        os.fsync(fd)
    return fsync


async def _settled_info(table: Table) -> Any:
    await table.settled.reached()
    return table.info()


@pytest.mark.network
def test_an_envelope_and_its_blind_retry_arriving_together_get_one_answer_and_one_journal_entry(
        tmp_path: Path) -> None:
    asyncio.run(asyncio.wait_for(_twice_at_once(tmp_path), 120))


async def _twice_at_once(tmp_path: Path) -> None:
    """The seat's first protocol step sent twice in the same instant (a retry that overtook its original): both go
    into one batch; the retry's answer is the original's, known only once the batch is on disk."""
    table = Table(TableSettings(Rules.preset("bavarian", 4), host_key=Ed25519PrivateKey.generate()))
    table.journal_path = tmp_path / "twice.wjournal"
    await table.add_bots(3, "random")
    server, port = await start_server(table, 0, None, bind="127.0.0.1")
    conn = Connection(grpc.aio.insecure_channel(f"127.0.0.1:{port}"))
    try:
        await conn.join("Vroni")
        await table.start()
        async for _ in conn.updates():  # (left before it sends what it owes)
            if conn.game is not None and conn.game.outbox:
                break
        assert conn.game is not None
        raw = conn.game.next_automatic()
        assert raw is not None
        request = pb.SubmitEnvelopeRequest(token=conn.token, envelope=raw)
        first, again = await asyncio.gather(conn.stub.SubmitEnvelope(request), conn.stub.SubmitEnvelope(request))
        assert first == again and first.seq > 0 and first.envelope_hash
        assert table.journal is not None
        _, entries = read_journal(table.journal.path)
        assert sum(1 for kind, seat, body in entries if kind == SUBMIT and seat == conn.seat and body == raw) == 1
    finally:
        await conn.close()
        await stop_server(server, 0)
        await table.shutdown()


def test_the_bots_steps_of_one_go_are_one_change_and_the_log_keeps_the_chain_order(tmp_path: Path) -> None:
    asyncio.run(asyncio.wait_for(_bots_match(tmp_path), 300))


async def _bots_match(tmp_path: Path) -> None:
    table = Table(TableSettings(Rules.preset("bavarian", 4).with_flag("target", "3"),
                                host_key=Ed25519PrivateKey.generate()))
    table.journal_path = tmp_path / "bots.wjournal"
    fsyncs = 0

    def counting(fd: int) -> None:
        nonlocal fsyncs
        fsyncs += 1
        os.fsync(fd)

    await table.add_bots(4, "random")
    await table.start()
    assert table.journal is not None
    table.journal.sync_file = counting
    await until(table.finished.is_set, "the match to end")
    assert table.game is not None
    items = [table.log[i] for i in range(table.log.first, len(table.log))]
    # The log's chain entries, change after change, are the chain itself: applied, journaled and sent in one order.
    assert [p.hash for item in items for p in item.posted] == [p.hash for p in table.game.chain]
    # Several bots co-signed in one change (the checkpoint of every hand), under one fsync.
    relays = [sum(1 for p in item.posted if p.type == "Relay") for item in items]
    assert max(relays) >= 3
    _, entries = read_journal(tmp_path / "bots.done")
    assert 0 < fsyncs < sum(1 for kind, _, _ in entries if kind == SUBMIT)
