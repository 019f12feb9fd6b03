"""The full-screen table (prompt-toolkit): what a person sees and presses, on top of a `Connection`.

The screen reads the seat's TableView through `viewmodel` at render time; key handlers only change the
screen's own state or send an action. The stream runs as a background task of the application and
reconnects by itself; a refused action shows the host's reason in words and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.layout import Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.widgets import TextArea

from watten_net.deal.protocol import seconds_text
from watten_net.printable import visible
from watten_net.refusal import Reason
from watten_net.verify import verify_entries

from . import log_view
from . import viewmodel as vm
from .again import follow_who_asks
from .away_claims import signed_step_timeout
from .check_words import own_check
from .commands import LegalCompleter, legal_of, to_action
from .connection import Connection, HostBrokeProtocol, Refused
from .i18n import Words
from .keys import bind_keys
from .prompts import action_words, deal_waits, table_waits
from .screen_layout import table_layout, word_wrap
from .screen_style import STYLE
from .stderr_aside import screen_fd, stderr_aside
from .story import Story

# Refusals of a move the table does not want from this seat now: shown with what the table waits for instead
OUT_OF_TURN = frozenset({Reason.NOT_NOW, Reason.NOT_YOUR_TURN})
# A move before the cards are all dealt (a trustless deal's shuffle or shares): what the deal waits for. Found
# playing: "Not allowed: cards are still being dealt: …", the host's words, during a trustless shuffle.
DEAL_NOT_DONE = frozenset({Reason.DEALING, Reason.NO_DECK})


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


class TableApp:
    """The full-screen terminal table (prompt-toolkit): draws the view model of a `Connection` and reads commands."""

    def __init__(self, conn: Connection, words: Words, *, host_controls: HostControls | None = None,
                 lobby_lines: list[str] | None = None) -> None:
        self.conn = conn
        self.words = words
        self.host_controls = host_controls
        self.state = vm.ScreenState(lobby_lines=lobby_lines or [], host_controls=host_controls is not None,
                                    story=Story(words))
        self.command = TextArea(height=1, prompt="> ", multiline=False, accept_handler=self._command,
                                completer=LegalCompleter(legal_of(self.state)), complete_while_typing=False)
        self.hand_window = Window(
            FormattedTextControl(cast(Any, self._hand), focusable=True, show_cursor=False), dont_extend_height=True,
            wrap_lines=True)
        self.app: Application[int] = Application(
            layout=table_layout(self), key_bindings=bind_keys(self), style=STYLE, full_screen=True,
            mouse_support=False,
            refresh_interval=0.5,  # the "offline 0:37" clocks tick, and a finished trick leaves after its time
        )
        self.finished = False
        self.judged: Any = None  # the game whose deal `deal_status` speaks of
        self._ended = asyncio.Event()  # the table's stream has ended (the match is over and every entry is in)
        self._tricks_seen = 0
        self._story_of = ""  # the game fingerprint the table log tells of
        self._refusal = ""  # the refusal on the message line, while this seat's turn had not come
        self._again_said: str | None = None  # whom [n] waits for, as the message line says it (None: not asked)

    def _hand(self) -> vm.Fragments:
        view = self.state.view
        if view is None or not view.your_hand or log_view.match_over(view):
            return []
        width = get_app().output.get_size().columns
        return word_wrap(vm.safe(vm.hand_pane(view, self.state, self.words, width)[:-1]), width)  # (no empty row)

    def play_cursor(self) -> None:
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
            self.leave(0)
        elif text.startswith("say "):
            get_app().create_background_task(self.say(text[4:]))
        else:
            self.act(to_action(text))
        return False

    # ------------------------------------------------------------------ actions and the stream
    def act(self, action: str) -> None:
        get_app().create_background_task(self._act(action))

    async def _act(self, action: str) -> None:
        self.state.message = ""  # (a hint or a refusal of before is stale now)
        try:
            await self.conn.act(action)
        except Refused as err:
            self.state.message = self._refused(err)
            view = self.state.view
            self._refusal = self.state.message if view is None or view.your_seat not in view.to_act else ""
        self.app.invalidate()

    def _turn_came(self, view: Any) -> None:
        """A refusal of a move out of turn goes once this seat's turn comes: "the table waits for Sepp to play a
        card" under "Your turn: choose a card" read as if the table still waited for Sepp."""
        if self._refusal and view is not None and view.your_seat in view.to_act:
            if self.state.message == self._refusal:
                self.state.message = ""
            self._refusal = ""

    def _refused(self, err: Refused) -> str:
        """A refusal in the seat's own words (the host's sentence, escaped on its way in by client/errors.py, only
        where they have none). One that says "not now" or "not your turn" says what the table waits for instead of
        "Not allowed", from this seat's view: "Not now: the table waits for Vroni to cut." """
        view = self.state.view
        # (a move sent while the game is at the deal's own steps: the host says "ActionRequest is not expected now
        # (the game is at deal)", its protocol's words; to the person it is "not now", and why)
        reason = Reason.NOT_NOW if err.reason == Reason.UNEXPECTED_MESSAGE else err.reason
        waits = table_waits(view, self.words) if view is not None and reason in OUT_OF_TURN else ""
        if view is not None and reason in DEAL_NOT_DONE:  # (whoever else may move meanwhile: the deal is waited for)
            waits = deal_waits(view, self.words)
        if waits:
            said = self.words.reason(reason, err.message)
            return f"{said.rstrip('.。')}{self.words['colon']}{waits}{self.words['sentence_end']}"
        said = self.words.reason(err.reason, err.message)
        return f"{self.words['refused']}{self.words['colon']}{said}"

    async def hint(self, view: Any) -> None:
        """What the strong bot would do from this seat's own view (it sees nothing more), and its chance."""
        from watten_net.bots import BotView
        from watten_net.bots.strong import hint

        self.state.message = self.words["thinking"]
        self.app.invalidate()
        action, chance = await asyncio.to_thread(hint, BotView.from_table_view(view))
        if action is None:
            self.state.message = self.words["no_hint"]
        else:
            said = visible(action_words(action, self.words))
            if chance is not None:  # (in the language's brackets: "（你方约 81% 胜率）", not Latin ones, in Chinese)
                said = self.words["aside"].format(name=said, text=self.words["chance"].format(pct=round(chance * 100)))
            self.state.message = f"{self.words['hint']}{self.words['colon']}{said}"
        self.app.invalidate()

    def leave(self, result: int) -> None:
        """Close the screen; the host's own person first ends the match and follows its stream to the end (a few
        seconds at most), so both records are whole."""
        end_match = self.host_controls.end_match if self.host_controls is not None else None
        if end_match is None or not self.ends_the_match():
            self.app.exit(result=result)
            return

        async def end_then_exit() -> None:
            with contextlib.suppress(Exception):
                await end_match()
                await asyncio.wait_for(self._ended.wait(), 5.0)
            self.app.exit(result=result)

        self.app.create_background_task(end_then_exit())

    def ends_the_match(self) -> bool:
        """The host's own person leaving now ends the match for everyone (a match is under way)."""
        view, controls = self.state.view, self.host_controls
        playing = view is not None and view.table.phase not in (vm.MATCH_OVER, vm.ABANDONED) and bool(
            view.game_fingerprint)
        return controls is not None and controls.end_match is not None and not self.finished and playing

    async def host_call(self, call: Callable[[], Awaitable[None]]) -> None:
        try:
            await call()
        except Exception as err:  # a lobby refusal (table full, ...) is shown, never a crash
            # in the screen's words where the reason has them (found in a German lobby: [s] read "wait until every
            # seat is taken", [x] 0 "Anna is at the table: only they can leave seat 0", the host's English)
            message = str(getattr(err, "message", err))
            reason = str(getattr(err, "reason", "") or "")
            self.state.message = visible(self.words.reason(reason, message) if reason else message)
        self.app.invalidate()

    def _dispute(self, says: str) -> None:
        self.state.dispute = says
        self.app.invalidate()

    async def follow(self) -> None:
        s = self.state
        self.conn.on_dispute = self._dispute
        self.conn.on_update = self._tell_story
        ended_by = ""  # the refusal that ended the stream, if one did
        try:
            async for view in self.conn.follow(on_state=self._connection_state):
                s.view = view
                s.signed_step_timeout = signed_step_timeout(self.conn.game)
                self._turn_came(view)
                self._who_asked_again(view)
                if view is not None and view.your_hand:
                    s.cursor = max(0, min(s.cursor, len(view.your_hand) - 1))
                self._pace()
                self._judge_deal()
                self.app.invalidate()
        except HostBrokeProtocol as err:
            # (in the seat's own language: the seat's English sentence showed on a German screen; the game record
            # keeps the evidence; a header with too short a step timeout to sign names the host's value)
            said = signed_step_timeout(self.conn.game) if err.reason == Reason.SHORT_STEP_TIMEOUT else None
            s.deal_status = (self.words.reason(err.reason, str(err)).rstrip(".。") if said is None
                             else self.words["short_step_timeout"].format(seconds=seconds_text(said)))
        except Refused as err:
            s.message = ended_by = self._refused(err)
        self.finished = True
        self._ended.set()
        s.connection = "connected"  # (no longer trying: the header drops "reconnecting" / "the host has left")
        if s.view is not None and s.view.table.phase in (vm.MATCH_OVER, vm.ABANDONED):
            # (a line of before is stale now, e.g. "[n] does nothing now" for a key pressed while the match's last
            # entries came: it hid the end line, and [n] works from here on; a refusal that ended the stream stays)
            s.message = ended_by or vm.end_message(s.view, self.words)
            if s.view.your_seat >= 0:  # (the stream has ended: whom [n] waits for is asked of the host now and then)
                self.app.create_background_task(
                    follow_who_asks(self.conn, s, self.words, lambda: not self.finished, self.app.invalidate))
        self.app.invalidate()

    def _who_asked_again(self, view: Any) -> None:
        """After this seat's [n] the stream stays open: "waiting for Anna, Sepp …" follows who asked since, until
        the next match begins (or another line took the message's place)."""
        if self._again_said is None or view is None:
            return
        if view.table.phase not in (vm.MATCH_OVER, vm.ABANDONED, vm.LOBBY):
            self._again_said = None
        elif self.state.message == self._again_said:
            self.state.message = self._again_said = vm.asked_again_message(view, self.words)

    async def say(self, text: str) -> None:
        """[t] then a line: table chat to everyone at the table, spectators included; a refusal is shown."""
        try:
            await self.conn.say(text)
        except Refused as err:
            self.state.message = self._refused(err)
        self.app.invalidate()

    async def play_again(self) -> None:
        """[n] after a match: ask for another at this table (docs/protocol.md "Play again"); the stream then follows
        the table into it, with a new record."""
        try:
            await self.conn.again()
        except Refused as err:
            self.state.message = self._refused(err)
            return
        self.state.message = self._again_said = vm.asked_again_message(self.state.view, self.words)
        self.finished = False
        self._ended.clear()
        await self.follow()

    def _tell_story(self, update: Any) -> None:
        """The table log hears every event of the stream; a full snapshot rebuilds the current hand's lines."""
        story = self.state.story
        assert story is not None
        view = update.snapshot.view if update.HasField("snapshot") else update.event.view
        fingerprint = view.game_fingerprint if view.ByteSize() else ""
        if fingerprint and fingerprint != self._story_of:  # another match at this table: its own story
            if self._story_of:
                story = self.state.story = Story(self.words)
                self._tricks_seen, self.state.banner = 0, ""
            self._story_of = fingerprint
        if update.HasField("snapshot"):
            if not update.snapshot.resumed:
                story.snapshot(update.snapshot.view, update.snapshot.recent_events)
        else:
            story.events(update.event.events, update.event.view if update.event.view.ByteSize() else None)
            for event in update.event.events:  # table chat and who came to watch: in the log, through `visible`
                line = vm.chat_line(event, self.words)
                if line is not None:
                    story.note("chat", line)

    def _pace(self) -> None:
        """A trick just won stays on the table a while; a hand just ended shows its result as a banner."""
        story = self.state.story
        assert story is not None
        if story.trick_serial != self._tricks_seen:
            self._tricks_seen = story.trick_serial
            self.state.trick_done_at = time.monotonic()
        if not story.result_seen:
            self.state.banner, story.result_seen = story.result, True

    def _connection_state(self, state: str) -> None:
        self.state.connection = state
        self.app.invalidate()

    def _judge_deal(self) -> None:
        """The seat's own verdict on the deal, from its own record, once the seeds are revealed."""
        game = self.conn.game
        if game is None:
            return
        if game is not self.judged:  # another match at this table (play_again): its own verdict
            self.judged, self.state.deal_status, self.state.message, self.state.check_note = game, "", "", ""
        if game.problems:
            self.state.deal_status = game.problems[0]
            return
        # docs/protocol.md §5.5 item 7: until k_H arrives, decks that matched their seals are "consistent" only
        self.state.deal_consistent = game.verified is not None and game.verified.decks_checked > 0
        view = self.state.view
        if self.conn.record_path is not None:
            self.state.record_path = str(self.conn.record_path)
        if view is not None and view.table.phase in (vm.MATCH_OVER, vm.ABANDONED) and not self.state.deal_status:
            from watten_net.record import Entry

            report = verify_entries([Entry(e.kind, e.data) for e in game.record])
            self.state.deal_status, self.state.check_note = own_check(report, self.words)

    async def run(self) -> int:
        self.app.create_background_task(self.follow())
        with stderr_aside(screen_fd(self.app.output)):  # (gRPC's own log lines are kept off the table)
            result = await self.app.run_async()
        return int(result or 0)

