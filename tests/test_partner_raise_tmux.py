"""The terminal table while a host bot leaves the answer to a raise to its person (docs/rules-decisions.md): the
person is asked, and only their row is marked ▶; the bot partner's row is not, the whole time the question is open.
"""

from __future__ import annotations

import re
import time

import pytest

from tmuxutil import Tmux, answer_whatever_is_asked, have_tmux, prompt, python

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(not have_tmux(), reason="tmux is not installed (.ci/run installs it)"),
]

ASKED = "[y] accept"
LOOKS = 10  # screens read while the question stays open (a bot partner that answered would take it off at once)


def marked_to_act(screen: str) -> set[int]:
    """The seats whose row of the seats pane is marked ▶."""
    return {int(seat) for seat in re.findall(r"▶ (\d) ", screen)}


def until_asked_to_answer_a_raise(tmux: Tmux, name: str, timeout: float = 240.0) -> str:
    """Play like a person (cards, the announcement's questions; never a raise of our own) until the other side
    raises and we are asked to answer; that screen."""
    deadline = time.monotonic() + timeout
    state: dict[str, int] = {}
    while time.monotonic() < deadline:
        screen = tmux.screen(name)
        if ASKED in prompt(screen):
            return screen
        answer_whatever_is_asked(tmux, name, state)
        time.sleep(0.15)
    raise AssertionError(f"the other side never raised:\n{tmux.screen(name)}")


def test_the_bot_partners_row_has_no_arrow_while_it_leaves_the_raise_to_the_person(tmux: Tmux) -> None:
    tmux.new("host", python("host.main", "--port", "0", "--bind", "127.0.0.1", "--insecure", "--bots", "3",
                            "--autostart", "--lang", "en", "--bot-delay", "0.05"))
    tmux.wait_for("host", r"Game [0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4}")
    screen = until_asked_to_answer_a_raise(tmux, "host")
    seat = int(tmux.wait_for("host", r"(\d) Host \(you\)").group(1))
    partner = (seat + 2) % 4
    for _ in range(LOOKS):
        assert ASKED in prompt(screen), f"the question was answered without the person:\n{screen}"
        assert marked_to_act(screen) == {seat}, f"seat {partner} (the bot) is marked to act too:\n{screen}"
        time.sleep(0.1)
        screen = tmux.screen("host")
    tmux.keys("host", "y")
    tmux.wait_until("host", lambda shown: ASKED not in prompt(shown), "the raise accepted")
