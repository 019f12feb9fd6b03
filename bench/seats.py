"""Many bot seats in one process: what bench/load.py starts so that the clients cost the machine little beside the host.

Each seat is what `watten-join --bot LEVEL --latency-log FILE --table ID --seat S` is (client/main.py
`play_as_bot`): its own key, its own channel and `Connection`, which checks every host envelope and answers the
protocol's own steps, a bot choosing its moves and the same latency log (`client.main.LatencyLog`). Here all of them
share one asyncio event loop, so that 128 seats of 32 tables are a few interpreters rather than 128.

    python bench/seats.py --level random --log-dir DIR --record DIR [--delay S] HOST:PORT TABLE_ID:SEAT:INDEX ...

INDEX numbers a seat across the run: its latency log is DIR/cINDEX.log, its bot's seed INDEX, its name bINDEX.
Exits 0 once every seat's match is over (or the host has ended it), 1 if any seat failed (each failure printed).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc
import grpc.aio

from client.connection import CHANNEL_OPTIONS, Connection, Refused
from client.main import LatencyLog
from watten_net.bots import LEVELS, BotView, make_bot
from watten_net.paths import data_subdir
from watten_net.v1 import watten_pb2 as pb

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
OWN_CONNECTION = ("grpc.use_local_subchannel_pool", 1)


async def play_seat(args: argparse.Namespace, host: str, port: int, spec: str) -> None:
    """One seat, as `watten-join --bot` plays it, to the end of its match."""
    table_id, seat_text, index = spec.rsplit(":", 2)
    # A connection of its own, as a watten-join process has (gRPC would otherwise let every channel of this process
    # to the same host share one, and the host counts its rate limit per connection).
    channel = grpc.aio.insecure_channel(f"{host}:{port}", options=[*CHANNEL_OPTIONS, OWN_CONNECTION])
    conn = Connection(channel, record_dir=args.record)
    conn.secrets_dir = data_subdir("seats")
    bot = make_bot(args.level, int(index))
    latency = LatencyLog(args.log_dir / f"c{index}.log")
    conn.on_submitted = latency.submitted
    try:
        seat = await conn.join(f"b{index}", int(seat_text), table_id=table_id)
        async for view in conn.follow():
            if view is None:
                continue
            latency.seen(conn.table_id, view)
            if view.table.phase in FINISHED:
                break
            if seat not in view.to_act or not view.legal_actions:
                continue
            if args.delay > 0:
                await asyncio.sleep(args.delay)  # (the table may move on meanwhile: then the host refuses, as below)
            action = bot.choose(BotView.from_table_view(view))
            if action is None:
                continue
            try:
                await conn.act(action)
            except Refused as err:
                latency.refused(err.reason)  # the table moved on between the view and the action, or the line dropped
                if err.code not in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNAVAILABLE):
                    raise
        await conn.send_automatic()
    finally:
        latency.close()
        await conn.close()


async def play_all(args: argparse.Namespace) -> int:
    host, _, port = args.address.rpartition(":")
    results = await asyncio.gather(*(play_seat(args, host, int(port), spec) for spec in args.seats),
                                   return_exceptions=True)
    failed = 0
    for spec, result in zip(args.seats, results, strict=True):
        if isinstance(result, BaseException):
            failed += 1
            print(f"seat {spec} failed: " + "".join(traceback.format_exception(result)).strip(), flush=True)
    print(f"bench/seats.py: {len(args.seats) - failed} of {len(args.seats)} seats played to the end", flush=True)
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--level", choices=LEVELS, default="random", help="the bots' level (default random)")
    parser.add_argument("--log-dir", type=Path, required=True, help="where each seat's latency log goes")
    parser.add_argument("--record", type=Path, required=True, help="where each seat's record goes")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds each bot waits before its move")
    parser.add_argument("address", help="HOST:PORT of a plaintext (--insecure) watten-host")
    parser.add_argument("seats", nargs="+", metavar="TABLE_ID:SEAT:INDEX")
    args = parser.parse_args()
    args.log_dir.mkdir(parents=True, exist_ok=True)
    sys.exit(asyncio.run(play_all(args)))


if __name__ == "__main__":
    main()
