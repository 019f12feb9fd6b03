"""Action latency over the network: one action, until all four seats have it; against a bare grpc.aio fan-out.

A real `watten-host` runs in a subprocess (plaintext, 127.0.0.1, a free port, bavarian to 21, records in a
temporary directory). Four `client.connection.Connection`s in this process join it, follow `updates()` (which
checks every host envelope and answers the protocol's own steps) and play whole matches: whenever the table
waits for a seat, that seat plays a random legal action (fixed seed). For every action the clock runs from just
before `Connection.act()` until all four clients have the resulting ActionAccepted chain entry:

  act() returns          the SubmitEnvelope call came back to the acting seat
  first of 4 received    gRPC handed the first seat's stream the event holding that chain seq
  all 4 received         ... and the last seat's (the four share this process's event loop, so a seat's event
                         is read only after the seats before it have been handled)
  all 4 checked          each seat's `SeatGame` checked the entry (`conn.game.chain_seq` reached it): the figure
  all 4 views            each seat's `updates()` yielded the view after it (later at a hand's end: the seat first
                         submits its CheckpointSignature)

The baseline, measured in the same run and the same way: bench/load_floor.py's bare grpc.aio server in a subprocess
(one unary method that appends the request to its table's list and one server-stream method that sends every
appended item to each of 4 subscribers: bytes, no protobuf, no work), one table, one item at a time, with the
request, reply and stream message sizes the real run measured. Also printed: the host process's CPU (all threads,
from /proc) per action and per deal, actions/s, and how many stream events carried a view newer than their own chain
entries. Only figures are printed, with the targets beside them; nothing passes or fails on time. Takes about 10 s
with the defaults.

The four seats share this process and its core above, so their work adds up on the way; at a real table each seat
checks on its own machine, at once. So a second figure follows (`--apart N` actions, default 200, a few seconds; 0
leaves it out): the same play with each seat a `Connection` in its own process (bench/apart.py), against the floor
with each floor seat in its own process too. Each shape's ratio and p99 lines are labelled with it.

Run: ``.venv/bin/python bench/latency.py [--actions 600] [--matches M] [--seed 1] [--apart 200]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc
import grpc.aio

from bench import apart
from bench.load_floor import FloorResult, measure_sequence
from bench.waits import next_move
from client.connection import Connection, Refused, open_channel
from watten_net.v1 import watten_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = 4
TARGET_POINTS = 21
WAIT = 20.0  # seconds: no single wait of the benchmark lasts longer (a stuck table ends the run, not the machine)
MAX_MATCHES = 10
TARGET_RATIO = 2.0
TARGET_P99_MS = 5.0  # issue #17: p99 under 5 ms
EDGE = 100  # actions at the start and at the end of a match, compared
APART_ACTIONS = 200  # actions measured in the real-table shape by default (a few seconds more)


# ---------------------------------------------------------------------------------------------------------------
# measuring one action at a time
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class Probe:
    """The chain seq being waited for, and when each seat got it (perf_counter seconds)."""

    n: int
    target: int = 0
    arrived: dict[int, float] = field(default_factory=dict)
    checked: dict[int, float] = field(default_factory=dict)
    viewed: dict[int, float] = field(default_factory=dict)
    update_sizes: list[int] = field(default_factory=list)
    wrong_type: int = 0
    events_with_view: int = 0
    views_ahead: int = 0  # events whose view shows a chain longer than the event's own entries reach
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def arm(self, target: int) -> None:
        self.target = target
        self.arrived, self.checked, self.viewed = {}, {}, {}
        self.done.clear()

    def disarm(self) -> None:
        self.target = 0

    def check_done(self) -> None:
        if self.target and len(self.arrived) == len(self.checked) == len(self.viewed) == self.n:
            self.done.set()


class _TimedStub:
    """The generated stub, with the sizes of the action requests and their replies measured."""

    def __init__(self, stub: Any, probe: Probe, request_sizes: list[int], reply_sizes: list[int]) -> None:
        self._stub = stub
        self._probe = probe
        self._request_sizes = request_sizes
        self._reply_sizes = reply_sizes

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stub, name)

    async def SubmitEnvelope(self, request: Any, timeout: float | None = None) -> Any:
        reply = await self._stub.SubmitEnvelope(request, timeout=timeout)
        if self._probe.target:
            envelope = pb.Envelope()
            envelope.ParseFromString(request.envelope)
            if envelope.type == "ActionRequest":
                self._request_sizes.append(request.ByteSize())
                self._reply_sizes.append(reply.ByteSize())
        return reply


class BenchConnection(Connection):
    """A `Connection` that notes when its stream got the chain entry the probe waits for (`on_update`, called as gRPC
    hands over each message: no extra layer around the stream) and when its SeatGame has checked it."""

    def __init__(self, channel: grpc.aio.Channel, index: int, probe: Probe, request_sizes: list[int],
                 reply_sizes: list[int], record_dir: Path) -> None:
        super().__init__(channel, record_dir=record_dir)
        self.index = index
        self.probe = probe
        self.stub = _TimedStub(self.stub, probe, request_sizes, reply_sizes)
        self.stream_over = False
        self.on_update = self._arrived
        self._chain_seq = 0

    def _arrived(self, update: Any) -> None:
        now = time.perf_counter()
        probe = self.probe
        body = update.event if update.HasField("event") else update.snapshot
        entries = body.chain
        if probe.target and self.index not in probe.arrived and entries and entries[-1].chain_seq >= probe.target:
            probe.arrived[self.index] = now
            probe.update_sizes.append(update.ByteSize())
        if entries:
            self._chain_seq = int(entries[-1].chain_seq)
        if update.HasField("event") and body.HasField("view") and body.view.chain_seq:
            probe.events_with_view += 1
            probe.views_ahead += body.view.chain_seq > self._chain_seq

    def _receive(self, entry: Any) -> None:
        super()._receive(entry)
        probe = self.probe
        if probe.target and int(entry.chain_seq) == probe.target:
            probe.checked[self.index] = time.perf_counter()
            kind = self.game.chain_types[-1] if self.game is not None else ""  # (the type the seat just checked)
            if kind != "ActionAccepted":
                probe.wrong_type += 1


@dataclass
class RealRun:
    act_ms: list[float] = field(default_factory=list)
    first_ms: list[float] = field(default_factory=list)
    arrived_ms: list[float] = field(default_factory=list)
    checked_ms: list[float] = field(default_factory=list)
    viewed_ms: list[float] = field(default_factory=list)
    position: list[int] = field(default_factory=list)  # each measured action's index within its match
    deal_ms: list[float] = field(default_factory=list)  # from a deal's last action until the next deal's first
    request_sizes: list[int] = field(default_factory=list)
    reply_sizes: list[int] = field(default_factory=list)
    update_sizes: list[int] = field(default_factory=list)
    matches: int = 0
    whole_matches: int = 0
    wall_s: float = 0.0  # the matches from first action to last, deal set-up included
    host_cpu_s: float = 0.0
    host_action_cpu_s: float = 0.0  # host CPU inside the measured windows (act() until all 4 have it)
    client_cpu_s: float = 0.0
    refused: int = 0
    events_with_view: int = 0
    views_ahead: int = 0
    wrong_type: int = 0
    problems: list[str] = field(default_factory=list)


def _proc_cpu_s(pid: int) -> float | None:
    """CPU seconds a process used so far, all its threads (None where there is no /proc).

    From /proc/PID/task/*/schedstat (nanoseconds) where the kernel has it, else /proc/PID/stat (clock ticks).
    """
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):  # a thread that just ended
                total += int((task / "schedstat").read_text().split()[0])
        return total / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class HostCpu:
    """The host's CPU seconds, read twice per measured action, at a small cost that is kept out of the client's figure.

    Each thread's schedstat file is opened once and read again with `os.pread` (a fresh listing and two opens per
    thread per reading cost the client process about 0.5 ms an action, counted as its own); the CPU the readings
    themselves take is summed in `own_s`, which the report subtracts from the client process's CPU.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.own_s = 0.0
        self._files: dict[str, int] = {}  # thread id -> open schedstat file
        self._tasks = Path(f"/proc/{pid}/task")

    def read(self) -> float | None:
        started = time.process_time()
        try:
            return self._read()
        finally:
            self.own_s += time.process_time() - started

    def _read(self) -> float | None:
        try:
            tids = os.listdir(self._tasks)
        except OSError:
            return _proc_cpu_s(self.pid)
        total = 0
        for tid in tids:
            fd = self._files.get(tid)
            try:
                if fd is None:
                    fd = self._files[tid] = os.open(self._tasks / tid / "schedstat", os.O_RDONLY)
                total += int(os.pread(fd, 128, 0).split()[0])
            except FileNotFoundError:
                continue  # a thread that just ended
            except (OSError, ValueError, IndexError):
                return _proc_cpu_s(self.pid)
        return total / 1e9

    def close(self) -> None:
        for fd in self._files.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._files.clear()


def host_command(record_dir: str, *extra: str) -> list[str]:
    script = Path(sys.executable).parent / "watten-host"
    if not script.exists():
        script = ROOT / ".venv" / "bin" / "watten-host"
    return [str(script), "--headless", "--insecure", "--bind", "127.0.0.1", "--port", "0",
            "--players", str(PLAYERS), "--rules", "bavarian", "--record", record_dir,
            "--set", f"target={TARGET_POINTS}", *extra]


async def read_port(stream: asyncio.StreamReader, marker: str) -> int:
    while True:
        line = (await stream.readline()).decode(errors="replace")
        if not line:
            raise RuntimeError(f"the server exited before printing {marker!r}")
        if marker in line:
            return int(line.rsplit(marker, 1)[1].split()[0])


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass


async def _stop_process(proc: asyncio.subprocess.Process, grace: float) -> None:
    """Wait up to `grace` seconds for the process to end by itself; then terminate, then kill it."""
    if proc.returncode is None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), grace)
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 3.0)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()


@contextlib.asynccontextmanager
async def host_process(workdir: Path, number: int, problems: list[str], grace: list[float],
                       extra: Sequence[str] = ()) -> AsyncIterator[tuple[int, int]]:
    """A watten-host in a subprocess for as long as the block runs: (its port, its pid); its failure is a problem.
    At the end it has `grace[0]` seconds to end by itself (its match over) before it is stopped (the block may
    change that: a match cut short is stopped at once; 0: stopped at once, and how it ended is nobody's problem).
    `extra`: more of watten-host's options."""
    record_dir = tempfile.mkdtemp(prefix="host-", dir=workdir)
    stderr_path = workdir / f"host-{number}.stderr"
    with open(stderr_path, "wb") as stderr:
        # (its own data folder: a journal left by an earlier, killed run is never resumed by this one)
        env = {**os.environ, "WATTEN_DATA_DIR": tempfile.mkdtemp(prefix="data-", dir=workdir)}
        proc = await asyncio.create_subprocess_exec(*host_command(record_dir, *extra), stdout=asyncio.subprocess.PIPE,
                                                    stderr=stderr, env=env)
    assert proc.stdout is not None
    drain: asyncio.Task[None] | None = None
    try:
        port = await asyncio.wait_for(read_port(proc.stdout, " on port "), WAIT)
        drain = asyncio.create_task(_drain(proc.stdout))
        yield port, proc.pid
    finally:
        await _stop_process(proc, grace[0])
        if drain is not None:
            drain.cancel()
            await asyncio.gather(drain, return_exceptions=True)
        if grace[0] and proc.returncode not in (0, None):
            tail = stderr_path.read_text(errors="replace").strip().splitlines()[-5:]
            problems.append(f"host of match {number} exited {proc.returncode}: {' | '.join(tail)}")


async def close_seats(tasks: Sequence[asyncio.Task[None]], conns: Sequence[Connection]) -> None:
    """The end of a match's in-process seats: the tasks that follow them cancelled, then their connections closed
    (a connection that fails to close is the host's business, already over)."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for conn in conns:
        with contextlib.suppress(Exception):
            await conn.close()


async def play_match(run: RealRun, rng: random.Random, workdir: Path) -> None:
    """Start a host, seat four clients, play one whole match, measuring every action."""
    run.matches += 1
    async with host_process(workdir, run.matches, run.problems, [10.0]) as (port, pid):
        await _measure_match(run, rng, workdir, port, pid)


async def _measure_match(run: RealRun, rng: random.Random, workdir: Path, port: int, host_pid: int) -> None:
    """Four clients in this process join the host on `port` and play its match, every action measured."""
    conns: list[BenchConnection] = []
    followers: list[asyncio.Task[None]] = []
    probe = Probe(PLAYERS)
    host_cpu: HostCpu | None = None
    try:
        changed = asyncio.Condition()
        for i in range(PLAYERS):
            channel = await open_channel("127.0.0.1", port, insecure=True)
            conns.append(BenchConnection(channel, i, probe, run.request_sizes, run.reply_sizes,
                                         Path(tempfile.mkdtemp(prefix=f"seat{i}-", dir=workdir))))
        for i, conn in enumerate(conns):
            await conn.join(f"bench {i}")

        async def follow(conn: BenchConnection) -> None:
            try:
                async for _view in conn.updates():
                    game = conn.game
                    if probe.target and game is not None and game.chain_seq >= probe.target:
                        probe.viewed.setdefault(conn.index, time.perf_counter())
                        probe.check_done()
                    async with changed:
                        changed.notify_all()
            except Exception as err:
                run.problems.append(f"seat {conn.index}'s stream: {type(err).__name__}: {err}")
            finally:
                conn.stream_over = True
                async with changed:
                    changed.notify_all()

        followers = [asyncio.create_task(follow(c)) for c in conns]

        host_cpu = HostCpu(host_pid)
        host_cpu0 = host_cpu.read()
        client_cpu0 = time.process_time()
        started = ended = 0.0
        deal: tuple[int, int] | None = None
        last_action_end = 0.0
        measured = 0
        while move := await next_move(changed, conns, run.problems):
            conn, view = move
            this_deal = (int(view.hand), int(view.attempt))
            if deal is not None and this_deal != deal:
                run.deal_ms.append((time.perf_counter() - last_action_end) * 1000)
            deal = this_deal
            action = rng.choice(list(view.legal_actions))
            probe.arm(int(view.chain_seq) + 1)
            cpu_before = host_cpu.read()
            t0 = time.perf_counter()
            if not started:
                started = t0
            try:
                await conn.act(action)
            except Refused as err:
                run.refused += 1
                run.problems.append(f"action {action!r} of seat {conn.seat} refused: {err.reason}")
                probe.disarm()
                continue
            returned = time.perf_counter()
            try:
                await asyncio.wait_for(probe.done.wait(), WAIT)
            except TimeoutError:
                run.problems.append(f"chain seq {probe.target} did not reach all four seats within {WAIT} s")
                probe.disarm()
                break
            cpu_after = host_cpu.read()
            if cpu_before is not None and cpu_after is not None:
                run.host_action_cpu_s += cpu_after - cpu_before
            run.act_ms.append((returned - t0) * 1000)
            run.first_ms.append((min(probe.arrived.values()) - t0) * 1000)
            run.arrived_ms.append((max(probe.arrived.values()) - t0) * 1000)
            run.checked_ms.append((max(probe.checked.values()) - t0) * 1000)
            run.viewed_ms.append((max(probe.viewed.values()) - t0) * 1000)
            run.position.append(measured)
            probe.disarm()
            last_action_end = ended = time.perf_counter()
            measured += 1
        host_cpu1 = host_cpu.read()
        if host_cpu0 is not None and host_cpu1 is not None:
            run.host_cpu_s += host_cpu1 - host_cpu0
        # (less what reading the host's CPU took this process: the bench's own work, not the seats')
        run.client_cpu_s += time.process_time() - client_cpu0 - host_cpu.own_s
        run.wall_s += ended - started
        run.wrong_type += probe.wrong_type
        run.events_with_view += probe.events_with_view
        run.views_ahead += probe.views_ahead
        run.update_sizes.extend(probe.update_sizes)
        await asyncio.wait_for(asyncio.gather(*followers, return_exceptions=True), WAIT)
        finished = [c.view is not None and c.view.table.phase == pb.TABLE_PHASE_MATCH_OVER for c in conns]
        if all(finished):
            run.whole_matches += 1
        elif measured:
            run.problems.append(f"match {run.matches} did not end with MATCH_OVER on every seat")
    finally:
        if host_cpu is not None:
            host_cpu.close()
        await close_seats(followers, conns)


# ---------------------------------------------------------------------------------------------------------------
# the real-table shape: each seat its own process (bench/apart.py)
# ---------------------------------------------------------------------------------------------------------------

async def play_apart(run: RealRun, rng: random.Random, workdir: Path, limit: int) -> None:
    """One match (or its first `limit` actions) with each seat its own process; its figures into `run`."""
    run.matches += 1
    grace = [10.0]
    async with host_process(workdir, run.matches, run.problems, grace) as (port, pid):
        host0 = _proc_cpu_s(pid)
        match = await apart.play_match(port, pid, workdir, rng, limit)
        host1 = _proc_cpu_s(pid)
        if not match.whole:
            grace[0] = 0.0  # (cut short: the host would wait for its seats)
    if host0 is not None and host1 is not None:
        run.host_cpu_s += host1 - host0
    run.client_cpu_s += match.seat_cpu_s
    run.whole_matches += match.whole
    run.problems += match.problems
    arrived, checked, viewed = (apart.marks_by_seat(match, kind) for kind in ("event", "checked", "viewed"))
    deal, last_end = None, 0.0
    for position, action in enumerate(match.actions):
        got = [[apart.first_reaching(marks[seat], action.target) for seat in range(PLAYERS)]
               for marks in (arrived, checked, viewed)]
        if any(t is None for times in got for t in times):
            run.problems.append(f"chain seq {action.target} did not reach every seat process")
            continue
        t0 = action.started
        run.act_ms.append((action.returned - t0) * 1000)
        run.first_ms.append((min(got[0]) - t0) * 1000)
        for column, times in zip((run.arrived_ms, run.checked_ms, run.viewed_ms), got, strict=True):
            column.append((max(times) - t0) * 1000)
        run.position.append(position)
        if deal is not None and action.deal != deal:
            run.deal_ms.append((action.decided - last_end) * 1000)
        deal, last_end = action.deal, max(got[2])
    if match.actions:
        run.wall_s += match.actions[-1].returned - match.actions[0].started


# ---------------------------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------------------------

def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def row(name: str, values: list[float]) -> str:
    if not values:
        return f"  {name:<36} {'-':>6}"
    figures = [percentile(values, q) for q in (50, 90, 99)] + [max(values)]
    return f"  {name:<36} {len(values):6d} " + " ".join(f"{v:8.2f}" for v in figures)


def _lengths(positions: list[int]) -> list[int]:
    """For each action, the number of actions measured in its match (positions restart at 0 with each match)."""
    out: list[int] = []
    start = 0
    for i in range(1, len(positions) + 1):
        if i == len(positions) or positions[i] == 0:
            out += [i - start] * (i - start)
            start = i
    return out


def median_or(values: list[int], default: int) -> int:
    return int(statistics.median(values)) if values else default


async def play_in_one_process(args: argparse.Namespace, rng: random.Random) -> RealRun:
    run = RealRun()
    max_matches = args.matches or MAX_MATCHES
    with tempfile.TemporaryDirectory(prefix="watten-latency-") as tmp:
        while run.matches < max_matches and (args.matches or len(run.checked_ms) < args.actions):
            before = len(run.checked_ms)
            try:
                await play_match(run, rng, Path(tmp))
            except Exception as err:
                run.problems.append(f"match {run.matches}: {type(err).__name__}: {err}")
            if len(run.checked_ms) == before:
                break  # no progress: report what there is rather than start host after host
    return run


async def play_seats_apart(args: argparse.Namespace, rng: random.Random) -> RealRun:
    run = RealRun()
    with tempfile.TemporaryDirectory(prefix="watten-latency-apart-") as tmp:
        while run.matches < MAX_MATCHES and len(run.checked_ms) < args.apart:
            before = len(run.checked_ms)
            try:
                await play_apart(run, rng, Path(tmp), args.apart - before)
            except Exception as err:
                run.problems.append(f"match {run.matches} (seats apart): {type(err).__name__}: {err}")
            if len(run.checked_ms) == before:
                break
    return run


async def main_async(args: argparse.Namespace) -> None:
    print(f"watten-net action latency: 4 clients in this process, the host in a subprocess, 127.0.0.1 "
          f"(Python {platform.python_version()}, grpcio {grpc.__version__}, {os.cpu_count()} CPUs)")
    rng = random.Random(args.seed)
    run = await play_in_one_process(args, rng)
    sizes = (median_or(run.request_sizes, 238), median_or(run.reply_sizes, 40), median_or(run.update_sizes, 1016))
    # The floor of the same shape: 4 seats in one process, sharing one connection as client.connection's do there.
    base = await measure_sequence(max(len(run.checked_ms), 50), sizes, own_connections=False)
    count = max(len(run.checked_ms), 50)
    checked = [await measure_sequence(count, sizes, own_connections=False, checks=True, journal=journal)
               for journal in (False, True)]
    report_one_process(args, run, base, checked)
    if args.apart > 0:
        apart_run = await play_seats_apart(args, random.Random(args.seed))
        count = max(len(apart_run.checked_ms), 50)
        apart_base = await measure_sequence(count, sizes, apart=True)
        apart_checked = [await measure_sequence(count, sizes, apart=True, checks=True, journal=journal)
                         for journal in (False, True)]
        report_apart(apart_run, apart_base, apart_checked)


def report_one_process(args: argparse.Namespace, run: RealRun, base: FloorResult,
                       checked: list[FloorResult]) -> None:
    count = len(run.checked_ms)
    request_size, reply_size, stream_size = base.sizes
    header = f"  {'(ms)':<36} {'count':>6} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8}"
    print()
    print(f"watten-host, bavarian to {TARGET_POINTS}: {run.whole_matches} whole matches of {run.matches} "
          f"(random legal actions, seed {args.seed}); messages per action: request {request_size} B, "
          f"reply {reply_size} B, stream event {stream_size} B (medians)")
    print(header)
    print(row("act() returns", run.act_ms))
    print(row("first of 4 received (gRPC)", run.first_ms))
    print(row("all 4 received (gRPC)", run.arrived_ms))
    print(row("all 4 checked (conn.game.chain_seq)", run.checked_ms))
    print(row("all 4 views yielded (updates())", run.viewed_ms))
    print(row("deal set-up (last action to next)", run.deal_ms))
    print("baseline, bare grpc.aio append + fan-out to 4 (bytes of the same sizes, server in a subprocess; "
          "bench/load_floor.py, one table):")
    print(header)
    print(row("submit returns", base.reply_ms))
    print(row("all 4 received", base.received_ms))
    print(row("checked floor: all 4 received", checked[0].received_ms))
    print(row("... and journal fsync: all 4 received", checked[1].received_ms))
    print()
    if count:
        rate = count / run.wall_s if run.wall_s else 0.0
        busy = count / (sum(run.checked_ms) / 1000)
        deals = len(run.deal_ms) + run.matches
        print(f"  actions/s: {rate:.0f} over whole matches (deal set-up included), {busy:.0f} back to back "
              f"(1 / mean latency)")
        print(f"  host CPU: {run.host_action_cpu_s / count * 1000:.2f} ms per action (inside the measured windows), "
              f"{(run.host_cpu_s - run.host_action_cpu_s) / deals * 1000:.1f} ms per deal outside them (protocol "
              f"steps, ~{deals} deals); client process CPU {run.client_cpu_s / count * 1000:.2f} ms per action "
              f"(4 seats, all but the bench reading the host CPU)")
    if base.received_ms:
        print(f"  baseline items/s: {len(base.received_ms) / base.window_s:.0f}; server CPU "
              f"{base.server_ms_per_action():.2f} ms per item, client process CPU "
              f"{base.client_cpu_s / len(base.received_ms) * 1000:.2f} ms per item")
    if count and base.received_ms:
        early = [v for v, i in zip(run.checked_ms, run.position, strict=True) if i < EDGE]
        late = [v for v, i, n in zip(run.checked_ms, run.position, _lengths(run.position), strict=True)
                if i >= n - EDGE]
        if early and late:
            print(f"  all 4 checked, p50 of the first {EDGE} actions of each match: {percentile(early, 50):.2f} ms; "
                  f"of the last {EDGE}: {percentile(late, 50):.2f} ms")
        print_targets("4 seats in one process", run, base, checked)
    if run.views_ahead:
        print(f"  note: {run.views_ahead} of {run.events_with_view} stream events carried a view of a longer chain "
              f"than their own entries reach (the host builds each event's view when it sends it, not at the event)")
    problems = run.problems + base.problems + checked[0].problems + checked[1].problems
    if run.wrong_type:
        problems.append(f"{run.wrong_type} measured chain entries were not ActionAccepted")
    for problem in problems:
        print(f"  problem: {problem}")


def print_targets(shape: str, run: RealRun, base: FloorResult, checked: list[FloorResult]) -> None:
    """The ratio and p99 lines of one shape, against the floor of the same shape; and what the checked floors (the
    mandated signatures alone, bench/load_floor.py `--checks`; and with the journal's fsync) leave of the target for
    everything else."""
    p50, p50_base = percentile(run.checked_ms, 50), percentile(base.received_ms, 50)
    p50_recv, p99 = percentile(run.arrived_ms, 50), percentile(run.checked_ms, 99)
    ratio = p50 / p50_base
    print(f"  [{shape}] ratio p50/p50_baseline: {ratio:.2f}x  (checked {p50:.2f} ms against {p50_base:.2f} ms; "
          f"{p50_recv / p50_base:.2f}x on gRPC receipt)   target: within {TARGET_RATIO:.0f}x -> "
          f"{'met' if ratio <= TARGET_RATIO else 'NOT met'}")
    print(f"  [{shape}] p99: {p99:.2f} ms   target: under {TARGET_P99_MS:.0f} ms -> "
          f"{'met' if p99 < TARGET_P99_MS else 'NOT met'}")
    for what, floor_run in zip(("the mandated signatures alone: the seat signs, the server checks and signs, each "
                                "seat checks both", "and the journal's fsync before the event leaves"), checked,
                               strict=True):
        if floor_run.received_ms:
            floor = percentile(floor_run.received_ms, 50)
            print(f"  [{shape}] the checked floor ({what}): all 4 received p50 {floor:.2f} ms = "
                  f"{floor / p50_base:.2f}x the bare floor, p99 {percentile(floor_run.received_ms, 99):.2f} ms; the "
                  f"{TARGET_RATIO:.0f}x target leaves {TARGET_RATIO * p50_base - floor:.2f} ms an action for all the "
                  f"rest (here {p50 - floor:.2f} ms)")


def report_apart(run: RealRun, base: FloorResult, checked: list[FloorResult]) -> None:
    """The real-table shape: each seat its own process, against the floor with each seat its own process."""
    count = len(run.checked_ms)
    print(f"\nthe real-table shape: each seat its own process (bench/apart.py), {count} actions of "
          f"{run.matches} match(es), the floor likewise (bench/load_floor.py, each floor seat its own process):")
    print(f"  {'(ms)':<36} {'count':>6} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8}")
    print(row("act() returns", run.act_ms))
    print(row("all 4 received (gRPC)", run.arrived_ms))
    print(row("all 4 checked", run.checked_ms))
    print(row("all 4 views yielded", run.viewed_ms))
    print(row("floor: submit returns", base.reply_ms))
    print(row("floor: all 4 received", base.received_ms))
    print(row("checked floor: all 4 received", checked[0].received_ms))
    print(row("... and journal fsync: all 4 received", checked[1].received_ms))
    if count and base.received_ms:
        print(f"  CPU of the 4 seat processes: {run.client_cpu_s / count * 1000:.2f} ms per action (the floor's 4: "
              f"{base.client_cpu_s / len(base.received_ms) * 1000:.2f} ms per item)")
        print_targets("each seat its own process", run, base, checked)
    for problem in run.problems + base.problems + checked[0].problems + checked[1].problems:
        print(f"  problem (seats apart): {problem}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--actions", type=int, default=600, help="play whole matches until this many actions "
                        "are measured (default 600)")
    parser.add_argument("--matches", type=int, default=0, help="play exactly this many whole matches instead "
                        f"(at most {MAX_MATCHES} either way)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random legal actions (default 1)")
    parser.add_argument("--apart", type=int, default=APART_ACTIONS, help="then this many actions with each seat its "
                        f"own process, the real-table shape (default {APART_ACTIONS}; 0: not)")
    args = parser.parse_args()
    args.matches = min(max(args.matches, 0), MAX_MATCHES)
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
