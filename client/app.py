"""The full-screen table (prompt-toolkit): what a person sees and presses, on top of a `Connection`.

The screen reads the seat's TableView through `viewmodel` at render time; key handlers only change the
screen's own state or send an action. The stream runs as a background task of the application and
reconnects by itself; a refused action shows the host's reason in words and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, cast

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, Float, FloatContainer, HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame, TextArea

from watten_net.engine import normalise_action
from watten_net.verify import verify_entries

from . import viewmodel as vm
from .connection import Connection, HostBrokeProtocol, Refused
from .i18n import Words

STYLE = Style.from_dict({
    "title": "bold reverse", "fingerprint": "bold", "ok": "ansigreen bold", "error": "ansired bold",
    "dim": "ansibrightblack", "heading": "bold underline", "active": "ansiyellow bold", "you": "bold",
    "alert": "ansimagenta bold", "label": "", "value": "bold", "score": "", "key": "ansicyan",
    "suit.h": "ansired", "suit.s": "ansiyellow", "suit.e": "ansibrightblack", "suit.l": "ansigreen",
    "seat": "",
})
CONFIRM = {"fold", "concede"}


class HostControls:
    """What the host's own person may do in the lobby (add a bot, start): calls into the Table directly."""

    def __init__(self, add_bot: Callable[[], Awaitable[None]], start: Callable[[], Awaitable[None]],
                 toggle_deal: Callable[[], Awaitable[None]] | None = None,
                 end_match: Callable[[], Awaitable[None]] | None = None) -> None:
        self.add_bot = add_bot
        self.start = start
        self.toggle_deal = toggle_deal  # verified <-> trustless, before the game starts
        # The host's person leaves: the match ends (abandoned) before the screen closes, so that this seat's record
        # and the host's carry the end, the host's key and this seat's signature of the closing checkpoint
        self.end_match = end_match
        self.vacate: Callable[[int], Awaitable[None]] | None = None  # [x] N: free seat N (a bot's, an absent one's)
        self.swap: Callable[[int, int], Awaitable[None]] | None = None  # [m] N M: swap two seats
        self.typed = ""  # [x] or [m] and the seat digits typed after it so far

    def call_for(self, key: str) -> Callable[[], Awaitable[None]] | None:
        """The host call a key makes in the lobby, once its seats are typed (None: nothing to call yet)."""
        simple = {"b": self.add_bot, "s": self.start, "d": self.toggle_deal}
        if not self.typed and key in simple:
            return simple[key]
        if (not self.typed and key in ("x", "m")) or (self.typed and key.isdigit()):
            self.typed += key
        else:
            self.typed = ""
        seats = [int(c) for c in self.typed[1:]]
        vacate, swap = self.vacate, self.swap
        if self.typed[:1] == "x" and len(seats) == 1 and vacate is not None:
            self.typed = ""
            return lambda: vacate(seats[0])
        if self.typed[:1] == "m" and len(seats) == 2 and swap is not None:
            self.typed = ""
            return lambda: swap(seats[0], seats[1])
        return None


async def play_again(table: TableApp) -> None:
    """[n] after a match: ask for another at this table (docs/protocol.md "Play again"); the stream then follows the
    table into it, with a new record."""
    try:
        await table.conn.again()
    except Refused as err:
        table.state.message = f"{table.words['refused']}: {table.words.reason(err.reason, err.message)}"
        return
    view, words = table.state.view, table.words
    seats = view.table.seats if view is not None else []
    others = [x.name for x in seats if not x.bot and not x.ready and x.seat != view.your_seat]
    table.state.message = f"{words['again_waiting']} {', '.join(others)} …" if others else ""
    table.finished = False
    table._ended.clear()
    await table.follow()


def ends_the_match(table: TableApp) -> bool:
    """The host's own person leaving now ends the match for everyone (a match is under way)."""
    view, controls = table.state.view, table.host_controls
    playing = view is not None and view.table.phase not in (vm.MATCH_OVER, vm.ABANDONED) and bool(
        view.game_fingerprint)
    return controls is not None and controls.end_match is not None and not table.finished and playing


class TableApp:
    """The full-screen terminal table (prompt-toolkit): draws the view model of a `Connection` and reads commands."""

    def __init__(self, conn: Connection, words: Words, *, host_controls: HostControls | None = None,
                 lobby_lines: list[str] | None = None) -> None:
        self.conn = conn
        self.words = words
        self.host_controls = host_controls
        self.state = vm.ScreenState(lobby_lines=lobby_lines or [], host_controls=host_controls is not None)
        self.command = TextArea(height=1, prompt="> ", multiline=False, accept_handler=self._command)
        self.app: Application[int] = Application(
            layout=self._layout(), key_bindings=self._keys(), style=STYLE, full_screen=True, mouse_support=False,
            refresh_interval=1.0,  # the "offline 0:37" clocks of absent seats tick
        )
        self.finished = False
        self.judged: Any = None  # the game whose deal `deal_status` speaks of
        self._ended = asyncio.Event()  # the table's stream has ended (the match is over and every entry is in)

    # ------------------------------------------------------------------ layout
    def _pane(self, render: Callable[[], vm.Fragments], **window: Any) -> Window:
        # Each pane is as tall as its content; what is left over stays empty at the bottom. `vm.safe`: whatever a
        # pane holds from the host reaches the terminal escaped, never raw.
        window.setdefault("dont_extend_height", True)
        return Window(FormattedTextControl(cast(Any, lambda: vm.safe(render()))), wrap_lines=True, **window)

    def _layout(self) -> Layout:
        s, w = self.state, self.words
        in_game = Condition(lambda: s.view is not None and bool(s.view.game_fingerprint) and s.view.dealer >= 0)
        in_lobby = ~in_game

        def need_view(render: Callable[[Any], vm.Fragments]) -> Callable[[], vm.Fragments]:
            return lambda: render(s.view) if s.view is not None else []

        table = HSplit([
            self._pane(need_view(lambda v: vm.seats_pane(v, w))),
            Window(height=1),
            self._pane(need_view(lambda v: vm.trick_pane(v, s, w))),
            Window(height=1),
            self._pane(need_view(lambda v: vm.status_pane(v, w))),
            self._pane(need_view(lambda v: vm.scores_pane(v, w))),
        ])
        lobby = self._pane(lambda: vm.lobby(s, w) if s.view is not None else [("", "…")])
        # The hand is where the keyboard is when the command line is not: it holds the focus.
        self.hand_window = Window(
            FormattedTextControl(cast(Any, need_view(lambda v: vm.safe(vm.hand_pane(v, s, w)) if v.your_hand else [])),
                                 focusable=True, show_cursor=False),
            height=2, wrap_lines=True,
        )
        body = HSplit([
            self._pane(lambda: vm.header(s, w)),
            ConditionalContainer(table, filter=in_game),
            ConditionalContainer(lobby, filter=in_lobby),
            Window(),  # the space left over
            self.hand_window,
            self._pane(need_view(lambda v: vm.prompt_line(v, s, w)), height=1),
            self._pane(lambda: [("class:error", s.message)] if s.message else [("class:dim", w["help_hint"])],
                       height=1),
            self.command,
        ])
        help_box = Frame(self._pane(lambda: [("", w.help())]), title="?")
        return Layout(FloatContainer(body, floats=[
            Float(ConditionalContainer(help_box, filter=Condition(lambda: s.show_help)), top=2, left=2),
        ]), focused_element=self.hand_window)

    # ------------------------------------------------------------------ keys
    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        s = self.state
        typing = has_focus(self.command)
        playing = ~typing

        @kb.add("c-c")
        def _quit_now(event: KeyPressEvent) -> None:
            """Leave at once."""
            event.app.exit(result=130)

        @kb.add("escape", eager=True)
        def _escape(event: KeyPressEvent) -> None:
            """Close help, cancel a question, leave the command line."""
            s.show_help = False
            s.confirm = ""
            self.command.text = ""
            event.app.layout.focus(self.hand_window)

        @kb.add("left", filter=playing)
        def _left(event: KeyPressEvent) -> None:
            """Previous card."""
            s.cursor = max(0, s.cursor - 1)

        @kb.add("right", filter=playing)
        def _right(event: KeyPressEvent) -> None:
            """Next card."""
            if s.view is not None:
                s.cursor = min(len(s.view.your_hand) - 1, s.cursor + 1)

        @kb.add("enter", filter=playing)
        @kb.add("space", filter=playing)
        def _play(event: KeyPressEvent) -> None:
            """Play the chosen card."""
            self._play_cursor()

        @kb.add(":", filter=playing)
        def _command_line(event: KeyPressEvent) -> None:
            """Type an action in RULES.md notation."""
            event.app.layout.focus(self.command)

        @kb.add("<any>", filter=playing)
        def _key(event: KeyPressEvent) -> None:
            """Context keys: answers, announcement, raise/accept/fold, cards by number, help."""
            self._on_key(event.data)

        return kb

    def _on_key(self, key: str) -> None:
        s = self.state
        s.message = ""
        if s.confirm:
            action, s.confirm = s.confirm, ""
            if key.lower() == "y":
                if action in ("quit", "quit_host"):
                    self._leave(0)
                else:
                    self.act(action)
            return
        if key == "?":
            s.show_help = not s.show_help
            return
        # The moment's own keys first: while trump is named, 'l' is Laub, not the last trick.
        mapped = vm.keymap(s.view).get(key)
        if mapped is not None:
            if mapped in CONFIRM:
                s.confirm = mapped
            else:
                self.act(mapped)
            return
        if key == "q":
            s.confirm = "quit_host" if ends_the_match(self) else "quit"  # the host's person: for everyone
            return
        if key == "n" and self.finished and s.view is not None and s.view.table.phase in (vm.MATCH_OVER, vm.ABANDONED):
            get_app().create_background_task(play_again(self))  # another match at this table
            return
        if key == "i" and s.view is not None and s.view.legal_actions:
            get_app().create_background_task(self._hint(s.view))
            return
        if key == "l":
            s.show_last = not s.show_last
            return
        if key == "g":
            self.command.text = "signal "
            self.command.buffer.cursor_position = len(self.command.text)
            get_app().layout.focus(self.command)
            return
        if self.host_controls is not None and s.view is not None and (not s.view.game_fingerprint or self.finished):
            call = self.host_controls.call_for(key)
            if call is not None or self.host_controls.typed:
                if call is not None:
                    get_app().create_background_task(self._host_call(call))
                return
        if key.isdigit() and s.view is not None:
            index = int(key) - 1
            if 0 <= index < len(s.view.your_hand):
                s.cursor = index
                self._play_cursor()

    def _play_cursor(self) -> None:
        view = self.state.view
        if view is None:
            return
        cuts = [a for a in view.legal_actions if a.startswith("cut ")]
        if cuts:  # (a trustless deal: the cutter cuts live) Enter cuts at a random place, like a quick hand
            self.act(secrets.choice(cuts))
            return
        if not view.your_hand:
            return
        cards = vm.my_hand(view)
        self.state.cursor = min(self.state.cursor, len(cards) - 1)
        self.act(f"play {cards[self.state.cursor]}")

    def _command(self, buffer: Any) -> bool:
        text = buffer.text.strip()
        get_app().layout.focus(self.hand_window)
        if not text:
            return False
        if text in ("help", "?"):
            self.state.show_help = True
        elif text in ("quit", "exit"):
            self._leave(0)
        else:
            self.act(normalise_action(text))
        return False

    # ------------------------------------------------------------------ actions and the stream
    def act(self, action: str) -> None:
        get_app().create_background_task(self._act(action))

    async def _act(self, action: str) -> None:
        try:
            await self.conn.act(action)
        except Refused as err:
            self.state.message = f"{self.words['refused']}: {self.words.reason(err.reason, err.message)}"
        self.app.invalidate()

    async def _hint(self, view: Any) -> None:
        """What the strong bot would do from this seat's own view (it sees nothing more), and its chance."""
        from watten_net.bots import BotView
        from watten_net.bots.strong import hint

        self.state.message = self.words["thinking"]
        self.app.invalidate()
        action, chance = await asyncio.to_thread(hint, BotView.from_table_view(view))
        if action is None:
            self.state.message = self.words["no_hint"]
        else:
            odds = f" ({self.words['chance'].format(pct=round(chance * 100))})" if chance is not None else ""
            self.state.message = f"{self.words['hint']}: {action}{odds}"
        self.app.invalidate()

    def _leave(self, result: int) -> None:
        """Close the screen; the host's own person first ends the match and follows its stream to the end (a few
        seconds at most), so both records are whole."""
        end_match = self.host_controls.end_match if self.host_controls is not None else None
        if end_match is None or not ends_the_match(self):
            self.app.exit(result=result)
            return

        async def end_then_exit() -> None:
            with contextlib.suppress(Exception):
                await end_match()
                await asyncio.wait_for(self._ended.wait(), 5.0)
            self.app.exit(result=result)

        self.app.create_background_task(end_then_exit())

    async def _host_call(self, call: Callable[[], Awaitable[None]]) -> None:
        try:
            await call()
        except Exception as err:  # a lobby refusal (table full, ...) is shown, never a crash
            self.state.message = str(getattr(err, "message", err))
        self.app.invalidate()

    def _dispute(self, says: str) -> None:
        self.state.dispute = says
        self.app.invalidate()

    async def follow(self) -> None:
        s = self.state
        self.conn.on_dispute = self._dispute
        try:
            async for view in self.conn.follow(on_state=self._connection_state):
                s.view = view
                if view is not None and view.your_hand:
                    s.cursor = min(s.cursor, len(view.your_hand) - 1)
                self._judge_deal()
                self.app.invalidate()
        except HostBrokeProtocol as err:
            s.deal_status = str(err)
        except Refused as err:
            s.message = f"{self.words['refused']}: {self.words.reason(err.reason, err.message)}"
        s.connection = "connected"  # (no longer trying: the header drops "reconnecting" / "the host has left")
        self.finished = True
        self._ended.set()
        s.message = s.message or f"{self.words['again']} · {self.words['again_waiting']} " + ", ".join(
            x.name for x in (s.view.table.seats if s.view else []) if not x.bot and not x.ready)
        self.app.invalidate()

    def _connection_state(self, state: str) -> None:
        self.state.connection = state
        self.app.invalidate()

    def _judge_deal(self) -> None:
        """The seat's own verdict on the deal, from its own record, once the seeds are revealed."""
        game = self.conn.game
        if game is None:
            return
        if game is not self.judged:  # another match at this table (play_again): its own verdict
            self.judged, self.state.deal_status, self.state.message = game, "", ""
        if game.problems:
            self.state.deal_status = game.problems[0]
            return
        # PROTOCOL.md step 10: until k_H arrives, decks that matched their seals are "consistent", never "verified"
        self.state.deal_consistent = game.verified is not None and game.verified.decks_checked > 0
        view = self.state.view
        if view is not None and view.table.phase in (vm.MATCH_OVER, vm.ABANDONED) and not self.state.deal_status:
            from watten_net.record import Entry

            report = verify_entries([Entry(e.kind, e.data) for e in game.record])
            if report.errors:
                self.state.deal_status = report.errors[0].sentence()
            else:
                self.state.deal_status = "verified" if report.verdict == "verified" else "; ".join(report.notes)

    async def run(self) -> int:
        self.app.create_background_task(self.follow())
        result = await self.app.run_async()
        return int(result or 0)

