"""`watten-join --watch` and the table chat on the screen, as people use them: keys into tmux, the screens read back.

A host's person (Hanna) plays with three bots; a friend follows the table as a spectator at 80x24. Both screens say
who watches; the spectator has no hand and an action typed is refused in words; a line said with [t] reaches the
host's person's screen and the spectator's own.
"""

from __future__ import annotations

import pytest

from tmuxutil import Tmux, have_tmux, python

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(not have_tmux(), reason="tmux is not installed (.ci/run installs it)"),
]


def test_a_spectator_watches_at_80x24_and_says_a_line_everyone_reads(tmux: Tmux) -> None:
    tmux.new("host", python("host.main", "--port", "0", "--bind", "127.0.0.1", "--insecure", "--bots", "3",
                            "--autostart", "--lang", "en", "--name", "Hanna", "--bot-delay", "0.05",
                            "--no-announce"))
    port = tmux.wait_for("host", r"watten-join \S+:(\d+)").group(1)
    host_fp = tmux.wait_for("host", r"Game ([0-9a-f ]{19})").group(1)
    friend = {"WATTEN_CONFIG_DIR": tmux.env["WATTEN_CONFIG_DIR"] + "-zaungast"}
    tmux.new("watch", python("client.main", "--watch", "--insecure", "--lang", "en", "--name", "Zaungast",
                             f"127.0.0.1:{port}"), width=80, height=24, env=friend)
    assert tmux.wait_for("watch", r"Game ([0-9a-f ]{19})").group(1) == host_fp
    screen = tmux.wait_for("watch", r"Spectator\s+1 watching").string
    assert "Hanna" in screen and "(bot)" in screen and "Your cards" not in screen
    assert "(you)" not in screen  # nobody at the table is the spectator
    tmux.wait_for("host", r"1 watching")
    tmux.wait_for("host", r"Zaungast is watching")  # the log line on the players' screens
    # An action typed on the command line: refused in words, and nothing else changes.
    tmux.keys("watch", ":")
    tmux.keys("watch", "play HK", literal=True)
    tmux.keys("watch", "Enter")
    tmux.wait_for("watch", r"Not allowed: You are watching: spectators cannot play")
    # [t] opens the line for the table chat.
    tmux.keys("watch", "t")
    tmux.wait_for("watch", r"(?m)^> say")
    tmux.keys("watch", "Servus beinand, guat spielts!", literal=True)
    tmux.keys("watch", "Enter")
    tmux.wait_for("watch", r"Zaungast: Servus beinand, guat spielts!")
    tmux.wait_for("host", r"Zaungast: Servus beinand, guat spielts!")
    lines = tmux.screen("watch").splitlines()
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
