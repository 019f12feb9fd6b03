"""The table's layout: what goes where on the screen, sized for 80x24 and down to 60x20.

From the top: the header; the Schlag, trump, stake and tricks line; a row per seat with the card it played; the
moment's news (the hand's result, a raise, who takes the trick); the score line; the table log, which takes every
row left over and shows its last lines; your hand; the prompt; the message line; the command line. Below 60x20 the
screen is one line asking for a larger window. The match's end replaces the table with the summary; `v` the log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from prompt_toolkit.application.current import get_app
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import ConditionalContainer, Dimension, Float, FloatContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.utils import get_cwidth
from prompt_toolkit.widgets import Frame

from . import log_view
from . import viewmodel as vm
from .i18n import Words
from .prompts import prompt_line

if TYPE_CHECKING:
    from .app import TableApp

TALL = 30  # rows from which the header's trust note and the rules line have room
COMPLETIONS_SHOWN = 8  # rows of the list of what Tab completes (it scrolls; 60x20 keeps the seats' rows above it)


def _size() -> tuple[int, int]:
    size = get_app().output.get_size()
    return size.columns, size.rows


def pane(render: Callable[[], vm.Fragments], **window: Any) -> Window:
    """A window as tall as its content; whatever it holds from the host reaches the terminal escaped (`vm.safe`)."""
    window.setdefault("dont_extend_height", True)
    return Window(FormattedTextControl(cast(Any, lambda: word_wrap(vm.safe(_no_last_newline(render())),
                                                                   _size()[0]))), wrap_lines=True, **window)


def word_wrap(fragments: vm.Fragments, width: int) -> vm.Fragments:
    """`fragments` with a line break put at the last space before each row would overflow `width` columns (a word
    longer than a row is left to the terminal's own wrapping). A key stays with what it does: no break after "]"
    (at 80x24 the Schlag prompt ended a row with "[b]" and began the next with "Bessere"), and no break inside a
    key's brackets (the end of a hand read "score 0–2  [any" / "key]")."""
    chars = [(style, ch) for style, text in fragments for ch in text]
    column, space, bracket = 0, -1, False
    for i, (_, ch) in enumerate(chars):
        if ch == "\n":
            column, space, bracket = 0, -1, False
            continue
        bracket = (bracket or ch == "[") and ch != "]"
        cells = get_cwidth(ch)
        if column + cells > width and space >= 0:
            chars[space] = (chars[space][0], "\n")
            column = sum(get_cwidth(c) for _, c in chars[space + 1:i])
            space = -1
        if ch == " " and not bracket and not (i and chars[i - 1][1] == "]"):
            space = i
        column += cells
    out: vm.Fragments = []
    for style, ch in chars:
        if out and out[-1][0] == style:
            out[-1] = (style, out[-1][1] + ch)
        else:
            out.append((style, ch))
    return out


def _no_last_newline(fragments: vm.Fragments) -> vm.Fragments:
    """A pane's last line break would show as an empty row."""
    if fragments and fragments[-1][1].endswith("\n"):
        style, text = fragments[-1]
        return [*fragments[:-1], (style, text[:-1])]
    return fragments


def scrolled(render: Callable[[], vm.Fragments], from_end: Callable[[], int]) -> Window:
    """A window that shows the end of its content, `from_end()` lines up (the cursor it keeps in view). It prefers
    no height at all: every other pane gets its rows first, this one takes what is left."""
    shown: list[vm.Fragments] = [[]]  # the content as last rendered

    def content() -> vm.Fragments:
        shown[0] = vm.safe(_no_last_newline(render()))
        return shown[0]

    def cursor() -> Point:
        # (of the content the control renders, not of a second render: a resize between the two wrapped it anew,
        # the cursor fell below its last line, and prompt_toolkit's layout failed with an IndexError, found resizing
        # under load)
        lines = sum(text.count("\n") for _, text in shown[0]) + 1
        return Point(0, max(0, lines - 1 - from_end()))

    control = FormattedTextControl(cast(Any, content), get_cursor_position=cursor, show_cursor=False)
    return Window(control, wrap_lines=True, height=Dimension(min=0, preferred=0))


def help_window(s: vm.ScreenState, w: Any) -> Window:
    """The help, wrapped to the window; taller than the screen, it scrolls with the arrows (`s.help_line`)."""
    control = FormattedTextControl(lambda: [("", log_view.wrapped_help(w, _size()[0] - 8))],
                                   get_cursor_position=lambda: Point(0, s.help_line), show_cursor=False)
    return Window(control, dont_extend_height=True, get_vertical_scroll=lambda window: s.help_line)


def table_layout(table: TableApp) -> Layout:
    s, w = table.state, table.words
    playing = Condition(lambda: in_game(s.view))
    over = Condition(lambda: log_view.match_over(s.view))
    reading = Condition(lambda: s.show_log)
    small = Condition(lambda: bool(log_view.too_small(*_size(), w)))

    def need_view(render: Callable[[Any], vm.Fragments]) -> Callable[[], vm.Fragments]:
        return lambda: render(s.view) if s.view is not None else []

    def tall() -> bool:
        return _size()[1] >= TALL

    game = HSplit([
        pane(need_view(lambda v: vm.status_pane(v, w))),
        pane(need_view(lambda v: vm.seats_pane(v, w, s, _size()[0]))),
        pane(need_view(lambda v: vm.alert_line(v, s, w))),
        pane(need_view(lambda v: vm.scores_pane(v, w, _size()[0])
                       + (vm.rules_line(v, w, s.signed_step_timeout) if tall() else []))),
        scrolled(lambda: log_view.log_pane(s, _size()[0]), lambda: 0),
    ])
    body = HSplit([
        pane(lambda: vm.header(s, w, tall=tall(), compact=_size()[0] < 76)),
        ConditionalContainer(game, filter=playing & ~over & ~reading),
        ConditionalContainer(scrolled(lambda: log_view.summary(s, w, s.story, _size()[0]), lambda: s.log_scroll),
                             filter=over & ~reading),
        ConditionalContainer(pane(lambda: vm.lobby(s, w) if s.view is not None else [("", "…")]),
                             filter=~playing & ~over & ~reading),
        ConditionalContainer(HSplit([pane(lambda: [("class:heading", w["log_title"])]),
                                     scrolled(lambda: log_view.full_log(s, _size()[0]), lambda: s.log_scroll)]),
                             filter=reading),
        ConditionalContainer(Window(), filter=~playing & ~over & ~reading),  # the space left over in the lobby
        ConditionalContainer(table.hand_window, filter=playing & ~over),
        pane(need_view(lambda v: prompt_line(v, s, w))),
        pane(lambda: message_line(s, w)),
        table.command,
    ])
    help_box = Frame(help_window(s, w), title="? · ↑ ↓ · Esc")
    # (the help box spans the whole width: at column 1 its border fell inside a Chinese character of the screen below,
    # which takes columns 0 and 1, and the terminal showed "本─────", "最  r 加注" without the box's left edge)
    screen = FloatContainer(body, floats=[
        Float(ConditionalContainer(help_box, filter=Condition(lambda: s.show_help)), top=1, left=0, right=0),
        # what Tab completes, listed over the table (found playing: [g] and Tab showed nothing, a second Tab put
        # "signal max" on the line, and the other signals' names were nowhere on the screen)
        Float(CompletionsMenu(max_height=COMPLETIONS_SHOWN, scroll_offset=1), xcursor=True, ycursor=True),
    ])
    notice = pane(lambda: [("class:error", str(log_view.too_small(*_size(), w)))])
    root = HSplit([ConditionalContainer(screen, filter=~small), ConditionalContainer(notice, filter=small)])
    return Layout(root, focused_element=table.hand_window)


def message_line(state: vm.ScreenState, words: Words) -> vm.Fragments:
    """The line under the prompt: the last message, else the looking keys. Not while a question asks [y/n]: after
    the match "Leave? [y/n]" stood over "[n] another match", and [n] only said no to leaving (found playing to the
    end at 80x24); the message is back once the question is answered."""
    if state.message and not state.confirm:
        return [("class:error", state.message)]
    at_table = in_game(state.view) or log_view.match_over(state.view)
    return [("class:dim", words["help_hint" if at_table else "lobby_hint"])]


def in_game(view: Any) -> bool:
    """Whether the table shows a hand (else the lobby: "p last trick" and the game's keys do nothing there)."""
    return view is not None and bool(view.game_fingerprint) and view.dealer >= 0
