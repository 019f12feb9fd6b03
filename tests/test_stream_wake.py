"""An attack on how the host wakes its event streams (host/table.py `StreamWake`, `Table.wake_streams`): one Event
per table, set and cleared at each change, instead of an asyncio.Condition.

In process over real gRPC (host/server.py's service on 127.0.0.1): seats and spectators follow a table's lobby while
it changes, some changes back to back (several for one wake), some one at a time with every stream asleep in
between. Meanwhile one stream's client never reads (its writes stick), one is cancelled by its client while it
waits, and one is replaced by a newer Subscribe of its seat. Every stream still reading must carry every change
once and in order; the replaced one ends with `stream-replaced`; the stuck one holds nobody up.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio
import pytest

from client.connection import Connection
from client.errors import refusal_from_error
from host.table import StreamWake
from watten_net.v1 import watten_pb2 as pb

from netutil import NO_WINDOW_GROWTH, in_process_host, own_channel, table_stub

SPECTATORS = 6
CHANGES = 160  # readiness toggles (the lobby keeps 256 log items: no stream is told it lags)


@dataclass
class Reader:
    """One stream as its client reads it: the seq of its snapshot, of every event, and how it ended."""

    call: Any
    start: int = -1
    seqs: list[int] = field(default_factory=list)
    ending: tuple[grpc.StatusCode, str] | None = None

    async def follow(self) -> None:
        try:
            while (update := await self.call.read()) is not grpc.aio.EOF:
                if update.HasField("snapshot"):
                    self.start = update.snapshot.seq
                else:
                    self.seqs.append(update.event.seq)
            self.ending = (grpc.StatusCode.OK, "")
        except grpc.aio.AioRpcError as err:
            info = refusal_from_error(err)
            self.ending = (info.code, info.reason)

    def consecutive(self) -> bool:
        return self.seqs == list(range(self.start + 1, self.start + 1 + len(self.seqs)))


async def _subscribed(channel: grpc.aio.Channel, token: str) -> Reader:
    reader = Reader(table_stub(channel).Subscribe(pb.SubscribeRequest(token=token)))
    first = await reader.call.read()
    assert first.HasField("snapshot")
    reader.start = first.snapshot.seq
    return reader


async def _caught_up(readers: list[Reader], seq: int) -> bool:
    """Until every reader carried `seq` (bounded: False if one never does)."""
    for _ in range(2000):
        if all(r.seqs and r.seqs[-1] >= seq for r in readers):
            return True
        await asyncio.sleep(0.005)
    return False


@pytest.mark.network
def test_every_stream_wakes_for_every_change_whatever_the_other_streams_do(monkeypatch: Any) -> None:
    import host.server as server_module
    from host.server import WattenTableService
    from host.table import Table, TableSettings
    from watten_net.engine import Rules

    monkeypatch.setattr(server_module, "REPLACED_CUT", 0.5)

    async def attack() -> dict[str, Any]:
        table = Table(TableSettings(Rules.preset("bavarian", 4)))
        service = WattenTableService(table)
        found: dict[str, Any] = {}
        async with in_process_host(service) as port:
            people = [Connection(own_channel(port)) for _ in range(2)]
            stuck = Connection(own_channel(port, NO_WINDOW_GROWTH))
            watchers = [Connection(own_channel(port)) for _ in range(SPECTATORS)]
            for i, conn in enumerate(people):
                await conn.join(f"p{i}")
            await stuck.join("never reads")
            for i, conn in enumerate(watchers):
                assert await conn.join(f"w{i}", spectate=True) == -1
            readers = [await _subscribed(c.channel, c.token) for c in [*people, *watchers]]
            unread = await _subscribed(stuck.channel, stuck.token)  # (never read again)
            tasks = [asyncio.ensure_future(r.follow()) for r in readers]
            gone, readers = readers[-1], readers[:-1]  # a spectator whose client cancels it while it waits

            async def change(i: int) -> None:
                await table.set_ready(people[0].seat, i % 2 == 0)

            for i in range(CHANGES // 4):  # one at a time: every stream asleep before the next change
                await change(i)
                assert await _caught_up(readers, len(table.log))
            gone.call.cancel()
            for i in range(CHANGES // 4, CHANGES // 2):  # back to back: several changes for one wake
                await change(i)
            # A newer stream of seat p1 replaces the one that follows it while it waits.
            replaced = readers[1]
            newer = await _subscribed(own_channel(port), people[1].token)
            tasks.append(asyncio.ensure_future(newer.follow()))
            readers[1] = newer
            for i in range(CHANGES // 2, CHANGES):
                await change(i)
                if i % 3 == 0:
                    assert await _caught_up(readers, len(table.log))
            found["all caught up"] = await _caught_up(readers, len(table.log))
            found["every change once, in order"] = [r.consecutive() for r in readers]
            found["ended at the log's end"] = {r.seqs[-1] for r in readers} == {len(table.log)}
            await asyncio.wait_for(tasks[1], 30)
            found["replaced"] = (replaced.ending, replaced.consecutive())
            found["stuck stream behind"] = service.latest[(table.table_id, stuck.seat)].cursor < len(table.log)
            found["cancelled"] = gone.call.cancelled()
            for call in [unread.call, *(r.call for r in readers)]:
                call.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await table.shutdown()
        return found

    found = asyncio.run(asyncio.wait_for(attack(), 120))
    assert found == {
        "all caught up": True,
        "every change once, in order": [True] * (2 + SPECTATORS - 1),
        "ended at the log's end": True,
        "replaced": ((grpc.StatusCode.ABORTED, "stream-replaced"), True),
        "stuck stream behind": True,
        "cancelled": True,
    }


def test_a_waiter_cancelled_takes_no_wake_from_the_others_and_a_wake_nobody_waits_for_is_not_kept() -> None:
    async def scenario() -> tuple[list[bool], bool, bool]:
        wake = StreamWake()
        waiters = [asyncio.ensure_future(wake.wait()) for _ in range(5)]
        await asyncio.sleep(0)
        waiters[2].cancel()
        await asyncio.sleep(0)
        wake.wake()
        await asyncio.gather(*waiters, return_exceptions=True)
        woken = [w.done() and not w.cancelled() for w in waiters]
        wake.wake()  # nobody waits: the next wait is for the next change, not this one
        later = asyncio.ensure_future(wake.wait())
        await asyncio.sleep(0.01)
        waited = not later.done()
        wake.wake()
        await asyncio.wait_for(later, 5)
        return woken, waited, later.done()

    assert asyncio.run(scenario()) == ([True, True, False, True, True], True, True)


def test_waiters_cancelled_without_a_change_do_not_pile_up_and_the_live_ones_are_still_woken() -> None:
    """A client opening and cancelling streams while the table does not change leaves a bounded number of dead
    waiters behind; the streams still waiting are all woken by the next change."""
    async def scenario() -> tuple[int, list[bool]]:
        wake = StreamWake()
        live = [wake.wait() for _ in range(3)]
        for _ in range(1000):
            wake.wait().cancel()
        kept = wake.kept()
        live.append(wake.wait())
        wake.wake()
        await asyncio.wait_for(asyncio.gather(*live), 5)
        return kept, [w.done() and not w.cancelled() for w in live]

    kept, woken = asyncio.run(scenario())
    assert kept <= StreamWake.PRUNE_AT + 3
    assert woken == [True] * 4


CHURN = 300  # Subscribe streams a client opens and cancels while the table does not change


@pytest.mark.network
def test_a_client_that_opens_and_cancels_streams_leaves_no_waiters_behind() -> None:
    # The attack on StreamWake's futures over real gRPC: a spectator's client opens a Subscribe, reads its snapshot
    # (the host's handler then waits on a future of its own) and cancels it, CHURN times, nobody at the table acting
    # meanwhile. The host keeps no more futures than PRUNE_AT and the streams still open (measured: 2 at most, since
    # a spectator's watching and leaving are lobby changes, and each change's wake drops every future; were they
    # not, a cancelled handler's future is cancelled with it and the next wait drops it past PRUNE_AT), and the
    # seat's stream that stayed is woken by the next change all the same.
    from host.server import WattenTableService
    from host.table import Table, TableSettings
    from watten_net.engine import Rules

    async def attack() -> tuple[int, bool, int]:
        table = Table(TableSettings(Rules.preset("bavarian", 4)))
        service = WattenTableService(table)
        async with in_process_host(service) as port:
            person, watcher = Connection(own_channel(port)), Connection(own_channel(port))
            await person.join("p")
            assert await watcher.join("w", spectate=True) == -1
            steady = await _subscribed(own_channel(port), person.token)
            follows = asyncio.ensure_future(steady.follow())
            churned = own_channel(port)
            most = 0
            for _ in range(CHURN):
                call = table_stub(churned).Subscribe(pb.SubscribeRequest(token=watcher.token))
                assert (await call.read()).HasField("snapshot")
                call.cancel()
                most = max(most, table.streams_wake.kept())
            await table.set_ready(person.seat, True)
            woken = await _caught_up([steady], len(table.log))
            steady.call.cancel()
            await asyncio.gather(follows, return_exceptions=True)
            await table.shutdown()
        return most, woken, len(steady.seqs)

    most, woken, carried = asyncio.run(asyncio.wait_for(attack(), 120))
    assert woken and carried >= 1
    assert most <= StreamWake.PRUNE_AT + 2, most  # (+ the seat's stream, and the one being opened)
