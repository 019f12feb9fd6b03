"""A hostile host calls a connected person away the moment it posts the checkpoint they owe: their screen says so at
once (PROTOCOL.md "Disputes": "the host says you are away, but you are connected: it may be cheating").

Real processes: the host is the real one changed at run time (tests/cheating_host.py `away-owing`); the person's
`watten-join` runs in tmux at 80x24 and is played by keys like a person (test_tui_story.Player) through the first
hand, whose end brings the checkpoint.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from test_tui_story import Player

from netutil import isolated_env, start
from tmuxutil import Tmux, have_tmux, python

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.network,
    pytest.mark.skipif(not have_tmux(), reason="tmux is not installed (.ci/run installs it)"),
]

WARNING = re.compile(r"DISPUTE: the host says this seat is away, but it is connected and had owed its "
                     r"CheckpointSignature for only \d+\.\d s of the 30 s step timeout: it may be cheating")


def test_a_person_called_away_with_a_checkpoint_they_owe_is_warned_on_screen(tmp_path: Path, tmux: Tmux) -> None:
    env = isolated_env(tmp_path / "host")
    env["WATTEN_CHEAT"] = "away-owing"
    host = start("tests.cheating_host", ["--port", "0", "--bind", "127.0.0.1", "--headless", "--insecure",
                                         "--players", "2", "--bots", "1", "--bot-delay", "0.1", "--set", "target=15",
                                         "--step-timeout", "30"], env)
    try:
        port = int(host.wait_for_line(r"on port (\d+)").group(1))
        tmux.new("join", python("client.main", "--insecure", "--lang", "en", "--name", "Vroni", f"127.0.0.1:{port}"),
                 width=80, height=24)
        vroni = Player(tmux, "join")
        deadline = time.monotonic() + 180
        screen = ""
        while time.monotonic() < deadline:
            screen = " ".join(vroni.step().split())  # (the warning wraps at 80 columns)
            if WARNING.search(screen):
                break
            time.sleep(0.2)
        assert WARNING.search(screen), tmux.screen("join")
        assert all(len(line) <= 80 for line in tmux.screen("join").splitlines())
    finally:
        host.stop()
