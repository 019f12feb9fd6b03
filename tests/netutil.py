"""Real processes on 127.0.0.1 for the network tests: a host on a free port, bot clients, deadlines."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import grpc.aio

T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[1]


def isolated_env(tmp: Path) -> dict[str, str]:
    """Each test gets its own config and data directories (certificates, known hosts, records)."""
    env = dict(os.environ)
    env["WATTEN_CONFIG_DIR"] = str(tmp / "config")
    env["WATTEN_DATA_DIR"] = str(tmp / "data")
    env["PYTHONUNBUFFERED"] = "1"
    return env


# A line the test waits for (the host's port, a client's seat, a notice): on a loaded 2-core CI machine a Python
# process that imports grpc and cryptography can take many seconds to get there; a dead process fails at once.
LINE_TIMEOUT = 60.0


@dataclass
class Proc:
    proc: subprocess.Popen[str]
    lines: queue.Queue[str] = field(default_factory=queue.Queue)
    seen: list[str] = field(default_factory=list)
    pump: threading.Thread | None = None

    def __post_init__(self) -> None:
        def pump() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.put(line.rstrip("\n"))

        self.pump = threading.Thread(target=pump, daemon=True)
        self.pump.start()

    def _ended(self) -> bool:
        """The process has exited and everything it wrote has been read off the pipe."""
        if self.proc.poll() is None or self.pump is None:
            return False
        self.pump.join(timeout=10)
        return not self.pump.is_alive()

    def wait_for_line(self, pattern: str, timeout: float = LINE_TIMEOUT) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        for line in self.seen:
            if (m := regex.search(line)) is not None:
                return m
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=min(0.5, max(0.01, deadline - time.monotonic())))
            except queue.Empty:
                if self._ended() and self.lines.empty():
                    raise AssertionError(f"the process ended ({self.proc.returncode}) without a line matching "
                                         f"{pattern!r}; its output: {self.seen}") from None
                continue
            self.seen.append(line)
            if (m := regex.search(line)) is not None:
                return m
        raise AssertionError(f"no line matching {pattern!r} within {timeout}s; output so far: {self.seen}")

    def output(self) -> str:
        """Everything read so far; once the process has exited, everything it wrote (the reader thread may lag
        behind the exit: a line printed just before it would otherwise be missing)."""
        self._ended()
        while True:
            try:
                self.seen.append(self.lines.get_nowait())
            except queue.Empty:
                return "\n".join(self.seen)

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise AssertionError(f"process did not end within {timeout}s; output: {self.output()}") from None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def start(module: str, args: list[str], env: dict[str, str]) -> Proc:
    proc = subprocess.Popen(
        [sys.executable, "-m", module, *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )
    return Proc(proc)


def start_host(tmp: Path, *args: str) -> tuple[Proc, int]:
    host = start("host.main", ["--port", "0", "--bind", "127.0.0.1", *args], isolated_env(tmp))
    port = int(host.wait_for_line(r"on port (\d+)").group(1))
    return host, port


def a_seat_refuses_the_header(tmp: Path, cheat: str, *host_args: str) -> str:
    """A real `watten-join --bot random` against tests/cheating_host.py cheating as WATTEN_CHEAT=`cheat` (two players,
    the host's bot in the other seat): the seat must stop at the header with watten-join's exit for a host that broke
    the protocol (5). What the seat said."""
    env = isolated_env(tmp)
    env["WATTEN_CHEAT"] = cheat
    host = start("tests.cheating_host", ["--port", "0", "--bind", "127.0.0.1", "--headless", "--insecure",
                                         "--players", "2", "--bots", "1", *host_args], env)
    port = int(host.wait_for_line(r"on port (\d+)").group(1))
    seat = start("client.main", ["--bot", "random", "--insecure", f"127.0.0.1:{port}"], isolated_env(tmp / "seat"))
    try:
        assert seat.wait(120) == 5, seat.output()
    finally:
        host.stop()
        seat.stop()
    return seat.output()


def clients_then_host_end(clients: Sequence[Proc], host: Proc, seconds: float, host_seconds: float = 60.0) -> None:
    """Every client process must end by itself with 0 (each within `seconds`), then the host within `host_seconds`
    (a headless host ends once its match is over and its clients have gone); a failure shows that process's output.
    Stopping them whatever happened stays with the caller (who started them)."""
    for client in clients:
        assert client.wait(seconds) == 0, client.output()
    assert host.wait(host_seconds) == 0, host.output()


def run_then_host_ends(host: Proc, work: Coroutine[Any, Any, T], seconds: float, *, exit_code: int = 0,
                       end_within: float = 60.0) -> T:
    """Run the clients' `work` against `host` (within `seconds`), then the host must end by itself with `exit_code`
    (a headless host ends after its match); the host is stopped whatever happened. The work's result."""
    import asyncio

    try:
        result = asyncio.run(asyncio.wait_for(work, seconds))
        assert host.wait(end_within) == exit_code, host.output()
        return result
    finally:
        host.stop()


# gRPC options of a test's channel: each channel its own TCP connection (channels of one process share none), and
# the same with a small window that never grows: a stream nobody reads then sticks in a write after a few dozen
# events (a few hundred bytes each, since an event carries only what changed), however fast or loaded the machine.
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
NO_WINDOW_GROWTH = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 4096), *OWN_CONNECTION]


def own_channel(port: int, options: list[tuple[str, int]] = OWN_CONNECTION) -> grpc.aio.Channel:
    """A plaintext channel to the host on 127.0.0.1:`port`, its own TCP connection."""
    import grpc.aio

    return grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options)


def table_stub(channel: grpc.aio.Channel) -> Any:
    """The generated WattenTable stub on `channel`: the raw calls, without the client's checks."""
    from watten_net.v1 import watten_pb2_grpc

    return watten_pb2_grpc.WattenTableStub(channel)  # type: ignore[no-untyped-call]


@contextlib.asynccontextmanager
async def in_process_host(service: Any) -> AsyncIterator[int]:
    """host/server.py's `service` over real gRPC on 127.0.0.1 in this process while the block runs: its port. For a
    test that looks at (or drives) the host's own objects, which a host process would hide."""
    from host.server import start_server, stop_server

    server, port = await start_server(service, 0, None, "127.0.0.1")
    try:
        yield port
    finally:
        await stop_server(server, 0.1)


class Proxy:
    """A TCP relay on 127.0.0.1 that can drop every connection and refuse new ones for a while: a Wi-Fi hiccup."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.down = False
        self._writers: list[object] = []
        self._server: object = None

    async def start(self) -> None:
        import asyncio

        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                writer.close()

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if self.down:
                writer.close()
                return
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
            except OSError:
                writer.close()
                return
            self._writers += [writer, up_writer]
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        self._server = server
        self.port = server.sockets[0].getsockname()[1]

    def cut(self) -> None:
        """Drop every open connection and refuse new ones until `restore()`."""
        self.down = True
        for writer in self._writers:
            writer.transport.abort()  # type: ignore[attr-defined]
        self._writers.clear()

    def restore(self) -> None:
        self.down = False


def host_chain(record: Path) -> list[Any]:
    """The host's signed envelopes of a game record (`*-host.wrec` or a seat's), parsed, in chain order."""
    from watten_net.deal.protocol import parse_envelope
    from watten_net.record import KIND_HOST, read_record

    _, entries = read_record(str(record))
    return [parse_envelope(e.data, host=True) for e in entries if e.kind == KIND_HOST]


async def bot_turn(conn: Any, bot: Any, view: Any) -> None:
    """If the seat is to act, the bot's move through `conn` (as `watten-join --bot` plays). A refusal because the
    table moved on meanwhile (FAILED_PRECONDITION) is the next view's business; anything else is raised."""
    import grpc

    from client.connection import Refused
    from watten_net.bots import BotView

    if conn.seat not in view.to_act or not view.legal_actions:
        return
    action = bot.choose(BotView.from_table_view(view))
    if action is None:
        return
    try:
        await conn.act(action)
    except Refused as err:
        if err.code != grpc.StatusCode.FAILED_PRECONDITION:
            raise


def journal_entries(tmp: Path) -> list[tuple[int, int, bytes]]:
    """The entries of the running game's journal (the host's data directory under `tmp`, one table): what the host
    has accepted so far, each entry fsync'd before anything it caused left the host. Empty before the game has
    started and once it has ended (the journal is moved aside then)."""
    from host.journal import JournalError, read_journal

    for path in sorted((tmp / "data" / "journal").glob("*.wjournal")):
        try:
            return read_journal(path)[1]
        except (OSError, JournalError):
            return []  # moved aside meanwhile (the game ended), or its metadata not written yet
    return []


def actions_of(entries: list[tuple[int, int, bytes]], seat: int) -> tuple[int, int]:
    """(game actions the seat's own client sent, moves a stand-in bot made for it) in these journal entries."""
    from host.journal import BOT_ACTION, SUBMIT
    from watten_net.deal.protocol import parse_envelope

    own = sum(1 for kind, who, data in entries
              if kind == SUBMIT and who == seat and parse_envelope(data, host=False).type == "ActionRequest")
    by_bot = sum(1 for kind, who, _ in entries if kind == BOT_ACTION and who == seat)
    return own, by_bot


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 120.0, *,
               unless: Proc | None = None) -> None:
    """Poll `condition` until it holds; fail after `timeout` seconds, or at once if the process `unless` ends."""
    deadline = time.monotonic() + timeout
    while not condition():
        if unless is not None and unless.proc.poll() is not None:
            raise AssertionError(f"{what}: the process ended first ({unless.proc.returncode}): {unless.output()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.02)


def verified_records(records: Path, count: int) -> list[Path]:
    """The `count` game records in `records` (sorted by name), each checked with watten-verify: every one must verify,
    and a failure names the record and says what is wrong."""
    from watten_net.verify import verify_file

    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == count, paths
    for path in paths:
        report = verify_file(str(path))
        assert report.ok, (path.name, [e.sentence() for e in report.errors])
    return paths


def signed_join(key: Any, info: Any, *, fingerprint: bytes = b"insecure", nonce: bytes | None = None,
                **fields: Any) -> Any:
    """A JoinRequest for the table `info` (a TableInfo) with a valid key proof bound to `fingerprint` (the raw
    SHA-256 of the host's certificate, or b"insecure" for a plaintext host), as `Connection.join` makes one."""
    from watten_net.deal.identity import join_proof, new_nonce, public_key_bytes
    from watten_net.deal.protocol import PROTOCOL_VERSION
    from watten_net.v1 import watten_pb2 as pb

    nonce = nonce if nonce is not None else new_nonce()
    fields.setdefault("protocol_version", PROTOCOL_VERSION)
    fields.setdefault("name", "Resi")
    return pb.JoinRequest(public_key=public_key_bytes(key), join_nonce=nonce, tls_fingerprint=fingerprint,
                          key_proof=join_proof(key, info.table_id, info.host_public_key, fingerprint, nonce),
                          table_id=info.table_id, **fields)


async def play_randomly_to_the_end(conn: Any, rng: Any, on_view: Callable[[Any], None] = lambda view: None,
                                   max_views: int = 3000) -> int:
    """The joined seat `conn` (a client.connection.Connection) follows its table and plays a random legal action
    (from `rng`) whenever it is to act, until the match is over or abandoned; `on_view` sees every view first.
    A refusal because the table moved on meanwhile (FAILED_PRECONDITION) is the next view's business. Returns how
    many views came; more than `max_views` (a match to 11 against one bot takes a few hundred) fails."""
    import grpc

    from client.connection import Refused
    from watten_net.v1 import watten_pb2 as pb

    views = 0
    async for view in conn.updates():
        views += 1
        assert views < max_views, "the match did not end"
        on_view(view)
        if view.table.phase in (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED):
            break
        if conn.seat in view.to_act and view.legal_actions:
            try:
                await conn.act(rng.choice(list(view.legal_actions)))
            except Refused as err:
                assert err.code == grpc.StatusCode.FAILED_PRECONDITION, err
    return views


def record_on_disk_behind(conn: Any) -> bool | None:
    """Whether the seat's record on disk, read by another reader while its writer is open, lacks or differs from
    what the seat has checked so far (`conn.game.record`); None before the game's header (no record yet)."""
    from watten_net.record import read_record

    if conn.record_path is None or conn.game is None:
        return None
    _, on_disk = read_record(conn.record_path)
    return [(e.kind, e.data) for e in on_disk] != [(e.kind, e.data) for e in conn.game.record]
