"""Joining a table (`watten-join HOST`, client/joining.py): every question in the chosen language, a full table said
before anything is asked, the fingerprint confirmed before anything of ours is sent, the name remembered, the seat
question showing partners and opponents, a wrong answer asked again (bounded), the end of the input ending cleanly.

The network tests run a real `watten-host` and a real `watten-join` whose stdin is a pipe the test writes to.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from client.i18n import Words
from client.joining import (
    MAX_ANSWERS,
    JoinStopped,
    Questions,
    free_seats,
    remember_name,
    remembered_name,
    seat_line,
    seat_lines,
    seat_rows,
    usable_name,
)
from watten_net.v1 import watten_pb2 as pb

from netutil import ROOT, Proc, isolated_env, start_host, wait_until


# ---------------------------------------------------------------------------------------------- the words alone
def _info(*rows: tuple[str, bool], players: int | None = None) -> Any:
    """A TableInfo with seats (name, bot) in seat order; an empty name is a free seat."""
    n = players or len(rows)
    seats = [pb.SeatInfo(seat=s, occupied=bool(name), name=name, bot=bot, side=-1 if n == 3 else s % 2)
             for s, (name, bot) in enumerate(rows)]
    return pb.TableInfo(player_count=n, seats=seats)


def test_the_seat_line_names_partners_and_opponents_in_each_language() -> None:
    info = _info(("Anna", False), ("Sepp (bot)", True), ("", False), ("Vroni (bot)", True))
    assert seat_line(info, 2, Words("en")) == "seat 2 — with Anna against Sepp (bot) and Vroni (bot)"
    assert seat_line(info, 2, Words("de")) == "Platz 2 — mit Anna gegen Sepp (Bot) und Vroni (Bot)"
    # (the marker in the screen's language; a person who calls themselves "(bot)" keeps their name)
    assert seat_line(info, 2, Words("zh")) == "座位 2 — 与 Anna 一队，对 Sepp（机器人）、Vroni（机器人）"
    person = _info(("Anna", False), ("Sepp (bot)", False))
    assert seat_line(person, 0, Words("de")) == "Platz 0 — gegen Sepp (bot)"
    six = _info(("Anna", False), ("", False), ("", False), ("Loisl (bot)", True), ("Resi", False), ("", False))
    assert seat_line(six, 2, Words("en")) == ("seat 2 — with Anna and Resi against seat 1 (free), Loisl (bot) and "
                                              "seat 5 (free)")
    duel = _info(("Hanna", False), ("", False))
    assert seat_line(duel, 1, Words("de")) == "Platz 1 — gegen Hanna"
    three = _info(("Hanna", False), ("", False), ("Sepp (bot)", True))
    assert seat_line(three, 1, Words("en")) == "seat 1 — with Hanna and Sepp (bot)"
    assert seat_lines(three, [1], Words("de")) == [
        "Zu dritt zählt jeder für sich; jede Hand spielt die Vorhand allein gegen die zwei anderen.",
        "Platz 1 — mit Hanna und Sepp (Bot)"]
    assert seat_lines(duel, [1], Words("en")) == ["seat 1 — against Hanna"]


def test_a_hostile_seat_name_is_shown_escaped() -> None:
    info = _info(("\x1b[2JAnna\u202e", False), ("", False))
    said = seat_line(info, 1, Words("en"))
    assert "\x1b" not in said and "\u202e" not in said and "\\x1b[2JAnna<U+202E>" in said


def test_a_hostile_seat_list_is_believed_only_as_far_as_a_table_goes() -> None:
    """Seat numbers out of range, repeated, or ten thousand seats: at most six, each once, and no crash."""
    rows = [pb.SeatInfo(seat=99), pb.SeatInfo(seat=-1), pb.SeatInfo(seat=1, occupied=True, name="x" * 5000, side=1),
            pb.SeatInfo(seat=1, side=0), *(pb.SeatInfo(seat=s % 7, side=s % 2) for s in range(10_000))]
    info = pb.TableInfo(player_count=4, seats=rows)
    assert free_seats(info) == [0] and list(seat_rows(info)) == [0, 1] and seat_rows(info)[1].occupied
    short = pb.TableInfo(player_count=4, seats=[pb.SeatInfo(seat=2, side=0), pb.SeatInfo(seat=0, occupied=True,
                                                                                          name="x" * 5000, side=1)])
    assert free_seats(short) == [2]
    assert seat_line(short, 2, Words("en")) == "seat 2 — against " + "x" * 32


def _questions(lang: str, answers: list[str]) -> tuple[Questions, list[str]]:
    said: list[str] = []
    feed = iter(answers)

    def ask(prompt: str) -> str:
        said.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return Questions(Words(lang), ask=ask, say=said.append), said


def test_a_wrong_seat_is_asked_again_and_an_empty_answer_takes_the_first_free_one() -> None:
    info = _info(("Anna", False), ("", False), ("Sepp (bot)", True), ("", False))
    questions, said = _questions("de", ["9", "Sepp", " 3 "])
    assert questions.seat(info, [1, 3]) == 3
    assert said[:3] == ["Freie Plätze:", "  Platz 1 — mit Platz 3 (frei) gegen Anna und Sepp (Bot)",
                        "  Platz 3 — mit Platz 1 (frei) gegen Anna und Sepp (Bot)"]
    assert said.count("Platz (1, 3) [1]: ") == 3
    assert "„9“ ist kein freier Platz; antworte mit 1, 3." in said
    assert "„Sepp“ ist kein freier Platz; antworte mit 1, 3." in said
    questions, _ = _questions("en", [""])
    assert questions.seat(info, [1, 3]) == 1


def test_the_chinese_questions_take_the_chinese_colon_and_comma() -> None:
    """Found joining in Chinese at 80x24: "你的名字 [玩家]:" with a Latin colon (the screen's lines have "：")."""
    info = _info(("Anna", False), ("", False), ("Sepp (bot)", True), ("", False))
    questions, said = _questions("zh", ["", ""])
    questions.name("小明")
    assert questions.seat(info, [1, 3]) == 1
    assert said[0] == "你的名字 [小明]：", said
    assert "座位（1，3） [1]：" in said, said


def test_wrong_answers_are_bounded_and_the_end_of_the_input_ends_cleanly() -> None:
    info = _info(("Anna", False), ("", False), ("", False), ("", False))
    questions, said = _questions("en", ["x"] * MAX_ANSWERS)
    with pytest.raises(JoinStopped) as stopped:
        questions.seat(info, [1, 2, 3])
    assert stopped.value.code == 1
    assert stopped.value.sentence == f"No seat chosen after {MAX_ANSWERS} answers: nothing was joined."
    assert said.count("Seat (1, 2, 3) [1]: ") == MAX_ANSWERS
    questions, _ = _questions("de", [])
    with pytest.raises(JoinStopped) as stopped:
        questions.name("Anna")
    assert stopped.value.sentence == "Keine Antwort: nicht beigetreten." and stopped.value.code == 1
    questions, _ = _questions("en", [])
    assert not questions.trusts(_decision()), "no answer to the fingerprint question is a no"


def _decision() -> Any:
    from client.connection import TrustDecision

    return TrustDecision("10.0.0.7:47150", "ab" * 32, "new")


def test_the_fingerprint_question_in_german_takes_ja() -> None:
    questions, said = _questions("de", ["ja"])
    assert questions.trusts(_decision())
    assert said[0].startswith("Erste Verbindung zu 10.0.0.7:47150.\nDer Fingerabdruck seines Zertifikats ist:\n\nabab")
    assert "abab abab" in said[0] and said[1] == "Stimmt er überein? [j/N] "


def test_a_name_too_long_or_unprintable_is_asked_again() -> None:
    questions, said = _questions("en", ["x" * 33, "\x1b\x07", "  Resi  "])
    assert questions.name("anna") == "Resi"
    assert said.count("A name has 1 to 32 printable characters.") == 2
    questions, _ = _questions("en", [""])
    assert questions.name("anna") == "anna"


def test_the_name_is_remembered_in_the_configuration(tmp_path: Path) -> None:
    path = tmp_path / "name"
    assert remembered_name(path) == ""
    remember_name("Vroni", path)
    assert remembered_name(path) == "Vroni" and path.stat().st_mode & 0o077 == 0
    path.write_text("\x1b[31m\n")
    assert remembered_name(path) == "[31m", "what a screen would escape is dropped, as the host drops it"
    path.write_text("x" * 40)
    assert remembered_name(path) == "" and usable_name(" Sepp ") == "Sepp"


# ---------------------------------------------------------------------------------------------- real processes
def _join(tmp_path: Path, config: str, *args: str) -> Proc:
    """`watten-join` with its own installation (config directory `config`) and a pipe for its stdin."""
    env = isolated_env(tmp_path)
    env["WATTEN_CONFIG_DIR"] = str(tmp_path / config)
    env.pop("USER", None)
    proc = subprocess.Popen([sys.executable, "-m", "client.main", *args], cwd=ROOT, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return Proc(proc)


def _type(join: Proc, *lines: str) -> None:
    assert join.proc.stdin is not None
    for line in lines:
        join.proc.stdin.write(line + "\n")
    join.proc.stdin.flush()


def _seats(port: int, fingerprint: str) -> list[tuple[str, bool]]:
    """(name, occupied) of every seat, as GetTable tells the test (its own pinned channel)."""
    from client.connection import Connection, open_channel

    async def ask() -> Any:
        conn = Connection(await open_channel("127.0.0.1", port, fingerprint=fingerprint))
        try:
            return await conn.table()
        finally:
            await conn.close()

    return [(s.name, s.occupied) for s in asyncio.run(ask()).seats]


@pytest.fixture
def tls_host(tmp_path: Path) -> Iterator[tuple[int, str]]:
    """A TLS host, no seat for its person, Sepp the bot at seat 0 and three free seats."""
    host, port = start_host(tmp_path, "--headless", "--players", "4", "--bots", "1")
    fingerprint = host.wait_for_line(r"fingerprint ([0-9a-f ]+)").group(1)
    try:
        yield port, fingerprint
    finally:
        host.stop()


WORDS = {
    "de": {"match": "Stimmt er überein? [j/N]", "yes": "j", "name": "Dein Name [Spieler]:", "seats": "Freie Plätze:",
           "line": "Platz 2 — mit Sepp (Bot) gegen Platz 1 (frei) und Platz 3 (frei)",
           "wrong": "„9“ ist kein freier Platz; antworte mit 1, 2, 3.", "back": "Zurück an Platz 2 als Anna.",
           "as": "Du spielst als Anna (gemerkt; --name ändert ihn).", "prompt": "Platz (1, 2, 3) [1]:"},
    "en": {"match": "Does it match? [y/N]", "yes": "y", "name": "Your name [Player]:", "seats": "Free seats:",
           "line": "seat 2 — with Sepp (bot) against seat 1 (free) and seat 3 (free)",
           "wrong": "'9' is no free seat; answer 1, 2, 3.", "back": "Back at seat 2 as Anna.",
           "as": "You play as Anna (remembered; --name changes it).", "prompt": "Seat (1, 2, 3) [1]:"},
}


def _until_seated(port: int, fingerprint: str, seat: int, name: str, join: Proc) -> None:
    wait_until(lambda: _seats(port, fingerprint)[seat] == (name, True), f"{name} at seat {seat}", timeout=60,
               unless=join)


@pytest.mark.network
@pytest.mark.parametrize("lang", ["de", "en"])
def test_joining_asks_everything_in_the_chosen_language_and_remembers_the_name(
    tls_host: tuple[int, str], tmp_path: Path, lang: str
) -> None:
    port, fingerprint = tls_host
    said = WORDS[lang]
    join = _join(tmp_path, "anna", "--lang", lang, f"127.0.0.1:{port}")
    try:
        _type(join, said["yes"], "Anna", "9", "2")
        _until_seated(port, fingerprint, 2, "Anna", join)
    finally:
        join.stop()
    out = join.output()
    for key in ("match", "name", "seats", "line", "wrong", "prompt"):
        assert said[key] in out, (key, out[:2000])
    assert fingerprint in out
    assert out.index(said["match"]) < out.index(said["name"]) < out.index(said["seats"]) < out.index(said["wrong"])
    assert remembered_name(tmp_path / "anna" / "name") == "Anna"

    # The same installation again: the pinned certificate asks nothing, the seat the key holds is taken back under
    # its own name (not --name's), and no question at all is asked.
    again = _join(tmp_path, "anna", "--lang", lang, "--name", "Josef", f"127.0.0.1:{port}")
    try:
        again.wait_for_line(re.escape(said["back"]))
    finally:
        again.stop()
    out = again.output()
    assert said["match"] not in out and said["name"] not in out and said["seats"] not in out

    # A new key in the same configuration (another seat): the remembered name, without the question.
    (tmp_path / "anna" / "identity.key").unlink()
    third = _join(tmp_path, "anna", "--lang", lang, "--seat", "3", f"127.0.0.1:{port}")
    try:
        _until_seated(port, fingerprint, 3, "Anna", third)
    finally:
        third.stop()
    out = third.output()
    assert said["as"] in out and said["name"] not in out and said["match"] not in out


@pytest.mark.network
@pytest.mark.parametrize("lang", ["de", "en"])
def test_a_full_table_is_said_before_any_question(tmp_path: Path, lang: str) -> None:
    """Two bots fill a two-seat table (and play, slowly): a newcomer over TLS hears so before the fingerprint
    question, and leaves with the host's table-full status (4)."""
    host, port = start_host(tmp_path, "--headless", "--players", "2", "--bots", "2", "--bot-delay", "0.5")
    try:
        host.wait_for_line(r"fingerprint")
        join = _join(tmp_path, "newcomer", "--lang", lang, f"127.0.0.1:{port}")
        assert join.wait(60) == 4
    finally:
        host.stop()
    out = join.output()
    full = {"de": rf"127\.0\.0\.1:{port} (ist voll|läuft ein Spiel), alle 2 Plätze sind besetzt",
            "en": rf"(table at 127\.0\.0\.1:{port} is full|under way at the table at 127\.0\.0\.1:{port}).* all 2 "
                  r"seats are taken"}[lang]
    assert re.search(full, out), out
    assert WORDS[lang]["match"] not in out and WORDS[lang]["name"] not in out
    assert not (tmp_path / "newcomer" / "known_hosts").exists(), "nothing was trusted, nothing asked"


@pytest.mark.network
@pytest.mark.parametrize("lang", ["de", "en"])
def test_no_answer_ends_cleanly_and_joins_nothing(tls_host: tuple[int, str], tmp_path: Path, lang: str) -> None:
    port, fingerprint = tls_host
    join = _join(tmp_path, "quiet", "--lang", lang, f"127.0.0.1:{port}")
    _type(join, WORDS[lang]["yes"])
    assert join.proc.stdin is not None
    join.proc.stdin.close()  # the end of the input at the name question
    assert join.wait(60) == 1
    out = join.output()
    assert {"de": "Keine Antwort: nicht beigetreten.", "en": "No answer: nothing was joined."}[lang] in out
    assert "Traceback" not in out
    assert [occupied for _, occupied in _seats(port, fingerprint)] == [True, False, False, False]

    # Nonsense for the seat, again and again: asked MAX_ANSWERS times, then it ends, nothing joined.
    nonsense = _join(tmp_path, "quiet", "--lang", lang, "--name", "Resi", f"127.0.0.1:{port}")
    _type(nonsense, *["x"] * MAX_ANSWERS)
    assert nonsense.wait(60) == 1
    out = nonsense.output()
    assert out.count(WORDS[lang]["prompt"]) == MAX_ANSWERS and "Traceback" not in out
    assert [occupied for _, occupied in _seats(port, fingerprint)] == [True, False, False, False]


@pytest.mark.network
def test_a_no_to_the_fingerprint_sends_nothing_of_ours(tls_host: tuple[int, str], tmp_path: Path) -> None:
    port, fingerprint = tls_host
    join = _join(tmp_path, "careful", "--lang", "en", f"127.0.0.1:{port}")
    _type(join, "n")
    assert join.wait(60) == 3
    out = join.output()
    assert "The certificate was not confirmed: nothing of yours was sent to 127.0.0.1:" in out
    assert "Your name" not in out and not (tmp_path / "careful" / "known_hosts").exists()
    assert [occupied for _, occupied in _seats(port, fingerprint)] == [True, False, False, False]


class _RacingHost:
    """A connection whose first Join finds the seat taken meanwhile (another person was quicker)."""

    def __init__(self, later: Any) -> None:
        self.later = later
        self.joins: list[tuple[str, int | None]] = []

    async def join(self, name: str, seat: int | None = None, timeout: float = 5.0, table_id: str = "") -> int:
        from client.connection import Refused

        self.joins.append((name, seat))
        if len(self.joins) == 1:
            raise Refused(grpc.StatusCode.FAILED_PRECONDITION, "seat-taken", f"seat {seat} is taken")
        assert seat is not None
        return seat

    async def table(self, table_id: str = "", timeout: float = 5.0) -> Any:
        return self.later


def test_a_seat_taken_meanwhile_is_said_and_asked_again() -> None:
    from client.joining import join_some_seat

    before = _info(("Anna", False), ("", False), ("", False), ("", False))
    after = _info(("Anna", False), ("Resi", False), ("", False), ("", False))
    conn = _RacingHost(after)
    questions, said = _questions("en", ["1", "3"])
    seat = asyncio.run(join_some_seat(conn, questions, before, "Vroni", None, "10.0.0.7:47150"))  # type: ignore[arg-type]
    assert seat == 3 and conn.joins == [("Vroni", 1), ("Vroni", 3)]
    assert "Seat 1 was just taken; choose another." in said
    assert "  seat 3 — with seat 1 (free) against Anna and Resi" not in said  # (3's partner is seat 1: Resi now)
    assert "  seat 3 — with Resi against Anna and seat 2 (free)" in said


def test_long_lines_wrap_at_word_boundaries_to_the_terminal(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from client.joining import say_wrapped

    monkeypatch.setenv("COLUMNS", "60")
    three = _info(("Hanna", False), ("", False), ("Sepp (bot)", True))
    note = seat_lines(three, [1], Words("en"))[0]
    say_wrapped("  " + note + "\n\n" + "ab" * 40)
    lines = capsys.readouterr().out.splitlines()
    assert all(len(line) <= 60 for line in lines[:-1]) and lines[-1] == "ab" * 40, "no word is broken"
    assert lines[0].startswith("  Three players:") and all(line.startswith("    ") for line in lines[1:-2])
    assert " ".join(line.strip() for line in lines[:-2]) == note


def test_a_host_that_abandoned_matches_is_shown_so_in_the_players_language(tmp_path: Path) -> None:
    """The count of matches this host abandoned after the game keys were fixed is said before anything else (here a
    full table follows, so nothing is asked)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from client.connection import count_abandonment
    from client.joining import Wish, sit_down

    host_key = b"\x07" * 32
    log = tmp_path / "abandoned.json"
    count_abandonment(log, host_key, b"\x01" * 32)
    count_abandonment(log, host_key, b"\x02" * 32)

    class FullTable:
        key = Ed25519PrivateKey.generate()
        abandon_log = log

        async def table(self, table_id: str = "", timeout: float = 5.0) -> Any:
            info = _info(("Anna", False), ("Sepp (bot)", True))
            info.host_public_key = host_key
            return info

        async def list_tables(self, timeout: float = 5.0) -> list[Any]:
            return [await self.table()]

    questions, said = _questions("de", [])
    with pytest.raises(JoinStopped) as stopped:
        asyncio.run(sit_down(FullTable(), questions, None, Wish(), "10.0.0.7:47150"))  # type: ignore[arg-type]
    assert said == ["Achtung: dieser Host hat schon 2 Partie(n) abgebrochen, nachdem alle Spielschlüssel feststanden, "
                    "als er jedes Austeilen kannte."]
    assert stopped.value.code == 4
    assert stopped.value.sentence == "Der Tisch bei 10.0.0.7:47150 ist voll: alle 2 Plätze sind besetzt."


def test_the_port_may_be_a_word_of_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    """Found joining as a friend: "watten-join 127.0.0.1 43075 --insecure" (the way many tools take a port) ended
    with "unrecognized arguments: 43075"; it joins 127.0.0.1:43075 now, and a port given twice is said so."""
    from client import main

    args = main.parser().parse_args(["127.0.0.1", "43075", "--insecure"])
    assert (args.address, args.port, args.insecure) == ("127.0.0.1", 43075, True)
    with_port = main.with_port
    assert with_port("127.0.0.1", 43075) == "127.0.0.1:43075"
    assert with_port("table.local", 47150) == "table.local:47150"
    assert with_port("[::1]", 43075) == "[::1]:43075" and with_port("fe80::1", 5) == "[fe80::1]:5"
    with pytest.raises(SystemExit):
        with_port("127.0.0.1:43075", 43076)
    assert "two ports" in capsys.readouterr().err
