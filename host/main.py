"""`watten-host`: serve a Watten table on the LAN (gRPC, TLS by default), with bots for empty seats.

    watten-host --headless --bots 2 --players 4            serve; start when every seat is taken
    watten-host --port 0 --insecure --record DIR ...      a free port, plaintext, records in DIR
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from watten_net.engine import Rules
from watten_net.paths import data_dir

DEFAULT_PORT = 47150


def build_rules(preset: str, players: int, flags: Sequence[str]) -> Rules:
    rules = Rules.preset(preset, players)
    for item in flags:
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--set takes FLAG=VALUE, not {item!r}")
        name = name.strip()
        if name in ("deal", "reveal"):
            continue  # table settings, not rules (see table_settings)
        rules = rules.with_flag(name, value)
    return rules


def table_settings(flags: Sequence[str]) -> dict[str, str]:
    settings = {"deal": "verified", "reveal": "match-end"}
    for item in flags:
        name, _, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if name == "deal":
            if value == "trustless":
                raise ValueError("trustless deals (--set deal=trustless) are not built yet; use deal=verified")
            if value != "verified":
                raise ValueError("deal must be verified or trustless")
            settings["deal"] = value
        elif name == "reveal":
            if value not in ("match-end", "hand-end"):
                raise ValueError("reveal must be match-end or hand-end")
            settings["reveal"] = value
    return settings


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="watten-host", description="Host a game of Watten on the local network.")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0 = any free)")
    p.add_argument("--bind", default="0.0.0.0", help="address to listen on (default: all; 127.0.0.1 = this machine)")
    p.add_argument("--players", type=int, choices=(2, 3, 4, 6), default=4, help="seats at the table (default 4)")
    p.add_argument("--rules", default="bavarian", metavar="PRESET",
                   help=f"rules preset: {', '.join(Rules.PRESET_NAMES)} (default bavarian)")
    p.add_argument("--set", action="append", default=[], metavar="FLAG=VALUE",
                   help="change one rule flag (e.g. target=11) or table setting (reveal=hand-end); repeatable")
    p.add_argument("--bots", type=int, default=0, metavar="N", help="seats played by bots in the host process")
    p.add_argument("--bot-level", default="random", help="level of those bots (default random)")
    p.add_argument("--headless", action="store_true",
                   help="no seat for you: serve, start when every seat is taken, play to the end, exit 0")
    p.add_argument("--autostart", action="store_true", help="start as soon as every seat is taken")
    p.add_argument("--record", type=Path, metavar="DIR", help="where to write the host's game record")
    p.add_argument("--insecure", action="store_true", help="serve plaintext instead of TLS (the LAN can read it)")
    p.add_argument("--verbose", "-v", action="store_true", help="log what happens")
    return p


async def run(args: argparse.Namespace) -> int:
    from host.server import start_server, stop_server
    from host.table import Table, TableRefusal

    rules = build_rules(args.rules, args.players, args.set)
    settings = table_settings(args.set)
    record_dir = args.record if args.record is not None else data_dir() / "records"
    credentials = None
    tls_fp = b""
    fingerprint_text = ""
    if not args.insecure:
        from host import tls

        cert = tls.load_or_create()
        credentials = tls.server_credentials(cert)
        tls_fp = bytes.fromhex(cert.fingerprint)
        fingerprint_text = tls.pretty_fingerprint(cert.fingerprint)
    table = Table(rules, preset=args.rules, reveal=settings["reveal"], tls_fingerprint=tls_fp, record_dir=record_dir,
                  host_name=socket.gethostname())
    table.autostart = args.autostart or args.headless
    server, port = await start_server(table, args.port, credentials, args.bind)
    print(f"watten-host: serving {args.rules} for {args.players} players on port {port}", flush=True)
    if args.insecure:
        print("watten-host: --insecure: plaintext, anyone on the network can read the game", flush=True)
    else:
        print(f"watten-host: TLS certificate fingerprint {fingerprint_text}", flush=True)
    print(f"watten-host: join with: watten-join {_lan_address()}:{port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        if args.bots:
            try:
                await table.add_bots(args.bots, args.bot_level)
            except (TableRefusal, ValueError) as err:
                print(f"watten-host: {getattr(err, 'message', err)}", file=sys.stderr)
                return 2
        if not args.headless:
            print("watten-host: the host's own seat at the terminal table is not built yet; "
                  "this host serves only (as with --headless). Press Ctrl-C to stop.", flush=True)
        finished = asyncio.ensure_future(table.finished.wait())
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait({finished, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if table.finished.is_set():
            print(f"watten-host: match over; record written to {table.record_path}", flush=True)
            await asyncio.sleep(0.5)  # let the streams carry the last events out
            return 0
        print("watten-host: stopping: revealing the seeds used and closing the records", flush=True)
        await table.shutdown()
        await asyncio.sleep(0.3)
        return 130
    finally:
        await stop_server(server, 0.5)


def _lan_address() -> str:
    """An address of this machine that others on the LAN can probably reach (from its own name; no traffic)."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return "127.0.0.1"
    addresses = [str(info[4][0]) for info in infos]
    lan = [a for a in addresses if not a.startswith("127.")]
    return (lan or addresses or ["127.0.0.1"])[0]


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        return asyncio.run(run(args))
    except ValueError as err:
        print(f"watten-host: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"watten-host: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
