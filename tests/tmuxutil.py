"""Driving the terminal client like a person: tmux send-keys and capture-pane, polling with deadlines."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def have_tmux() -> bool:
    return shutil.which("tmux") is not None


@dataclass
class Tmux:
    """An isolated tmux server (its own socket), killed at the end: the developer's tmux is never touched."""

    socket: str
    env: dict[str, str]

    @classmethod
    def start(cls, tmp: Path) -> Tmux:
        env = {
            "PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "TERM": "xterm-256color", "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8", "WATTEN_CONFIG_DIR": str(tmp / "config"), "WATTEN_DATA_DIR": str(tmp / "data"),
            "PYTHONUNBUFFERED": "1",
        }
        return cls(f"watten-test-{os.getpid()}-{int(time.monotonic() * 1000) % 100000}", env)

    def run(self, *args: str) -> str:
        result = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, env=self.env,
                                timeout=30, check=False)
        return result.stdout

    def new(self, name: str, command: list[str], width: int = 110, height: int = 34,
            env: dict[str, str] | None = None) -> None:
        line = " ".join(_quote(part) for part in command)
        if env:
            line = "env " + " ".join(f"{k}={_quote(v)}" for k, v in env.items()) + " " + line
        self.run("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), f"cd {ROOT} && {line}")
        self.run("set-option", "-t", name, "status", "off")

    def keys(self, name: str, *keys: str, literal: bool = False) -> None:
        self.run("send-keys", "-t", name, *(["-l"] if literal else []), *keys)

    def screen(self, name: str) -> str:
        return self.run("capture-pane", "-p", "-J", "-t", name)

    def wait_for(self, name: str, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen(name)
            if (m := regex.search(screen)) is not None:
                return m
            time.sleep(0.1)
        raise AssertionError(f"{pattern!r} not on screen {name!r} within {timeout}s:\n{screen}")

    def wait_until(self, name: str, holds: Callable[[str], object], what: str, timeout: float = 60.0) -> str:
        """Poll until `holds(screen)` is true of one whole screen; returns that screen. For a state that takes more than
        one pattern to tell (a redraw after a resize: tmux shows the old rows rewrapped, then a blank screen, then the
        client's rows as they come), where a screen read once may be one from the middle."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen(name)
            if holds(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"not on screen {name!r} within {timeout}s: {what}:\n{screen}")

    def resize(self, name: str, width: int, height: int) -> None:
        self.run("resize-window", "-t", name, "-x", str(width), "-y", str(height))

    def kill(self) -> None:
        self.run("kill-server")


def _quote(part: str) -> str:
    return "'" + part.replace("'", "'\\''") + "'" if re.search(r"[^\w@%+=:,./-]", part) else part


def python(module: str, *args: str) -> list[str]:
    return [sys.executable, "-m", module, *args]


# ---- the terminal client's own screen (English), as a person reads and answers it
PLAY = r"Your turn: (choose a card|Enter plays your last card)"


def prompt(screen: str) -> str:
    """The bottom of the screen, where the seat's hand and what is asked of it are (a prompt may wrap onto a second
    row): the rows above the message line and the command line, joined."""
    lines = [line.strip() for line in screen.rstrip().splitlines() if line.strip()]
    return " ".join(lines[-5:-2])


def answer_whatever_is_asked(tmux: Tmux, name: str, state: dict[str, int]) -> bool:
    """Press the key a player would press for the question on screen; False when nothing is asked of us."""
    screen = tmux.screen(name)
    asked = prompt(screen)
    if "At the cut you see" in asked:
        tmux.keys(name, "n")
    elif "You cut the deck" in asked:  # (trustless deals: the cutter cuts live; Enter cuts anywhere)
        tmux.keys(name, "Enter")
    elif "Your turn: name the Schlag" in asked:
        tmux.keys(name, "o")
    elif "Your turn: name Trumpf" in asked:
        tmux.keys(name, "l")
    elif "? [y] / [n]" in asked:
        tmux.keys(name, "n")
    elif "[y] accept" in asked:
        tmux.keys(name, "y")
    elif re.search(PLAY, asked) and re.search(r"Your cards:\s+1:", screen):
        # Try the cards in order (a digit chooses, Enter plays): a refused one leaves a reason on screen and we
        # try the next.
        state["card"] = state.get("card", 0) % 5 + 1
        tmux.keys(name, str(state["card"]), "Enter")
    else:
        return False
    return True
