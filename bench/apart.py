"""The real-table shape of bench/latency.py and bench/newhand.py: each seat a `Connection` in its own process.

At a real table each seat checks the host's envelopes on its own machine, at once; in bench/latency.py's and
bench/newhand.py's first figure the four seats share one process and one core, so their work adds up on the way.
Here each seat is its own process (`--seat`): it joins, follows `updates()` (every check, the record, the
protocol's own steps) and reports to this process, the coordinator, one JSON line per stream event: what its
SeatGame and view say (is it up to date, is it to act, which actions are legal) and when things happened to it:

  ["event", t, seq]           gRPC handed its stream an event whose chain entries reach `seq`
  [TYPE, t, seq]              ... one mark per chain entry of that event, by type (bench/newhand.py's timeline)
  ["checked", t, seq]         its SeatGame checked chain entry `seq`
  ["viewed", t, seq]          `updates()` yielded the view after it (its chain at `seq`)
  ["submitted", t, 0]         one of its protocol steps came back accepted

The times are `time.perf_counter()`, CLOCK_MONOTONIC on Linux: one clock for every process of the machine. The lines
are written after the marks were taken, so writing them is not in the times; the CPU the marks and reports take is
counted by each seat and left out of the seats' CPU figure (what is left is the seat's own work and gRPC's). With
BENCH_SEAT_PROFILE=DIR in the environment each seat process runs under cProfile and leaves DIR/seatN.prof. The
coordinator plays as bench/latency.py does, one action at a time: it waits until every seat
has reported the same chain head with nothing owed and a seat to act, and tells that seat which action to send
(`act ACTION` on its stdin); the seat replies when `act()` returned. `play_match` plays one whole match so and
returns every action and every mark; the benches compute their figures from them.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import cProfile
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.waits import next_move, until_every_seat_has
from client.connection import Connection, Refused, open_channel
from watten_net.v1 import watten_pb2 as pb

PLAYERS = 4
WAIT = 20.0  # seconds: no single wait lasts longer (a stuck table ends the run, not the machine)
PROFILE_DIR = "BENCH_SEAT_PROFILE"  # environment: where each seat process writes its cProfile statistics, if set


# ---------------------------------------------------------------------------------------------------------------
# one seat (its own process)
# ---------------------------------------------------------------------------------------------------------------

def entry_type(entry: Any) -> str:
    if entry.HasField("withheld"):
        return str(entry.withheld.type)
    envelope = pb.Envelope()
    envelope.ParseFromString(entry.envelope)
    return str(envelope.type)


class ReportingConnection(Connection):
    """A Connection that notes what reached it and when, and reports it with its state after every event."""

    def __init__(self, channel: Any, record_dir: Path) -> None:
        super().__init__(channel, record_dir=record_dir)
        self.marks: list[tuple[str, float, int]] = []
        self.own_s = 0.0  # CPU this process spent on the bench's own marks and reports, not the seat's work
        self.on_update = self._arrived
        self.on_submitted = self._submitted

    def _arrived(self, update: Any) -> None:
        now, cpu = time.perf_counter(), time.process_time()
        body = update.event if update.HasField("event") else update.snapshot
        entries = body.chain
        self.marks.append(("event", now, int(entries[-1].chain_seq) if entries else 0))
        for entry in entries:
            self.marks.append((entry_type(entry), now, int(entry.chain_seq)))
        self.own_s += time.process_time() - cpu

    def _receive(self, entry: Any) -> None:
        super()._receive(entry)
        self.marks.append(("checked", time.perf_counter(), int(entry.chain_seq)))

    def _submitted(self, kind: str, _seconds: float) -> None:
        if kind == "protocol":
            self.marks.append(("submitted", time.perf_counter(), 0))

    async def send_automatic(self) -> None:
        owed = self.game is not None and bool(self.game.outbox)
        await super().send_automatic()
        if owed:
            self.report()  # (nothing owed any more: the coordinator may go on)

    def report(self, **extra: Any) -> None:
        cpu = time.process_time()
        game, view = self.game, self.view
        state: dict[str, Any] = {"seq": game.chain_seq if game else 0, "owed": len(game.outbox) if game else 0,
                                 "own": self.own_s}
        if view is not None:
            to_act = self.seat in view.to_act
            state["view"] = [int(view.chain_seq), int(view.hand), int(view.attempt), int(view.table.phase), to_act,
                             list(view.legal_actions) if to_act else []]
        state["marks"], self.marks = self.marks, []
        state.update(extra)
        os.write(1, json.dumps(state, separators=(",", ":")).encode() + b"\n")  # (one write, unbuffered)
        self.own_s += time.process_time() - cpu


async def _commands(conn: ReportingConnection) -> None:
    """`act ACTION` lines from the coordinator, each answered with when act() started and returned."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := (await reader.readline()).decode():
        action = line.split(" ", 1)[1].strip()
        started = time.perf_counter()
        try:
            await conn.act(action)
            conn.report(acted=[started, time.perf_counter()])
        except Refused as err:
            conn.report(refused=f"{err.reason}: {err.message}")


async def _follow(conn: ReportingConnection) -> None:
    async for _view in conn.updates():
        conn.marks.append(("viewed", time.perf_counter(), conn.game.chain_seq if conn.game else 0))
        conn.report()


async def serve_seat(port: int, index: int, record_dir: Path) -> None:
    """One seat until its stream ends, or until the coordinator closes its stdin (a run cut short)."""
    channel = await open_channel("127.0.0.1", port, insecure=True)
    conn = ReportingConnection(channel, record_dir)
    tasks: list[asyncio.Task[None]] = []
    try:
        await conn.join(f"bench {index}")
        conn.report(joined=conn.seat)
        tasks = [asyncio.create_task(_follow(conn)), asyncio.create_task(_commands(conn))]
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()  # (raises what ended it)
        conn.report(end=True)
    except Exception as err:  # (reported, so that the coordinator says what went wrong)
        conn.report(end=True, error=f"{type(err).__name__}: {err}")
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await conn.close()


# ---------------------------------------------------------------------------------------------------------------
# the coordinator (the bench's process)
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class SeenView:
    """What waiting_seat (bench/waits.py) reads of a view, from a seat's report."""

    chain_seq: int
    hand: int
    attempt: int
    phase: int
    to_act: list[int]
    legal_actions: list[str]

    @property
    def table(self) -> SeenView:  # (waiting_seat reads view.table.phase)
        return self


@dataclass
class SeenGame:
    chain_seq: int = 0
    outbox: int = 0


@dataclass
class RemoteSeat:
    """A seat process as waiting_seat sees it, from its last report."""

    index: int
    proc: asyncio.subprocess.Process
    seat: int = -1
    game: SeenGame | None = None
    view: SeenView | None = None
    stream_over: bool = False
    reported_at: float = 0.0  # perf_counter of the seat's last mark
    acted: asyncio.Future[list[float] | str] | None = None
    error: str = ""
    own_s: float = 0.0  # the CPU its marks and reports took, so far (bench/apart.py's, not the seat's)

    def take(self, report: dict[str, Any], marks: list[tuple[float, int, str, int]]) -> None:
        self.game = SeenGame(report["seq"], report["owed"])
        self.own_s = report["own"]
        if "view" in report:
            seq, hand, attempt, phase, to_act, legal = report["view"]
            self.view = SeenView(seq, hand, attempt, phase, [self.seat] if to_act else [], legal)
        for kind, t, seq in report["marks"]:
            marks.append((t, self.index, kind, seq))
            self.reported_at = max(self.reported_at, t)
        if "joined" in report:
            self.seat = report["joined"]
        if report.get("end"):
            self.stream_over = True
            self.error = report.get("error", "")
        outcome = report.get("acted", report.get("refused"))
        if outcome is not None and self.acted is not None and not self.acted.done():
            self.acted.set_result(outcome)

    async def act(self, action: str) -> list[float] | str:
        """[started, returned] of the seat's act(), or the refusal in words."""
        assert self.proc.stdin is not None
        self.acted = asyncio.get_running_loop().create_future()
        self.proc.stdin.write(f"act {action}\n".encode())
        await self.proc.stdin.drain()
        return await asyncio.wait_for(self.acted, WAIT)


@dataclass
class Action:
    seat: int
    target: int  # the chain seq of its ActionAccepted
    deal: tuple[int, int]  # (hand, attempt) it was made in
    decided: float  # when the table waited for it (the last seat's report that made every seat up to date)
    started: float
    returned: float
    seat_cpu_s: float  # the seat processes' CPU until this action was sent (cumulative, all four)
    host_cpu_s: float  # the host's, the same


@dataclass
class ApartMatch:
    actions: list[Action] = field(default_factory=list)
    marks: list[tuple[float, int, str, int]] = field(default_factory=list)  # (time, seat index, kind, seq)
    seat_cpu_s: float = 0.0  # the four seat processes over the whole match
    whole: bool = False
    problems: list[str] = field(default_factory=list)


def proc_cpu_s(pid: int) -> float:
    """CPU seconds of a process so far, all its threads (from /proc/PID/task/*/schedstat; 0 where unreadable)."""
    total = 0
    with contextlib.suppress(OSError, ValueError, IndexError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):  # a thread that just ended
                total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


async def _listen(seat: RemoteSeat, match: ApartMatch, changed: asyncio.Condition) -> None:
    assert seat.proc.stdout is not None
    while line := await seat.proc.stdout.readline():
        try:
            report = json.loads(line)
        except ValueError:
            match.problems.append(f"seat {seat.index} wrote {line[:200]!r}")
            continue
        seat.take(report, match.marks)
        async with changed:
            changed.notify_all()
    seat.stream_over = True
    async with changed:
        changed.notify_all()


async def start_seats(port: int, workdir: Path, match: ApartMatch, changed: asyncio.Condition,
                      seats: list[RemoteSeat], listeners: list[asyncio.Task[None]]) -> None:
    """The four seat processes (into `seats`, their listeners into `listeners`), started at once, until every one
    has joined (in whatever order: each reports the seat it got)."""
    for index in range(PLAYERS):
        record_dir = tempfile.mkdtemp(prefix=f"seat{index}-", dir=workdir)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(Path(__file__).resolve()), "--seat", str(port), str(index), record_dir,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        seats.append(RemoteSeat(index, proc))
        listeners.append(asyncio.create_task(_listen(seats[-1], match, changed)))
    async with changed:
        await asyncio.wait_for(changed.wait_for(lambda: all(s.seat >= 0 or s.stream_over for s in seats)), WAIT)
    for seat in seats:
        if seat.seat < 0:
            raise RuntimeError(f"seat process {seat.index} did not join: {seat.error or 'it ended'}")


async def play_match(port: int, host_pid: int, workdir: Path, rng: random.Random, limit: int = 0) -> ApartMatch:
    """Four seat processes play one whole match with random legal actions, one action at a time (or only its first
    `limit` actions)."""
    match, changed = ApartMatch(), asyncio.Condition()
    seats: list[RemoteSeat] = []
    listeners: list[asyncio.Task[None]] = []
    try:
        await start_seats(port, workdir, match, changed, seats, listeners)
        cpu0 = sum(proc_cpu_s(s.proc.pid) - s.own_s for s in seats)
        while move := await next_move(changed, seats, match.problems):
            if limit and len(match.actions) >= limit:
                break
            seat, view = move
            decided = max(s.reported_at for s in seats)
            seat_cpu = sum(proc_cpu_s(s.proc.pid) - s.own_s for s in seats) - cpu0
            host_cpu = proc_cpu_s(host_pid)
            outcome = await seat.act(rng.choice(view.legal_actions))
            if isinstance(outcome, str):
                match.problems.append(f"seat {seat.seat}'s action refused: {outcome}")
                continue
            match.actions.append(Action(seat.index, view.chain_seq + 1, (view.hand, view.attempt), decided,
                                        outcome[0], outcome[1], seat_cpu, host_cpu))
            if not await until_every_seat_has(changed, seats, view.chain_seq + 1, match.problems):
                break
        if not limit or len(match.actions) < limit:  # (the match is over: every seat's stream ends)
            async with changed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait_for(lambda: all(s.stream_over for s in seats)), WAIT)
        match.whole = all(s.view is not None and s.view.phase == pb.TABLE_PHASE_MATCH_OVER for s in seats)
        match.seat_cpu_s = sum(proc_cpu_s(s.proc.pid) - s.own_s for s in seats) - cpu0
    finally:
        await _stop_seats(seats, listeners, match)
    return match


async def _stop_seats(seats: list[RemoteSeat], listeners: list[asyncio.Task[None]], match: ApartMatch) -> None:
    for seat in seats:
        if seat.proc.stdin is not None:
            seat.proc.stdin.close()
    for seat in seats:
        try:
            await asyncio.wait_for(seat.proc.wait(), 5.0)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                seat.proc.kill()
            await seat.proc.wait()
        if seat.error:
            match.problems.append(f"seat {seat.index}: {seat.error}")
    for task in listeners:
        task.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)


def marks_by_seat(match: ApartMatch, kind: str) -> list[tuple[list[int], list[float]]]:
    """Per seat index: the seqs and times of its marks of `kind`, in the order they came (seqs never go down)."""
    out: list[tuple[list[int], list[float]]] = [([], []) for _ in range(PLAYERS)]
    for t, seat, what, seq in sorted(match.marks):
        if what == kind and seq:
            out[seat][0].append(seq)
            out[seat][1].append(t)
    return out


def first_reaching(marks: tuple[list[int], list[float]], target: int) -> float | None:
    """The time of the first of these marks whose seq reached `target`."""
    seqs, times = marks
    at = bisect.bisect_left(seqs, target)
    return times[at] if at < len(seqs) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seat", nargs=3, metavar=("PORT", "INDEX", "RECORD_DIR"), required=True,
                        help="run one seat against a plaintext host on 127.0.0.1:PORT, reporting on stdout")
    args = parser.parse_args()
    port, index, record_dir = args.seat
    profile_dir = os.environ.get(PROFILE_DIR)
    if not profile_dir:
        asyncio.run(serve_seat(int(port), int(index), Path(record_dir)))
        return
    profiler = cProfile.Profile()  # (bench/profile_latency.py --apart: one seat's own process under cProfile)
    profiler.enable()
    try:
        asyncio.run(serve_seat(int(port), int(index), Path(record_dir)))
    finally:
        profiler.disable()
        profiler.dump_stats(Path(profile_dir) / f"seat{index}.prof")


if __name__ == "__main__":
    main()
