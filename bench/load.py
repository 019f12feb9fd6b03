"""Load: one `watten-host --tables N`, four `watten-join --bot` processes per table; throughput, latency, memory.

Issue #5 asks for 32 concurrent tables with a p99 action latency under 50 ms and the host under 300 MB, and for
a soak of 1,000 hands without an error and without memory growth. This prints the figures beside those targets;
nothing here passes or fails.

How it runs (plaintext, 127.0.0.1, a free port, bavarian for 4, records and journals in a temporary directory):

* the host runs N tables with long matches (target 99, about 33 hands each), so no table ends inside the window;
* the seats are bots in `bench/seats.py` processes, `--seats-per-process` of them to one process (default 128:
  the 32 tables' 128 seats are one interpreter on one core, so that at full bot speed the host, not 128 client
  interpreters fighting over 2 cores, is what the latency shows). Each seat is what `watten-join --bot LEVEL
  --latency-log FILE --table ID --seat S` is (its own key, TCP connection and `Connection`, which checks every host
  envelope), on a shared event loop. `--seats-per-process 0` starts a `watten-join` process per seat as before,
  staggered and round-robin over the tables (seat 0 of every table, then seat 1, ...);
* the tables are measured at full bot speed and, as the second figure, with paced bots (`--think`, 0.5 s by default
  before each move);
* once every table plays, a short warm-up, then a window of `--seconds`: every SubmitEnvelope a client timed
  (from the call to its reply, in the client) whose reply came inside the window counts. "action" = a game
  action (ActionRequest); "protocol" = the deal protocol's own signed steps (commitments, reveals, signatures);
* the host's peak memory is VmHWM from /proc/<pid>/status (read just before it is stopped), its CPU from
  /proc/<pid>/stat; the same measure with 1 table runs first, in the same run, as the baseline;
* `--soak HANDS`: a separate `watten-host --keep-serving` with `--soak-tables` places plays short matches
  (bavarian for 4 to 15, about 5 hands each); every fresh table the host opens in place of a finished one gets
  four new `watten-join` processes, until HANDS hands are played in all (`--soak-think S`: paced bots, repeatable; 0 by
  default). The host's VmRSS is noted every `--soak-every` hands while every place plays, and the verdict on
  growth is the least-squares slope over the second half of those notes (the first half is the warm-up), in kB
  per hand. Errors: every client that did not exit 0, every record (host and seat) that `watten-verify`'s own
  check (`verify_file`) refuses, a host that did not stop cleanly, ERROR lines or tracebacks in any log. At the
  end every table is idle (in its lobby): the host is stopped with nothing to abandon.

After a load window the host is stopped (SIGTERM: it abandons the matches, reveals its seeds, closes the records); every
client ends by itself when its table does. Every wait has a deadline, and every process this starts is ended when
the bench ends, whatever happens (and, on Linux, when the bench process dies).

Run: ``.venv/bin/python bench/load.py [--tables 32] [--seconds 30] [--level random] [--soak 1000]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from watten_net.v1 import watten_pb2 as pb
from watten_net.v1 import watten_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = 4
TARGET_POINTS = 99  # the longest match the rules allow: no table finishes inside the measuring window
TARGET_P99_MS = 50.0
TARGET_MEMORY_MB = 300.0
SEATS_PER_PROCESS = 128  # bot seats to a client process: the 32 tables' clients are one interpreter beside the host
PACED_THINK = 0.5  # seconds a paced bot waits before its move (the second figure: tables as people play them)
START_WAIT = 30.0  # seconds: the longest any single start-up wait may last
STOP_WAIT = 150.0  # seconds the clients get to end once the host has stopped (they give up reconnecting at 120)
PLAYING = pb.TABLE_PHASE_PLAYING
OVER = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
T = TypeVar("T")
# On Linux, `setpriv --pdeathsig TERM` in front of every command: the process gets SIGTERM when the bench dies, so
# none outlives it even if the bench is killed. (Not `preexec_fn` with prctl: that makes subprocess fork instead of
# vfork, and a fork of a process with gRPC threads breaks the child's gRPC before it even execs.)
_DIE_WITH_PARENT = ["setpriv", "--pdeathsig", "TERM", "--"] if shutil.which("setpriv") else []


# ---------------------------------------------------------------------------------------------------------------
# processes
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class Fleet:
    """Every process of one run, with its output in files (pipes from 129 processes would need 129 readers)."""

    workdir: Path
    env: dict[str, str]
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    host: subprocess.Popen[bytes] | None = None

    def spawn(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        out = open(self.workdir / f"{name}.out", "wb")  # noqa: SIM115 - the child owns it; closed below
        try:
            proc = subprocess.Popen([*_DIE_WITH_PARENT, *argv], cwd=ROOT, env=self.env, stdout=out,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        finally:
            out.close()
        self.procs.append(proc)
        return proc

    def stop_all(self) -> None:
        """Terminate whatever still runs, then kill what ignores that; never waits unbounded."""
        for proc in self.procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.terminate()
        deadline = time.monotonic() + 10
        for proc in self.procs:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                proc.wait(10)


def _script(name: str) -> str:
    script = Path(sys.executable).parent / name
    return str(script if script.exists() else ROOT / ".venv" / "bin" / name)


def _wait_for(predicate: Callable[[], T], timeout: float, what: str, step: float = 0.05) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (got := predicate()):
            return got
        time.sleep(step)
    raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")


def _status_kb(pid: int, key: str) -> int:
    """A `kB` line of /proc/PID/status (VmHWM: peak resident set; VmRSS: resident now); 0 when unreadable."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (all threads)."""
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def _start_host(fleet: Fleet, workdir: Path, records: Path, tables: int, target: int,
                *extra: str) -> tuple[subprocess.Popen[bytes], int, grpc.Channel, pb_grpc.WattenTableStub]:
    """One headless `watten-host --tables N` on a free port; returns it, its port, a channel and a stub."""
    host = fleet.spawn("host", [
        _script("watten-host"), "--headless", "--insecure", "--bind", "127.0.0.1", "--port", "0",
        "--tables", str(tables), "--players", str(PLAYERS), "--rules", "bavarian", "--record", str(records),
        "--set", f"target={target}", *extra])
    fleet.host = host
    host_out = workdir / "host.out"

    def port() -> int:
        if host.poll() is not None:
            raise RuntimeError(f"the host exited early: {host_out.read_text(errors='replace')[-500:]}")
        m = re.search(r"on port (\d+)", host_out.read_text(errors="replace"))
        return int(m.group(1)) if m else 0

    got = _wait_for(port, START_WAIT, "the host's port")
    channel = grpc.insecure_channel(f"127.0.0.1:{got}")
    return host, got, channel, pb_grpc.WattenTableStub(channel)  # type: ignore[no-untyped-call]


def _list_tables(stub: pb_grpc.WattenTableStub) -> list[pb.TableInfo]:
    with contextlib.suppress(grpc.RpcError):
        return list(stub.ListTables(pb.ListTablesRequest(client="bench/load.py"), timeout=5).tables)
    return []


# ---------------------------------------------------------------------------------------------------------------
# the latency logs the clients write (client/main.py LatencyLog)
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class Logs:
    action: list[tuple[float, float]] = field(default_factory=list)  # (unix time of the reply, ms)
    protocol: list[tuple[float, float]] = field(default_factory=list)
    hands: dict[str, int] = field(default_factory=dict)  # table id -> highest hand number started
    over: dict[str, int] = field(default_factory=dict)  # table id -> hands its match had (once a seat saw the end)
    refused: dict[str, int] = field(default_factory=dict)  # reason -> count


def read_logs(paths: list[Path]) -> Logs:
    logs = Logs()
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            for line in path.read_text().splitlines():
                parts = line.split()
                if len(parts) < 3:
                    continue  # a line being written right now
                when, kind = float(parts[0]), parts[1]
                if kind == "action":
                    logs.action.append((when, float(parts[2])))
                elif kind == "protocol":
                    logs.protocol.append((when, float(parts[2])))
                elif kind == "hand" and len(parts) == 4:
                    logs.hands[parts[2]] = max(logs.hands.get(parts[2], -1), int(parts[3]))
                elif kind == "over" and len(parts) == 4:
                    logs.over[parts[2]] = int(parts[3])
                elif kind == "refused":
                    logs.refused[parts[2]] = logs.refused.get(parts[2], 0) + 1
    return logs


def hands_done(logs: Logs) -> int:
    """Hands finished across the tables: a table that started hand h has finished hands 0..h-1; a table whose
    match a seat saw end after n hands has finished n."""
    return sum(max(logs.hands.get(t, 0), logs.over.get(t, 0)) for t in logs.hands.keys() | logs.over.keys())


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


# ---------------------------------------------------------------------------------------------------------------
# one host with its tables and clients
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class Result:
    tables: int
    think: float = 0.0  # seconds each bot waits before its move (0: as fast as it can)
    per_process: int = 0  # seats sharing one bench/seats.py client process (0: a watten-join process per seat)
    clients: int = 0
    window_s: float = 0.0
    actions: list[float] = field(default_factory=list)  # ms
    protocol: list[float] = field(default_factory=list)  # ms
    hands_in_window: int = 0
    startup_s: float = 0.0
    host_peak_mb: float = 0.0
    host_rss_mb: float = 0.0
    host_cpu_share: float = 0.0  # of one core, in the window
    clients_cpu_share: float = 0.0  # the client processes together, of one core, in the window
    machine_load: float = 0.0  # busy fraction of all cores, in the window
    memory: list[tuple[int, float, float]] = field(default_factory=list)  # (hands done, elapsed s, RSS MB)
    errors: list[str] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)
    hands_total: int = 0
    cut_short: bool = False  # the window closed early because a match ended
    records: Checked | None = None  # the soak's records, verified


def _machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs, from /proc/stat."""
    with contextlib.suppress(OSError, ValueError):
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = values[3] + (values[4] if len(values) > 4 else 0)
        return sum(values) - idle, sum(values)
    return 0.0, 1.0


Running = tuple[Fleet, subprocess.Popen[bytes], pb_grpc.WattenTableStub, list[Path]]


def _own_clients(fleet: Fleet, ids: list[str], level: str, think: float, stagger: float, address: str,
                 logs: list[Path], records: Path) -> None:
    """A `watten-join --bot` process per seat. Round-robin: seat 0 at every table first, so that no table is full
    (and playing) while most of the interpreters are still starting up."""
    for seat in range(PLAYERS):
        for t, table_id in enumerate(ids):
            index = seat * len(ids) + t
            fleet.spawn(f"c{index}", [
                _script("watten-join"), "--bot", level, "--seed", str(index), "--insecure", "--record",
                str(records), "--latency-log", str(logs[index]), "--table", table_id, "--seat", str(seat),
                "--name", f"b{index}", "--delay", str(think), address])
            time.sleep(stagger)


def _shared_clients(fleet: Fleet, ids: list[str], level: str, think: float, per_process: int, address: str,
                    workdir: Path, records: Path) -> None:
    """bench/seats.py processes of `per_process` seats each (whole tables together where they fit)."""
    seats = [f"{table_id}:{seat}:{seat * len(ids) + t}" for t, table_id in enumerate(ids) for seat in range(PLAYERS)]
    for n in range(0, len(seats), per_process):
        fleet.spawn(f"c{n // per_process}", [
            sys.executable, str(ROOT / "bench" / "seats.py"), "--level", level, "--delay", str(think),
            "--log-dir", str(workdir / "latency"), "--record", str(records), address, *seats[n:n + per_process]])


@contextlib.contextmanager
def running_host(tables: int, level: str, stagger: float, workdir: Path, result: Result,
                 think: float = 0.0, per_process: int = 0) -> Iterator[Running]:
    """Start the host and the clients of 4 seats per table (a process each, or `per_process` seats to a
    bench/seats.py process); yield once every table plays; stop everything on the way out."""
    env = dict(os.environ)
    env["WATTEN_CONFIG_DIR"] = str(workdir / "config")
    env["WATTEN_DATA_DIR"] = str(workdir / "data")
    env["PYTHONUNBUFFERED"] = "1"
    records = workdir / "records"
    fleet = Fleet(workdir, env)
    channel: grpc.Channel | None = None
    try:
        host, got, channel, stub = _start_host(fleet, workdir, records, tables, TARGET_POINTS)
        ids = [t.table_id for t in _list_tables(stub)]
        if len(ids) != tables:
            raise RuntimeError(f"ListTables gave {len(ids)} tables, not {tables}")
        logs = [workdir / "latency" / f"c{index}.log" for index in range(PLAYERS * tables)]
        started = time.monotonic()
        if per_process:
            _shared_clients(fleet, ids, level, think, per_process, f"127.0.0.1:{got}", workdir, records)
        else:
            _own_clients(fleet, ids, level, think, stagger, f"127.0.0.1:{got}", logs, records)
        result.clients = len(fleet.procs) - 1

        def all_playing() -> bool:
            infos = _list_tables(stub)
            return len(infos) == tables and all(i.phase == PLAYING for i in infos)

        _wait_for(all_playing, START_WAIT + tables, "every table to start playing", step=0.2)
        result.startup_s = time.monotonic() - started
        yield fleet, host, stub, logs
    finally:
        stop_host(fleet, result)
        if channel is not None:
            channel.close()
        fleet.stop_all()


def stop_host(fleet: Fleet, result: Result) -> None:
    """SIGTERM the host (it abandons every match cleanly); then every client should end by itself."""
    host = fleet.host
    if host is None or host.poll() is not None:
        return
    result.host_peak_mb = max(result.host_peak_mb, _status_kb(host.pid, "VmHWM") / 1024)
    host.send_signal(signal.SIGTERM)
    try:
        code = host.wait(STOP_WAIT)
    except subprocess.TimeoutExpired:
        result.errors.append(f"the host did not stop within {STOP_WAIT:.0f} s of SIGTERM")
        return
    if code not in (0, 130):
        result.errors.append(f"the host exited {code}")
    deadline = time.monotonic() + STOP_WAIT
    for i, proc in enumerate(p for p in fleet.procs if p is not host):
        try:
            code = proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            result.errors.append(f"client {i} did not end within {STOP_WAIT:.0f} s of the host")
            continue
        if code != 0:
            result.errors.append(f"client {i} exited {code}: {_tail(fleet.workdir / f'c{i}.out')}")


def _tail(path: Path) -> str:
    with contextlib.suppress(OSError):
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-2:])
    return ""


def _log_errors(workdir: Path) -> list[str]:
    """ERROR lines and tracebacks in any process's output."""
    found = []
    for path in sorted(workdir.glob("*.out")):
        text = path.read_text(errors="replace")
        if "Traceback" in text or re.search(r"\bERROR\b", text):
            found.append(f"{path.stem}: {_tail(path)}")
    return found


def measure(tables: int, level: str, seconds: float, warmup: float, stagger: float, workdir: Path,
            think: float = 0.0, per_process: int = 0) -> Result:
    """Every table plays; then `seconds` of measuring; then everything stops."""
    result = Result(tables, think=think, per_process=per_process)
    with running_host(tables, level, stagger, workdir, result, think, per_process) as (fleet, host, stub, logs):
        time.sleep(warmup)
        clients = [p.pid for p in fleet.procs if p is not host]
        t0, cpu0, busy0 = time.time(), _cpu_s(host.pid), _machine_busy()
        clients0 = sum(map(_cpu_s, clients))
        hands0 = hands_done(read_logs(logs))
        # The window closes after `seconds`, or earlier when a match ends (from then on fewer tables play): a lone
        # table plays a match to 99 in well under a minute.
        end = time.monotonic() + seconds
        cpu1 = cpu0  # the last reading: a host whose tables all ended exits, and /proc then reads 0
        while time.monotonic() < end:
            time.sleep(min(0.5, max(0.0, end - time.monotonic())))
            # Peak memory as we go: a host whose tables have all ended exits (and its /proc entry goes with it).
            result.host_peak_mb = max(result.host_peak_mb, _status_kb(host.pid, "VmHWM") / 1024)
            cpu1 = _cpu_s(host.pid) or cpu1
            infos = _list_tables(stub)
            if host.poll() is not None or not infos or any(i.phase in OVER for i in infos):
                result.cut_short = True
                break
        t1, cpu1, busy1 = time.time(), _cpu_s(host.pid) or cpu1, _machine_busy()
        clients1 = sum(map(_cpu_s, clients))  # (a client that ended meanwhile reads 0: then this is too low)
        result.host_rss_mb = _status_kb(host.pid, "VmRSS") / 1024
        result.host_peak_mb = max(result.host_peak_mb, _status_kb(host.pid, "VmHWM") / 1024)
        result.window_s = t1 - t0
        result.host_cpu_share = (cpu1 - cpu0) / result.window_s
        result.clients_cpu_share = max(0.0, clients1 - clients0) / result.window_s
        result.machine_load = (busy1[0] - busy0[0]) / max(1.0, busy1[1] - busy0[1])
        # Replies inside the window; a client flushes its log at every hand, so give them one more second.
        time.sleep(1.0)
        got = read_logs(logs)
        result.actions = [ms for when, ms in got.action if t0 <= when < t1]
        result.protocol = [ms for when, ms in got.protocol if t0 <= when < t1]
        result.hands_in_window = hands_done(got) - hands0
    result.refused = read_logs(logs).refused
    result.errors += _log_errors(workdir)
    return result


@dataclass
class Staffed:
    """One table of the soak and the four clients started for its match."""

    table_id: str
    clients: list[tuple[int, subprocess.Popen[bytes]]]  # (client number, process)


def soak(tables: int, level: str, hands: int, every: int, stagger: float, workdir: Path,
         think: float = 0.0) -> Result:
    """A `--keep-serving` host with `tables` places plays short matches until `hands` hands are done in all.

    Each fresh table the host opens (in place of a finished one) gets four new client processes, until the hands
    played and those the running matches will still play reach `hands`; then the last matches end, every client
    exits, and the host (idle, every table in its lobby, nothing to abandon) is stopped. The host's memory is noted
    every `every` hands.
    """
    result = Result(tables, think=think)
    env = dict(os.environ)
    env["WATTEN_CONFIG_DIR"] = str(workdir / "config")
    env["WATTEN_DATA_DIR"] = str(workdir / "data")
    env["PYTHONUNBUFFERED"] = "1"
    records = workdir / "records"
    fleet = Fleet(workdir, env)
    channel: grpc.Channel | None = None
    logs: list[Path] = []
    staffed: dict[str, Staffed] = {}
    codes: dict[int, int] = {}  # client number -> exit code
    try:
        host, got, channel, stub = _start_host(fleet, workdir, records, tables, SOAK_TARGET, "--keep-serving")

        def staff(table_ids: list[str]) -> None:
            """Four clients for each table; seat 0 at every table first (as in `running_host`), so that at the
            start no table plays while most of the interpreters are still starting up."""
            for table_id in table_ids:
                staffed[table_id] = Staffed(table_id, [])
            for seat in range(PLAYERS):
                for table_id in table_ids:
                    index = len(logs)
                    log = workdir / "latency" / f"c{index}.log"
                    logs.append(log)
                    staffed[table_id].clients.append((index, fleet.spawn(f"c{index}", [
                        _script("watten-join"), "--bot", level, "--seed", str(index), "--insecure", "--record",
                        str(records), "--latency-log", str(log), "--table", table_id, "--seat", str(seat),
                        "--name", f"b{index}", "--delay", str(think), f"127.0.0.1:{got}"])))
                    time.sleep(stagger)

        ids = [t.table_id for t in _list_tables(stub)]
        if len(ids) != tables:
            raise RuntimeError(f"ListTables gave {len(ids)} tables, not {tables}")
        started = time.monotonic()
        staff(ids)
        next_mark = 0
        # Bounded: ~10 s per hand across the whole host, plus the start-up, before giving up (it takes far less).
        deadline = started + 10.0 * hands + START_WAIT + tables
        staffing = True
        while True:
            if time.monotonic() > deadline:
                result.errors.append(f"the soak did not end within {deadline - started:.0f} s")
                break
            if host.poll() is not None:
                result.errors.append(f"the host exited {host.returncode} during the soak")
                break
            for entry in staffed.values():
                for index, proc in entry.clients:
                    if index not in codes and proc.poll() is not None:
                        codes[index] = proc.returncode
            got_logs = read_logs(logs)
            done = hands_done(got_logs)
            if done >= next_mark and staffing:  # (the growth is judged while every place plays)
                result.memory.append((done, time.monotonic() - started, _status_kb(host.pid, "VmRSS") / 1024))
                print(f"  (soak: {done} hands, host {result.memory[-1][2]:.1f} MB)", flush=True)
                while next_mark <= done:
                    next_mark += every
            running = [t for t in staffed if t not in got_logs.over]
            # Hands the running matches will still play, at the mean of the finished ones (5 until one is over).
            finished = list(got_logs.over.values())
            per_match = sum(finished) / len(finished) if finished else 5.0
            ahead = sum(max(0.0, per_match - got_logs.hands.get(t, 0)) for t in running)
            staffing = staffing and done + ahead < hands
            infos = _list_tables(stub)
            if staffing:
                for info in infos:
                    if info.table_id not in staffed and info.phase == pb.TABLE_PHASE_LOBBY:
                        staff([info.table_id])
                        break  # one table per round: the others' processes meanwhile keep being reaped
                else:
                    time.sleep(0.2)
                continue
            if len(codes) == len(logs) and infos and all(i.table_id not in staffed for i in infos):
                break  # every client has ended and every table listed is a fresh, empty one
            time.sleep(0.2)
        result.window_s = time.monotonic() - started
        result.host_rss_mb = _status_kb(host.pid, "VmRSS") / 1024
        result.host_peak_mb = _status_kb(host.pid, "VmHWM") / 1024
        result.clients = len(logs)
    finally:
        stop_host(fleet, result)  # idle by now: SIGTERM abandons nothing
        if channel is not None:
            channel.close()
        fleet.stop_all()
    final = read_logs(logs)  # (stop_host has noted every client that did not exit 0)
    result.refused = final.refused
    result.actions = [ms for _, ms in final.action]
    result.hands_total = hands_done(final)
    result.errors += _log_errors(workdir)
    checked = verify_records(sorted(records.glob("*.wrec")))
    result.errors += checked.errors
    result.records = checked
    return result


SOAK_TARGET = 15  # short matches (about 5 hands at a table of four): many tables are opened and released


@dataclass
class Checked:
    host: int = 0
    seats: int = 0
    host_hands: int = 0  # hands in the host records (the exact count)
    errors: list[str] = field(default_factory=list)


def _verify_one(path: str) -> tuple[str, bool, str, int, bool]:
    from watten_net.verify import verify_file

    report = verify_file(path)
    first = report.errors[0].sentence() if report.errors else ""
    return path, report.ok, first, report.hands, report.seat is None


def verify_records(paths: list[Path]) -> Checked:
    """Every record (host and seat) through `watten-verify`'s own check, in-process, one worker per CPU."""
    import concurrent.futures
    import multiprocessing

    checked = Checked()
    if not paths:
        checked.errors.append("no records were written")
        return checked
    context = multiprocessing.get_context("spawn")  # (no fork of a process with gRPC threads)
    with concurrent.futures.ProcessPoolExecutor(max_workers=os.cpu_count() or 1, mp_context=context) as pool:
        for path, ok, first, hands, is_host in pool.map(_verify_one, map(str, paths), chunksize=8):
            if is_host:
                checked.host += 1
                checked.host_hands += hands
            else:
                checked.seats += 1
            if not ok:
                checked.errors.append(f"{Path(path).name} does not verify: {first}")
    return checked


# ---------------------------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------------------------

def _ms(values: list[float]) -> str:
    if not values:
        return "      -        -        -        -"
    return " ".join(f"{percentile(values, q):8.2f}" for q in (50, 90, 99)) + f" {max(values):8.2f}"


def report(runs: list[Result]) -> None:
    print()
    print(f"  {'(game actions, ms)':<26} {'tables':>6} {'clients':>7} {'actions/s':>9} {'hands/s':>7} {'p50':>8} "
          f"{'p90':>8} {'p99':>8} {'max':>8}   host CPU  machine  host peak")
    for r in runs:
        name = f"{r.tables} table{'s' if r.tables > 1 else ''}, think {r.think:g} s"
        rate = len(r.actions) / r.window_s if r.window_s else 0.0
        hands = r.hands_in_window / r.window_s if r.window_s else 0.0
        print(f"  {name:<26} {r.tables:6d} {r.clients:7d} {rate:9.0f} {hands:7.2f} "
              f"{_ms(r.actions)}   {r.host_cpu_share:7.0%}  {r.machine_load:7.0%}  {r.host_peak_mb:6.0f} MB")
        prate = len(r.protocol) / r.window_s if r.window_s else 0.0
        print(f"  {'  protocol steps':<26} {'':6} {'':7} {prate:9.0f} {'':7} {_ms(r.protocol)}")
    print()
    base = runs[0]
    for load in runs[1:]:
        if not load.actions:
            continue
        p99 = percentile(load.actions, 99)
        print(f"  {load.tables} tables, think {load.think:g} s: p99 game action {p99:.1f} ms (target under "
              f"{TARGET_P99_MS:.0f} ms -> {'met' if p99 < TARGET_P99_MS else 'NOT met'}); host CPU "
              f"{load.host_cpu_share:.0%}, the clients' {load.clients_cpu_share:.0%} of a core; host peak memory "
              f"{load.host_peak_mb:.0f} MB (target under {TARGET_MEMORY_MB:.0f} MB -> "
              f"{'met' if load.host_peak_mb < TARGET_MEMORY_MB else 'NOT met'}); start-up {load.startup_s:.0f} s")
        if base.actions:
            per_table = (load.host_peak_mb - base.host_peak_mb) / max(1, load.tables - 1)
            ratio50 = percentile(load.actions, 50) / percentile(base.actions, 50)
            ratio99 = p99 / percentile(base.actions, 99)
            print(f"    against the baseline (1 table): p50 x{ratio50:.1f}, p99 x{ratio99:.1f};"
                  f" host memory {base.host_peak_mb:.0f} MB with 1 table, {per_table:.1f} MB per further table")
    for r in runs:
        label = f"{r.tables} tables, think {r.think:g} s"
        if r.cut_short:
            print(f"  note ({label}): the window closed after {r.window_s:.1f} s, when a match ended")
        for problem in r.errors:
            print(f"  problem ({label}): {problem}")
        if r.refused:
            print(f"  note ({label}): refused actions (a seat acting on a view the table had left): {r.refused}")


def measure_floor(tables: int, seconds: float, warmup: float, checks: bool = False) -> dict[str, Any] | str:
    """bench/load_floor.py's closed loop of `tables` tables against a bare grpc.aio server (its own process, the
    seats in another; with `checks` the checked floor, the mandated signatures alone): its figures, or why there are
    none."""
    argv = [sys.executable, str(ROOT / "bench" / "load_floor.py"), "--tables", str(tables), "--seconds",
            str(seconds), "--warmup", str(warmup), "--json", *(["--checks"] if checks else [])]
    try:
        done = subprocess.run([*_DIE_WITH_PARENT, *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=seconds + warmup + START_WAIT + 60, check=False)
    except subprocess.TimeoutExpired:
        return "bench/load_floor.py did not end in time"
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return f"bench/load_floor.py exited {done.returncode}: {done.stderr.strip()[-300:]}"
    figures: dict[str, Any] = json.loads(lines[-1])
    return figures


def report_floor(host: Result, floor: dict[str, Any] | str, checked: dict[str, Any] | str) -> None:
    """The full-speed run beside its floor: the same tables in a closed loop against a server that does nothing but
    what every action needs on the wire; and against the checked floor, which adds the mandated signatures alone."""
    if isinstance(floor, str):
        print(f"  floor: {floor}")
        return
    replies: list[float] = floor["reply_ms"]
    window = floor["window_s"] or 1.0
    request, reply, event = floor["sizes"]
    print()
    print(f"  against the floor: the same {host.tables} tables at full speed in a closed loop against a bare grpc.aio "
          f"server (bench/load_floor.py: request {request} B, reply {reply} B, a {event} B event to each of 4 seats; "
          "the seats in one process)")
    print(f"  {'(ms)':<26} {'actions/s':>9} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8}   server CPU per action")
    host_rate = len(host.actions) / host.window_s if host.window_s else 0.0
    host_cpu = host.host_cpu_share * host.window_s / len(host.actions) * 1000 if host.actions else 0.0
    print(f"  {'watten-host':<26} {host_rate:9.0f} {_ms(host.actions)}   {host_cpu:.2f} ms (protocol steps "
          f"included, {host.host_cpu_share:.0%} of a core; the seats' process {host.clients_cpu_share:.0%})")
    floor_cpu = floor["server_cpu_s"] / len(replies) * 1000 if replies else 0.0
    print(f"  {'bare grpc.aio floor':<26} {len(replies) / window:9.0f} {_ms(replies)}   {floor_cpu:.2f} ms "
          f"({floor['server_cpu_s'] / window:.0%} of a core; the seats' process {floor['client_cpu_s'] / window:.0%})")
    if replies and host.actions:
        p99, floor99 = percentile(host.actions, 99), percentile(replies, 99)
        print(f"    the host against its floor: p99 x{p99 / floor99:.1f}, CPU per action x{host_cpu / floor_cpu:.1f}; "
              f"the floor's p99 {floor99:.1f} ms is {'under' if floor99 < TARGET_P99_MS else 'NOT under'} the "
              f"{TARGET_P99_MS:.0f} ms target")
    for problem in floor["problems"]:
        print(f"  floor problem: {problem}")
    _report_checked_floor(checked)


def _report_checked_floor(checked: dict[str, Any] | str) -> None:
    """The checked floor's row: the bare floor plus the signatures every action needs (the acting seat signs, the
    server checks and signs, every seat checks both), no rules, views or journal: what no host of this stack can go
    below without dropping a check."""
    if isinstance(checked, str):
        print(f"  checked floor: {checked}")
        return
    replies: list[float] = checked["reply_ms"]
    window = checked["window_s"] or 1.0
    cpu = checked["server_cpu_s"] / len(replies) * 1000 if replies else 0.0
    seats = checked["client_cpu_s"] / window
    print(f"  {'checked floor (signatures)':<26} {len(replies) / window:9.0f} {_ms(replies)}   {cpu:.2f} ms "
          f"({checked['server_cpu_s'] / window:.0%} of a core; the seats' process {seats:.0%})")
    if replies:
        p99 = percentile(replies, 99)
        print(f"    the checked floor's p99 {p99:.1f} ms is {'under' if p99 < TARGET_P99_MS else 'NOT under'} the "
              f"{TARGET_P99_MS:.0f} ms target, with no rules, views or journal")
    for problem in checked["problems"]:
        print(f"  checked floor problem: {problem}")


GROWTH_LIMIT_KB = 10.0  # kB per hand over the soak's second half; a host that kept every match grew ~110


def slope(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of y over x (0 when x does not vary)."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0


def growth(memory: list[tuple[int, float, float]]) -> tuple[float, float, float, float] | None:
    """(first-half slope, second-half slope) in kB per hand, and the RSS in MB at the middle and at the end.

    The first half is the warm-up (the tables fill, the allocator's arenas grow); the second half, against the
    middle as the same run's baseline, shows whether the memory keeps growing with the hands played."""
    if len(memory) < 4:
        return None
    total = memory[-1][0]
    first = [(h, rss * 1024) for h, _, rss in memory if h <= total / 2]
    second = [(h, rss * 1024) for h, _, rss in memory if h >= total / 2]
    if len(first) < 2 or len(second) < 2:
        return None
    return slope(first), slope(second), second[0][1] / 1024, second[-1][1] / 1024


def report_soak(s: Result, goal: int) -> None:
    print()
    checked = s.records or Checked()
    print(f"soak, think {s.think:g} s: {s.tables} tables kept serving, bavarian for {PLAYERS} to {SOAK_TARGET}; "
          f"{checked.host} matches, {checked.host_hands} hands in the host records (goal {goal}), {s.clients} client "
          f"processes, {len(s.actions)} game actions in {s.window_s:.0f} s; host memory (VmRSS) as the hands went by:")
    for hands, elapsed, rss in s.memory:
        print(f"  {hands:6d} hands  {elapsed:6.0f} s  {rss:7.1f} MB")
    print(f"  (after the last matches, every table idle: {s.host_rss_mb:.1f} MB)")
    found = growth(s.memory)
    if found is not None:
        early, late, middle, end = found
        verdict = "no growth" if late < GROWTH_LIMIT_KB else "GROWS"
        print(f"  memory: {early:+.1f} kB/hand over the first half (warm-up), {late:+.1f} kB/hand over the second "
              f"({middle:.1f} MB at the middle, {end:.1f} MB at the end) -> {verdict} "
              f"(limit {GROWTH_LIMIT_KB:g} kB/hand)")
    if s.actions:
        print(f"  game action latency over the soak: p50 {percentile(s.actions, 50):.2f} ms, "
              f"p99 {percentile(s.actions, 99):.2f} ms")
    print(f"  records verified: {checked.host} host, {checked.seats} seat")
    print(f"  errors: {len(s.errors)}  (target 0 -> {'met' if not s.errors else 'NOT met'}); "
          f"host peak memory {s.host_peak_mb:.0f} MB")
    for problem in s.errors:
        print(f"  error: {problem}")
    if s.refused:
        print(f"  note: refused actions (a seat acting on a view the table had left): {s.refused}")


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM ends the bench like Ctrl-C does: the `finally` blocks stop every process it started."""
    raise KeyboardInterrupt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tables", type=int, default=32, help="tables of the load run (default 32)")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each measuring window (default 30)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds between the start and the window")
    parser.add_argument("--level", default="random", help="the clients' bot level (default random: the cheapest)")
    parser.add_argument("--think", type=float, action="append", default=[], metavar="SECONDS",
                        help="also measure --tables with bots that wait this long before each move (a paced "
                             f"table, as people play it; default {PACED_THINK:g}, 0: none); repeatable")
    parser.add_argument("--seats-per-process", type=int, default=SEATS_PER_PROCESS, metavar="N",
                        help=f"bot seats sharing one bench/seats.py client process (default {SEATS_PER_PROCESS}: "
                             "the clients cost the machine little beside the host); 0: a watten-join --bot process "
                             "per seat, as before")
    parser.add_argument("--stagger", type=float, default=0.15, help="seconds between two watten-join starts "
                        "(--seats-per-process 0)")
    parser.add_argument("--soak", type=int, default=0, metavar="HANDS", help="also soak: play this many hands")
    parser.add_argument("--soak-tables", type=int, default=0, help="tables of the soak (default: --tables)")
    parser.add_argument("--soak-think", type=float, action="append", default=[], metavar="SECONDS",
                        help="soak with bots that wait this long before each move (default: 0 only); repeatable")
    parser.add_argument("--soak-every", type=int, default=100, help="note the host's memory every N hands")
    parser.add_argument("--no-load", action="store_true", help="only the soak")
    parser.add_argument("--no-floor", action="store_true", help="without the bare grpc.aio floor (bench/load_floor.py) "
                        "of the full-speed run")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _interrupt)
    clients = (f"{args.seats_per_process} bot seats ({args.level}) to a bench/seats.py process"
               if args.seats_per_process > 0 else f"{PLAYERS} watten-join --bot {args.level} processes per table")
    print(f"watten-net load: one watten-host, {clients}, bavarian to {TARGET_POINTS}, 127.0.0.1 "
          f"(Python {platform.python_version()}, grpcio {grpc.__version__}, {os.cpu_count()} CPUs)", flush=True)
    with tempfile.TemporaryDirectory(prefix="watten-load-") as tmp:
        if not args.no_load:
            runs: list[Result] = []
            floor: dict[str, Any] | str = "not measured"
            checked: dict[str, Any] | str = "not measured"
            plan = [(1, 0.0), (args.tables, 0.0)] + [(args.tables, t) for t in args.think or [PACED_THINK] if t > 0]
            for n, (count, think) in enumerate(plan):
                where = Path(tmp) / f"load-{n}"
                where.mkdir()
                # A lone table plays its whole match to 99 in a few seconds: barely any warm-up for it.
                warmup = min(args.warmup, 0.5) if count == 1 else args.warmup
                try:
                    runs.append(measure(count, args.level, args.seconds, warmup, args.stagger, where, think,
                                        args.seats_per_process))
                except RuntimeError as err:
                    failed = Result(count, think=think)
                    failed.errors.append(str(err))
                    runs.append(failed)
                print(f"  ({count} tables, think {think:g} s: measured)", flush=True)
                if n == 1 and not args.no_floor:  # the host at full speed, then its floor at once: the same load
                    floor = measure_floor(count, args.seconds, args.warmup)
                    print(f"  ({count} tables against a bare grpc.aio server: measured)", flush=True)
                    checked = measure_floor(count, args.seconds, args.warmup, checks=True)
                    print(f"  ({count} tables against the checked floor: measured)", flush=True)
            report(runs)
            if not args.no_floor:
                report_floor(runs[1], floor, checked)
        for n, think in enumerate(args.soak_think or [0.0] if args.soak else []):
            tables = args.soak_tables or args.tables
            where = Path(tmp) / f"soak-{n}"
            where.mkdir()
            try:
                result = soak(tables, args.level, args.soak, args.soak_every, args.stagger, where, think)
            except RuntimeError as err:
                result = Result(tables, think=think)
                result.errors.append(str(err))
            report_soak(result, args.soak)


if __name__ == "__main__":
    main()
