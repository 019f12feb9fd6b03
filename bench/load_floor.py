"""The floor under bench/load.py: the same closed loop of N tables against a bare grpc.aio server that does nothing.

bench/load.py measures the host at N tables with bots at full speed: each table's next action is sent as soon as
its seats saw the last one. Whatever the host does, each game action costs at least what gRPC in Python costs for
it on the wire: one unary request and its reply, and one stream event to each of the table's 4 seats. This measures
that cost alone, the same way and at the same load, so that the host's figure can be read against its floor:

* the server is a bare grpc.aio server in its own process (`--serve`): `Submit` appends the request's item to its
  table's list and replies; `Follow(table)` streams every item of that table to its subscriber. Bytes, no
  protobuf, no work;
* the N x 4 "seats" are one client process (this one), as bench/seats.py's are at bench/load.py: each seat has its
  own channel and TCP connection and follows its table's stream; per table, the seats act in turn, and the next
  request leaves once all 4 seats received the last item (the closed loop);
* the message sizes are those of a real action (bench/latency.py prints them: request, reply, stream event);
* after a warm-up, a window of `--seconds`: every Submit whose reply came inside it counts (latency from the call
  to its reply, in the client, as bench/load.py's "action" figure), and "all 4 received" (from the call until the
  last of the table's seats had the item); the server's CPU per action from /proc.

With `--checks`, the checked floor: the same, plus the signatures the protocol mandates for a game action, with the
very functions the host and the seats call (`Mandated`): the acting seat signs its request; the server checks that
signature and signs the event; every seat checks the event's signature and the acting seat's signature inside it (as
a seat checks an ActionAccepted and the ActionRequest it embeds). No rules, views, records, journal or protobuf: a
lower bound of what a host and seats of this stack (Python, grpc.aio) pay for an action, whatever their code, unless
they drop a check. For one table at a time (`measure_sequence(journal=True)`) also the host's journal: each request
written to the table's file and fsynced before its event leaves (watten-host's order, on the event loop as a host of
one table does it): a game that survives a crash of the host pays that on every action's way, whatever its code.
bench/latency.py and bench/load.py print them beside the bare floor.

Figures only: nothing passes or fails. `--json` prints one line of JSON instead (what bench/load.py reads).

Run: ``.venv/bin/python bench/load_floor.py [--tables 32] [--seconds 30] [--warmup 3] [--checks]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import struct
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import grpc
import grpc.aio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from watten_net.deal.identity import SIGNATURE_LEN, public_key_bytes, sign, verify

PLAYERS = 4
SERVICE = "/bench.Floor/"
LIFETIME = 600.0  # seconds: the server stops by itself after this long even if nobody tells it to
WAIT = 20.0  # seconds: no single wait lasts longer (a stuck server ends the run, not the machine)
_ITEM = struct.Struct(">IIII")  # table, item index, stream event size, reply size
_TABLE = struct.Struct(">I")
GENERATION = 1_000_000  # item index = generation * GENERATION + its number in the generation
# As a watten-join process has, each seat its own TCP connection (gRPC would otherwise share one per target).
OWN_CONNECTION = ("grpc.use_local_subchannel_pool", 1)
# Sizes of a median game action at f8d460f (bench/latency.py: "messages per action"); options change them.
REQUEST_BYTES, REPLY_BYTES, EVENT_BYTES = 238, 40, 1025


# ---------------------------------------------------------------------------------------------------------------
# the mandated work of a game action (`--checks`)
# ---------------------------------------------------------------------------------------------------------------

_LENGTH = struct.Struct(">H")  # a checked event ends with the length of the request it carries, then a signature


class Mandated:
    """The signatures of the checked floor: fixed keys (every process of a run derives the same), a
    request `_ITEM | seat | padding | the seat's signature`, an event `request | padding | its length | the server's
    signature`. A bad signature raises: the floor checks for real, it does not only spend the time."""

    def __init__(self) -> None:
        self.seat_keys = [Ed25519PrivateKey.from_private_bytes(bytes([seat + 1]) * 32) for seat in range(PLAYERS)]
        self.seat_public = [public_key_bytes(key) for key in self.seat_keys]
        self.host_key = Ed25519PrivateKey.from_private_bytes(bytes([0xA0]) * 32)
        self.host_public = public_key_bytes(self.host_key)

    def request(self, header: bytes, seat: int, size: int) -> bytes:
        """The seat's signed request of at least `size` bytes."""
        body = header + bytes([seat]) + bytes(max(0, size - len(header) - 1 - SIGNATURE_LEN))
        return body + sign(self.seat_keys[seat], body)

    def accept(self, request: bytes) -> None:
        """The server's check of a request: the acting seat's signature."""
        seat = request[_ITEM.size]
        if seat >= PLAYERS or not verify(self.seat_public[seat], request[-SIGNATURE_LEN:], request[:-SIGNATURE_LEN]):
            raise ValueError("checked floor: a request's signature does not verify")

    def event(self, request: bytes, size: int) -> bytes:
        """The event of an accepted request, of at least `size` bytes, signed by the server."""
        pad = bytes(max(0, size - len(request) - _LENGTH.size - SIGNATURE_LEN))
        body = request + pad + _LENGTH.pack(len(request))
        return body + sign(self.host_key, body)

    def check(self, event: bytes) -> None:
        """A seat's part: the server's signature on the event and the acting seat's on the request inside it."""
        body, signature = event[:-SIGNATURE_LEN], event[-SIGNATURE_LEN:]
        request = body[:_LENGTH.unpack_from(body, len(body) - _LENGTH.size)[0]]
        seat = request[_ITEM.size]
        if not (verify(self.host_public, signature, body) and seat < PLAYERS
                and verify(self.seat_public[seat], request[-SIGNATURE_LEN:], request[:-SIGNATURE_LEN])):
            raise ValueError("checked floor: an event's signatures do not verify")


# ---------------------------------------------------------------------------------------------------------------
# the server (its own process)
# ---------------------------------------------------------------------------------------------------------------

class Tables:
    """Each table's items so far, and a condition its followers wait on."""

    def __init__(self) -> None:
        self.items: dict[int, list[bytes]] = {}
        self.changed: dict[int, asyncio.Condition] = {}

    def of(self, table: int) -> tuple[list[bytes], asyncio.Condition]:
        if table not in self.items:
            self.items[table], self.changed[table] = [], asyncio.Condition()
        return self.items[table], self.changed[table]


class Journals:
    """The `--journal` floor's journals: a file per table in a temporary folder, each request written and fsynced
    on the event loop before its event is appended (as watten-host's journal of a table, host/journal.py)."""

    def __init__(self) -> None:
        self.folder = tempfile.TemporaryDirectory(prefix="watten-floor-")
        self.files: dict[int, int] = {}

    def write(self, table: int, data: bytes) -> None:
        if table not in self.files:
            path = Path(self.folder.name) / f"{table}.wjournal"
            self.files[table] = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.write(self.files[table], data)
        os.fsync(self.files[table])

    def close(self) -> None:
        for fd in self.files.values():
            os.close(fd)
        self.folder.cleanup()


async def serve(checks: bool, journal: bool) -> None:
    tables = Tables()
    mandated = Mandated() if checks else None
    journals = Journals() if journal else None

    async def submit(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        table, _index, event_size, reply_size = _ITEM.unpack_from(request)
        items, changed = tables.of(table)
        if mandated is None:
            items.append(request[:_ITEM.size] + bytes(max(0, event_size - _ITEM.size)))
        else:
            mandated.accept(request)
            if journals is not None:
                journals.write(table, request)
            items.append(mandated.event(request, event_size))
        async with changed:
            changed.notify_all()
        return bytes(reply_size)

    async def follow(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        items, changed = tables.of(_TABLE.unpack_from(request)[0])
        cursor = len(items)
        while True:
            while cursor < len(items):
                cursor += 1
                yield items[cursor - 1]
            async with changed:
                if cursor >= len(items):
                    await changed.wait()

    handler = grpc.method_handlers_generic_handler(SERVICE.strip("/"), {
        "Submit": grpc.unary_unary_rpc_method_handler(submit),
        "Follow": grpc.unary_stream_rpc_method_handler(follow),
    })
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"floor: serving on port {port}", flush=True)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(reader.read(), LIFETIME)  # until the client closes our stdin
    await server.stop(0.2)
    if journals is not None:
        journals.close()


# ---------------------------------------------------------------------------------------------------------------
# the seats (this process)
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class FloorResult:
    tables: int = 0
    window_s: float = 0.0
    reply_ms: list[float] = field(default_factory=list)  # call -> reply, replies inside the window
    received_ms: list[float] = field(default_factory=list)  # call -> the last of the 4 seats had the item
    server_cpu_s: float = 0.0  # in the window
    client_cpu_s: float = 0.0
    sizes: tuple[int, int, int] = (0, 0, 0)  # request, reply, stream event
    problems: list[str] = field(default_factory=list)

    def actions_per_s(self) -> float:
        return len(self.reply_ms) / self.window_s if self.window_s else 0.0

    def server_ms_per_action(self) -> float:
        return self.server_cpu_s / len(self.reply_ms) * 1000 if self.reply_ms else 0.0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (all threads); 0 when unreadable."""
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list (as bench/load.py's)."""
    ordered = sorted(values)
    return ordered[max(1, min(len(ordered), math.ceil(q / 100 * len(ordered)))) - 1]


class ClosedLoop:
    """One table's 4 seats and the closed loop of its actions: what is the same whether the seats are in this process
    (`FloorTable`) or each in its own (`ApartFloorTable`); a subclass sends (`_send`) and calls `note_arrival`."""

    def __init__(self, number: int, sizes: tuple[int, int, int], checks: bool = False) -> None:
        self.number = number
        self.sizes = sizes
        self.mandated = Mandated() if checks else None  # (the checked floor: the seats sign and check)
        self.generation = 0  # items of an earlier generation (the warm-up's) are not counted
        self.received = [0] * PLAYERS  # items of this generation each seat's stream delivered so far
        self.sent = 0  # items of this generation submitted so far
        self.arrived = asyncio.Event()  # every seat has every item submitted so far
        self.last_arrival = 0.0

    def note_arrival(self, seat: int, index: int, when: float) -> None:
        if index // GENERATION != self.generation:
            return
        self.received[seat] += 1
        if min(self.received) >= self.sent:
            self.last_arrival = when
            self.arrived.set()

    def restart(self) -> None:
        """Count from here: a new generation of items."""
        self.generation += 1
        self.received, self.sent = [0] * PLAYERS, 0

    async def _send(self, seat: int, request: bytes) -> tuple[float, float]:
        """Submit `request` from `seat`: (perf_counter just before the call, just after its reply)."""
        raise NotImplementedError

    async def submit(self, seat: int, sizes: tuple[int, int, int] | None = None) -> tuple[float, float]:
        """One item from `seat`; when its call started and its reply came (perf_counter)."""
        request_size, reply_size, event_size = sizes or self.sizes
        self.sent += 1
        self.arrived.clear()
        index = self.generation * GENERATION + self.sent
        header = _ITEM.pack(self.number, index, event_size, reply_size)
        if self.mandated is not None:
            return await self._send(seat, self.mandated.request(header, seat, request_size))
        return await self._send(seat, header + bytes(max(0, request_size - _ITEM.size)))

    async def everyone_has_all(self, wait: float = WAIT) -> None:
        if min(self.received) < self.sent:
            await asyncio.wait_for(self.arrived.wait(), wait)

    async def act(self, index: int) -> tuple[float, float, float]:
        """Item `index` from its seat in turn; (reply wall time, call -> reply ms, call -> all 4 received ms)."""
        t0, replied = await self.submit(index % PLAYERS)
        wall = time.time()
        await self.everyone_has_all()
        return wall, (replied - t0) * 1000, (max(self.last_arrival, replied) - t0) * 1000

    async def rounds(self, pattern: list[int]) -> float:
        """Rounds of submits, each round's seats at once; a round starts when all 4 seats have the last one's
        items (a change of deal: the hand's last action, then the seats' signatures). Milliseconds in all."""
        t0 = 0.0
        for count in pattern:
            calls = await asyncio.gather(*(self.submit(seat % PLAYERS) for seat in range(count)))
            t0 = t0 or min(started for started, _ in calls)
            await self.everyone_has_all()
        return (max(self.last_arrival, t0) - t0) * 1000

    async def open_streams(self) -> bool:
        """Until every stream is open: an item that reaches all 4 seats (a follower that subscribes after an item
        was appended never sees it, so items are sent until one gets through to all)."""
        for _ in range(200):
            self.restart()
            await self.submit(0, (_ITEM.size, 1, _ITEM.size))
            with contextlib.suppress(TimeoutError):
                await self.everyone_has_all(0.05)
                self.restart()
                return True
        return False

    async def start(self) -> None:
        """Start following the table's stream on every seat."""

    async def close(self) -> None:
        raise NotImplementedError

    def seat_cpu_s(self) -> float:
        """CPU seconds the seats used so far (in this process: the whole process's)."""
        raise NotImplementedError


class FloorTable(ClosedLoop):
    """One table's 4 seats in this process: their channels and their streams."""

    def __init__(self, number: int, port: int, sizes: tuple[int, int, int], own_connections: bool = True,
                 checks: bool = False) -> None:
        super().__init__(number, sizes, checks)
        # (without own connections the 4 channels share one, as client.connection's channels in one process do)
        options = [OWN_CONNECTION] if own_connections else []
        self.channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) for _ in range(PLAYERS)]
        self.followers: list[asyncio.Task[None]] = []

    async def follow(self, seat: int) -> None:
        stream = self.channels[seat].unary_stream(SERVICE + "Follow")(_TABLE.pack(self.number))
        async for item in stream:
            if self.mandated is not None:
                self.mandated.check(item)
            self.note_arrival(seat, _ITEM.unpack_from(item)[1], time.perf_counter())

    async def _send(self, seat: int, request: bytes) -> tuple[float, float]:
        t0 = time.perf_counter()
        await self.channels[seat].unary_unary(SERVICE + "Submit")(request, timeout=WAIT)
        return t0, time.perf_counter()

    async def start(self) -> None:
        self.followers = [asyncio.create_task(self.follow(seat)) for seat in range(PLAYERS)]

    async def close(self) -> None:
        for task in self.followers:
            task.cancel()
        await asyncio.gather(*self.followers, return_exceptions=True)
        for channel in self.channels:
            await channel.close()

    def seat_cpu_s(self) -> float:
        return time.process_time()


class ApartFloorTable(ClosedLoop):
    """One table's 4 seats, each in its own process (`--floor-seat`), as at a real table; this process only tells
    them what to submit and reads when items reached them (their perf_counter: one clock for the whole machine)."""

    def __init__(self, number: int, port: int, sizes: tuple[int, int, int], checks: bool = False) -> None:
        super().__init__(number, sizes, checks)  # (the seat processes check; this one signs what it tells them to send)
        self.port = port
        self.procs: list[asyncio.subprocess.Process] = []
        self.readers: list[asyncio.Task[None]] = []
        self.replies: dict[int, asyncio.Future[tuple[float, float]]] = {}

    async def start(self) -> None:
        for seat in range(PLAYERS):
            proc = await asyncio.create_subprocess_exec(
                sys.executable, str(Path(__file__).resolve()), "--floor-seat", str(self.port), str(self.number),
                *(["--checks"] if self.mandated is not None else []),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
            self.procs.append(proc)
            self.readers.append(asyncio.create_task(self._read(seat, proc)))

    async def _read(self, seat: int, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        while line := await proc.stdout.readline():
            kind, index, *times = line.split()
            if kind == b"r":
                self.note_arrival(seat, int(index), float(times[0]))
            elif kind == b"d" and (reply := self.replies.pop(int(index), None)) is not None:
                reply.set_result((float(times[0]), float(times[1])))

    async def _send(self, seat: int, request: bytes) -> tuple[float, float]:
        index = _ITEM.unpack_from(request)[1]
        reply = self.replies[index] = asyncio.get_running_loop().create_future()
        stdin = self.procs[seat].stdin
        assert stdin is not None
        stdin.write(b"s " + request.hex().encode() + b"\n")
        await stdin.drain()
        return await asyncio.wait_for(reply, WAIT)

    async def close(self) -> None:
        for proc in self.procs:
            if proc.stdin is not None:
                proc.stdin.close()
        for proc in self.procs:
            try:
                await asyncio.wait_for(proc.wait(), 5.0)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)

    def seat_cpu_s(self) -> float:
        return sum(cpu_s(proc.pid) for proc in self.procs)


async def floor_seat(port: int, table: int, checks: bool) -> None:
    """One seat of an ApartFloorTable (its own process): follows the table's stream (checking each item's signatures
    with `checks`), printing `r INDEX TIME` for each item, and submits what its stdin says (`s HEX`, signed by the
    coordinator), printing `d INDEX STARTED REPLIED`."""
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=[OWN_CONNECTION])
    submit = channel.unary_unary(SERVICE + "Submit")
    out = sys.stdout
    mandated = Mandated() if checks else None

    async def follow() -> None:
        async for item in channel.unary_stream(SERVICE + "Follow")(_TABLE.pack(table)):
            if mandated is not None:
                mandated.check(item)
            now = time.perf_counter()
            out.write(f"r {_ITEM.unpack_from(item)[1]} {now!r}\n")
            out.flush()

    async def send(request: bytes) -> None:
        t0 = time.perf_counter()
        await submit(request, timeout=WAIT)
        t1 = time.perf_counter()
        out.write(f"d {_ITEM.unpack_from(request)[1]} {t0!r} {t1!r}\n")
        out.flush()

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    tasks = {asyncio.create_task(follow())}
    while line := await reader.readline():
        task = asyncio.create_task(send(bytes.fromhex(line.split()[1].decode())))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await channel.close()


@contextlib.asynccontextmanager
async def floor_server(checks: bool = False, journal: bool = False) -> AsyncIterator[tuple[int, int]]:
    """The bare server (with `checks`, the checked one; with `journal` too, the durable one) in its own process, for
    as long as the block runs: (its port, its pid)."""
    proc = await asyncio.create_subprocess_exec(sys.executable, str(Path(__file__).resolve()), "--serve",
                                                *(["--checks"] if checks else []), *(["--journal"] if journal else []),
                                                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        line = await asyncio.wait_for(proc.stdout.readline(), WAIT)
        yield int(line.decode().rsplit(" ", 1)[1]), proc.pid
    finally:
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 5.0)
        except TimeoutError:
            proc.kill()
            await proc.wait()


@contextlib.asynccontextmanager
async def open_tables(port: int, count: int, sizes: tuple[int, int, int], apart: bool = False,
                      problems: list[str] | None = None, own_connections: bool = True,
                      checks: bool = False) -> AsyncIterator[list[ClosedLoop]]:
    """`count` tables of 4 seats following their streams (each seat its own process when `apart`; else each its own
    TCP connection unless not `own_connections`), every stream open (else a problem noted), closed at the end; with
    `checks` the seats sign and check as the checked floor's do."""
    tables: list[ClosedLoop] = [ApartFloorTable(n, port, sizes, checks) if apart
                                else FloorTable(n, port, sizes, own_connections, checks) for n in range(count)]
    try:
        for table in tables:
            await table.start()
        for table in tables:
            if not await table.open_streams() and problems is not None:
                problems.append(f"the streams of floor table {table.number} never opened")
        yield tables
    finally:
        for table in tables:
            await table.close()


async def run_tables(tables: list[ClosedLoop], warmup: float, seconds: float, server_pid: int,
                     result: FloorResult) -> None:
    """Every table's closed loop at once; the figures of the replies inside the window."""
    done = asyncio.Event()
    window: list[float] = []  # [start, end] wall times, once known
    noted: list[tuple[float, float, float]] = []

    async def loop(table: ClosedLoop) -> None:
        index = 0
        while not done.is_set():
            noted.append(await table.act(index))
            index += 1

    loops = [asyncio.create_task(loop(t)) for t in tables]
    try:
        await asyncio.sleep(warmup)
        window.append(time.time())
        cpu0, client0 = cpu_s(server_pid), time.process_time()
        await asyncio.sleep(seconds)
        window.append(time.time())
        result.server_cpu_s, result.client_cpu_s = cpu_s(server_pid) - cpu0, time.process_time() - client0
        done.set()
        await asyncio.wait_for(asyncio.gather(*loops), WAIT)
    finally:
        for task in loops:
            task.cancel()
        await asyncio.gather(*loops, return_exceptions=True)
    start, end = window
    result.window_s = end - start
    inside = [n for n in noted if start <= n[0] < end]
    result.reply_ms = [n[1] for n in inside]
    result.received_ms = [n[2] for n in inside]


async def measure(tables: int, seconds: float, warmup: float, sizes: tuple[int, int, int],
                  checks: bool = False) -> FloorResult:
    """Start the bare server (the checked one with `checks`), run `tables` closed loops against it, stop it."""
    result = FloorResult(tables=tables, sizes=sizes)
    try:
        async with floor_server(checks) as (port, pid), open_tables(port, tables, sizes, problems=result.problems,
                                                                    checks=checks) as loops:
            await run_tables(loops, warmup, seconds, pid, result)
    except (TimeoutError, ValueError, IndexError, grpc.RpcError) as err:
        result.problems.append(f"{type(err).__name__}: {err}")
    return result


async def measure_sequence(count: int, sizes: tuple[int, int, int], apart: bool = False, warmup: int = 50,
                           own_connections: bool = True, checks: bool = False,
                           journal: bool = False) -> FloorResult:
    """One table, one action at a time (bench/latency.py's baseline): `warmup` actions, then `count` measured; the
    seats in this process or (`apart`) each in its own; the checked floor with `checks` (and its journal with
    `journal`). `client_cpu_s` is the seats' CPU (this process's, or the four seat processes')."""
    result = FloorResult(tables=1, sizes=sizes)
    try:
        async with floor_server(checks, journal) as (port, pid), open_tables(port, 1, sizes, apart, result.problems,
                                                                    own_connections, checks) as (table,):
            for index in range(warmup):
                await table.act(index)
            server0, seats0, started = cpu_s(pid), table.seat_cpu_s(), time.perf_counter()
            for index in range(count):
                _, reply_ms, received_ms = await table.act(index)
                result.reply_ms.append(reply_ms)
                result.received_ms.append(received_ms)
            result.window_s = time.perf_counter() - started
            result.server_cpu_s, result.client_cpu_s = cpu_s(pid) - server0, table.seat_cpu_s() - seats0
    except (TimeoutError, ValueError, IndexError, grpc.RpcError) as err:
        result.problems.append(f"{type(err).__name__}: {err}")
    return result


# A change of deal on the wire (bench/newhand.py prints these beside the host's figures): rounds of submits, each
# round's seats at once and each submit an event to all 4 seats, the next round once every seat has the last.
# A change of deal on the wire: the submits of each round (the last action, then the seats' co-signatures). The
# first is watten-host's order now (the next deal sealed with the checkpoint, each seat's two signatures in one
# SubmitEnvelope), the last the order before GameHeader.next_deal and SubmitEnvelope.more_envelopes.
DEAL_CHANGES = {
    "now, both signatures in one call: 1 + 4 in 2": [1, 4],
    "both in one round, a call each: 1 + 8 in 2": [1, 8],
    "before, two rounds of calls: 1 + 4 + 4 in 3": [1, 4, 4],
}


async def measure_rounds(patterns: dict[str, list[int]], repeats: int, sizes: tuple[int, int, int],
                         apart: bool = False, checks: bool = False,
                         journal: bool = False) -> tuple[dict[str, list[float]], list[str]]:
    """Each pattern of `rounds` `repeats` times against a bare server (its own process; the checked one with
    `checks`), the patterns alternating so that whatever else the machine does falls on all alike: milliseconds per
    pattern, and any problems. The seats are in this process, or (`apart`) each in its own."""
    times: dict[str, list[float]] = {name: [] for name in patterns}
    problems: list[str] = []
    try:
        async with floor_server(checks, journal) as (port, _pid), open_tables(port, 1, sizes, apart, problems,
                                                                              checks=checks) as (table,):
            for _ in range(repeats):
                for name, pattern in patterns.items():
                    times[name].append(await table.rounds(pattern))
    except (TimeoutError, ValueError, IndexError, grpc.RpcError) as err:
        problems.append(f"{type(err).__name__}: {err}")
    return times, problems


def report(r: FloorResult, checked: bool = False) -> None:
    request, reply, event = r.sizes
    print(f"\nbare grpc.aio floor{' with the mandated checks' if checked else ''}: {r.tables} tables x {PLAYERS} "
          "seats in one client process, the server in its own; "
          f"request {request} B, reply {reply} B, stream event {event} B to each of 4 seats")
    for name, values in (("call -> reply (ms)", r.reply_ms), ("call -> all 4 received (ms)", r.received_ms)):
        if values:
            print(f"  {name:<30} p50 {percentile(values, 50):7.2f}  p90 {percentile(values, 90):7.2f}  "
                  f"p99 {percentile(values, 99):7.2f}  max {max(values):7.2f}")
    if r.reply_ms:
        print(f"  actions/s {r.actions_per_s():.0f}; server CPU {r.server_ms_per_action():.2f} ms per action "
              f"({r.server_cpu_s / r.window_s:.0%} of a core); client process CPU "
              f"{r.client_cpu_s / len(r.reply_ms) * 1000:.2f} ms per action ({r.client_cpu_s / r.window_s:.0%})")
    for problem in r.problems:
        print(f"  problem: {problem}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tables", type=int, default=32, help="tables of 4 seats (default 32)")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the measuring window (default 30)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds between the start and the window")
    parser.add_argument("--request-bytes", type=int, default=REQUEST_BYTES)
    parser.add_argument("--reply-bytes", type=int, default=REPLY_BYTES)
    parser.add_argument("--event-bytes", type=int, default=EVENT_BYTES)
    parser.add_argument("--checks", action="store_true", help="the checked floor: the server and the seats sign "
                        "and check the signatures the protocol mandates for a game action, nothing more")
    parser.add_argument("--journal", action="store_true", help=argparse.SUPPRESS)  # (--serve: one table's journal)
    parser.add_argument("--json", action="store_true", help="print the result as one line of JSON")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--floor-seat", nargs=2, type=int, metavar=("PORT", "TABLE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.checks, args.journal))
        return
    if args.floor_seat:
        port, table = args.floor_seat
        asyncio.run(floor_seat(port, table, args.checks))
        return
    sizes = (args.request_bytes, args.reply_bytes, args.event_bytes)
    result = asyncio.run(measure(max(1, args.tables), args.seconds, args.warmup, sizes, args.checks))
    if args.json:
        print(json.dumps(asdict(result)))
        return
    print(f"watten-net load floor (Python {platform.python_version()}, grpcio {grpc.__version__}, "
          f"{os.cpu_count()} CPUs)")
    report(result, args.checks)


if __name__ == "__main__":
    main()
