"""`watten-host`: serve a Watten table on the LAN (gRPC, TLS by default), with bots for empty seats.

    watten-host --headless --bots 2 --players 4            serve; start when every seat is taken
    watten-host --port 0 --insecure --record DIR ...      a free port, plaintext, records in DIR
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from watten_net.engine import Rules
from watten_net.paths import config_dir, data_dir

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


def _bots(text: str) -> tuple[int, str | None]:
    """`--bots 3` or `--bots 3:strong`."""
    count, _, level = text.partition(":")
    try:
        return int(count), (level or None)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--bots takes N or N:LEVEL, not {text!r}") from None


def parser() -> argparse.ArgumentParser:
    from host.table import DEFAULT_GRACE

    p = argparse.ArgumentParser(prog="watten-host", description="Host a game of Watten on the local network.")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0 = any free)")
    p.add_argument("--bind", default="0.0.0.0", help="address to listen on (default: all; 127.0.0.1 = this machine)")
    p.add_argument("--players", type=int, choices=(2, 3, 4, 6), default=4, help="seats at the table (default 4)")
    p.add_argument("--rules", default="bavarian", metavar="PRESET",
                   help=f"rules preset: {', '.join(Rules.PRESET_NAMES)} (default bavarian)")
    p.add_argument("--set", action="append", default=[], metavar="FLAG=VALUE",
                   help="change one rule flag (e.g. target=11) or table setting (reveal=hand-end); repeatable")
    p.add_argument("--bots", type=_bots, default=(0, None), metavar="N[:LEVEL]",
                   help="seats played by bots in the host process, e.g. 3 or 3:strong")
    p.add_argument("--bot-level", default="heuristic",
                   help="level of those bots: random, heuristic (default), easy, medium or strong")
    p.add_argument("--headless", action="store_true",
                   help="no seat for you: serve, start when every seat is taken, play to the end, exit 0")
    p.add_argument("--autostart", action="store_true", help="start as soon as every seat is taken")
    p.add_argument("--record", type=Path, metavar="DIR", help="where to write the host's game record")
    p.add_argument("--insecure", action="store_true", help="serve plaintext instead of TLS (the LAN can read it)")
    p.add_argument("--name", help="your name at the table (default: your user name)")
    p.add_argument("--lang", choices=("de", "en", "zh"), help="language of the screen (default: from the locale)")
    p.add_argument("--suits", choices=("french", "german"), default="french", help="suit marks on the cards")
    p.add_argument("--grace", type=float, default=DEFAULT_GRACE, metavar="SECONDS",
                   help="a person offline this long gets a bot standing in until they come back "
                   f"(default {DEFAULT_GRACE:.0f})")
    p.add_argument("--bot-delay", type=float, default=None, metavar="SECONDS",
                   help="pause between bot moves (default 0.7 with a person at the table, 0 headless)")
    p.add_argument("--resume", nargs="?", const="auto", metavar="JOURNAL",
                   help="resume the game a crashed host left unfinished (a plain start does so too)")
    p.add_argument("--fresh", action="store_true", help="start a new game even if an unfinished one is found")
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
    delay = args.bot_delay if args.bot_delay is not None else (0.0 if args.headless else 0.7)
    journal_dir = data_dir() / "journal"
    resume = _journal_to_resume(args, journal_dir)
    from watten_net.deal.identity import load_or_create_identity

    # The host signs every envelope of the game record with its own long-lived key (kept mode 0600).
    host_key = load_or_create_identity(config_dir() / "host" / "identity.key")
    if resume is not None:
        print(f"watten-host: resuming the unfinished game of {resume}", flush=True)
        table = await Table.resume(resume, host_key, bot_delay=delay, grace=args.grace)
        args.port = table.port
    else:
        table = Table(rules, preset=args.rules, reveal=settings["reveal"], host_key=host_key,
                      tls_fingerprint=tls_fp, record_dir=record_dir, host_name=socket.gethostname(), bot_delay=delay,
                      grace=args.grace, stand_in_level=args.bot_level)
        table.journal_path = journal_dir / f"{table.table_id}.wjournal"
    # With a person at the host and every other seat a bot, the table is full at once: start it (playable at once).
    table.autostart = args.autostart or args.headless or (args.bots == args.players - 1)
    server, port = await start_server(table, args.port, credentials, args.bind)
    table.port = port
    print(f"watten-host: serving {args.rules} for {args.players} players on port {port}", flush=True)
    if args.insecure:
        print("watten-host: --insecure: plaintext, anyone on the network can read the game", flush=True)
    else:
        print(f"watten-host: TLS certificate fingerprint {fingerprint_text}", flush=True)
    print(f"watten-host: join with: watten-join {_lan_address()}:{port}", flush=True)
    if not args.headless and not args.bots and args.players > 1:
        print("watten-host: tip: --bots N fills empty seats with bots ([b] in the lobby adds one)", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    if args.headless:  # (the host's own screen shows it in the seat list instead)
        table.on_notice = lambda text: print(f"watten-host: {text}", flush=True)
    try:
        if not args.headless:
            return await _play_at_the_host(args, table, port, credentials is not None, fingerprint_text)
        if args.bots and table.game is None:
            try:
                await table.add_bots(args.bots, args.bot_level)
            except (TableRefusal, ValueError) as err:
                print(f"watten-host: {getattr(err, 'message', err)}", file=sys.stderr)
                return 2
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


def _journal_to_resume(args: argparse.Namespace, journal_dir: Path) -> Path | None:
    """`--resume [PATH]`, or a plain start that finds a game the host never finished (unless `--fresh`)."""
    from host.journal import unfinished

    if args.resume not in (None, "auto"):
        return Path(args.resume)
    found = unfinished(journal_dir)
    if args.fresh:
        for path in found:
            path.replace(path.with_suffix(".abandoned"))
        return None
    if len(found) > 1:
        names = ", ".join(str(p) for p in found)
        raise ValueError(f"several unfinished games ({names}): choose one with --resume PATH, or --fresh")
    if found:
        return found[0]
    if args.resume == "auto":
        raise ValueError(f"there is no unfinished game to resume in {journal_dir}")
    return None


async def _play_at_the_host(args: argparse.Namespace, table: Any, port: int, tls: bool, fingerprint: str) -> int:
    """The host's own person: a seat at this table, over loopback, in the same full-screen client."""
    from client.app import HostControls, TableApp
    from client.connection import Connection
    from client.i18n import Words, default_lang
    from client.tls import secure_channel
    from host import tls as host_tls
    from host.table import TableRefusal
    from watten_net.deal.identity import load_or_create_identity

    target = f"127.0.0.1:{port}"
    if tls:
        channel = secure_channel(target, host_tls.load_or_create().cert_pem)
    else:
        import grpc.aio

        channel = grpc.aio.insecure_channel(target)
    key = load_or_create_identity(config_dir() / "identity.key")
    conn = Connection(channel, key=key, record_dir=table.record_dir)  # the person keeps a record like any seat
    conn.secrets_dir = data_dir() / "seats"
    name = args.name or os.environ.get("USER", "") or "Host"
    try:
        await conn.join(name, 0 if table.seats[0] is None else None)
    except Exception as err:
        print(f"watten-host: cannot take a seat: {getattr(err, 'message', err)}", file=sys.stderr)
        return 2

    if args.bots and table.game is None:
        try:
            await table.add_bots(args.bots, args.bot_level)
        except (TableRefusal, ValueError) as err:
            await conn.close()
            print(f"watten-host: {getattr(err, 'message', err)}", file=sys.stderr)
            return 2

    async def add_bot() -> None:
        try:
            await table.add_bots(1, args.bot_level)
        except TableRefusal as err:
            raise ValueError(err.message) from None

    lines = [
        f"  watten-join {_lan_address()}:{port}" + ("  (--insecure)" if not tls else ""),
        f"  TLS {fingerprint}" if tls else "  plaintext (--insecure): anyone on the network can read the game",
        "",
    ]
    words = Words(args.lang or default_lang(), args.suits)
    app = TableApp(conn, words, host_controls=HostControls(add_bot, table.start), lobby_lines=lines)
    try:
        result = await app.run()
    finally:
        await table.shutdown()
        await conn.close()
    return result


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
    args.bots, level = args.bots
    args.bot_level = level or args.bot_level
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
