"""Between two hands over the network: from a hand's last action until the next hand's first decision, step by step.

A real `watten-host` runs in a subprocess (plaintext, 127.0.0.1, a free port, bavarian to 21, records and journal in
a temporary directory); four `client.connection.Connection`s in this process join it, follow `updates()` (which
checks every host envelope and sends the protocol's own steps) and play whole matches with random legal actions
(fixed seed), as bench/latency.py does. For every change of deal the clock runs from the moment the hand's last
action is sent (the acting seat's `act()` called) until the table waits for a seat in the next deal with every seat
up to date (the next hand's first decision), and the steps on the way are timed as they reach the seats (the times
are cumulative, each the last of the four seats):

  checkpoint at all 4       the Checkpoint closing the hand reached every seat's stream
  checkpoint signed (4)     every seat's CheckpointSignature came back accepted (SubmitEnvelope returned)
  DeckSealed at all 4       the next deal's HandOpen and DeckSealed reached every seat: with the Checkpoint
                            (GameHeader.next_deal = with-checkpoint, what watten-host writes), or once every seat
                            signed the checkpoint (the order before, `--after-checkpoint`)
  seal signed (4)           every seat's DeckSealedSignature came back accepted (with-checkpoint: in the same
                            SubmitEnvelope as its CheckpointSignature, so both lines show the same time)
  first decision            the cut and the deliveries are in and checked, and the view shows a seat to act

Beside them, the floor of the same change of deal on the wire (bench/load_floor.py's bare grpc.aio server in its own
process, these 4 seats): the last action and then one call per seat for both signatures (1 + 4 submits in 2 rounds,
watten-host's order now), a call per signature in one round (1 + 8 in 2), and the order before (1 + 4 + 4 in 3):
what gRPC in Python alone costs for each, with no work. The host's figure is set against the floor of its order.

Also printed: the host process's CPU (all threads, from /proc) and this process's CPU (the four seats: every check,
signature and stream message) per change of deal, and how many chain entries and stream events a change of deal
takes. The four seats share one process and one core here, so their work adds up on the way (on a real table each
seat checks on its own machine, at once): the client CPU figure says how much of the time that is. So a second
figure follows, the real-table shape (`--apart N` matches, default 1; 0 leaves it out): the same play with each seat
a `Connection` in its own process (bench/apart.py), against the floor with each floor seat in its own process too;
each shape's lines are labelled with it. Figures only: nothing passes or fails. Takes about 15 s with the defaults.

Run: ``.venv/bin/python bench/newhand.py [--matches 3] [--seed 1] [--apart 1] [--after-checkpoint]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import apart
from bench.latency import close_seats, host_process
from bench.load_floor import DEAL_CHANGES, REPLY_BYTES, REQUEST_BYTES, measure_rounds
from bench.waits import next_move, until_every_seat_has
from client.connection import Connection, Refused, open_channel

PLAYERS = 4
TARGET_POINTS = 21
WAIT = 20.0  # seconds: no single wait lasts longer (a stuck table ends the run, not the machine)
MAX_MATCHES = 10
TARGET_MS = 10.0
STEPS = ("checkpoint at all 4", "checkpoint signed (4)", "DeckSealed at all 4", "seal signed (4)",
         "first decision")


@dataclass
class Timeline:
    """What reached or left each seat, when (perf_counter seconds): (time, seat, what)."""

    marks: list[tuple[float, int, str]] = field(default_factory=list)
    event_sizes: list[int] = field(default_factory=list)  # bytes of every stream event a seat received

    def note(self, seat: int, what: str) -> None:
        self.marks.append((time.perf_counter(), seat, what))

    def step_times(self, start: float, end: float) -> list[float] | None:
        """The cumulative milliseconds of STEPS within [start, end], or None if a step is missing."""
        window = [m for m in self.marks if start <= m[0] <= end]

        def per_seat(what: str, after: dict[int, float] | None = None, nth: int = 1) -> dict[int, float]:
            """Each seat's `nth` `what` (after its own time in `after`)."""
            seen: dict[int, list[float]] = {}
            for t, seat, kind in window:
                if kind == what and (after is None or (seat in after and t >= after[seat])):
                    seen.setdefault(seat, []).append(t)
            return {seat: times[nth - 1] for seat, times in seen.items() if len(times) >= nth}

        checkpoint = per_seat("Checkpoint")
        # A seat answers the Checkpoint first and the DeckSealed second, in either order of the two.
        stages = [checkpoint, per_seat("submitted", checkpoint), per_seat("DeckSealed"),
                  per_seat("submitted", checkpoint, nth=2)]
        if any(len(stage) != PLAYERS for stage in stages):
            return None
        steps = [max(stage.values()) for stage in stages]
        return [(t - start) * 1000 for t in steps] + [(end - start) * 1000]


class TimedConnection(Connection):
    """A Connection that notes on the timeline every chain entry its stream hands over and every protocol step it
    got accepted."""

    def __init__(self, channel: Any, index: int, timeline: Timeline, record_dir: Path) -> None:
        super().__init__(channel, record_dir=record_dir)
        self.index = index
        self.stream_over = False
        self.on_update = self._noted
        self.on_submitted = self._submitted
        self.timeline = timeline

    def _noted(self, update: Any) -> None:
        body = update.event if update.HasField("event") else update.snapshot
        self.timeline.note(self.index, "event")
        self.timeline.event_sizes.append(update.ByteSize())
        for entry in body.chain:
            self.timeline.note(self.index, apart.entry_type(entry))

    def _submitted(self, kind: str, _seconds: float) -> None:
        if kind == "protocol":
            self.timeline.note(self.index, "submitted")


@dataclass
class Run:
    steps: list[list[float]] = field(default_factory=list)  # per change of deal: the cumulative STEPS
    host_cpu_ms: list[float] = field(default_factory=list)
    client_cpu_ms: list[float] = field(default_factory=list)
    entries: list[int] = field(default_factory=list)  # chain entries per seat per change of deal
    event_sizes: list[int] = field(default_factory=list)  # bytes of the stream events the seats received
    events: list[int] = field(default_factory=list)  # stream events per seat per change of deal
    redeals: int = 0
    problems: list[str] = field(default_factory=list)
    after_checkpoint: bool = False  # (the host's order: which floor is its own, `report_floor`)


def proc_cpu_s(pid: int) -> float | None:
    """CPU seconds a process used so far, all its threads (None where there is no /proc)."""
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):  # a thread that just ended
                total += int((task / "schedstat").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return total / 1e9


async def follow(conn: TimedConnection, changed: asyncio.Condition, run: Run) -> None:
    try:
        async for _view in conn.updates():
            async with changed:
                changed.notify_all()
    except Exception as err:
        run.problems.append(f"seat {conn.index}'s stream: {type(err).__name__}: {err}")
    finally:
        conn.stream_over = True
        async with changed:
            changed.notify_all()


async def play(conns: list[TimedConnection], changed: asyncio.Condition, rng: random.Random, run: Run,
               cpu_of_host: Callable[[], float | None]) -> None:
    """Random legal actions until the match ends; each change of deal measured from the last action's return."""
    timeline = conns[0].timeline
    deal: tuple[int, int] | None = None
    last_end = 0.0
    host_before: float | None = None
    client_before = 0.0
    while move := await next_move(changed, conns, run.problems):
        now, host_now, client_now = time.perf_counter(), cpu_of_host(), time.process_time()
        conn, view = move
        this_deal = (int(view.hand), int(view.attempt))
        if deal is not None and this_deal != deal:
            steps = timeline.step_times(last_end, now)
            if this_deal[0] == deal[0]:
                run.redeals += 1  # (a redeal has no checkpoint: its time is not among the steps)
            elif steps is None:
                run.problems.append(f"a step of the change to deal {this_deal} was not seen by every seat")
            else:
                run.steps.append(steps)
            if host_before is not None and host_now is not None:
                run.host_cpu_ms.append((host_now - host_before) * 1000)
            run.client_cpu_ms.append((client_now - client_before) * 1000)
            window = [m for m in timeline.marks if last_end <= m[0] <= now]
            run.entries.append(sum(1 for m in window if m[2] not in ("event", "submitted")) // PLAYERS)
            run.events.append(sum(1 for m in window if m[2] == "event") // PLAYERS)
        deal = this_deal
        action = rng.choice(list(view.legal_actions))
        timeline.marks.clear()  # (only what follows this action counts)
        # (the clock last: reading the host's CPU from /proc takes some 0.4 ms, which is not the table's time)
        host_sent, client_sent = cpu_of_host(), time.process_time()
        sent = time.perf_counter()
        try:
            await conn.act(action)
        except Refused as err:  # (as in bench/latency.py: noted, and the table asked again)
            run.problems.append(f"action {action!r} of seat {conn.seat} refused: {err.reason}")
            continue
        last_end, host_before, client_before = sent, host_sent, client_sent
        if not await until_every_seat_has(changed, conns, int(view.chain_seq) + 1, run.problems):
            return


async def play_match(run: Run, rng: random.Random, workdir: Path, number: int, after_checkpoint: bool) -> None:
    # (host_process: the host's journal goes into the scratch directory too, so a run cut short leaves no unfinished
    # game behind for the next host on this machine to find and resume; stopped as soon as the match is played)
    extra = ["--set", "next-deal=after-checkpoint"] if after_checkpoint else []
    async with host_process(workdir, number, run.problems, [0.0], extra) as (port, pid):
        conns: list[TimedConnection] = []
        tasks: list[asyncio.Task[None]] = []
        try:
            timeline, changed = Timeline(), asyncio.Condition()
            for i in range(PLAYERS):
                channel = await open_channel("127.0.0.1", port, insecure=True)
                conns.append(TimedConnection(channel, i, timeline, Path(tempfile.mkdtemp(prefix=f"seat{i}-",
                                                                                            dir=workdir))))
            for i, conn in enumerate(conns):
                await conn.join(f"bench {i}")
            tasks += [asyncio.create_task(follow(c, changed, run)) for c in conns]
            await play(conns, changed, rng, run, lambda: proc_cpu_s(pid))
            run.event_sizes += timeline.event_sizes
        finally:
            await close_seats(tasks, conns)


async def play_match_apart(run: Run, rng: random.Random, workdir: Path, number: int) -> None:
    """One whole match with each seat its own process (bench/apart.py); every change of deal measured from the
    seats' own marks, as in `play`."""
    grace = [10.0]
    async with host_process(workdir, number, run.problems, grace) as (port, pid):
        match = await apart.play_match(port, pid, workdir, rng)
        if not match.whole:
            grace[0] = 0.0
    run.problems += match.problems
    timeline = Timeline(marks=[(t, seat, kind) for t, seat, kind, _seq in sorted(match.marks)
                               if kind not in ("checked", "viewed")])
    for before, action in itertools.pairwise(match.actions):
        if action.deal == before.deal:
            continue
        start, end = before.started, action.decided
        steps = timeline.step_times(start, end)
        if action.deal[0] == before.deal[0]:
            run.redeals += 1
        elif steps is None:
            run.problems.append(f"a step of the change to deal {action.deal} was not seen by every seat")
        else:
            run.steps.append(steps)
        run.host_cpu_ms.append((action.host_cpu_s - before.host_cpu_s) * 1000)
        run.client_cpu_ms.append((action.seat_cpu_s - before.seat_cpu_s) * 1000)
        window = [m for m in timeline.marks if start <= m[0] <= end]
        run.entries.append(sum(1 for m in window if m[2] not in ("event", "submitted")) // PLAYERS)
        run.events.append(sum(1 for m in window if m[2] == "event") // PLAYERS)
    run.event_sizes += timeline.event_sizes


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(run: Run, matches: int, shape: str = "4 seats in one process") -> None:
    print(f"\n[{shape}] watten-host, bavarian to {TARGET_POINTS}, {matches} whole matches (random legal actions): "
          f"{len(run.steps)} new hands measured (and {run.redeals} redeals, which have no checkpoint, left out)")
    if run.steps:
        print(f"  {'(ms from the last action, cumulative)':<40} {'p50':>7} {'p90':>7} {'max':>7}")
        for i, name in enumerate(STEPS):
            column = [s[i] for s in run.steps]
            print(f"  {name:<40} {statistics.median(column):7.2f} {percentile(column, 0.9):7.2f} {max(column):7.2f}")
        p50 = statistics.median(s[-1] for s in run.steps)
        print(f"  [{shape}] new hand p50: {p50:.2f} ms   target: within {TARGET_MS:.0f} ms -> "
              f"{'met' if p50 <= TARGET_MS else 'NOT met'}")
    if run.host_cpu_ms:
        print(f"  CPU per change of deal (median): host process {statistics.median(run.host_cpu_ms):.2f} ms, the 4 "
              f"seats {statistics.median(run.client_cpu_ms):.2f} ms; per seat "
              f"{statistics.median(run.entries):.0f} chain entries in {statistics.median(run.events):.0f} stream "
              f"events")
    for problem in run.problems:
        print(f"  problem: {problem}")


async def main_async(args: argparse.Namespace) -> None:
    print(f"watten-net between hands: 4 clients in this process, the host in a subprocess, 127.0.0.1 (Python "
          f"{platform.python_version()}, {os.cpu_count()} CPUs)")
    run = Run(after_checkpoint=args.after_checkpoint)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="watten-newhand-") as scratch:
        for number in range(1, args.matches + 1):
            await play_match(run, rng, Path(scratch), number, args.after_checkpoint)
    report(run, args.matches)
    event_size = int(statistics.median(run.event_sizes)) if run.event_sizes else 1000
    if not args.no_floor:
        floor, problems = await measure_rounds(DEAL_CHANGES, max(20, len(run.steps)),
                                               (REQUEST_BYTES, REPLY_BYTES, event_size))
        report_floor(floor, problems, event_size, run)
        await report_checked_floor(len(run.steps), event_size, run)
    if args.apart:
        apart_run = Run()
        with tempfile.TemporaryDirectory(prefix="watten-newhand-apart-") as scratch:
            for number in range(1, args.apart + 1):
                await play_match_apart(apart_run, rng, Path(scratch), number)
        shape = "each seat its own process"
        report(apart_run, args.apart, shape)
        if not args.no_floor:
            floor, problems = await measure_rounds(DEAL_CHANGES, max(20, len(apart_run.steps)),
                                                   (REQUEST_BYTES, REPLY_BYTES, event_size), apart=True)
            report_floor(floor, problems, event_size, apart_run, shape)
            await report_checked_floor(len(apart_run.steps), event_size, apart_run, shape)


def report_floor(floor: dict[str, list[float]], problems: list[str], event_size: int, run: Run,
                 shape: str = "4 seats in one process") -> None:
    """The same change of deal on the wire alone: what gRPC in Python costs for its rounds and submits, and for
    the protocol change that would sign the Checkpoint and the next DeckSealed in one round."""
    print(f"\n[{shape}] bare grpc.aio floor of a change of deal (the seats as above, a server that does nothing in "
          f"its own process; every submit an event of {event_size} B to each seat; the figure is the last action to "
          f"the last seat having the last round's events):")
    for name, values in floor.items():
        if values:
            print(f"  {name:<44} p50 {statistics.median(values):6.2f} ms  p90 {percentile(values, 0.9):6.2f} ms")
    if run.steps and floor and all(floor.values()):
        ours = list(floor.values())[-1 if run.after_checkpoint else 0]  # (DEAL_CHANGES: now first, before last)
        mine, today = statistics.median(s[-1] for s in run.steps), statistics.median(ours)
        print(f"  [{shape}] the host's new hand p50 {mine:.2f} ms is x{mine / today:.1f} its floor ({today:.2f} ms)")
    for problem in problems:
        print(f"  floor problem: {problem}")


async def report_checked_floor(repeats: int, event_size: int, run: Run, shape: str = "4 seats in one process") -> None:
    """The checked floor of watten-host's change of deal (1 + 4 submits in 2 rounds, bench/load_floor.py `--checks`):
    every submit signed by its seat, checked and signed by the server, and every event's two signatures checked by
    every seat; 10 of the some 23 signatures a seat checks at a change of deal, so a lower bound of what the
    mandated checks cost on the way, beside the target."""
    name, pattern = next(iter(DEAL_CHANGES.items()))
    times, problems = await measure_rounds({name: pattern}, max(20, repeats), (REQUEST_BYTES, REPLY_BYTES, event_size),
                                           apart=shape != "4 seats in one process", checks=True)
    if times[name]:
        floor = statistics.median(times[name])
        print(f"  [{shape}] the checked floor of it (each seat checks each event's 2 signatures: 10 of its some 23 "
              f"checks at a change of deal): p50 {floor:.2f} ms; the {TARGET_MS:.0f} ms target leaves "
              f"{TARGET_MS - floor:.2f} ms for all the rest")
    for problem in problems:
        print(f"  checked floor problem: {problem}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--matches", type=int, default=3, help=f"whole matches to play (default 3, at most "
                        f"{MAX_MATCHES})")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random legal actions (default 1)")
    parser.add_argument("--no-floor", action="store_true", help="without the bare grpc.aio floor of a change of deal")
    parser.add_argument("--after-checkpoint", action="store_true",
                        help="the host opens the next deal only once the checkpoint is signed (the order before "
                        "GameHeader.next_deal; the default is the deal sealed with the checkpoint)")
    parser.add_argument("--apart", type=int, default=1, help="then this many matches with each seat its own process, "
                        "the real-table shape (default 1; 0: not)")
    args = parser.parse_args()
    args.matches = min(max(args.matches, 1), MAX_MATCHES)
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
