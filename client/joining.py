"""Sitting down at a table (`watten-join HOST`): the questions before the screen opens, in the player's language.

The order keeps everything that needs trust behind the person's yes, and asks nothing when there is nothing to join:

1. The TLS pin. The certificate the host presents is fetched and checked against the remembered one (or against
   `--fingerprint`); a different one ends it here. From now on the channel trusts exactly that certificate
   (client/tls.py), so what it answers below comes from whoever holds that certificate's key.
2. GetTable over that channel. It carries nothing of ours (no key, no name, no token): a full table is said now,
   before any question.
3. On first contact, the fingerprint question. Only a yes remembers the certificate and goes on; a no ends it, and
   the host got nothing but the GetTable.
4. A seat our key already holds (a restart, a dropped laptop) is taken back under its own name, without questions.
5. The name: `--name`, else the one remembered in `config_dir()/name`, else asked; remembered once joined.
6. The seat: `--seat`, else the only free one, else asked, every free seat shown with its partners and opponents. A
   wrong answer asks again (at most `MAX_ANSWERS` times); the end of the input ends it cleanly, as does a no.

Every string from the host (seat names) goes through `visible` before it is printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import grpc.aio

from watten_net.deal.identity import public_key_bytes
from watten_net.fingerprints import pretty_fingerprint
from watten_net.paths import config_dir, open_private
from watten_net.printable import shown_as_is, visible
from watten_net.refusal import Reason
from watten_net.v1 import watten_pb2 as pb

from . import pinning
from .connection import CHANNEL_OPTIONS, Connection, Refused, TrustDecision, abandonments
from .i18n import Words
from .tls import secure_channel

MAX_ANSWERS = 5  # wrong answers to one question before watten-join gives up (a script feeding nonsense ends)
MAX_NAME = 32  # what the host accepts (host/lobby.py)
MAX_SEATS = 6  # the largest table there is: a host that lists more (or odd seat numbers) is not believed beyond it
NAME_FILE = "name"  # in config_dir(): the name this installation last played under, one line
YES = frozenset({"y", "yes", "j", "ja", "是", "是的"})


class JoinStopped(Exception):
    """Joining ended before a seat was taken, for a reason the person is told in their language."""

    def __init__(self, sentence: str, code: int) -> None:
        super().__init__(sentence)
        self.sentence = sentence
        self.code = code  # watten-join's exit status: 3 not trusted (as a certificate refused), 4 full, 1 no answer


@dataclass(frozen=True)
class FirstContact:
    """A host's certificate nobody has confirmed yet: the question to ask, and what to remember after a yes."""

    decision: TrustDecision
    pem: bytes


async def pinned_channel(host: str, port: int, *, insecure: bool = False,
                         fingerprint: str | None = None) -> tuple[grpc.aio.Channel, FirstContact | None]:
    """A channel that trusts exactly the certificate `host:port` presents, and the question still to ask about it.

    The question is there on first contact only: a remembered certificate, `--fingerprint` and `--insecure` need
    none. A certificate other than the remembered one raises `CertificateChanged`, one other than `--fingerprint`
    `FingerprintMismatch`, before anything is sent."""
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if insecure:
        return grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS), None
    pem = await asyncio.to_thread(pinning.fetch_certificate, host, port)
    first: FirstContact | None = None
    if fingerprint:
        pinning.verify_pinned(pem, fingerprint)
    else:
        where = pinning.host_port(host, port)
        if pinning.require_not_changed(where, pem) == "new":
            first = FirstContact(TrustDecision(where, pinning.pem_fingerprint(pem), "new"), pem)
    return secure_channel(target, pem, CHANNEL_OPTIONS), first


def remembered_name(path: Path | None = None) -> str:
    """The name this installation last joined under ('' if none, or if the file holds no usable name)."""
    try:
        text = (path or config_dir() / NAME_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    lines = text.splitlines()
    return usable_name(lines[0]) if lines else ""


def remember_name(name: str, path: Path | None = None) -> None:
    with open_private(path or config_dir() / NAME_FILE) as out:
        out.write((name + "\n").encode("utf-8"))


def usable_name(text: str) -> str:
    """`text` as the host will show it (trimmed, nothing a screen would have to escape), '' if it is no name."""
    name = "".join(ch for ch in text if shown_as_is(ch)).strip()
    return name if 0 < len(name) <= MAX_NAME else ""


def say_wrapped(text: str) -> None:
    """Print `text`, each of its lines wrapped at word boundaries to the terminal's width (a wrapped line goes on
    indented under itself): a terminal would otherwise break words wherever its edge falls."""
    width = max(20, shutil.get_terminal_size((80, 24)).columns)
    for line in text.split("\n"):
        indent = " " * (len(line) - len(line.lstrip(" ")))
        print(textwrap.fill(line, width, subsequent_indent=indent + "  ", break_long_words=False,
                            break_on_hyphens=False) if line.strip() else line)


@dataclass
class Questions:
    """The person at the keyboard: `ask` reads one answer (`input`), `say` prints lines, in `words`' language."""

    words: Words
    ask: Callable[[str], str] = input
    say: Callable[[str], None] = say_wrapped

    def answer(self, prompt: str) -> str:
        """One answer; the end of the input ends the joining cleanly."""
        try:
            return self.ask(prompt).strip()
        except EOFError:
            self.say("")
            raise JoinStopped(self.words["join_no_answer"], 1) from None

    def trusts(self, decision: TrustDecision) -> bool:
        self.say(self.words["join_first"].format(where=decision.host_port,
                                                 fingerprint=pretty_fingerprint(decision.fingerprint)))
        try:
            return self.ask(self.words["join_match"]).strip().lower() in YES
        except EOFError:
            self.say("")
            return False

    def name(self, default: str) -> str:
        for _ in range(MAX_ANSWERS):
            # (the language's colon: a Chinese question read "你的名字 [玩家]:" with a Latin one)
            typed = self.answer(f"{self.words['join_name']} [{default}]{self.words['colon']}")
            name = usable_name(typed) if typed else default
            if name:
                return name
            self.say(self.words["join_name_bad"])
        raise JoinStopped(self.words["join_no_answer"], 1)

    def seat(self, info: Any, free: list[int]) -> int:
        """Which free seat: each shown with who would be partner and opponent; asked until a free one is named."""
        words = self.words
        self.say(words["join_free_seats"])
        for line in seat_lines(info, free, words):
            self.say("  " + line)
        choices = words["list_sep"].join(map(str, free))
        for _ in range(MAX_ANSWERS):
            typed = self.answer(f"{words['join_seat_prompt'].format(choices=choices)} [{free[0]}]{words['colon']}")
            if not typed:
                return free[0]
            if typed.isdecimal() and int(typed) in free:
                return int(typed)
            self.say(words["join_seat_wrong"].format(answer=visible(typed[:40]), choices=choices))
        raise JoinStopped(words["join_gave_up"].format(tries=MAX_ANSWERS), 1)


def seat_rows(info: Any) -> dict[int, Any]:
    """The table's seats by number, as far as a real table could have them (a hostile host's list is cut there)."""
    rows: dict[int, Any] = {}
    for row in info.seats[:MAX_SEATS]:
        if 0 <= row.seat < MAX_SEATS:
            rows.setdefault(int(row.seat), row)
    return dict(sorted(rows.items()))


def free_seats(info: Any) -> list[int]:
    return [seat for seat, row in seat_rows(info).items() if not row.occupied]


def seat_lines(info: Any, seats: list[int], words: Words) -> list[str]:
    """A line per seat (`seat_line`); with three players, first the sentence on how three play."""
    note = [words["join_three_note"]] if any(seat_rows(info)[s].side < 0 for s in seats) else []
    return note + [seat_line(info, seat, words) for seat in seats]


def seat_line(info: Any, seat: int, words: Words) -> str:
    """"seat 2 — with Anna against Sepp (bot) and seat 3 (free)": who plays with and against whoever sits there."""
    rows = seat_rows(info)

    def who(s: int) -> str:
        row = rows[s]
        if not (row.occupied and row.name):
            return words["join_seat_free"].format(seat=s)
        return words.seat_label(visible(row.name[:MAX_NAME]), row.bot)

    def listed(seats: list[int]) -> str:
        names = [who(s) for s in seats]
        return ", ".join(names[:-1]) + words["join_and"] + names[-1] if len(names) > 1 else "".join(names)

    others = [s for s in rows if s != seat]
    side = rows[seat].side if seat in rows else -1
    if side < 0:  # three players: everyone scores alone, and the pair changes every hand
        return words["join_seat_three"].format(seat=seat, others=listed(others))
    partners = [s for s in others if rows[s].side == side]
    opponents = [s for s in others if rows[s].side != side]
    if not partners:
        return words["join_seat_duel"].format(seat=seat, opponents=listed(opponents))
    return words["join_seat_team"].format(seat=seat, partners=listed(partners), opponents=listed(opponents))


@dataclass
class Wish:
    """What the command line asked for: `--name`, `--seat`, `--table` (each may be unset)."""

    name: str | None = None
    seat: int | None = None
    table_id: str = ""


async def sit_down(conn: Connection, questions: Questions, first: FirstContact | None, wish: Wish,
                   where: str) -> int:
    """Take a seat at the table (see the module's docstring for the order); the seat number."""
    words = questions.words
    info, mine = await _table_with_our_seat(conn, wish.table_id)
    if conn.abandon_log is not None and (count := abandonments(conn.abandon_log, bytes(info.host_public_key))):
        # docs/protocol.md: a host that ended matches after the game keys were fixed (knowing every deal) is shown so
        questions.say(words["join_abandoned"].format(count=count))
    if mine is None and not free_seats(info):
        full = "join_playing" if info.phase == pb.TABLE_PHASE_PLAYING else "join_full"
        raise JoinStopped(words[full].format(where=where, n=len(seat_rows(info))), 4)
    if first is not None:
        if not questions.trusts(first.decision):
            raise JoinStopped(words["join_not_confirmed"].format(where=first.decision.host_port), 3)
        pinning.remember(first.decision.host_port, first.pem)
    if mine is not None:
        name = seat_rows(info)[mine].name
        questions.say(words["join_back"].format(seat=mine, name=visible(name)))
        return await conn.join(usable_name(name) or "?", mine, table_id=info.table_id)
    name = _name(questions, wish.name)
    seat = await join_some_seat(conn, questions, info, name, wish.seat, where)
    with contextlib.suppress(OSError):  # (a read-only configuration keeps the name for this run only)
        remember_name(name)
    return seat


def _name(questions: Questions, wished: str | None) -> str:
    if wished is not None:
        name = usable_name(wished) or usable_name(wished[:MAX_NAME])
        if name:
            return name
    remembered = remembered_name()
    if wished is None and remembered:
        questions.say(questions.words["join_as"].format(name=remembered))
        return remembered
    user = usable_name(os.environ.get("USER", "")[:MAX_NAME]) or questions.words["join_default_name"]
    return questions.name(user)


async def join_some_seat(conn: Connection, questions: Questions, info: Any, name: str, wished: int | None,
                          where: str) -> int:
    """Join at the wished seat, the only free one or the one the person names; a seat taken meanwhile asks again."""
    words = questions.words
    for _ in range(MAX_ANSWERS):
        free = free_seats(info)
        if wished is not None:
            seat = wished
        elif len(free) == 1:
            seat = free[0]
            for line in seat_lines(info, free, words):
                questions.say(line)
        else:
            seat = questions.seat(info, free)
        try:
            return await conn.join(name, seat, table_id=info.table_id)
        except Refused as err:
            if wished is not None or err.reason != Reason.SEAT_TAKEN:
                raise
            questions.say(words["join_seat_gone"].format(seat=seat))
            info = await conn.table(info.table_id)
            if not free_seats(info):
                raise JoinStopped(words["join_full"].format(where=where, n=len(seat_rows(info))), 4) from None
    raise JoinStopped(words["join_gave_up"].format(tries=MAX_ANSWERS), 1)


async def _table_with_our_seat(conn: Connection, table_id: str) -> tuple[Any, int | None]:
    """The table to join (GetTable) and the seat our key holds there, if any. Without `--table`, a seat our key
    holds at another of the host's tables counts (a Join without a table id goes back there too)."""
    info = await conn.table(table_id)
    mine = _held_seat(info, public_key_bytes(conn.key))
    if mine is None and not table_id:
        with contextlib.suppress(Refused):  # (a host without ListTables has one table)
            for other in await conn.list_tables():
                held = _held_seat(other, public_key_bytes(conn.key))
                if held is not None:
                    return other, held
    return info, mine


def _held_seat(info: Any, key: bytes) -> int | None:
    rows = seat_rows(info).items()
    return next((seat for seat, row in rows if row.occupied and not row.bot and bytes(row.public_key) == key), None)
