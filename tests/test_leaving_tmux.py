"""No surprises on restart, and leaving is clear (issue 13 items 7 and 8), on the screens people see, in tmux.

* A host with a person at it is killed mid-match; started again with other options (`--players 4 --bots 3`), its
  screen names what it found (rules, players, score, when) and the options the resumed game overrides, and asks:
  [r] resumes the very game (the person is back in their seat), [n] keeps the old journal as abandoned and opens
  the new table.
* The host's person quits mid-match: asked "This ends the game for everyone" first; the joined `watten-join` then
  says "the host has left" (not "reconnecting"), and keeps its record.
"""

from __future__ import annotations

import fcntl
import os
import re
import signal
import socket
from pathlib import Path

import pytest

from netutil import journal_entries, wait_until
from tmuxutil import Tmux, have_tmux, python

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.network,
    pytest.mark.slow,
    pytest.mark.skipif(not have_tmux(), reason="tmux is not installed (.ci/run installs it)"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def running_host_pid(tmp: Path) -> int:
    """The pid of the host holding the journals' lock (host/journal.py `RunLock` writes it into the lock file)."""
    for path in (tmp / "data" / "journal").glob("*.lock"):
        found = re.match(r"pid (\d+)", path.read_text())
        if found:
            return int(found.group(1))
    raise AssertionError("no host holds a journal lock")


def kill_host(tmp: Path) -> None:
    """kill -9 the host that holds the journals, and wait until the OS has released its lock (it has died)."""
    os.kill(running_host_pid(tmp), signal.SIGKILL)

    def released() -> bool:
        for path in (tmp / "data" / "journal").glob("*.lock"):
            with path.open("rb") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return False
        return True

    wait_until(released, "the killed host's lock released", timeout=30)


def host_command(port: int, *args: str) -> list[str]:
    return python("host.main", "--insecure", "--port", str(port), "--bind", "127.0.0.1", "--no-announce",
                  "--name", "Hosti", "--lang", "en", "--bot-delay", "0.3", *args)


def test_a_restarted_host_asks_before_it_resumes_and_either_answer_does_what_it_says(tmux: Tmux,
                                                                                      tmp_path: Path) -> None:
    port = free_port()
    tmux.new("first", host_command(port, "--players", "2", "--bots", "1"), width=80, height=24)
    tmux.wait_for("first", r"Game [0-9a-f]{4} ")
    wait_until(lambda: len(journal_entries(tmp_path)) > 6, "the match under way")
    tmux.wait_for("first", r"Your cards:|At the cut you see", timeout=60)  # (a hand dealt: the restart names its score)
    fingerprint = tmux.wait_for("first", r"Game ((?:[0-9a-f]{4} ){3}[0-9a-f]{4})").group(1)
    kill_host(tmp_path)
    [journal] = (tmp_path / "data" / "journal").glob("*.wjournal")

    # Started again as the README's play command with other options: it says what it found and asks.
    for name in ("resume", "new"):
        tmux.new(name, host_command(port, "--players", "4", "--bots", "3"), width=80, height=24)
        screen = tmux.wait_for(name, r"\[r\] resume it, or \[n\] start the new game").string
        for said in (r"found an unfinished game", r"rules: +bavarian for 2 players", r"players: 0 Hosti, 1 ",
                     r"score: +\d+ : \d+ in hand \d+", r"left off \d{4}-\d\d-\d\d \d\d:\d\d",
                     r"--players 4 \(it has 2\)", r"--bots 3 \(it has 1\)"):
            assert re.search(said, screen), (said, screen)
        if name == "resume":
            tmux.keys(name, "r", "Enter")
            # The very game: its fingerprint, the person in their seat, two seats (not the four asked for now).
            screen = tmux.wait_for(name, re.escape(f"Game {fingerprint}")).string
            assert "Hosti (you)" in screen and "Team B" in screen, screen
            assert not re.search(r"^\s*[23] ", screen, re.M), screen
            kill_host(tmp_path)
            assert journal.exists()
        else:
            tmux.keys(name, "n", "Enter")
            # The new game this start asked for: four seats, three bots (it starts at once), another game.
            screen = tmux.wait_for(name, r"Team B \(1\+3\)").string
            assert fingerprint not in screen and len(re.findall(r"\(bot\)", screen)) >= 3, screen
            assert journal.with_suffix(".abandoned").exists() and not journal.exists()


def test_the_host_quitting_mid_match_is_asked_first_and_the_joined_player_sees_that_it_left(tmux: Tmux,
                                                                                            tmp_path: Path) -> None:
    port = free_port()
    # Two homes: the host's person and the joined person are two people with keys of their own.
    own = {"WATTEN_CONFIG_DIR": str(tmp_path / "host-config"), "WATTEN_DATA_DIR": str(tmp_path / "host-data")}
    tmux.new("host", host_command(port, "--players", "2"), width=80, height=24, env=own)
    tmux.wait_for("host", r"Seat 1 +\(free\)")
    tmux.new("join", python("client.main", "--insecure", "--name", "Gast", "--lang", "en", f"127.0.0.1:{port}"),
             width=80, height=24)
    tmux.wait_for("host", r"Seat 1 +Gast")
    tmux.keys("host", "s")
    tmux.wait_for("join", r"Game [0-9a-f]{4} ")
    tmux.keys("host", "q")
    tmux.wait_for("host", r"This ends the game for everyone\. Leave\? \[y/n\]")
    tmux.keys("host", "y")
    screen = tmux.wait_for("join", r"the host has left").string
    assert "reconnecting" not in screen, screen
    records = list((tmp_path / "data" / "records").glob("*-seat1.wrec"))
    assert records and records[0].stat().st_size > 0, "the joined player's record"
