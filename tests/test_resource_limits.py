"""What one client can make the host spend is bounded (issue #19, items 5 and 6), each limit attacked over real gRPC.

One host process per test on 127.0.0.1 (`--limit-loopback` makes this machine's address count like any other, with
small limits set by flags); the attacks use bounded counts and look only at what comes back, never at the clock.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest

from client.connection import Connection, Refused
from client.errors import refusal_from_error
from watten_net.v1 import watten_pb2 as pb

from netutil import NO_WINDOW_GROWTH, Proc, in_process_host, own_channel, start_host, table_stub


async def _seated(port: int, name: str) -> Connection:
    conn = Connection(own_channel(port))
    await conn.join(name)
    return conn


async def _ends_with(call: Any) -> tuple[grpc.StatusCode, str]:
    """Read a stream to its end: its status code and reason."""
    try:
        while await call.read() is not grpc.aio.EOF:
            pass
    except grpc.aio.AioRpcError as err:
        info = refusal_from_error(err)
        return info.code, info.reason
    return grpc.StatusCode.OK, ""


def _host(tmp_path: Path, *args: str) -> tuple[Proc, int]:
    return start_host(tmp_path, "--insecure", "--headless", *args)


def _run(coro: Any, timeout: float = 120) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout))


# ---------------------------------------------------------------------------------------------- one stream per seat
@pytest.mark.network
def test_a_new_subscribe_ends_the_old_stream_with_stream_replaced(tmp_path: Path) -> None:
    host, port = _host(tmp_path, "--players", "4")

    async def attack() -> None:
        me = await _seated(port, "me")
        stub = table_stub(me.channel)
        first = stub.Subscribe(pb.SubscribeRequest(token=me.token))
        assert (await first.read()).HasField("snapshot")
        second = stub.Subscribe(pb.SubscribeRequest(token=me.token))
        assert (await second.read()).HasField("snapshot")
        assert await _ends_with(first) == (grpc.StatusCode.ABORTED, "stream-replaced")
        # The new stream is the seat's stream: it carries what happens next (another person sits down).
        other = await _seated(port, "other")
        update = await second.read()
        assert any(e.kind == "seat-taken" and e.seat == other.seat for e in update.event.events), update
        second.cancel()
        # Many streams opened one after the other, none read after its snapshot: each is replaced by the next, so
        # only the last one is left (the host keeps one per token, not thirty).
        calls = []
        for _ in range(30):
            call = stub.Subscribe(pb.SubscribeRequest(token=me.token))
            assert (await call.read()).HasField("snapshot")
            calls.append(call)
        endings = await asyncio.gather(*(_ends_with(c) for c in calls[:-1]))
        assert set(endings) == {(grpc.StatusCode.ABORTED, "stream-replaced")}, endings
        info = await other.table()
        assert info.seats[me.seat].online
        calls[-1].cancel()
        await me.close()
        await other.close()

    try:
        _run(attack())
    finally:
        host.stop()
    assert "Traceback" not in host.output()


@pytest.mark.network
def test_opening_and_closing_a_stream_again_and_again_tells_the_other_seats_nothing(tmp_path: Path) -> None:
    host, port = _host(tmp_path, "--players", "4")

    async def attack() -> int:
        watcher = await _seated(port, "watcher")
        churner = await _seated(port, "churner")
        seen: list[Any] = []
        watch = table_stub(watcher.channel).Subscribe(pb.SubscribeRequest(token=watcher.token))

        async def read() -> None:
            while (update := await watch.read()) is not grpc.aio.EOF:
                seen.append(update)

        reader = asyncio.ensure_future(read())
        stub = table_stub(churner.channel)
        for _ in range(60):
            call = stub.Subscribe(pb.SubscribeRequest(token=churner.token))
            assert (await call.read()).HasField("snapshot")
            call.cancel()
        # A marker after the churn: once the watcher has it, it has everything the churn caused before it.
        marker = await _seated(port, "marker")
        for _ in range(400):
            if any(e.kind == "seat-taken" and e.seat == marker.seat for u in seen for e in u.event.events):
                break
            await asyncio.sleep(0.05)
        reader.cancel()
        presence = [e for u in seen for e in u.event.events
                    if e.seat == churner.seat and e.kind in ("online", "offline")]
        for conn in (watcher, churner, marker):
            await conn.close()
        return len(presence)

    try:
        presence = _run(attack())
    finally:
        host.stop()
    # 60 opens and closes: the seat came online once (its first stream), and at most went offline once since.
    assert presence <= 2, presence


# ------------------------------------------------------------------------------------------ connections per address
async def _get_table(channel: grpc.aio.Channel) -> tuple[grpc.StatusCode, str]:
    try:
        await table_stub(channel).GetTable(pb.GetTableRequest(), timeout=30)
    except grpc.aio.AioRpcError as err:
        info = refusal_from_error(err)
        assert info.message, "a refusal without a sentence"
        return info.code, info.reason
    return grpc.StatusCode.OK, ""


@pytest.mark.network
def test_sixty_connections_from_one_address_get_sixteen_served_and_the_rest_refused(tmp_path: Path) -> None:
    host, port = _host(tmp_path, "--limit-loopback", "--connections-per-address", "16")

    async def attack() -> tuple[list[tuple[grpc.StatusCode, str]], tuple[grpc.StatusCode, str]]:
        channels = [own_channel(port) for _ in range(60)]
        answers = await asyncio.gather(*(_get_table(c) for c in channels))
        served = [c for c, a in zip(channels, answers, strict=True) if a[0] == grpc.StatusCode.OK]
        again = await _get_table(served[0])  # a connection that was let in is still served
        for channel in channels:
            await channel.close()
        return answers, again

    try:
        answers, again = _run(attack())
    finally:
        host.stop()
    assert answers.count((grpc.StatusCode.OK, "")) == 16, answers
    assert answers.count((grpc.StatusCode.RESOURCE_EXHAUSTED, "too-many-connections")) == 44, answers
    assert again == (grpc.StatusCode.OK, "")
    assert "Traceback" not in host.output()


@pytest.mark.network
def test_idle_tcp_connections_are_dropped_and_the_host_serves_meanwhile(tmp_path: Path) -> None:
    import socket
    import time

    host, port = _host(tmp_path, "--idle-timeout", "1")
    sockets = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(60)]
    try:
        for s in sockets:
            s.settimeout(0.05)
        answer = _run(_served_once(port))
        assert answer == (grpc.StatusCode.OK, "")
        closed: set[int] = set()
        deadline = time.monotonic() + 120  # a bound for a loaded machine, not a measurement
        while len(closed) < len(sockets) and time.monotonic() < deadline:
            for i, s in enumerate(sockets):
                if i in closed:
                    continue
                try:
                    if s.recv(4096) == b"":
                        closed.add(i)
                except TimeoutError:
                    pass
                except OSError:
                    closed.add(i)
        assert len(closed) == len(sockets), f"only {len(closed)} of {len(sockets)} idle connections were closed"
    finally:
        for s in sockets:
            s.close()
        host.stop()


async def _served_once(port: int) -> tuple[grpc.StatusCode, str]:
    channel = own_channel(port)
    try:
        return await _get_table(channel)
    finally:
        await channel.close()


@pytest.mark.network
def test_the_host_raises_its_open_files_limit_to_the_hard_limit(tmp_path: Path) -> None:
    import resource
    import subprocess
    import sys

    from netutil import ROOT, isolated_env

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = min(256, hard)

    def lower() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))

    proc = subprocess.Popen([sys.executable, "-m", "host.main", "--port", "0", "--bind", "127.0.0.1", "--insecure",
                             "--headless"], cwd=ROOT, env=isolated_env(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, preexec_fn=lower)
    host = Proc(proc)
    try:
        host.wait_for_line(r"on port \d+")
        limits = Path(f"/proc/{proc.pid}/limits").read_text()
    finally:
        host.stop()
    [line] = [x for x in limits.splitlines() if x.startswith("Max open files")]
    soft, hard_seen = line.split()[3:5]
    assert soft == hard_seen == (str(hard) if hard != resource.RLIM_INFINITY else "unlimited"), line


# ------------------------------------------------------------------------------- streams, seats, joins per address
@pytest.mark.network
def test_an_address_may_keep_only_so_many_event_streams_open(tmp_path: Path) -> None:
    host, port = _host(tmp_path, "--players", "6", "--limit-loopback", "--streams-per-address", "4")

    async def attack() -> list[Any]:
        seats = [await _seated(port, f"p{i}") for i in range(6)]
        calls, endings = [], []
        for conn in seats:
            call = table_stub(conn.channel).Subscribe(pb.SubscribeRequest(token=conn.token))
            try:
                assert (await call.read()).HasField("snapshot")
                calls.append(call)
                endings.append((grpc.StatusCode.OK, ""))
            except grpc.aio.AioRpcError as err:
                info = refusal_from_error(err)
                endings.append((info.code, info.reason))
        # One stream closes: the address has room for another again.
        calls[0].cancel()
        reopened = None
        for _ in range(200):
            call = table_stub(seats[-1].channel).Subscribe(pb.SubscribeRequest(token=seats[-1].token))
            try:
                reopened = await call.read()
                break
            except grpc.aio.AioRpcError:
                await asyncio.sleep(0.05)
        endings.append(bool(reopened is not None and reopened.HasField("snapshot")))
        for conn in seats:
            await conn.close()
        return endings

    try:
        endings = _run(attack())
    finally:
        host.stop()
    assert endings[:4] == [(grpc.StatusCode.OK, "")] * 4, endings
    assert endings[4:6] == [(grpc.StatusCode.RESOURCE_EXHAUSTED, "too-many-streams")] * 2, endings
    assert endings[6] is True


async def _join(conn: Connection, name: str) -> tuple[grpc.StatusCode, str]:
    try:
        await conn.join(name)
    except Refused as err:
        assert err.message
        return err.code, err.reason
    return grpc.StatusCode.OK, ""


@pytest.mark.network
def test_one_connection_takes_one_seat_and_one_address_at_most_its_limit(tmp_path: Path) -> None:
    # The attack of the issue: one connection took all 8 free seats of 4 tables in 0.03 s.
    host, port = _host(tmp_path, "--tables", "4", "--players", "2", "--limit-loopback", "--seats-per-address", "3",
                       "--joins-per-minute", "6000")  # (the join rate limit has its own test)

    async def attack() -> tuple[list[Any], list[Any], Any]:
        channel = own_channel(port)
        one_connection = [await _join(Connection(channel), f"greedy {i}") for i in range(8)]
        others = []
        for i in range(4):
            others.append(await _join(Connection(own_channel(port)), f"other {i}"))
        info = await Connection(channel).list_tables()
        taken = sum(1 for t in info for s in t.seats if s.occupied)
        await channel.close()
        return one_connection, others, taken

    try:
        one_connection, others, taken = _run(attack())
    finally:
        host.stop()
    assert one_connection[0] == (grpc.StatusCode.OK, "")
    assert set(one_connection[1:]) == {(grpc.StatusCode.RESOURCE_EXHAUSTED, "too-many-seats")}, one_connection
    assert others[:2] == [(grpc.StatusCode.OK, "")] * 2, others  # three seats for the address in all
    assert set(others[2:]) == {(grpc.StatusCode.RESOURCE_EXHAUSTED, "too-many-seats")}, others
    assert taken == 3


@pytest.mark.network
def test_joins_from_one_address_are_rate_limited(tmp_path: Path) -> None:
    host, port = _host(tmp_path, "--tables", "4", "--players", "6", "--limit-loopback", "--seats-per-address", "24",
                       "--joins-per-minute", "1")

    async def attack() -> list[Any]:
        return [await _join(Connection(own_channel(port)), f"p{i}") for i in range(14)]

    try:
        answers = _run(attack())
    finally:
        host.stop()
    # A burst of ten, then one a minute: the eleventh join within moments is refused (and so are the later ones).
    assert answers[:10] == [(grpc.StatusCode.OK, "")] * 10, answers
    assert set(answers[10:]) == {(grpc.StatusCode.RESOURCE_EXHAUSTED, "join-rate-limited")}, answers


# ------------------------------------------------------------------------------------------------------ request size
@pytest.mark.network
def test_a_long_name_is_refused_before_it_costs_anything(tmp_path: Path) -> None:
    host, port = _host(tmp_path, "--players", "4")

    async def attack() -> list[Any]:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        from netutil import signed_join

        channel = own_channel(port)
        table = await table_stub(channel).GetTable(pb.GetTableRequest())
        answers = []
        for name in ("x" * 33, "x" * 3000, "x" * 20_000, "x" * (1 << 20)):
            request = signed_join(Ed25519PrivateKey.generate(), table, name=name)
            try:
                await table_stub(channel).Join(request, timeout=30)
                answers.append((grpc.StatusCode.OK, ""))
            except grpc.aio.AioRpcError as err:
                info = refusal_from_error(err)
                answers.append((info.code, info.reason))
        answers.append(await _join(Connection(channel), "x" * 32))  # the longest name there is: fine
        await channel.close()
        return answers

    try:
        answers = _run(attack())
    finally:
        host.stop()
    assert answers == [
        (grpc.StatusCode.INVALID_ARGUMENT, "bad-name"),  # 33 characters: the sentence says at most 32
        (grpc.StatusCode.INVALID_ARGUMENT, "bad-name"),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "request-too-large"),  # over 4 KiB: not even parsed
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "resource-exhausted"),  # over 64 KiB: gRPC refuses it unread
        (grpc.StatusCode.OK, ""),
    ], answers
    assert "Traceback" not in host.output()


# ------------------------------------------------------------------------------------------------------------ Start
@pytest.mark.network
def test_start_is_for_the_hosts_own_person_or_when_everyone_is_ready(tmp_path: Path) -> None:
    """In-process host (the host's own person is seated by host/main.py's composition root, which needs a terminal):
    real gRPC on 127.0.0.1, the table's `own_person_key` set as host/main.py sets it."""
    from host.server import WattenTableService
    from host.table import Table, TableSettings
    from watten_net.deal.identity import public_key_bytes
    from watten_net.engine import Rules

    async def attack() -> dict[str, Any]:
        owned = Table(TableSettings(Rules.preset("bavarian", 3)))
        unowned = Table(TableSettings(Rules.preset("bavarian", 2)))
        service = WattenTableService([owned, unowned])
        found: dict[str, Any] = {}
        async with in_process_host(service) as port:
            owner, guest = Connection(own_channel(port)), Connection(own_channel(port))
            await owner.join("host person", table_id=owned.table_id)
            owned.own_person_key = public_key_bytes(owner.key)
            await guest.join("guest", table_id=owned.table_id)
            await owned.add_bots(1, "random")
            found["guest, nobody ready"] = await _refused(guest.start())
            await table_stub(guest.channel).Ready(pb.ReadyRequest(token=guest.token, ready=True))
            found["guest ready, host person not"] = await _refused(guest.start())
            found["host person"] = await _refused(owner.start())
            found["owned table started"] = owned.game is not None
            first, second = Connection(own_channel(port)), Connection(own_channel(port))
            await first.join("first", table_id=unowned.table_id)
            await second.join("second", table_id=unowned.table_id)
            found["nobody ready"] = await _refused(first.start())
            for conn in (first, second):
                await table_stub(conn.channel).Ready(pb.ReadyRequest(token=conn.token, ready=True))
            found["everyone ready"] = await _refused(first.start())
            found["unowned table started"] = unowned.game is not None
            for table in (owned, unowned):
                await table.shutdown()
        return found

    found = _run(attack())
    not_ready = (grpc.StatusCode.FAILED_PRECONDITION, "not-all-ready")
    assert found == {
        "guest, nobody ready": not_ready, "guest ready, host person not": not_ready,
        "host person": (grpc.StatusCode.OK, ""), "owned table started": True,
        "nobody ready": not_ready, "everyone ready": (grpc.StatusCode.OK, ""), "unowned table started": True,
    }, found


async def _refused(call: Any) -> tuple[grpc.StatusCode, str]:
    try:
        await call
    except Refused as err:
        assert err.message
        return err.code, err.reason
    return grpc.StatusCode.OK, ""


# -------------------------------------------------------------------------------------------------------- lobby log
@pytest.mark.network
def test_join_and_leave_churn_does_not_grow_the_lobby_log(tmp_path: Path) -> None:
    """In-process host over real gRPC, so that the test can look at the table's log itself."""
    from host.server import WattenTableService
    from host.table import LOBBY_KEPT, Table, TableSettings
    from watten_net.engine import Rules

    rounds = LOBBY_KEPT + 100

    async def churn() -> dict[str, Any]:
        table = Table(TableSettings(Rules.preset("bavarian", 4)))
        found: dict[str, Any] = {}
        async with in_process_host(WattenTableService(table)) as port:
            watcher = await _seated(port, "watcher")
            for i in range(rounds):
                if i % 40 == 0:  # a fresh connection now and then: the per-connection rate limit is not under test
                    churner = Connection(own_channel(port))
                await churner.join("churner")
                await churner.leave()
            found["seq"] = len(table.log)
            found["kept"] = len(list(table.log))
            # Resuming from the start of the log gets a fresh snapshot, not a resume into forgotten items.
            again = table_stub(watcher.channel).Subscribe(pb.SubscribeRequest(token=watcher.token, from_seq=1))
            first = await again.read()
            found["resumed"] = first.snapshot.resumed
            again.cancel()
            await table.shutdown()
        return found

    found = _run(churn())
    assert found["seq"] >= 2 * rounds  # numbered on: every change still has its own seq
    assert found["kept"] <= LOBBY_KEPT
    assert found["resumed"] is False


class _Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, trailing: Any) -> None:
        super().__init__(code)
        self.code = code
        self.trailing = trailing


class _Context:
    """What the service's Subscribe needs of a grpc.aio context, for driving it directly."""

    def peer(self) -> str:
        return "ipv4:127.0.0.1:1"

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing: Any = None) -> None:
        raise _Aborted(code, trailing)


def test_a_stream_that_falls_behind_the_kept_lobby_log_is_told_to_resubscribe() -> None:
    """The stream itself, driven directly: over gRPC an unread stream's events sit in the transport's buffers, so when
    it falls behind is up to them (the client's answer, resubscribing, is in client/connection.py `follow`)."""
    from google.rpc import status_pb2

    from host.server import WattenTableService
    from host.table import LOBBY_KEPT, Table, TableSettings
    from watten_net.engine import Rules

    async def lag() -> tuple[grpc.StatusCode, str]:
        table = Table(TableSettings(Rules.preset("bavarian", 4)))
        service = WattenTableService(table)
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        from netutil import signed_join

        seat, token = await table.join(signed_join(Ed25519PrivateKey.generate(), table.info(), name="slow"))
        stream = service.Subscribe(pb.SubscribeRequest(token=token), _Context())
        assert (await stream.__anext__()).HasField("snapshot")
        for i in range(LOBBY_KEPT + 10):
            await table.set_ready(seat, i % 2 == 0)
        try:
            while True:
                await stream.__anext__()
        except _Aborted as err:
            status = status_pb2.Status.FromString(dict(err.trailing)["grpc-status-details-bin"])
            detail = pb.ErrorDetail()
            status.details[0].Unpack(detail)
            return err.code, detail.reason
        finally:
            await stream.aclose()
            await table.shutdown()

    assert _run(lag()) == (grpc.StatusCode.ABORTED, "subscriber-lagging")


def test_every_new_refusal_has_the_clients_words_in_every_language() -> None:
    from client.i18n import LANGS, REASONS
    from host import limits

    reasons = {limits.TOO_MANY_CONNECTIONS, limits.TOO_MANY_STREAMS, limits.TOO_MANY_SEATS, limits.JOIN_RATE_LIMITED,
               limits.REQUEST_TOO_LARGE, "bad-name", "not-all-ready", "stream-replaced", "rate-limited"}
    for lang in LANGS:
        assert reasons <= REASONS[lang].keys(), (lang, reasons - REASONS[lang].keys())
    proto = (Path(__file__).resolve().parents[1] / "proto" / "watten_net" / "v1" / "watten.proto").read_text()
    for reason in reasons:
        assert f"`{reason}`" in proto, reason  # listed in the proto's header


@pytest.mark.network
def test_a_replaced_stream_stuck_in_a_write_nobody_reads_is_cut(monkeypatch: Any) -> None:
    """In-process host over real gRPC: a client that never reads (no window growth) leaves the host's writes stuck;
    replaced, its stream is cut all the same, so unread streams cannot pile up on the host."""
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
            conn = Connection(own_channel(port, NO_WINDOW_GROWTH))  # (its window never grows)
            await conn.join("x" * 32)
            unread = table_stub(conn.channel).Subscribe(pb.SubscribeRequest(token=conn.token))
            assert (await unread.read()).HasField("snapshot")
            for i in range(250):  # (far more than the small window holds; the lobby keeps 256)
                await table.set_ready(conn.seat, i % 2 == 0)
            key = (table.table_id, conn.seat)
            old = service.latest[key]
            seen, still = -1, 0
            for _ in range(2000):  # until the host's writes to it are stuck: it stops short of the log's end
                still = still + 1 if old.cursor == seen else 0
                seen = old.cursor
                if still >= 10 and seen < len(table.log):
                    break
                await asyncio.sleep(0.02)
            found["stuck"] = old.cursor < len(table.log)
            newer = table_stub(own_channel(port)).Subscribe(pb.SubscribeRequest(token=conn.token))
            assert (await newer.read()).HasField("snapshot")
            for _ in range(400):
                if old.cut or old.ended:
                    break
                await asyncio.sleep(0.05)
            found["cut while stuck"] = old.cut
            found["old stream"] = await _ends_with(unread)
            for _ in range(400):
                if old.ended:
                    break
                await asyncio.sleep(0.05)
            found["streams of the seat"] = service.streams.get(key)
            newer.cancel()
            await table.shutdown()
        return found

    assert _run(attack()) == {"stuck": True, "cut while stuck": True,
                              "old stream": (grpc.StatusCode.ABORTED, "stream-replaced"), "streams of the seat": 1}
