"""`watten-replay RECORD` (issue 14 item 1) in tmux, on records of real matches: a real `watten-host` with a bot of its
own and a `watten-join --bot` over loopback (Level 1, every seat's record), and a headless trustless host.

What the screen shows at each step of a whole hand (every seat's cards, the cards on the table, the tricks and the
score) must equal the rules engine's own replay of the record (`Match.replay` of the inputs so far, computed here); a
tampered copy opens at its failing envelope and replays up to it; a trustless record shows the unopened cards
sealed; a file that is no record gets one line and exit code 1.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from client.i18n import Words
from watten_net.deal.protocol import parse_envelope
from watten_net.engine import Match
from watten_net.engine.public import PublicMatch
from watten_net.record import KIND_HOST, encode_entries, read_record
from watten_net.verify import verify_file

from netutil import ROOT, clients_then_host_end, isolated_env, start, start_host
from tmuxutil import Tmux, have_tmux, python

pytestmark = pytest.mark.network
IN_TMUX = [pytest.mark.tmux, pytest.mark.slow,
           pytest.mark.skipif(not have_tmux(), reason="tmux is not installed (.ci/run installs it)")]


def in_tmux(test: Any) -> Any:
    """A test that drives watten-replay in tmux on the records of real matches (made once for the module)."""
    for mark in IN_TMUX:
        test = mark(test)
    return test

WORDS = Words("en")
SEALED = "▒▒"
TAMPERED_AT = 61  # the chain seq whose host signature the tampered copy breaks


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A Level 1 match (the host's record and the joining seat's) and a trustless one (the host's)."""
    tmp = tmp_path_factory.mktemp("replay")
    level1, trustless = tmp / "level1", tmp / "trustless"
    host, port = start_host(tmp, "--headless", "--insecure", "--players", "2", "--rules", "south-tyrolean",
                            "--bots", "1", "--set", "target=11", "--record", str(level1), "--no-announce")
    try:
        joiner = start("client.main", ["--bot", "random", "--insecure", "--name", "Zoë", "--seed", "1", "--identity",
                                       str(tmp / "z.key"), "--record", str(level1), f"127.0.0.1:{port}"],
                       isolated_env(tmp))
        clients_then_host_end([joiner], host, 120)
    finally:
        host.stop()
    done = subprocess.run([sys.executable, "-m", "host.main", "--headless", "--insecure", "--port", "0", "--bind",
                           "127.0.0.1", "--players", "2", "--rules", "south-tyrolean", "--bots", "2", "--set",
                           "target=11", "--set", "deal=trustless", "--record", str(trustless), "--no-announce"],
                          cwd=ROOT, env=isolated_env(tmp), capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    seat = next(level1.glob("*-seat1.wrec"))
    host_record = next(level1.glob("*-host.wrec"))
    meta, entries = read_record(host_record)
    hosts = [i for i, e in enumerate(entries) if e.kind == KIND_HOST]
    broken = entries[hosts[TAMPERED_AT - 1]]
    entries[hosts[TAMPERED_AT - 1]] = type(broken)(broken.kind, broken.data[:-1] + bytes([broken.data[-1] ^ 1]))
    tampered = tmp / "tampered.wrec"
    tampered.write_bytes(encode_entries(meta, entries))
    return {"seat": seat, "host": host_record, "tampered": tampered, "trustless": next(trustless.glob("*.wrec"))}


def engine_after(match: Match | PublicMatch, actions: int) -> Any:
    """The engine's own replay of the record's inputs up to its `actions`-th action (decks come with the action
    after them)."""
    inputs: list[Any] = []
    done = 0
    for item in match.history():
        if item[0] not in ("deck", "sealed"):
            if done == actions:
                break
            done += 1
        inputs.append(item)
    if isinstance(match, PublicMatch):
        return PublicMatch.replay(match.rules, inputs, match.first_dealer)
    return Match.replay(match.rules, inputs, match.first_dealer)


def rows(screen: str) -> dict[str, list[str]]:
    """The screen's parts: the seat rows, the card rows (after "Cards"), the score line, the status line."""
    lines = screen.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Cards ("))
    return {"cards": lines[at + 1:at + 3], "seats": [line for line in lines[:at] if re.match(r"^[▶ ] [01] ", line)],
            "score": [line for line in lines if line.startswith("Team A")],
            "status": [line for line in lines if line.startswith("Schlag ")]}


def shown_cards(line: str) -> list[str]:
    return [t for t in line.split() if t == SEALED or re.fullmatch(r"[♥♦♣♠](10|[6-9UOKA])", t)]


def check_screen(screen: str, match: Any, trustless: bool = False) -> None:
    """The cards each seat holds, the card it has on the table, the tricks and the score: as the engine has them."""
    parts = rows(screen)
    for seat, line in enumerate(parts["cards"]):
        if trustless:
            want = [match.opened[p].text if p in match.opened else SEALED for p in match.hands[seat]]
        else:
            want = [c.text for c in match.hands[seat]]
        assert sorted(shown_cards(line)) == sorted(WORDS.card_short(c) if c != SEALED else c for c in want), line
    trick = dict(zip(match.trick_seats, (c.text for c in match.trick), strict=True))
    for seat, line in enumerate(parts["seats"]):
        assert f"[{len(match.hands[seat])}]" in line, line
        if seat in trick:
            assert f"] {WORDS.card_short(trick[seat])} " in line, line
    sides = re.findall(r"\(\d\): (\d+)", parts["score"][0])
    assert [int(s) for s in sides] == list(match.scores), parts["score"]
    if any(match.tricks_won):  # (the live table's words: "tricks 1–0")
        assert f" {match.tricks_won[0]}–{match.tricks_won[1]}" in parts["status"][0], parts["status"]


def replay(tmux: Tmux, path: Path, width: int = 80, height: int = 24) -> None:
    command = " ".join(python("client.replay", "--lang", "en", str(path)))
    tmux.new("r", ["sh", "-c", f"{command}; echo EXIT $?; sleep 60"], width, height)


@in_tmux
def test_a_whole_hand_step_by_step_equals_the_engines_replay(records: dict[str, Path], tmux: Tmux) -> None:
    report = verify_file(str(records["seat"]))
    assert report.verdict == "verified" and report.match is not None and report.seat == 1
    replay(tmux, records["seat"])
    tmux.wait_for("r", r"Record: verified ✓")
    tmux.wait_for("r", r"Step 0/\d+ · hand 1 · the table before the first move")
    assert "Zoë (you)" in tmux.screen("r")  # (the record's owner, by the roster's name)
    step, hand_over = 0, False
    while not hand_over:
        screen = tmux.screen("r")
        match = engine_after(report.match, step)
        check_screen(screen, match)
        move = match.last_action
        if step and move is not None and move[1].startswith("play "):  # (the step line names the card played)
            card = move[1][5:]
            assert f"plays {WORDS.card_short(card)}: {WORDS.card_name(card).split(' — ')[0]}" in screen, screen
        hand_over = match.hand_number > 0
        step += 1
        assert step < 60, "the first hand never ended"
        tmux.keys("r", "Right")
        tmux.wait_for("r", rf"Step {step}/")
    screen = tmux.screen("r")
    assert re.search(r"Hand 1: .* win \d+ \(.*\) · score \d+–\d+", screen), screen  # (the live log's words)
    tmux.keys("r", "Left")  # and back: the table as it was one move before
    tmux.wait_for("r", rf"Step {step - 1}/")
    check_screen(tmux.screen("r"), engine_after(report.match, step - 1))
    tmux.keys("r", "End")
    tmux.wait_for("r", r"Step (\d+)/\1 · hand \d+ · the end of the record")
    check_screen(tmux.screen("r"), report.match)
    tmux.keys("r", "q")
    tmux.wait_for("r", r"EXIT 0")


@in_tmux
def test_a_tampered_record_opens_at_its_failing_envelope(records: dict[str, Path], tmux: Tmux) -> None:
    honest = verify_file(str(records["host"]))
    assert honest.match is not None
    _, entries = read_record(records["host"])
    hosts = [e for e in entries if e.kind == KIND_HOST]
    before = sum(1 for e in hosts[:TAMPERED_AT - 1] if parse_envelope(e.data, host=True).type == "ActionAccepted")
    replay(tmux, records["tampered"])
    tmux.wait_for("r", r"Record: FAILED")
    tmux.wait_for("r", rf"envelope {TAMPERED_AT} \(\w+\): the host's signature does not verify")
    found = tmux.wait_for("r", rf"Step {before}/{before} · hand \d+ · the record fails at envelope {TAMPERED_AT}: "
                          r"the replay stops here")
    assert found
    check_screen(tmux.screen("r"), engine_after(honest.match, before))
    tmux.keys("r", "Right")  # nothing beyond the failure
    tmux.keys("r", "q")
    tmux.wait_for("r", r"EXIT 1")


@in_tmux
def test_a_trustless_record_shows_the_unopened_cards_sealed(records: dict[str, Path], tmux: Tmux) -> None:
    report = verify_file(str(records["trustless"]))
    assert report.verdict == "verified" and isinstance(report.match, PublicMatch)
    replay(tmux, records["trustless"])
    tmux.wait_for("r", r"Step 0/")
    for step in range(1, 6):
        tmux.keys("r", "Right")
        tmux.wait_for("r", rf"Step {step}/")
        check_screen(tmux.screen("r"), engine_after(report.match, step), trustless=True)
    screen = tmux.screen("r")
    assert SEALED in "\n".join(rows(screen)["cards"]) and "sealed: a trustless card nobody opened" in screen


@pytest.mark.parametrize("name, said", [
    ("missing.wrec", "no such file"), ("", "a folder, not a record"),
    ("garbage.wrec", "is not a watten-net game record"),
])
def test_what_is_no_record_gets_one_line(tmp_path: Path, name: str, said: str) -> None:
    (tmp_path / "garbage.wrec").write_bytes(b"\x00\x01not a record\x1b[31m")
    done = subprocess.run([sys.executable, "-m", "client.replay", str(tmp_path / name)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and said in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and "\x1b" not in done.stderr and done.stdout == ""
