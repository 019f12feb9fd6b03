"""The host's journal: enough to rebuild a table exactly after a crash (kill -9, power loss).

The game is a function of its inputs: the seats (keys, names, nonces), every random draw the host and
its bots made, and every envelope the host accepted, in order. Replaying them through `HostGame`
gives back the same state and, because Ed25519 signatures are deterministic, the very same signed
chain, so the records every party holds still verify across the crash. Each entry is written and
fsync'd before anything that depends on it leaves the host. The entries of a game's steps (draws, envelopes,
stand-ins) are written at once and made durable by `sync`, whose fsync runs in a thread while the event loop serves
the other tables (on a host of one table, on the loop: `FsyncThreads.serves_one_table`); `Table.publish` awaits it
before the change goes to the streams, the bots or the reply, and the table's state stays hidden meanwhile
(`Table.settle`). Several entries written before one fsync are one longer write: a crash keeps a prefix of them, and a
torn last one is cut off as always.

Format: magic, then entries `u8 kind, u32 big-endian length, bytes` (kind 0 metadata JSON, 1 a random
draw `u8 who (255 = host) + bytes`, 2 an accepted envelope `u8 seat + bytes`, 3 the end of the game,
4 a stand-in change `u8 seat + u8 active`, 5 a stand-in bot's action `u8 seat + the action in UTF-8`, 6 a seat's
new token after a reclaim `u8 seat + SHA-256 of the token`: the host keeps token digests only, 7 a trustless hand
forfeited because the table waited a grace period more for a seat away, `u8 255`, 8 a join or leave nonce the
table accepted during the game, `u8 seat + 32-byte nonce`: with the metadata's `used_nonces` (those of the lobby),
every nonce the table ever accepted, so a resumed table refuses a proof replayed from before the crash, 9 the match
abandoned by the host (Ctrl-C / SIGTERM), `u8 255 + the reason in UTF-8`: the abandon posts into the chain like any
input, so a restart must replay it before the closing checkpoint signatures that follow it).
The file is private (0600): it holds the bots' keys (and digests of the seats' tokens).
Between two matches at a table (host/rematch.py) a journal of metadata only, `<table id>-lobby.wjournal` with
`between_matches: true`, holds the table's seats so that a crash then loses nothing; the next match's journal
replaces it.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import re
import struct
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from watten_net.paths import ensure_private_dir, open_private

MAGIC = b"WATTEN-JOURNAL/1\n"
META, DRAW, SUBMIT, FINISHED, STAND_IN, BOT_ACTION, TOKEN, FORFEIT_AWAY, NONCE, ABANDON = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
HOST = 255
FSYNC_THREADS = 4


class FsyncThreads:
    """Where the journals' fsyncs run: while a host runs (`fsync_threads`, which makes one of these for the run), a
    few threads of its own, so that none waits behind a strong bot's thinking (asyncio's default executor); the file
    system commits concurrent fsyncs together anyway. Outside a host's run (a table in a test) asyncio's default
    executor.

    On a host with one table place (`serves_one_table`) the fsync runs on the event loop instead: the change waits
    for it either way, no other table waits behind it, and the thread's hand-off (a queue, a thread woken, the
    loop woken back through its self-pipe, a task to see it through) cost more CPU than the fsync itself (measured
    here: about 0.19 ms of the process's CPU per fsync through a thread, 0.08 ms on the loop)."""

    def __init__(self, pool: ThreadPoolExecutor | None = None) -> None:
        self.pool = pool
        self.on_the_loop = False

    def serves_one_table(self, alone: bool) -> None:
        """This host run serves one table place (`alone`): its journal's fsyncs run on the event loop; several places
        keep them in threads, so that one table's slow disk write stalls no other."""
        self.on_the_loop = alone and self.pool is not None


class _Running:
    """The host run whose fsync threads the journals use now (outside a run: none, asyncio's default executor)."""

    fsyncs = FsyncThreads()


@contextmanager
def fsync_threads() -> Iterator[FsyncThreads]:
    """The fsync threads of one host run: started with it, shut down with it (after the last fsync it asked for)."""
    fsyncs = FsyncThreads(ThreadPoolExecutor(max_workers=FSYNC_THREADS, thread_name_prefix="journal-fsync"))
    outer, _Running.fsyncs = _Running.fsyncs, fsyncs
    try:
        yield fsyncs
    finally:
        _Running.fsyncs = outer
        assert fsyncs.pool is not None
        fsyncs.pool.shutdown(wait=True)


class JournalError(ValueError):
    """The journal cannot be read (the message says where and why)."""


class JournalBusy(JournalError):
    """The journals belong to a host that is still running: another host must not touch them."""


class RunLock:
    """A running host's hold on its journals: an OS lock (`flock`) on `<run>.lock` beside them, one per host run (the
    tables of one run journal under the same run id). The OS releases it when the process ends, however it ends (kill
    -9 included): a run whose lock can be taken has no live host, and a new host may resume or abandon its journals at
    once; a run whose lock is held is left untouched. The file says which process holds it ("pid N port P")."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def take(cls, directory: Path, run: str) -> RunLock:
        """The lock of `run` in `directory`; raises JournalBusy (naming the holder) if a live host holds it."""
        ensure_private_dir(directory)
        path = directory / f"{run_name(run)}.lock"
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "pid unknown"
                os.close(fd)
                raise JournalBusy(f"a watten-host that is still running ({holder}) holds it") from None
            # The host that held it may have removed the file as it exited, after we opened it: the lock that counts
            # is the one on the file at the path now.
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                lock = cls(path, fd)
                lock.note(0)
                return lock
            os.close(fd)

    def note(self, port: int) -> None:
        """Write who holds the lock (this process, and its port once it listens) for a second host's refusal."""
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"pid {os.getpid()}, port {port or 'not yet listening'}\n".encode(), 0)

    def release(self) -> None:
        """The host is done with its journals: the file goes (while still held), then the lock."""
        if self._fd < 0:
            return
        self.path.unlink(missing_ok=True)
        os.close(self._fd)
        self._fd = -1


def run_name(run: str) -> str:
    """A run id fit for a file name (the journal's metadata is read from disk: never trusted as a path)."""
    return run if re.fullmatch(r"[0-9A-Za-z_-]{1,64}", run) else "unnamed-run"


class Journal:
    """The host's crash journal, written entry by entry: every input of the game (random draws, accepted
    envelopes, ...), so that `watten-host --resume` rebuilds the table exactly.

    `append` writes an entry and fsyncs at once (the rare entries: metadata, tokens, nonces, the end); `write` only
    writes it, and the next `sync` (or `append`) makes it durable: the game's steps, whose change `Table.publish`
    sends only once `sync` returned."""

    # How the file reaches the disk (a test slows it down to attack the ordering).
    sync_file: Callable[[int], None] = staticmethod(os.fsync)
    written = 0  # entries written so far
    synced = 0  # entries known durable

    def __init__(self, path: Path, meta: dict[str, Any]) -> None:
        self.path = path
        ensure_private_dir(path.parent)
        self._file = open_private(path)  # (0600: it holds every seat's cards, like the host's record)
        self._file.write(MAGIC)
        self.append(META, json.dumps(meta, sort_keys=True).encode())

    @classmethod
    def reopen(cls, path: Path) -> Journal:
        """Continue an existing journal (after a resume): new entries are appended, after the last whole one (a
        torn entry the crash left is cut off first, or the next entry would be read as its remainder)."""
        journal = cls.__new__(cls)
        journal.path = path
        os.truncate(path, _whole_length(path.read_bytes()))
        journal._file = open_private(path, append=True)  # kept open for the whole game
        return journal

    def append(self, kind: int, data: bytes) -> None:
        """Write an entry and fsync it (and every entry written before it) before returning."""
        self.write(kind, data)
        self.sync_file(self._file.fileno())
        self.synced = self.written

    def write(self, kind: int, data: bytes) -> None:
        """Write an entry (to the OS: a kill -9 keeps it); durable only once `sync` or `append` returned."""
        self._file.write(struct.pack(">BI", kind, len(data)) + data)
        self._file.flush()
        self.written += 1

    @property
    def durable(self) -> bool:
        """Every entry written so far is on disk."""
        return self.synced >= self.written

    @staticmethod
    def syncs_on_the_loop() -> bool:
        """The host serves one table: `sync_now` rather than `sync` (see `FsyncThreads.serves_one_table`)."""
        return _Running.fsyncs.on_the_loop

    def sync_now(self) -> None:
        """Every entry written so far on disk, here and now (the event loop waits)."""
        target = self.written
        self.sync_file(self._file.fileno())
        self.synced = max(self.synced, target)

    async def sync(self) -> None:
        """Every entry written so far on disk: the fsync runs in a thread, the event loop serves the other tables
        meanwhile (on a host of one table, on the loop: `syncs_on_the_loop`). Returns at once (without yielding)
        when nothing waits for it."""
        if self.durable:
            return
        fsyncs = _Running.fsyncs
        if fsyncs.on_the_loop:
            self.sync_now()
            return
        target = self.written
        await asyncio.get_running_loop().run_in_executor(fsyncs.pool, self.sync_file, self._file.fileno())
        self.synced = max(self.synced, target)

    def draw(self, who: int, data: bytes) -> None:
        self.write(DRAW, bytes([who]) + data)  # (what a draw decides leaves the host in a later change: synced then)

    def submit(self, seat: int, raw: bytes) -> None:
        self.write(SUBMIT, bytes([seat]) + raw)  # (synced by the `Table.publish` of its change)

    def stand_in(self, seat: int, active: bool) -> None:
        self.write(STAND_IN, bytes([seat, int(active)]))

    def bot_action(self, seat: int, action: str) -> None:
        self.write(BOT_ACTION, bytes([seat]) + action.encode())

    def token(self, seat: int, digest: bytes) -> None:
        self.append(TOKEN, bytes([seat]) + digest)

    def nonce(self, seat: int, nonce: bytes) -> None:
        self.append(NONCE, bytes([seat]) + nonce)

    def forfeit_away(self) -> None:
        self.append(FORFEIT_AWAY, bytes([HOST]))

    def abandon(self, reason: str) -> None:
        self.append(ABANDON, bytes([HOST]) + reason.encode())

    def finish(self) -> None:
        """The game ended: mark it, and move the journal aside so that no restart resumes it."""
        self.append(FINISHED, b"")
        self.close()
        self.path.replace(self.path.with_suffix(".done"))

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


def _whole_entries(data: bytes) -> Iterator[tuple[int, bytes, int]]:
    """(kind, body, offset after it) of each whole entry after the magic; a torn last entry (the crash hit mid-write)
    is left out: nothing that depends on it ever left the host."""
    offset = len(MAGIC)
    while offset + 5 <= len(data):
        kind, length = struct.unpack_from(">BI", data, offset)
        if offset + 5 + length > len(data):
            return
        yield kind, data[offset + 5: offset + 5 + length], offset + 5 + length
        offset += 5 + length


def _whole_length(data: bytes) -> int:
    """The length of the journal without its torn last entry, if any."""
    ends = [end for _, _, end in _whole_entries(data)]
    return ends[-1] if ends else len(MAGIC)


def read_journal(path: Path) -> tuple[dict[str, Any], list[tuple[int, int, bytes]]]:
    """(metadata, [(kind, who or seat, bytes)]); a torn last entry (the crash hit mid-write) is dropped."""
    data = path.read_bytes()
    if not data.startswith(MAGIC):
        raise JournalError(f"{path} is not a watten-host journal")
    entries, meta = [], None
    for kind, body, _ in _whole_entries(data):
        if kind == META:
            meta = json.loads(body.decode())
        elif kind in (DRAW, SUBMIT, STAND_IN, BOT_ACTION, TOKEN, FORFEIT_AWAY, NONCE, ABANDON):
            entries.append((kind, body[0], body[1:]))
        elif kind == FINISHED:
            entries.append((kind, 0, b""))
    if meta is None:
        raise JournalError(f"{path} has no metadata")
    return meta, entries


class Draws:
    """Random bytes for one party: first the journaled ones (on a resume), then fresh ones, journaled."""

    def __init__(self, who: int, journal: Callable[[], Journal | None], replay: list[bytes] | None = None) -> None:
        self.who = who
        self.journal = journal
        self.replay = list(replay or [])

    def __call__(self, n: int) -> bytes:
        if self.replay:
            value = self.replay.pop(0)
            if len(value) != n:
                raise JournalError(f"the journal's draw of party {self.who} has {len(value)} bytes, not {n}")
            return value
        value = os.urandom(n)
        journal = self.journal()
        if journal is not None:
            journal.draw(self.who, value)
        return value


def unfinished(directory: Path) -> list[Path]:
    """Journals of games that did not end (the host died or was stopped before the last checkpoint)."""
    return sorted(directory.glob("*.wjournal")) if directory.is_dir() else []
