"""Table chat without a network (issue 13 item 6): the host's cleaning of a line, the rate per connection, and the
client's rendering of a chat event that a hostile host did not clean."""

from __future__ import annotations

import json

import pytest

from client import viewmodel as vm
from client.i18n import Words
from host.chat import MAX_CHAT, ChatLimiter, clean_chat
from host.refusal import TableRefusal
from watten_net.printable import shown_as_is
from watten_net.refusal import Code, Reason, Refusal
from watten_net.v1 import watten_pb2 as pb


@pytest.mark.parametrize(("sent", "shown"), [
    ("servus", "servus"),
    ("\x1b[31mrot\x1b[0m und \x1b[1;5mblinkend", "rot und blinkend"),  # CSI sequences go whole
    ("title\x1b]0;owned\x07 end", "title end"),  # an OSC (window title) with its text
    ("link \x1b]8;;http://x\x1b\\here\x1b]8;;\x1b\\", "link here"),  # OSC 8 ended by ST
    ("\x9b31mC1 csi", "C1 csi"),
    ("a\u202eevil\u202c b\u2066x\u2069", "aevil bx"),  # bidirectional overrides and isolates
    ("zero\u200bwidth\ufeff", "zerowidth"),
    ("bell\x07 nul\x00 del\x7f", "bell nul del"),
    ("two\nlines\r\nand\ttab", "two lines and tab"),  # one line, whatever was sent
    ("  trimmed  ", "trimmed"),
    ("Grüß Gott 👋 牌", "Grüß Gott 👋 牌"),
])
def test_a_line_is_cleaned_of_everything_a_screen_would_have_to_escape(sent: str, shown: str) -> None:
    assert clean_chat(sent) == shown
    assert all(shown_as_is(ch) for ch in clean_chat(sent))


@pytest.mark.parametrize("sent", ["", "   ", "\x1b[31m\x1b[0m", "\u202e\u202c", "x" * (MAX_CHAT + 1),
                                  "\x1b[1m" * 200 + "y" * 250])
def test_an_empty_or_too_long_line_is_refused(sent: str) -> None:
    with pytest.raises(TableRefusal) as refused:
        clean_chat(sent)
    assert (refused.value.code, refused.value.reason) == (Code.INVALID, Reason.BAD_CHAT)


def test_two_hundred_characters_pass_and_escapes_do_not_count() -> None:
    assert clean_chat("x" * MAX_CHAT) == "x" * MAX_CHAT
    assert clean_chat("\x1b[31m" + "y" * MAX_CHAT) == "y" * MAX_CHAT


def test_five_lines_in_ten_seconds_per_sender() -> None:
    now = [0.0]
    limiter = ChatLimiter(clock=lambda: now[0])
    for _ in range(5):
        limiter.admit("seat-a")
        now[0] += 1.0
    with pytest.raises(Refusal) as refused:
        limiter.admit("seat-a")
    assert (refused.value.code, refused.value.reason) == (Code.RESOURCE_EXHAUSTED, Reason.CHAT_RATE_LIMITED)
    limiter.admit("seat-b")  # another sender has its own
    now[0] = 10.0  # the first line is 10 s old: one more may go
    limiter.admit("seat-a")
    with pytest.raises(Refusal):
        limiter.admit("seat-a")


def _event(kind: str, **data: object) -> pb.GameEvent:
    return pb.GameEvent(kind=kind, seat=-1, fields={k: json.dumps(v) for k, v in data.items()})


def test_the_client_shows_a_hostile_hosts_chat_through_visible() -> None:
    """A host that did not clean the line (or lies) cannot move the cursor or reorder the screen: the escape and the
    override arrive as visible text, on one line."""
    words = Words("en")
    line = vm.chat_line(_event("chat", name="\x1b[2JMallory", text="hi\x1b[31m\u202e\nthere"), words)
    assert line is not None
    assert "\x1b" not in line and "\u202e" not in line and "\n" not in line
    assert line.startswith("\\x1b[2JMallory: hi")
    assert vm.chat_line(_event("watching", name="Vroni", count=1, joined=True), words) == "Vroni is watching"
    assert vm.chat_line(_event("play", card="HK"), words) is None
    assert vm.chat_line(pb.GameEvent(kind="chat", fields={"text": "not json"}), words) is None


def test_the_header_says_who_watches_and_a_spectators_end_line() -> None:
    words = Words("en")
    view = pb.TableView(your_seat=-1, game_fingerprint="1a2b 3c4d 5e6f 7a8b", dealer=0,
                        table=pb.TableInfo(watching=2))
    text = "".join(t for _, t in vm.header(vm.ScreenState(view=view), words))
    assert "Spectator" in text and "2 watching" in text
    assert words["deal_pending"] not in text  # (a spectator checks no deal of its own)
    view.your_seat = 1
    text = "".join(t for _, t in vm.header(vm.ScreenState(view=view), words))
    assert "Spectator" not in text and "2 watching" in text and words["deal_pending"] in text
    view.table.watching = 0
    assert "watching" not in "".join(t for _, t in vm.header(vm.ScreenState(view=view), words))
    assert vm.end_message(pb.TableView(your_seat=-1), words) == "The match is over · [q] leave"
    assert vm.end_message(pb.TableView(your_seat=0), words).startswith("[n] another match")
