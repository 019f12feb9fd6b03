"""`watten-join [HOST[:PORT]]`: take a seat at a watten-host table.

    watten-join                                            find the tables on the LAN, pick one by number
    watten-join --list [--json]                            list the tables on the LAN and exit
    watten-join --watch [HOST[:PORT]]                      follow a table as a spectator (LAN lookup without HOST)
    watten-join 192.168.1.20                               sit down at the table (full-screen terminal)
    watten-join --bot random --insecure 127.0.0.1:47150     a bot plays the seat, without a screen, to the end
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
import grpc.aio

from watten_net.bots import LEVELS, BotView, make_bot
from watten_net.deal.identity import load_or_create_identity
from watten_net.paths import config_dir, data_subdir
from watten_net.printable import log_visibly, visible
from watten_net.record import Entry
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_entries

from . import discover
from .app import TableApp
from .connection import (
    Connection,
    HostBrokeProtocol,
    Refused,
    abandonments,
    open_channel,
    parse_address,
)
from .i18n import LANGS, Words, default_lang
from .joining import JoinStopped, Questions, Wish, pinned_channel, remembered_name, sit_down, usable_name
from .log_view import farewell
from .pinning import CertificateChanged, CertificateFetchError, FingerprintMismatch

DEFAULT_PORT = 47150
FINISHED = (4, 5)  # TABLE_PHASE_MATCH_OVER, TABLE_PHASE_ABANDONED


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="watten-join", description="Join a game of Watten hosted with watten-host.")
    p.add_argument("address", metavar="HOST[:PORT]", nargs="?",
                   help=f"the host's address (port {DEFAULT_PORT} if not given); without it, the tables announced "
                        "on the LAN are listed to pick from")
    # (found joining as a friend: "watten-join 127.0.0.1 43075" said only "unrecognized arguments: 43075")
    p.add_argument("port", metavar="PORT", nargs="?", type=int,
                   help="the port as a word of its own: 'HOST PORT' is 'HOST:PORT'")
    p.add_argument("--list", action="store_true", help="list the tables announced on the LAN, one a line, and exit")
    p.add_argument("--json", action="store_true", help="with --list: one JSON object per table")
    p.add_argument("--watch", action="store_true",
                   help="follow the table as a spectator: the public view and the chat, no cards but those played")
    p.add_argument("--bot", metavar="LEVEL", choices=LEVELS, help=f"let a bot play this seat ({', '.join(LEVELS)})")
    p.add_argument("--name", help="the name shown at the table")
    p.add_argument("--seat", type=int, help="the seat you want (default: the first free one)")
    p.add_argument("--table", metavar="ID", default="",
                   help="the table to join on a host with several (default: the first with a free seat)")
    p.add_argument("--record", type=Path, metavar="DIR", help="where to write this seat's game record")
    security = p.add_mutually_exclusive_group()
    security.add_argument("--insecure", action="store_true", help="plaintext connection (a host started --insecure)")
    security.add_argument("--fingerprint", metavar="HEX", help="pin the host's certificate without asking")
    p.add_argument("--seed", type=int, help="seed of the bot's choices (for reproducible runs)")
    p.add_argument("--identity", metavar="FILE", help="the seat's Ed25519 key file (default: the installation's; "
                   "a bot makes a new one each run unless this is given)")
    p.add_argument("--lang", choices=LANGS, help="language of the screen (default: from the locale)")
    p.add_argument("--suits", choices=("french", "german"), default="french",
                   help="suit marks: french ♣♠♥♦ (default) or german Ei La He Sc")
    p.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                   help="with --bot: wait this long before each move (paced like a person; default 0)")
    p.add_argument("--latency-log", type=Path, metavar="FILE",
                   help="with --bot: append a line per accepted envelope (wall time, kind, milliseconds from the "
                        "SubmitEnvelope call to its reply) and per hand started, for bench/load.py")
    p.add_argument("--verbose", "-v", action="store_true")
    return p


async def play_as_bot(args: argparse.Namespace) -> int:
    host, port = parse_address(args.address, DEFAULT_PORT)
    record_dir = args.record if args.record is not None else data_subdir("records")
    channel = await open_channel(host, port, insecure=args.insecure, fingerprint=args.fingerprint)
    # A bot's key lives as long as its process, unless --identity keeps it: then a restarted bot gets its seat back.
    key = load_or_create_identity(Path(args.identity)) if args.identity else None
    conn = Connection(channel, key=key, record_dir=record_dir)
    conn.secrets_dir = data_subdir("seats")
    conn.abandon_log = config_dir() / "abandoned.json"
    bot = make_bot(args.bot, args.seed)
    latency = LatencyLog(args.latency_log) if args.latency_log else None
    if latency is not None:
        conn.on_submitted = latency.submitted
    conn.on_dispute = lambda says: print(f"watten-join: DISPUTE: {visible(says)}", flush=True)
    try:
        _warn_abandonments(conn, await conn.table(args.table))
        seat = await conn.join((args.name or f"{args.bot} bot")[:32], args.seat, table_id=args.table)
        where = f" (table {conn.table_id})" if args.table or latency is not None else ""
        print(f"watten-join: seat {seat} at {host}:{port}{visible(where)}, played by the {args.bot} bot", flush=True)
        async for view in conn.follow():
            if view is None:
                continue
            if latency is not None:
                latency.seen(conn.table_id, view)
            if view.table.phase in FINISHED:
                break
            if seat not in view.to_act or not view.legal_actions:
                continue
            if args.delay > 0:
                # Think like a person; the table may move on meanwhile (a partner answers a raise): then the host
                # refuses the stale move below and the next view brings the next turn.
                await asyncio.sleep(args.delay)
            action = bot.choose(BotView.from_table_view(view))
            if action is None:
                continue
            try:
                await conn.act(action)
            except Refused as err:
                # The table moved on between our view and our action (another seat answered first), or the
                # line dropped (the stream reconnects by itself): wait for the next view.
                if latency is not None:
                    latency.refused(err.reason)
                if err.code not in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.UNAVAILABLE):
                    raise
        await conn.send_automatic()
        game = conn.game
        assert game is not None
        report = verify_entries([Entry(e.kind, e.data) for e in game.record])
        verdict = report.verdict if not report.errors else f"failed: {report.errors[0].sentence()}"
        print(f"watten-join: game {game.fingerprint} over; own record {visible(verdict)}; record: "
              f"{visible(str(conn.record_path))}", flush=True)
        return 0
    finally:
        if latency is not None:
            latency.close()
        await conn.close()


class LatencyLog:
    """`--latency-log FILE`: one text line per measurement, for bench/load.py to aggregate across processes.

        <unix time> action|protocol <ms>     an accepted SubmitEnvelope (a game action, or a protocol step)
        <unix time> hand <table id> <h>       the seat saw hand h start (the bench counts hands from these)
        <unix time> over <table id> <n>       the seat saw the match end after n hands
        <unix time> refused <reason>          an action the host refused

    Written through a buffer and flushed at every hand, so the file is current to within one hand while the game
    runs without a write per action.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("a", encoding="utf-8")
        self._hand = -1

    def submitted(self, kind: str, seconds: float) -> None:
        self._file.write(f"{time.time():.4f} {kind} {seconds * 1000:.3f}\n")

    def seen(self, table_id: str, view: Any) -> None:
        if view.table.phase == pb.TABLE_PHASE_PLAYING and int(view.hand) != self._hand:
            self._hand = int(view.hand)
            self._file.write(f"{time.time():.4f} hand {table_id} {self._hand}\n")
            self._file.flush()
        elif view.table.phase == pb.TABLE_PHASE_MATCH_OVER and self._hand >= 0:
            # The engine does not count the last hand up when it ends the match: hands 0..hand were played.
            self._file.write(f"{time.time():.4f} over {table_id} {int(view.hand) + 1}\n")
            self._file.flush()
            self._hand = -1

    def refused(self, reason: str) -> None:
        self._file.write(f"{time.time():.4f} refused {reason}\n")

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


def _warn_abandonments(conn: Connection, info: Any) -> None:
    """docs/protocol.md: a host that ends matches after the game keys are fixed (knowing every deal) is shown so."""
    if conn.abandon_log is None:
        return
    count = abandonments(conn.abandon_log, bytes(info.host_public_key))
    if count:
        print(f"watten-join: warning: this host has abandoned {count} match(es) after every game key was fixed, "
              "when it knew every deal", flush=True)


async def play_at_the_table(args: argparse.Namespace) -> int:
    host, port = parse_address(args.address, DEFAULT_PORT)
    record_dir = args.record if args.record is not None else data_subdir("records")
    words = Words(args.lang or default_lang(), args.suits)
    # The certificate is pinned first; the questions (fingerprint, name, seat) come after GetTable (client/joining.py).
    channel, first = await pinned_channel(host, port, insecure=args.insecure, fingerprint=args.fingerprint)
    key = load_or_create_identity(config_dir() / "identity.key")
    conn = Connection(channel, key=key, record_dir=record_dir)
    conn.secrets_dir = data_subdir("seats")
    conn.abandon_log = config_dir() / "abandoned.json"
    try:
        wish = Wish(args.name, args.seat, args.table)
        try:
            await sit_down(conn, Questions(words), first, wish, f"{host}:{port}")
        except JoinStopped as stop:
            _fail(stop.sentence)
            return stop.code
        table = TableApp(conn, words)
        code = await table.run()
        for line in farewell(table.state, words):
            print(f"watten-join: {line}", flush=True)
        if conn.game is not None:
            # The person left on purpose ([q], confirmed): a bot stands in at once instead of after the grace
            # period; coming back with `watten-join` again takes the seat back. After a match the seat is freed, so
            # that the others' next match need not wait for it (the host's person gives it to a bot or a newcomer).
            with contextlib.suppress(Refused, grpc.aio.AioRpcError, asyncio.TimeoutError):
                await conn.leave()
        return code
    finally:
        await conn.close()


async def watch_the_table(args: argparse.Namespace) -> int:
    """`--watch`: a spectator's place at the table (the certificate confirmed first as for a seat), then the screen."""
    host, port = parse_address(args.address, DEFAULT_PORT)
    words = Words(args.lang or default_lang(), args.suits)
    channel, first = await pinned_channel(host, port, insecure=args.insecure, fingerprint=args.fingerprint)
    conn = Connection(channel, key=load_or_create_identity(config_dir() / "identity.key"))
    try:
        if first is not None:
            if not Questions(words).trusts(first.decision):
                _fail(words["join_not_confirmed"].format(where=first.decision.host_port))
                return 3
            from .pinning import remember

            remember(first.decision.host_port, first.pem)
        name = usable_name(args.name or "") or remembered_name() or usable_name(os.environ.get("USER", "")[:32]) or "?"
        await conn.join(name, table_id=args.table, spectate=True)
        return await TableApp(conn, words).run()
    finally:
        with contextlib.suppress(Refused, grpc.aio.AioRpcError, asyncio.TimeoutError):
            await conn.leave()  # (the place is free for somebody else at once)
        await conn.close()


def _fail(text: str) -> None:
    """A last word on stderr; its parts may come from the host (a refusal, a certificate error), so `visible`."""
    print(f"watten-join: {visible(text)}", file=sys.stderr)


def list_tables(args: argparse.Namespace) -> int:
    """`--list [--json]`: what the LAN announces, one line per table (0 when something was found, else 1)."""
    found, ignored = asyncio.run(discover.discover())
    if args.json:
        if found:
            print(discover.as_json(found), flush=True)
    else:
        for number, table in enumerate(found, 1):
            print(table.line(number), flush=True)
    if not found:
        _fail(discover.nothing_found(ignored))
    return 0 if found else 1


def _pick_by_number(candidates: list[discover.FoundTable], words: Words) -> discover.FoundTable | None:
    """The person picks a table by its number, in their language; a closed stdin or three wrong answers give up."""
    questions = Questions(words, ask=lambda prompt: input(prompt))  # (looked up when asked: tests replace it)
    questions.say(words["lan_tables"])
    for number, table in enumerate(candidates, 1):
        print(f"{table.summary(number)}\n      {table.where()}")  # (two rows: the whole fits 80 columns)
    for _ in range(3):
        try:
            choice = questions.answer(f"{words['lan_which']} [1]: ") or "1"
        except JoinStopped:
            return None
        if choice.isdigit() and 1 <= int(choice) <= len(candidates):
            return candidates[int(choice) - 1]
        questions.say(words["lan_number"].format(count=len(candidates)))
    return None


def choose_host(args: argparse.Namespace) -> None:
    """No address given: find the tables on the LAN and set `args.address` (and `args.table`) to the one chosen.

    A person picks by number; a bot takes the one host that has a free seat (preferring the one whose announced
    fingerprint prefix fits --fingerprint). The announcement only names an address: trust is still decided by the
    certificate (compared on first use, or against --fingerprint), and plaintext still takes --insecure.
    """
    found, ignored = asyncio.run(discover.discover())
    candidates = [t for t in found
                  if (t.table.free or args.watch) and (not args.table or t.table.table_id == args.table)]
    if args.fingerprint:
        from watten_net.fingerprints import normalise_fingerprint

        pinned = normalise_fingerprint(args.fingerprint)
        candidates = [t for t in candidates if t.matches_pin(pinned)]
    if not candidates:
        full = " (every table found is full)" if found else ""
        raise ValueError(discover.nothing_found(ignored) if not found else f"no table to join on the LAN{full}")
    if args.bot:
        hosts = {(t.host, t.port) for t in candidates}
        if len(hosts) > 1:
            raise ValueError("several hosts on the LAN have a free seat: give one's address, or --fingerprint: "
                             + "; ".join(t.line(n) for n, t in enumerate(candidates, 1)))
        chosen: discover.FoundTable | None = candidates[0]
    else:
        chosen = _pick_by_number(candidates, Words(args.lang or default_lang(), args.suits))
    if chosen is None:
        raise ValueError("no table chosen")
    if chosen.ad.tls == args.insecure:
        raise ValueError(f"{visible(chosen.host)} serves {'TLS' if chosen.ad.tls else 'plaintext'}: join it "
                         f"{'without' if chosen.ad.tls else 'with'} --insecure")
    args.address = chosen.target
    args.table = chosen.table.table_id


def with_port(address: str, port: int) -> str:
    """`HOST` and a port given as a word of its own -> `HOST:PORT` (`[IPv6]:PORT`); a port given twice is an error."""
    host, given = parse_address(address, -1)
    if given != -1:
        parser().error(f"two ports: {visible(address)} and {port}; give HOST:PORT or HOST PORT")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.watch and (args.bot or args.list):
        parser().error("--watch follows a table on the screen: not with --bot or --list")
    if (args.json and not args.list) or (args.list and args.address):
        parser().error("--list looks on the LAN (without an address); --json goes with --list")
    log_visibly(logging.INFO if args.verbose else logging.WARNING)
    try:
        if args.port is not None:
            args.address = with_port(args.address, args.port)
        if args.list:
            return list_tables(args)
        if args.address is None:
            choose_host(args)
        if args.watch:
            return asyncio.run(watch_the_table(args))
        return asyncio.run(play_as_bot(args) if args.bot else play_at_the_table(args))
    except (CertificateChanged, FingerprintMismatch, CertificateFetchError, PermissionError) as err:
        _fail(str(err))
        return 3
    except Refused as err:
        _fail(f"the host refused: {err.message} ({err.reason})")
        return 4
    except HostBrokeProtocol as err:
        _fail(f"the host broke the protocol: {err}; the game record keeps the evidence")
        return 5
    except (OSError, ValueError) as err:
        _fail(str(err))
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
