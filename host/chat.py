"""Table chat (the `Say` call): one line to everyone at the table, cleaned on arrival, a few per sender.

A chat line is a public lobby event `chat` {name, text} of the table's log: every seat's and every spectator's
stream carries it, and nothing of it goes into the game's chain, the records or the journal.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from watten_net.deal.protocol import event_to_pb
from watten_net.printable import shown_as_is
from watten_net.refusal import Code, Reason, Refusal

from .lobby import token_digest
from .refusal import TableRefusal

if TYPE_CHECKING:
    from .table import Table

MAX_CHAT = 200  # characters of one line, after cleaning
MAX_RAW = 4 * MAX_CHAT  # a line longer than this as sent is refused unread (it cannot clean down to a line)
CHAT_LINES = 5  # lines one sender may say ...
CHAT_WINDOW = 10.0  # ... within this many seconds

# Terminal escape sequences go whole (removing only ESC would leave "[31m" on everyone's screen): CSI (ESC [ or the
# C1 CSI), OSC/DCS/PM/APC/SOS strings up to their terminator (BEL or ST) or the end, and the two-character escapes.
ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]P^_X]|[\x90\x9d\x9e\x9f\x98])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
)


def clean_chat(text: str) -> str:
    """The line as everyone will see it: escape sequences removed whole, then every character a screen would have to
    escape (control characters, bidirectional overrides and other format characters, line separators: see
    `watten_net.printable.shown_as_is`); whitespace runs become one space. Refused when over 200 characters or empty.

    >>> clean_chat("hi \\x1b[31mred\\x1b[0m \\u202eevil\\u202c")
    'hi red evil'
    """
    if not isinstance(text, str) or len(text) > MAX_RAW:
        raise TableRefusal(Code.INVALID, Reason.BAD_CHAT, f"a chat line has at most {MAX_CHAT} characters")
    text = ESCAPES.sub("", text)
    text = "".join(ch if shown_as_is(ch) else (" " if ch in "\t\n\r\v\f" else "") for ch in text)
    text = " ".join(unicodedata.normalize("NFC", text).split())
    if not text:
        raise TableRefusal(Code.INVALID, Reason.BAD_CHAT, "say something: the line is empty")
    if len(text) > MAX_CHAT:
        raise TableRefusal(Code.INVALID, Reason.BAD_CHAT,
                           f"a chat line has at most {MAX_CHAT} characters; this one has {len(text)}")
    return text


class ChatLimiter:
    """At most CHAT_LINES lines per CHAT_WINDOW seconds per sender: a seat or spectator place, keyed by its token's
    digest. (Not by `context.peer()`: gRPC clients in one process share one TCP connection to a host, so the people
    of one machine would share one allowance; a client holding many places is bounded by the places, 6 + 16.)"""

    MAX_TRACKED = 1024  # senders remembered; beyond it, those quiet for a whole window are forgotten

    def __init__(self, lines: int = CHAT_LINES, window: float = CHAT_WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.lines = lines
        self.window = window
        self.clock = clock
        self.said: dict[str, deque[float]] = {}

    def admit(self, sender: str) -> None:
        """Count one line of `sender`'s, or refuse it (RESOURCE_EXHAUSTED `chat-rate-limited`) and count nothing."""
        now = self.clock()
        times = self.said.setdefault(sender, deque())
        while times and now - times[0] >= self.window:
            times.popleft()
        if len(times) >= self.lines:
            wait = max(1, round(self.window - (now - times[0])))
            raise Refusal(Code.RESOURCE_EXHAUSTED, Reason.CHAT_RATE_LIMITED,
                          f"at most {self.lines} chat lines in {self.window:.0f} seconds: wait {wait} s")
        times.append(now)
        if len(self.said) > self.MAX_TRACKED:
            for other in [p for p, t in self.said.items() if not t or now - t[-1] >= self.window]:
                del self.said[other]


async def say(table: Table, token: str, text: str, limiter: ChatLimiter) -> int:
    """`text` from the holder of `token` (a seat or a spectator) to everyone at `table`: the sender's seat (-1 for a
    spectator). The token is checked first, then the line, then the sender's rate: a refused line counts nothing."""
    person = table.spectators.of(token)
    if person is not None:
        seat, name = -1, person.name
    else:
        seat = table.seat_of(token)
        occupant = table.seats[seat]
        name = occupant.name if occupant is not None else f"seat {seat}"
    line = clean_chat(text)
    limiter.admit(token_digest(token).hex())
    async with table.lock:
        await table.changes.lobby_event(event_to_pb("chat", seat, {"name": name, "text": line}))
    return seat
