"""The table's keys. Choosing is harmless, acting is explicit: digits and arrows choose a card, Enter or Space plays
it; a letter means one action only while that action is legal (client/prompts.py `keymap`); the keys that only look
(`p` the last trick, `v` the log, `?` help, `i` a hint) are never an action in any phase; fold, concede and leaving
ask first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition, Filter, has_focus
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from .log_view import full_log_rows, match_over, wrapped_help
from .prompts import keymap
from .viewmodel import ABANDONED, MATCH_OVER

if TYPE_CHECKING:
    from .app import TableApp
    from .i18n import Words

CONFIRM = {"fold", "concede"}
LOG_PAGE = 10


def bind_keys(table: TableApp) -> KeyBindings:
    kb = KeyBindings()
    s = table.state
    typing = has_focus(table.command)
    playing = ~typing
    _bind_scrolling(kb, table, Condition(lambda: s.show_log or match_over(s.view)) & playing)

    @kb.add("c-c")
    def _quit_now(event: KeyPressEvent) -> None:
        """Leave at once."""
        event.app.exit(result=130)

    @kb.add("escape", eager=True)
    def _escape(event: KeyPressEvent) -> None:
        """Close help or the log, cancel a question, leave the command line."""
        s.show_help = s.show_log = False
        s.confirm = ""
        table.command.text = ""
        event.app.layout.focus(table.hand_window)

    @kb.add("left", filter=playing)
    def _left(event: KeyPressEvent) -> None:
        """Previous card."""
        s.cursor = max(0, s.cursor - 1)

    @kb.add("right", filter=playing)
    def _right(event: KeyPressEvent) -> None:
        """Next card."""
        if s.view is not None:
            s.cursor = max(0, min(len(s.view.your_hand) - 1, s.cursor + 1))

    @kb.add("enter", filter=playing)
    @kb.add("space", filter=playing)
    def _play(event: KeyPressEvent) -> None:
        """Play the chosen card."""
        s.banner = ""
        if not s.confirm:
            table.play_cursor()

    @kb.add(":", filter=playing)
    def _command_line(event: KeyPressEvent) -> None:
        """Type an action in docs/rules.md notation, or a card as shown."""
        event.app.layout.focus(table.command)

    @kb.add("<any>", filter=playing)
    def _key(event: KeyPressEvent) -> None:
        """Context keys: answers, announcement, raise/accept/fold, cards by number, help."""
        on_key(table, event.data)

    return kb


def _bind_scrolling(kb: KeyBindings, table: TableApp, reading: Filter) -> None:
    """The whole log (and the end-of-match summary) scroll with the arrows and the page keys; so does the help."""
    s = table.state
    helping = Condition(lambda: s.show_help)

    @kb.add("up", filter=helping, eager=True)
    def _help_up(event: KeyPressEvent) -> None:
        """Scroll the help back."""
        s.help_line = max(0, s.help_line - 1)

    @kb.add("down", filter=helping, eager=True)
    def _help_down(event: KeyPressEvent) -> None:
        """Scroll the help on."""
        rows = len(wrapped_help(table.words, get_app().output.get_size().columns - 8).splitlines())
        s.help_line = min(rows - 1, s.help_line + 1)

    @kb.add("up", filter=reading)
    @kb.add("pageup", filter=reading)
    def _log_up(event: KeyPressEvent) -> None:
        """Scroll back."""
        step = LOG_PAGE if event.key_sequence[0].key == "pageup" else 1
        total = full_log_rows(s, get_app().output.get_size().columns)  # (rows: wrapped lines count each row)
        s.log_scroll = min(max(0, total - 1), s.log_scroll + step)

    @kb.add("down", filter=reading)
    @kb.add("pagedown", filter=reading)
    def _log_down(event: KeyPressEvent) -> None:
        """Scroll forward."""
        step = LOG_PAGE if event.key_sequence[0].key == "pagedown" else 1
        s.log_scroll = max(0, s.log_scroll - step)


def on_key(table: TableApp, key: str) -> None:
    s = table.state
    put_away, s.banner = bool(s.banner), ""  # any key puts the hand's result away
    if s.confirm:
        action, s.confirm = s.confirm, ""
        if key.lower() == "y":
            if action in ("quit", "quit_host"):
                table.leave(0)
            else:
                table.act(action)
        return
    if _looking(table, key):
        return
    mapped = keymap(s.view).get(key)
    if mapped is not None:
        if mapped in CONFIRM:
            s.confirm = mapped
        else:
            table.act(mapped)
        return
    if key == "q":
        s.confirm = "quit_host" if table.ends_the_match() else "quit"  # the host's person: for everyone
        return
    if key == "n" and table.finished and s.view is not None and s.view.table.phase in (MATCH_OVER, ABANDONED):
        get_app().create_background_task(table.play_again())  # another match at this table
        return
    if key in ("g", "t"):  # a signal, or a line of table chat: the command line with its start typed
        table.command.text = "signal " if key == "g" else "say "
        table.command.buffer.cursor_position = len(table.command.text)
        get_app().layout.focus(table.command)
        return
    if _host_key(table, key):
        return
    if key.isdigit() and s.view is not None and 0 < int(key) <= len(s.view.your_hand):
        s.cursor = int(key) - 1  # (choose only: Enter or Space plays it)
        return
    if len(key) == 1 and key.isprintable() and not key.isspace() and not put_away:
        # (not the key that put a hand's result away, as its "[any key]" asked: found playing, "[x] does nothing
        # now" answered the key the banner had asked for)
        # (a key that does nothing said nothing either: a newcomer pressing [e] while the Schlag is asked, not
        # Trumpf, could not tell a wrong key from a slow host)
        s.message = table.words["no_such_key"].format(key=key)


def _looking(table: TableApp, key: str) -> bool:
    """The keys that only show something: they never act, in any phase."""
    s = table.state
    if key == "?":
        s.show_help, s.help_line = not s.show_help, 0
    elif key == "p":
        s.show_last = not s.show_last
    elif key == "v":
        s.show_log, s.log_scroll = not s.show_log, 0
    elif key == "i":
        if s.view is not None and s.view.legal_actions:
            get_app().create_background_task(table.hint(s.view))
    else:
        return False
    return True


def _host_key(table: TableApp, key: str) -> bool:
    """The host's own person in the lobby (and after a match): add a bot, start, switch the deal, free or swap seats."""
    s, controls = table.state, table.host_controls
    if controls is None or s.view is None or (s.view.game_fingerprint and not table.finished):
        return False
    echoed = typed_so_far(controls.typed, table.words) if controls.typed else ""
    call = controls.call_for(key)
    if controls.typed:  # (found in the lobby: [m] 2 3 showed nothing till the seats moved, [m] alone looked dead)
        s.message = typed_so_far(controls.typed, table.words)
    elif echoed and s.message == echoed:
        s.message = ""
    if call is None and not controls.typed:
        return False
    if call is not None:
        get_app().create_background_task(table.host_call(call))
    return True


def typed_so_far(typed: str, words: Words) -> str:
    """The lobby's [x] N or [m] N M as typed so far: "[m] 2 … (seat numbers; any other key cancels)"."""
    return words["lobby_typed"].format(keys=" ".join([f"[{typed[0]}]", *typed[1:]]))
