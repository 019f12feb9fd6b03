"""A seat's CPU per stream event, without the network: one seat's real stream replayed through `Connection.updates`.

bench/latency.py's client CPU mixes the seats' own work with gRPC's and the bench's, and moves with whatever else the
machine runs. This takes the seat's part alone: first (`--capture FILE`, or at the start of a plain run) one whole
match of bench/latency.py is played (4 seats in one process, a real host) and every stream message seat 1 received
is kept, as bytes. Then (`--replay FILE`) those messages are fed again and again to a fresh `Connection` through a
stub in place of gRPC, so that exactly the seat's per-event path runs: `updates()` (the TableInfo kept, the view),
`_receive` (SeatGame.receive: parse_envelope, the chain link, the Ed25519 check, the handler), the record's write and
flush. The replaying SeatGame is an observer (as watten-verify's replay of a seat: a key that is not the seat's, so
nothing it would send is sent; its own envelopes in the chain are checked against the seat's key like anyone's).

Printed: CPU per stream event and per chain entry (the least of --rounds replays), the same without the Ed25519
checks' share (libsodium's verify alone timed on the same envelopes), and Python function calls per event under
cProfile with the top functions. Figures only; nothing passes or fails.

Run: ``.venv/bin/python bench/seat_events.py [--rounds 7]`` or ``--capture FILE`` then ``--replay FILE`` (e.g. with
another revision's code on PYTHONPATH, for the same stream on both).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import random
import struct
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

if not os.environ.get("SEAT_EVENTS_KEEP_PATH"):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc.aio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.connection import Connection
from watten_net.deal.seat import SeatGame
from watten_net.v1 import watten_pb2 as pb

SEAT = 1
_LEN = struct.Struct(">I")


async def capture(path: Path) -> int:
    """Play one match of bench/latency.py and write every stream message seat SEAT got (length-prefixed)."""
    import bench.latency as latency

    kept: list[bytes] = []
    plain = latency.BenchConnection._arrived

    def arrived(self: Any, update: Any) -> None:
        plain(self, update)
        if self.index == SEAT:
            kept.append(update.SerializeToString())

    latency.BenchConnection._arrived = arrived  # type: ignore[method-assign]
    run = latency.RealRun()
    with tempfile.TemporaryDirectory(prefix="watten-seat-events-") as tmp:
        await latency.play_match(run, random.Random(1), Path(tmp))
    if run.problems:
        print("capture problems: " + "; ".join(run.problems))
    path.write_bytes(b"".join(_LEN.pack(len(m)) + m for m in kept))
    return len(kept)


def load(path: Path) -> list[bytes]:
    data, out, at = path.read_bytes(), [], 0
    while at < len(data):
        (n,) = _LEN.unpack_from(data, at)
        out.append(data[at + 4: at + 4 + n])
        at += 4 + n
    return out


class _Stub:
    """gRPC's place: Subscribe yields the captured messages (parsed as gRPC would); nothing else is called."""

    def __init__(self, messages: list[bytes]) -> None:
        self.messages = messages

    async def Subscribe(self, request: Any) -> AsyncIterator[Any]:
        for raw in self.messages:
            yield pb.TableUpdate.FromString(raw)


class ReplayConnection(Connection):
    def __init__(self, messages: list[bytes], record_dir: Path, seat: int) -> None:
        # (a channel that is never used: the stub below takes gRPC's place)
        super().__init__(grpc.aio.insecure_channel("127.0.0.1:9"), record_dir=record_dir)
        self.stub = _Stub(messages)
        self.seat, self.token = seat, "replay"
        self.game = self._new_game()

    def _new_game(self) -> SeatGame:
        return SeatGame(self.seat, Ed25519PrivateKey.generate(), observer=True)

    async def send_automatic(self) -> None:
        return None  # (an observer sends nothing)


async def replay_once(messages: list[bytes], record_dir: Path) -> tuple[float, int, int]:
    """One replay: (CPU seconds, events, chain entries)."""
    conn = ReplayConnection(messages, record_dir, SEAT)
    events = 0
    started = time.process_time()
    async for _view in conn.updates():
        events += 1
    spent = time.process_time() - started
    entries = conn.game.chain_seq if conn.game is not None else 0
    await conn.close()
    return spent, events, entries


class SignatureClock:
    """identity.verify (every Ed25519 check of the seat's path goes through it) timed and counted while in place."""

    def __init__(self) -> None:
        from watten_net.deal import identity

        self.identity, self.plain = identity, identity.verify
        self.spent, self.count = 0.0, 0

    def timed(self, public_key: bytes, signature: bytes, message: bytes) -> bool:
        started = time.process_time()
        try:
            return bool(self.plain(public_key, signature, message))
        finally:
            self.spent += time.process_time() - started
            self.count += 1

    def __enter__(self) -> SignatureClock:
        self.identity.verify = self.timed
        return self

    def __exit__(self, *_: object) -> None:
        self.identity.verify = self.plain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--capture", type=Path, help="only play a match and keep seat 1's stream here")
    parser.add_argument("--replay", type=Path, help="replay this captured stream (no match played)")
    parser.add_argument("--rounds", type=int, default=7, help="replays timed, the least kept (default 7)")
    parser.add_argument("--top", type=int, default=12, help="rows of the profile (default 12)")
    args = parser.parse_args()
    if args.capture:
        print(f"captured {asyncio.run(capture(args.capture))} stream messages of seat {SEAT} into {args.capture}")
        return
    with tempfile.TemporaryDirectory(prefix="watten-seat-events-") as tmp:
        source = args.replay or Path(tmp) / "stream.bin"
        if not args.replay:
            asyncio.run(capture(source))
        messages = load(source)
        runs = [asyncio.run(replay_once(messages, Path(tmp) / f"r{i}")) for i in range(max(1, args.rounds))]
        spent, events, entries = min(runs)
        clocks = []
        for i in range(3):
            with SignatureClock() as clock:
                asyncio.run(replay_once(messages, Path(tmp) / f"s{i}"))
            clocks.append(clock)
        ed_s, ed_n = min(c.spent for c in clocks), clocks[0].count
        print(f"seat {SEAT}'s stream of one match: {events} events, {entries} chain entries, {ed_n} signatures checked")
        print(f"  CPU per event {spent / events * 1e6:.1f} us, per chain entry {spent / entries * 1e6:.1f} us "
              f"(least of {len(runs)}); of which the Ed25519 checks (identity.verify, timed apart) "
              f"{ed_s / events * 1e6:.1f} us per event; the rest {(spent - ed_s) / events * 1e6:.1f} us per event")
        profiler = cProfile.Profile()
        profiler.enable()
        asyncio.run(replay_once(messages, Path(tmp) / "profiled"))
        profiler.disable()
        stats = pstats.Stats(profiler)
        print(f"  function calls per event under cProfile: {stats.total_calls / events:.1f}")  # type: ignore[attr-defined]
        stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
