"""`watten-host`: serve a Watten table on the LAN (gRPC, TLS by default), with bots for empty seats.

    watten-host --headless --bots 2 --players 4            serve; start when every seat is taken
    watten-host --port 0 --insecure --record DIR ...      a free port, plaintext, records in DIR
    watten-host --bind 192.168.1.20 --no-announce ...     one address only, not announced on the LAN (mDNS)
    watten-host --headless --tables 8 ...                 eight independent tables on one port
    watten-host --headless --tables 4 --keep-serving ...  after each match a fresh table opens in its place
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import os
import secrets
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from host.limits import Limits, raise_open_files_limit
from watten_net.deal.protocol import STEP_TIMEOUT_FLOOR
from watten_net.engine import Rules
from watten_net.fingerprints import pretty_fingerprint
from watten_net.paths import config_dir, data_subdir
from watten_net.printable import log_visibly, visible

if TYPE_CHECKING:
    from host.journal import FsyncThreads
    from host.settings import TableSettings
    from host.table import Table

DEFAULT_PORT = 47150
MAX_TABLES = 256  # a sanity bound: each table costs a few MB once it plays (bench/load.py measures it)


def build_rules(preset: str, players: int, flags: Sequence[str]) -> Rules:
    rules = Rules.preset(preset, players)
    for item in flags:
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--set takes FLAG=VALUE, not {item!r}")
        name = name.strip()
        if name in ("deal", "reveal", "next-deal"):
            continue  # table settings, not rules (see table_settings)
        rules = rules.with_flag(name, value)
    return rules


def table_settings(flags: Sequence[str]) -> dict[str, str]:
    settings = {"deal": "verified", "reveal": "match-end", "next-deal": "with-checkpoint"}
    for item in flags:
        name, _, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if name == "deal":
            if value not in ("verified", "trustless"):
                raise ValueError("deal must be verified or trustless")
            settings["deal"] = value
        elif name == "reveal":
            if value not in ("match-end", "hand-end"):
                raise ValueError("reveal must be match-end or hand-end")
            settings["reveal"] = value
        elif name == "next-deal":  # (GameHeader.next_deal: "after-checkpoint" is the order before it existed, "")
            if value not in ("with-checkpoint", "after-checkpoint"):
                raise ValueError("next-deal must be with-checkpoint or after-checkpoint")
            settings["next-deal"] = value
    return settings


def _bots(text: str) -> tuple[int, str | None]:
    """`--bots 3` or `--bots 3:strong`."""
    count, _, level = text.partition(":")
    try:
        return int(count), (level or None)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--bots takes N or N:LEVEL, not {text!r}") from None


def _tables(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        count = 0
    if not 1 <= count <= MAX_TABLES:
        raise argparse.ArgumentTypeError(f"--tables takes a number from 1 to {MAX_TABLES}, not {text!r}")
    return count


def _matches(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        count = -1
    if count < 0:
        raise argparse.ArgumentTypeError(f"--matches takes a number, 0 for no end, not {text!r}")
    return count


def parser() -> argparse.ArgumentParser:
    from host.clocks import DEFAULT_GRACE, DEFAULT_STEP_TIMEOUT

    p = argparse.ArgumentParser(prog="watten-host", description="Host a game of Watten on the local network.")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0 = any free)")
    p.add_argument("--bind", default="0.0.0.0", help="address to listen on (default: all; 127.0.0.1 = this machine)")
    p.add_argument("--players", type=int, choices=(2, 3, 4, 6), default=4, help="seats at the table (default 4)")
    p.add_argument("--tables", type=_tables, default=1, metavar="N",
                   help="run N independent tables on this port, all with the same rules, settings and --bots "
                        f"(default 1, at most {MAX_TABLES}); your own seat is at the first")
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
    p.add_argument("--matches", type=_matches, default=1, metavar="M",
                   help="each table's place plays M matches one after the other: when a match is over and its "
                        "people have seen the end, a fresh table (new id, same rules, settings and --bots) opens "
                        "in its place; 0 = without end, until Ctrl-C. Headless, the host exits 0 after the last "
                        "(default 1). Your own table (not headless) plays one match: the host ends with it")
    p.add_argument("--keep-serving", dest="matches", action="store_const", const=0,
                   help="the same as --matches 0: a fresh table after every match, all evening")
    p.add_argument("--autostart", action="store_true", help="start as soon as every seat is taken")
    p.add_argument("--record", type=Path, metavar="DIR", help="where to write the host's game record")
    p.add_argument("--insecure", action="store_true", help="serve plaintext instead of TLS (the LAN can read it)")
    p.add_argument("--no-announce", dest="announce", action="store_false",
                   help="do not announce the tables on the LAN (mDNS); friends then join with the address")
    p.add_argument("--name", help="your name at the table (default: your user name)")
    p.add_argument("--lang", choices=("de", "en", "zh"), help="language of the screen (default: from the locale)")
    p.add_argument("--suits", choices=("french", "german"), default="french", help="suit marks on the cards")
    p.add_argument("--grace", type=float, default=DEFAULT_GRACE, metavar="SECONDS",
                   help="a person offline this long gets a bot standing in until they come back "
                   f"(default {DEFAULT_GRACE:.0f})")
    p.add_argument("--step-timeout", type=float, default=DEFAULT_STEP_TIMEOUT, metavar="SECONDS",
                   help="a seat online that does not send one of the protocol's own steps (signatures, seed, "
                   "shuffle, shares: its client sends them by itself) this long gets a bot standing in; 0 = never "
                   f"(default {DEFAULT_STEP_TIMEOUT:.0f}, at least {STEP_TIMEOUT_FLOOR:.0f}: every seat signs it in "
                   "the game header and refuses less). A person's own move has no clock")
    p.add_argument("--bot-delay", type=float, default=None, metavar="SECONDS",
                   help="pause between bot moves (default 0.7 with a person at the table, 0 headless)")
    p.add_argument("--resume", nargs="?", const="auto", metavar="JOURNAL",
                   help="resume the game a crashed host left unfinished (a plain start finds it too and, at a "
                        "terminal, asks first)")
    p.add_argument("--fresh", action="store_true",
                   help="start a new game even if an unfinished one is found (its journal is kept as .abandoned; "
                        "never one of a host that is still running)")
    p.add_argument("--verbose", "-v", action="store_true", help="log what happens")
    _add_limit_options(p)
    return p


def _add_limit_options(p: argparse.ArgumentParser) -> None:
    limits = p.add_argument_group("limits per client address (loopback is exempt unless --limit-loopback)")
    limits.add_argument("--connections-per-address", type=int, default=Limits.connections_per_address, metavar="N",
                        help=f"connections one address may have (default {Limits.connections_per_address})")
    limits.add_argument("--streams-per-address", type=int, default=Limits.streams_per_address, metavar="N",
                        help=f"event streams one address may have open (default {Limits.streams_per_address})")
    limits.add_argument("--seats-per-address", type=int, default=Limits.seats_per_address, metavar="N",
                        help=f"seats one address may hold at the host's tables (default {Limits.seats_per_address})")
    limits.add_argument("--seats-per-connection", type=int, default=Limits.seats_per_connection, metavar="N",
                        help=f"seats one connection may hold (default {Limits.seats_per_connection})")
    limits.add_argument("--joins-per-minute", type=float, default=Limits.joins_per_minute, metavar="N",
                        help=f"joins one address may make a minute (default {Limits.joins_per_minute:g}, "
                             f"bursts of {Limits.join_burst:g})")
    limits.add_argument("--idle-timeout", type=float, default=Limits.idle_timeout, metavar="SECONDS",
                        help=f"a connection without a call is closed after this long (default "
                             f"{Limits.idle_timeout:g}); one that has not finished its handshake after at most 10 s")
    limits.add_argument("--limit-loopback", action="store_true",
                        help="apply these limits to clients on this machine too (tests)")


def limits_of(args: argparse.Namespace) -> Limits:
    return Limits(connections_per_address=args.connections_per_address, streams_per_address=args.streams_per_address,
                  seats_per_address=args.seats_per_address, seats_per_connection=args.seats_per_connection,
                  joins_per_minute=args.joins_per_minute, idle_timeout=max(0.1, args.idle_timeout),
                  limit_loopback=args.limit_loopback)


async def run(args: argparse.Namespace) -> int:
    from host.journal import fsync_threads

    with fsync_threads() as fsyncs:  # (the journals' fsync threads belong to this run: they end with it)
        return await _run_tables(args, fsyncs)


async def _run_tables(args: argparse.Namespace, fsyncs: FsyncThreads) -> int:
    from host.server import WattenTableService, start_server, stop_server

    soft, _ = raise_open_files_limit()  # every connection is a file descriptor: as many as the system lets us
    logging.getLogger("watten.host").info("open files limit: %s", soft)
    rules, chosen = _checked_rules(args)
    record_dir = args.record if args.record is not None else data_subdir("records")
    credentials, tls_fp, fingerprint_text = _tls_of(args)
    journal_dir = data_subdir("journal")
    to_resume = _journals_to_resume(args, journal_dir)
    from host.settings import TableSettings
    from watten_net.deal.identity import load_or_create_identity

    # The host signs every envelope of the game record with its own long-lived key (kept mode 0600).
    host_key = load_or_create_identity(config_dir() / "host" / "identity.key")
    settings = TableSettings(
        rules, preset=args.rules, reveal=chosen["reveal"], deal=chosen["deal"], host_key=host_key,
        next_deal="" if chosen["next-deal"] == "after-checkpoint" else chosen["next-deal"],
        tls_fingerprint=tls_fp, record_dir=record_dir, host_name=socket.gethostname(), grace=args.grace,
        bot_delay=args.bot_delay if args.bot_delay is not None else (0.0 if args.headless else 0.7),
        step_timeout=args.step_timeout)
    tables = await _resumed_tables(args, settings, to_resume)
    if tables:
        args.port = tables[0].port
    _add_fresh_tables(args, settings, tables, journal_dir)
    fsyncs.serves_one_table(len(tables) == 1)  # (one table place: its fsyncs need no thread)
    # its list of tables is the live one: fresh tables replace finished ones
    service = WattenTableService(tables, limits_of(args))
    server, port = await start_server(service, args.port, credentials, args.bind)
    args.run_lock.note(port)  # (a second host's refusal names this one)
    for table in tables:
        table.port = port
    announcer = _start_announcing(args, service, port, tls_fp.hex())
    _banner(args, tables, port, fingerprint_text)
    _quieter_gc()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        if not args.headless:
            return await _serve_with_a_person(args, service, port, credentials is not None, fingerprint_text)
        for table in tables:  # (the host's own screen shows it in the seat list instead)
            table.on_notice = _notice
        return await _serve_headless(args, service, stop)
    finally:
        if announcer is not None:
            await announcer.stop()  # withdrawn from the LAN before the port closes
        await service.host_leaving()  # every stream still open says why it ends
        await stop_server(server, 0.5)


GC_YOUNG = 20_000  # allocations between two young collections (Python's default: 700)


def _quieter_gc() -> None:
    """Once the host is up: what start-up built (modules, rules, keys, the tables) is moved out of the garbage
    collector's reach, and young collections run less often. At full speed gc took about 3 % of the event loop's
    thread, scanning objects reference counting frees anyway (issue #17: bench/load.py shows the host's memory)."""
    gc.freeze()
    gc.set_threshold(GC_YOUNG, 20, 20)


def _checked_rules(args: argparse.Namespace) -> tuple[Rules, dict[str, str]]:
    """The rules and the table settings `--set` chose (deal, reveal), refused when they cannot go together."""
    rules = build_rules(args.rules, args.players, args.set)
    settings = table_settings(args.set)
    if settings["deal"] == "trustless" and rules.blind:
        raise ValueError("blind cannot be dealt trustless: the host must know the hidden announcement to judge the "
                         "tricks; use deal=verified for blind")
    return rules, settings


def _tls_of(args: argparse.Namespace) -> tuple[Any, bytes, str]:
    """(server credentials, certificate fingerprint, the fingerprint as shown); plaintext: (None, b"", "")."""
    if args.insecure:
        return None, b"", ""
    from host import tls

    cert = tls.load_or_create()
    return tls.server_credentials(cert), bytes.fromhex(cert.fingerprint), pretty_fingerprint(cert.fingerprint)


async def _resumed_tables(args: argparse.Namespace, settings: TableSettings, journals: list[Path]) -> list[Table]:
    """The tables of the unfinished games in `journals` (a journal that cannot be replayed is moved aside, unless
    the person named it with --resume PATH: then the host stops). Replayed first, then resumed only if the person
    says so (`_resume_chosen`); otherwise their journals are kept as abandoned and the host starts afresh."""
    from host.resume import go_live, rebuild_table

    rebuilt: list[tuple[Path, Table, list[Any]]] = []
    for path in journals:
        try:
            rebuilt.append((path, *rebuild_table(path, settings.host_key, bot_delay=settings.bot_delay,
                                                 grace=settings.grace, step_timeout=settings.step_timeout)))
        except Exception as err:  # a journal this host cannot replay must not stop every later start
            if args.resume not in (None, "auto"):
                raise ValueError(f"cannot resume {path}: {getattr(err, 'message', err)}") from None
            aside = path.with_suffix(".unresumable")
            path.replace(aside)
            logging.getLogger("watten.host").warning("cannot resume %s", path, exc_info=err)
            print(f"watten-host: cannot resume the game of {visible(str(path))} "
                  f"({visible(str(getattr(err, 'message', err)))}); moved it aside to {visible(str(aside))} and "
                  "starting afresh", flush=True)
    if rebuilt and not _resume_chosen(args, settings, rebuilt):
        for _, table, _ in rebuilt:
            if table.journal is not None:
                table.journal.close()
        _abandon([path for path, _, _ in rebuilt])
        args.run_lock.release()  # (this host starts a run of its own)
        args.run_lock = None
        return []
    for _, table, everything in rebuilt:
        await go_live(table, everything)
        table.serving_tls = settings.tls_fingerprint  # join proofs bind the certificate served now
    return [table for _, table, _ in rebuilt]


def _resume_chosen(args: argparse.Namespace, settings: TableSettings, rebuilt: list[tuple[Path, Table, Any]]) -> bool:
    """What the host found, said before anything else happens; the host's person (at a terminal) is asked whether
    to resume it or start the new game. Headless, `--resume`, or without a terminal to ask at: resumed, and said so."""
    from client.i18n import Words, default_lang
    from host.resume import RESUME_WORDS, found_lines, overridden

    words = Words(args.lang or default_lang())
    said = {key: words[key] for key in RESUME_WORDS}  # (the found game in the host person's language)
    _, first, _ = rebuilt[0]
    print(f"watten-host: found an unfinished game ({len(rebuilt)} table(s)) in {visible(str(rebuilt[0][0]))}:",
          flush=True)
    for path, table, _ in rebuilt:
        for line in found_lines(table, path, words=said):
            print(f"watten-host: {line}", flush=True)
    ignored = overridden(first, settings, args.bots)
    if ignored:
        print(f"watten-host: resuming it keeps its own settings, not these of this start: {'; '.join(ignored)}",
              flush=True)
    resuming = "".join(f"watten-host: resuming the unfinished game of {visible(str(path))}\n" for path, _, _ in rebuilt)
    if args.headless or args.resume is not None or not sys.stdin.isatty():
        print(resuming, end="", flush=True)
        return True
    while True:
        try:
            answer = input("watten-host: [r] resume it, or [n] start the new game and keep the old journal as "
                           "abandoned? [r/n] ").strip().lower()
        except EOFError:
            answer = "r"
        if answer in ("r", "resume", "y", "yes"):
            print(resuming, end="", flush=True)
            return True
        if answer in ("n", "new"):
            return False


def _add_fresh_tables(args: argparse.Namespace, settings: TableSettings, tables: list[Table],
                      journal_dir: Path) -> None:
    """Fresh tables up to `--tables`, and every table's run id and start policy."""
    from host.journal import RunLock
    from host.table import Table

    # The resumed tables keep their run id, so that tables added now are resumed together with them after a
    # second crash.
    host_run = next((t.host_run for t in tables if t.host_run), "") or secrets.token_hex(8)
    if args.run_lock is None:  # (a run resumed holds its lock already) this run's journals are this host's alone
        args.run_lock = RunLock.take(journal_dir, host_run)
    while len(tables) < args.tables:
        table = Table(settings)
        # Each table journals into a file of its own, named by its id (records are named by table id too).
        table.journal_path = journal_dir / f"{table.table_id}.wjournal"
        table.index = len(tables)
        tables.append(table)
    for table in tables:
        table.host_run = table.host_run or host_run
        # With a person at the host and every other seat a bot, the table is full at once: start it (playable).
        table.autostart = args.autostart or args.headless or (args.bots == args.players - 1)


def _start_announcing(args: argparse.Namespace, service: Any, port: int, fingerprint_hex: str) -> Any:
    """The tables announced on the LAN (host/announce.py), unless --no-announce or the host listens on loopback
    only; sets `args.reach` (where friends can join) and `args.announced` for the banner and the lobby."""
    from host.addresses import listening_on
    from host.announce import Announcer, host_ad
    from watten_net.deal.protocol import PROTOCOL_VERSION

    args.reach = listening_on(args.bind)
    args.announced = False
    if not args.announce or args.reach.loopback_only or not args.reach.addresses:
        return None
    announcer = Announcer(args.reach, port, lambda: host_ad(service.tables, args.rules, args.players,
                                                            PROTOCOL_VERSION, fingerprint_hex))
    try:
        announcer.start()
    except (OSError, ValueError, RuntimeError) as err:  # no multicast here: the addresses in the banner still work
        print(f"watten-host: not announced on the LAN ({visible(str(err))})", flush=True)
        return None
    args.announced = True
    return announcer


def _banner(args: argparse.Namespace, tables: list[Table], port: int, fingerprint_text: str) -> None:
    from host.addresses import banner_lines

    settings = tables[0].settings  # (a resumed game's own rules, not this start's)
    print(f"watten-host: serving {visible(settings.preset)} for {settings.players} players on port {port}",
          flush=True)
    if len(tables) > 1:
        print(f"watten-host: {len(tables)} tables: {' '.join(t.table_id for t in tables)}", flush=True)
    if args.insecure:
        print("watten-host: --insecure: plaintext, anyone on the network can read the game", flush=True)
    else:
        print(f"watten-host: TLS certificate fingerprint {fingerprint_text}", flush=True)
    for line in banner_lines(args.reach, port, args.insecure, args.announced):
        print(f"watten-host: {line}", flush=True)
    if not args.headless and not args.bots and args.players > 1:
        print("watten-host: tip: --bots N fills empty seats with bots ([b] in the lobby adds one)", flush=True)


def _lobby_lines(args: argparse.Namespace, port: int, tls: bool, fingerprint: str, words: Any) -> list[str]:
    """The host's own lobby: how friends join (host/addresses.py) and the certificate they compare, in the person's
    language (`words`: the client's Words; host/addresses.py imports nothing of the client)."""
    from host.addresses import LOBBY_WORDS, lobby_lines

    groups = fingerprint.split()
    label = words["lobby_tls"]
    security = [f"  {label} {' '.join(groups[:8])}", f"  {' ' * len(label)} {' '.join(groups[8:])}"] if tls else [
        f"  {words['lobby_plaintext']}"]
    said = {key: words[key] for key in LOBBY_WORDS}
    return [*lobby_lines(args.reach, port, not tls, args.announced, said), *security, f"  {words['lobby_keys']}", ""]


async def _serve_with_a_person(args: argparse.Namespace, service: Any, port: int, tls: bool,
                               fingerprint_text: str) -> int:
    """The person sits at the first table; the others (if any) get their bots now and run on their own."""
    tables = list(service.tables)
    for table in tables[1:]:
        if args.bots and table.game is None and not table.rematch.matches:
            await table.add_bots(args.bots, args.bot_level)
    # With --matches, the other tables' places get fresh tables too (silently: the screen is the person's).
    others = [asyncio.ensure_future(_serve(service, t, args, len(tables), quiet=True))
              for t in tables[1:] if args.matches != 1]
    try:
        return await _play_at_the_host(args, service, port, tls, fingerprint_text)
    finally:
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        for table in service.tables[1:]:
            await table.shutdown()


async def _serve_headless(args: argparse.Namespace, service: Any, stop: asyncio.Event) -> int:
    """Every table plays its matches until the last is over (0) or the host is stopped (130)."""
    from host.table import TableRefusal

    tables = list(service.tables)
    if args.bots:
        try:
            for table in tables:
                if table.game is None and not table.rematch.matches:  # (not a table resumed between matches)
                    await table.add_bots(args.bots, args.bot_level)
        except (TableRefusal, ValueError) as err:
            print(f"watten-host: {visible(str(getattr(err, 'message', err)))}", file=sys.stderr)
            return 2
    all_finished: asyncio.Future[Any] = asyncio.ensure_future(
        asyncio.gather(*(_serve(service, t, args, len(tables)) for t in tables)))
    stopping: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
    await asyncio.wait([all_finished, stopping], return_when=asyncio.FIRST_COMPLETED)
    if all_finished.done():
        all_finished.result()  # (raises what a occupant raised)
        await _drain_streams(service.tables)
        return 0
    all_finished.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await all_finished  # retrieved, so asyncio logs no "exception never retrieved" at exit
    print("watten-host: stopping: ending the match, revealing the host's game key and closing the records",
          flush=True)
    await service.begin_leaving()  # (each stream, once it has carried the end, says the host has left)
    for table in service.tables:  # the tables serving now (with --matches, fresh ones replaced the first)
        await table.shutdown()
    await _drain_streams(service.tables)
    return 130


async def _drain_streams(tables: Sequence[Any], limit: float = 15.0) -> None:
    """Let the open event streams carry the last events out before the server stops.

    A stream of a finished table ends by itself once it has sent the whole log, and its seat then goes offline; so
    wait until no person's seat is online, at least a moment and at most `limit` seconds (many tables' streams on
    a busy machine need more than a fixed short pause, and a client that misses the end keeps reconnecting).
    """
    loop = asyncio.get_running_loop()
    await asyncio.sleep(0.1)
    deadline = loop.time() + limit
    while loop.time() < deadline and any(
            o is not None and o.online and not o.bot for table in tables for o in table.seats):
        await asyncio.sleep(0.05)


def _notice(text: str) -> None:
    print(f"watten-host: {visible(text)}", flush=True)  # (it names a seat's person: text from a client)


async def _serve(service: Any, table: Any, args: argparse.Namespace, count: int, quiet: bool = False) -> None:
    """One table's place: its match, then (with --matches) fresh tables in its place, saying where each record is
    and which table opened next (headless: the host exits after the last place's last match)."""
    from host.places import serve_place

    def over(finished: Any) -> None:
        if quiet:
            return
        which = f"table {finished.table_id}: " if count > 1 or args.matches != 1 else ""
        print(f"watten-host: {which}match over; record written to {finished.record_path}", flush=True)

    def opened(fresh: Any) -> None:
        if not quiet:
            print(f"watten-host: table {fresh.table_id} opened (in place of a finished one)", flush=True)

    await serve_place(service, table, args.matches, args.bots, args.bot_level, over, on_open=opened)


def _journals_to_resume(args: argparse.Namespace, journal_dir: Path) -> list[Path]:
    """`--resume [PATH]`, or a plain start that finds games the host never finished (unless `--fresh`).

    A host with several tables leaves one journal per table that was playing; they carry the same run id and are
    resumed together. Journals of different runs (or of older hosts, which have no run id) are never mixed: with
    more than one such game the person chooses one with --resume PATH, or --fresh. The journals of a host that is
    still running (its run's lock is held, host/journal.py `RunLock`) are never touched, `--fresh` included: this
    host says so and leaves them; the run it resumes stays locked in `args.run_lock` while it runs.
    """
    from host.journal import JournalBusy, RunLock, unfinished

    args.run_lock = None
    if args.resume not in (None, "auto"):
        path = Path(args.resume)
        try:
            args.run_lock = RunLock.take(path.parent, _place_of(path)[0])
        except JournalBusy as err:
            raise ValueError(f"will not resume {path}: {err}; stop that host first") from None
        return [path]
    runs: dict[str, list[tuple[int, Path]]] = {}
    for path in unfinished(journal_dir):
        run, index = _place_of(path)
        runs.setdefault(run, []).append((index, path))
    locks: dict[str, RunLock] = {}
    for run, group in runs.items():
        try:
            locks[run] = RunLock.take(journal_dir, run)
        except JournalBusy as err:
            names = ", ".join(str(p) for _, p in group)
            print(f"watten-host: leaving the unfinished game of {visible(names)} alone: {visible(str(err))}",
                  flush=True)
    _sweep_stale_locks(journal_dir, set(runs))
    if args.fresh:
        for run, lock in locks.items():
            _abandon([path for _, path in runs[run]])
            lock.release()
        return []
    if len(locks) > 1:
        for lock in locks.values():
            lock.release()
        names = ", ".join(str(p) for run in locks for _, p in runs[run])
        raise ValueError(f"several unfinished games ({names}): choose one with --resume PATH, or --fresh")
    if locks:
        [(run, args.run_lock)] = locks.items()
        return [path for _, path in sorted(runs[run])]
    if args.resume == "auto":
        raise ValueError(f"there is no unfinished game to resume in {journal_dir}")
    return []


def _sweep_stale_locks(journal_dir: Path, runs: set[str]) -> None:
    """Lock files that hosts which died abruptly left behind (harmless, unheld): removed, unless still held."""
    from host.journal import JournalBusy, RunLock

    for path in journal_dir.glob("*.lock") if journal_dir.is_dir() else []:
        if path.stem not in runs:
            with contextlib.suppress(JournalBusy, OSError):
                RunLock.take(journal_dir, path.stem).release()


def _place_of(path: Path) -> tuple[str, int]:
    """The host run a journal belongs to (a journal of an older host, without one: its own), and its table's place."""
    from host.journal import JournalError, read_journal, run_name

    try:
        meta, _ = read_journal(path)
        index = int(meta.get("index", 0))
    except (JournalError, OSError, ValueError, TypeError):
        meta, index = {}, 0
    return run_name(str(meta.get("host_run") or path.stem)), index


def _abandon(paths: Sequence[Path]) -> None:
    """The games are not resumed: each journal is kept beside, as `.abandoned`."""
    for path in paths:
        path.replace(path.with_suffix(".abandoned"))
        print(f"watten-host: the unfinished game of {visible(str(path))} is kept as abandoned", flush=True)


async def _play_at_the_host(args: argparse.Namespace, service: Any, port: int, tls: bool, fingerprint: str) -> int:
    """The host's own person: a seat at the first table, over loopback, in the same full-screen client."""
    from client.app import HostControls, TableApp
    from client.connection import Connection
    from client.i18n import Words, default_lang
    from host.table import TableRefusal
    from watten_net.deal.identity import load_or_create_identity, public_key_bytes

    table = service.tables[0]
    channel = _own_channel(port, tls)
    key = load_or_create_identity(config_dir() / "identity.key")
    table.own_person_key = public_key_bytes(key)  # a host-run seat: it reveals its game key first
    conn = Connection(channel, key=key, record_dir=table.settings.record_dir)  # the person keeps a record like any seat
    conn.secrets_dir = data_subdir("seats")
    name = (args.name or os.environ.get("USER", "") or "Host")[:32]  # (the host refuses longer names)
    try:
        await conn.join(name, 0 if table.seats[0] is None else None, table_id=table.table_id)
    except Exception as err:
        print(f"watten-host: cannot take a seat: {visible(str(getattr(err, 'message', err)))}", file=sys.stderr)
        return 2

    if args.bots and table.game is None and not table.rematch.matches:
        try:
            await table.add_bots(args.bots, args.bot_level)
        except (TableRefusal, ValueError) as err:
            await conn.close()
            print(f"watten-host: {visible(str(getattr(err, 'message', err)))}", file=sys.stderr)
            return 2

    async def add_bot() -> None:
        try:
            await table.add_bots(1, args.bot_level)
        except TableRefusal as err:
            raise ValueError(err.message) from None

    words = Words(args.lang or default_lang(), args.suits)
    lines = _lobby_lines(args, port, tls, fingerprint, words)

    async def toggle_deal() -> None:
        await table.set_deal("trustless" if table.settings.deal == "verified" else "verified")

    async def leave_the_table() -> None:  # ([q] mid-match, "this ends the game for everyone")
        await service.begin_leaving()  # (the others' streams, once they carry the end, say the host has left)
        await table.end_match()

    controls = HostControls(add_bot, table.start, toggle_deal, leave_the_table)
    controls.vacate, controls.swap = table.arrange.vacate, table.arrange.swap  # ([x] N, [m] N M: client/app.py)
    app = TableApp(conn, words, host_controls=controls, lobby_lines=lines)
    try:
        result = await app.run()
    finally:
        await table.shutdown()
        await conn.close()
    _print_the_end(app)
    return result


def _print_the_end(app: Any) -> None:
    """After the screen closes: the final score, this seat's own check of the record, and the record's path."""
    from client.log_view import farewell

    for line in farewell(app.state, app.words):
        print(f"watten-host: {line}", flush=True)


def _own_channel(port: int, tls: bool) -> Any:
    """The host's own person's channel to this very host, over loopback."""
    from client.tls import secure_channel
    from host import tls as host_tls

    target = f"127.0.0.1:{port}"
    if tls:
        return secure_channel(target, host_tls.load_or_create().cert_pem)
    import grpc.aio

    return grpc.aio.insecure_channel(target)


def main(argv: Sequence[str] | None = None) -> int:
    # (Python's cyclic GC is left as it is: measured with gc.callbacks over bench/latency.py matches, the host's gen1
    # collections all fall in its first 0.2 s (imports), during play only gen0 ones of under 0.2 ms, no gen2 before
    # the exit; the action latency's tail follows the journal's fsync, p90 7-9 ms on a busy disk. No gc.freeze.)
    args = parser().parse_args(argv)
    args.bots, level = args.bots
    args.bot_level = level or args.bot_level
    log_visibly(logging.INFO if args.verbose else logging.WARNING, "%(asctime)s %(name)s %(levelname)s %(message)s")
    args.run_lock = None
    from host.settings import hostable_step_timeout_problem

    if (problem := hostable_step_timeout_problem(args.step_timeout)) is not None:  # (before anything starts)
        print(f"watten-host: --step-timeout: {problem}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(run(args))
    except ValueError as err:
        print(f"watten-host: {visible(str(err))}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"watten-host: {visible(str(err))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        if args.run_lock is not None:
            args.run_lock.release()


if __name__ == "__main__":
    raise SystemExit(main())
