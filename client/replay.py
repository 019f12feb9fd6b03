"""`watten-replay RECORD`: a recorded match, move by move, drawn with the live table's own panes.

The record is verified first, through the same sans-I/O path as `watten-verify` (`verify_file`): the screen opens
with its verdict. The match is then replayed by the rules engine (client/replay_steps.py): a Level 1 record's every
hand recomputed from the revealed seeds, a trustless record's opened cards. A record that fails is replayed up to
the envelope before its first problem (`replay_before`) and opens there; one whose match was stopped early replays
as far as it goes. Each step becomes the live table's `TableView` (client/replay_view.py) and its events feed the
live table log (client/story.py), so the screen reads as the table did. A file that is not a record gets one line
and an exit code, as `watten-verify` gives it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import ConditionalContainer, Float, FloatContainer, HSplit, Layout
from prompt_toolkit.widgets import Frame

from watten_net.cardwords import LANGS, RANK_DE, SUIT_DE, default_lang
from watten_net.engine.events import EventKind
from watten_net.printable import visible
from watten_net.record import RecordError, read_record
from watten_net.record_words import stand_in_events
from watten_net.verify import EXIT_CODES, FAILED, NO_SUCH_FILE, STATUS, Report, replay_before, verify_file

from . import log_view
from . import viewmodel as vm
from .i18n import Words
from .replay_steps import Step, next_index, steps_of
from .replay_view import hands_pane, step_events, step_view
from .replay_words import said
from .screen_layout import pane, scrolled, word_wrap
from .screen_style import STYLE
from .story import Story

UNREADABLE = 1  # watten-verify's exit code for a record that fails or cannot be read


class Replay:
    """The replay's state: the steps, where the screen is, and the table log told up to there."""

    def __init__(self, report: Report, steps: list[Step], words: Words) -> None:
        self.report, self.steps, self.words = report, steps, words
        self.owner = report.seat
        self.state = vm.ScreenState(story=Story(words))
        self.at = -1  # the step shown (the story has been told up to it)
        self.show_help = False
        self.stand_in = _stand_in_steps(report, steps)

    def go(self, index: int) -> None:
        """Show step `index`: the story is told on from where it is, or told again from the start (going back)."""
        index = max(0, min(index, len(self.steps) - 1))
        if index < self.at:
            self.state.story, self.at = Story(self.words), -1
        story = self.state.story
        assert story is not None
        while self.at < index:
            self.at += 1
            view = self._view(self.at)
            story.events(step_events(self.steps[self.at]), view)
        self.state.view = self._view(index)
        if not self.steps[index].ends_trick():
            story.last_trick = None  # (the live table keeps a won trick a while; a replay shows it at its move only)

    def _view(self, index: int) -> Any:
        r = self.report
        return step_view(self.steps[index], r.names, r.bots, self.owner, r.fingerprint)

    def move(self, key: str) -> None:
        """A key's move: n/b one step, ]/[ a trick, PgDn/PgUp a hand, Home/End the first and the last."""
        at, steps = self.at, self.steps
        targets: dict[str, Callable[[], int]] = {
            "next": lambda: at + 1, "back": lambda: at - 1, "first": lambda: 0, "last": lambda: len(steps) - 1,
            "trick+": lambda: next_index(steps, at, True, "trick"),
            "trick-": lambda: next_index(steps, at, False, "trick"),
            "hand+": lambda: next_index(steps, at, True, "hand"),
            "hand-": lambda: next_index(steps, at, False, "hand"),
        }
        self.go(targets[key]())

    # ------------------------------------------------------------------ what the screen shows
    def header(self, width: int = 80) -> vm.Fragments:
        """The game and `watten-verify`'s verdict on the record (narrow: without the program's name), and what the
        verdict is about: a note, or the first problem."""
        r, w = self.report, self.words
        good = r.verdict != FAILED
        out: vm.Fragments = [("class:title", " watten-replay ")] if width >= 76 else []
        out += [("class:fingerprint", f" {w['game']} {visible(r.fingerprint)}"),
                             ("class:ok" if r.verdict == "verified" else "class:error",
                              f" · {said(w.lang, 'record')}: {said(w.lang, r.verdict)}")]
        for note in r.notes[:1]:
            out.append(("class:dim", f"\n {visible(note)}"))
        if not good and r.errors:
            out.append(("class:error", f"\n {visible(r.errors[0].sentence())}"))
        return out

    def step_line(self) -> vm.Fragments:
        """Where the replay is: the step and hand, and at the last step why the record ends there."""
        w, at, last = self.words, self.at, len(self.steps) - 1
        step = self.steps[at]
        text = said(w.lang, "step").format(at=at, of=last) + " · " + said(w.lang, "hand").format(hand=step.hand + 1)
        if at == 0:
            text += f" · {said(w.lang, 'start')}"
        elif at == last:
            text += f" · {self._end_words()}"
        elif step.action.startswith("play ") and self.state.view is not None:  # (the card by its name, as the hand)
            card = step.action[5:]
            name = w.card_name(card).split(" — ")[0] if card[:1] in SUIT_DE and card[1:] in RANK_DE else ""
            who = vm.seat_name(self.state.view, step.seat, w)
            text += " · " + said(w.lang, "plays").format(who=who, card=w.card_short(card), name=name)
        if at in self.stand_in:
            text += said(w.lang, "stand_in")
        style = "class:error" if at == last and self.report.verdict == FAILED else "class:dim"
        return [(style, text)]

    def _end_words(self) -> str:
        r, lang = self.report, self.words.lang
        failing = r.errors[0].envelope if r.errors and r.verdict == FAILED else 0
        if failing:
            return said(lang, "failed_here").format(n=failing)
        return said(lang, "stopped") if not self.steps[-1].match.is_over else said(lang, "end")

    def alert(self, view: Any) -> vm.Fragments:
        """The moment's news as the live table shows it; a move that ends a hand shows the hand's result."""
        story = self.state.story
        if story is not None and story.result and any(e.kind == EventKind.HAND_END for e in self.steps[self.at].events):
            return [("class:ok", f"{visible(story.result)}\n")]
        return vm.alert_line(view, self.state, self.words)

    def hands(self) -> vm.Fragments:
        out = hands_pane(self.steps[self.at], self.state.view, self.words)
        if "▒▒" in "".join(text for _, text in out):
            out.append(("class:dim", said(self.words.lang, "sealed") + "\n"))
        return out


def _stand_in_steps(report: Report, steps: list[Step]) -> set[int]:
    """The steps whose move the reference stand-in made for a seat that was away (as `watten-verify --show` marks
    them): the steps' events, one after the other, are the match's events."""
    marked = stand_in_events([e for step in steps for e in step.events], report.moves)
    out, first = set(), 0
    for index, step in enumerate(steps):
        if any(first <= i < first + len(step.events) for i in marked):
            out.add(index)
        first += len(step.events)
    return out


def replay_layout(replay: Replay) -> Layout:
    """The live table's panes from the top (status, seats, the moment's news, the score), every seat's cards, the
    table log in the rows left, the step line and the keys; the help floats over it."""
    s, w = replay.state, replay.words

    def need_view(render: Any) -> Any:
        return lambda: render(s.view) if s.view is not None else []

    body = HSplit([
        pane(lambda: replay.header(_columns())),
        pane(need_view(lambda v: vm.status_pane(v, w))),
        pane(need_view(lambda v: vm.seats_pane(v, w, s, _columns()))),
        pane(need_view(replay.alert)),
        pane(need_view(lambda v: vm.scores_pane(v, w, _columns()))),
        pane(replay.hands),
        scrolled(lambda: log_view.log_pane(s, _columns()), lambda: 0),
        pane(replay.step_line),
        pane(lambda: [("class:key", said(w.lang, "keys"))]),
    ])
    # (wrapped to the frame's inside: the screen's width less the float's margins and the frame's borders)
    help_box = Frame(pane(lambda: word_wrap([("", said(w.lang, "help"))], _columns() - 4)), title="? · Esc")
    root = FloatContainer(body, floats=[
        Float(ConditionalContainer(help_box, filter=Condition(lambda: replay.show_help)), top=1, left=1, right=1)])
    return Layout(root)


def _columns() -> int:
    return int(get_app().output.get_size().columns)


def replay_keys(replay: Replay) -> KeyBindings:
    kb = KeyBindings()
    moves = {"next": ("right", "n", " "), "back": ("left", "b"), "trick+": ("]",), "trick-": ("[",),
             "hand+": ("pagedown",), "hand-": ("pageup",), "first": ("home",), "last": ("end",)}
    for move, keys in moves.items():
        for key in keys:
            kb.add(key)(lambda event, move=move: _moved(replay, move))

    @kb.add("q")
    @kb.add("c-c")
    def _quit(event: Any) -> None:
        event.app.exit(result=0)

    @kb.add("?")
    @kb.add("escape")
    def _help(event: Any) -> None:
        replay.show_help = not replay.show_help if event.key_sequence[0].key == "?" else False

    return kb


def _moved(replay: Replay, move: str) -> None:
    replay.show_help = False
    replay.move(move)


# ---------------------------------------------------------------------------------------------------------------
def load(path: str) -> tuple[Report, list[Step]] | str:
    """The record's verdict and its steps, or the one line that says why there is nothing to replay."""
    report = verify_file(path)
    if Path(path).is_dir():
        return f"{visible(path)}: a folder, not a record (name one of its *.wrec files)"
    if report.errors and report.errors[0].reason in (NO_SUCH_FILE, "unreadable"):
        return f"{visible(path)}: {visible(report.errors[0].message)}"
    # (a record that fails is replayed up to its first problem, even when the verifier's replay got further: a
    # problem found after the replay, in the owner's own envelopes, still names the envelope the replay stops at)
    match = report.match if report.verdict != FAILED else None
    if match is None:
        try:
            _, entries = read_record(path)
        except (OSError, RecordError):
            entries = []
        match = replay_before(entries, report)
    if match is None:
        problem = report.errors[0].sentence() if report.errors else "nothing to replay"
        return f"{visible(path)}: {STATUS[report.verdict]}: {visible(problem)}"
    return report, steps_of(match)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="watten-replay", description="Step through a recorded match (a .wrec record of watten-host or "
        "watten-join) on the table's own screen, with every seat's cards as far as the record reveals them. It "
        "opens with watten-verify's verdict; the exit code is watten-verify's (1: the record fails or cannot be "
        "read).")
    parser.add_argument("record", metavar="RECORD", help="a .wrec file")
    parser.add_argument("--lang", choices=LANGS, default=default_lang(), help="language of the screen (default: "
                        "from the locale)")
    parser.add_argument("--suits", choices=("french", "german"), default="french", help="suit marks (as watten-join)")
    args = parser.parse_args(argv)
    loaded = load(args.record)
    if isinstance(loaded, str):
        print(loaded, file=sys.stderr)
        return UNREADABLE
    report, steps = loaded
    replay = Replay(report, steps, Words(args.lang, args.suits))
    replay.go(len(steps) - 1 if report.verdict == FAILED else 0)  # (a failed record opens at its failure)
    app: Application[int] = Application(layout=replay_layout(replay), key_bindings=replay_keys(replay), style=STYLE,
                                        full_screen=True, mouse_support=False)
    app.run()
    return EXIT_CODES[report.verdict]


def run() -> int:
    try:
        return main()
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(run())
