"""`watten_net.printable.visible`: foreign text never reaches a terminal raw, and ordinary text passes unchanged."""

from __future__ import annotations

import json
import logging
import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.table import clean_name
from watten_net.printable import VisibleFormatter, json_visible, shown_as_is, visible, visible_bytes, visible_lines

# What must never be emitted raw: C0 (incl. ESC), DEL, C1, the bidi controls, and other invisible format characters.
C0_C1 = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))]
BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)]
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u2028", "\u2029", "\U000e0041"]
DANGEROUS = frozenset(C0_C1 + BIDI + INVISIBLE)

# Any code point at all, surrogates and unassigned ones included (hypothesis leaves out Cs unless asked).
any_char = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())
# Text a person would type or a deck would show: letters (umlauts, CJK, Hebrew...), digits, marks, symbols, space.
plain_char = st.characters(categories=("L", "M", "N", "P", "S", "Zs"))


@settings(max_examples=2000)
@given(st.text(any_char, max_size=60))
def test_the_output_never_holds_a_control_bidi_or_invisible_character(text: str) -> None:
    shown = visible(text)
    assert not DANGEROUS & set(shown)
    assert all(shown_as_is(ch) for ch in shown)
    assert all(ch.isascii() or ch in text for ch in shown)  # nothing is made up but the ASCII escapes
    shown.encode("utf-8")  # no lone surrogate: printing it cannot raise


@given(st.text(any_char, max_size=60))
def test_visible_is_idempotent(text: str) -> None:
    once = visible(text)
    assert visible(once) == once
    assert visible_lines(once) == once


@settings(max_examples=1000)
@given(st.text(plain_char, max_size=60))
def test_plain_text_passes_unchanged(text: str) -> None:
    assert visible(text) == text


@pytest.mark.parametrize("text", [
    "Grüß Gott, Jörg Maßmann", "♥K ♦A ♠7 ♣U", "王小明", "שלום مرحبا", "Резі", "Anna (du)", "1a2b 3c4d",
    "👨👩👧", "Zoe\u0301", "a\u00a0b",
])
def test_names_suits_and_scripts_are_shown_as_given(text: str) -> None:
    assert visible(text) == text


@pytest.mark.parametrize(("raw", "shown"), [
    ("\x1b[1A\x1b[2K\x1b[32mverified ✓", "\\x1b[1A\\x1b[2K\\x1b[32mverified ✓"),
    ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),
    ("a\tb\nc\rd", "a\\tb\\nc\\rd"),
    ("\x00\x7f\x9b\x85", "\\x00\\x7f\\x9b\\x85"),
    ("\u202eevil\u202c", "<U+202E>evil<U+202C>"),
    ("A\u200bnna\u2066\u061c", "A<U+200B>nna<U+2066><U+061C>"),
    ("x\u2028y", "x<U+2028>y"),
    ("\ud800", "<U+D800>"),
    ("\U000e0041", "<U+E0041>"),
])
def test_each_dangerous_character_is_shown_as_an_escape(raw: str, shown: str) -> None:
    assert visible(raw) == shown


def test_lines_keep_their_breaks_and_lose_everything_else() -> None:
    assert visible_lines("\nHand 1\x1b[2J\n  ok\r") == "\nHand 1\\x1b[2J\n  ok\\r"


def test_bytes_that_are_not_utf8_are_shown_as_escapes_too() -> None:
    assert visible_bytes("Jörg\x1b".encode() + b"\xff") == "Jörg\\x1b\\xff"


@given(st.text(any_char, min_size=1, max_size=40))
def test_a_name_the_host_accepted_is_shown_unchanged(name: str) -> None:
    # The host's `clean_name` and `visible` agree on what is printable: the host never passes on what the screens
    # would escape, so an honest host's names look the same everywhere.
    try:
        cleaned = clean_name(name)
    except Exception:
        return
    assert visible(cleaned) == cleaned


def test_isprintable_is_the_fast_path_of_the_same_test() -> None:
    # `visible` skips the per-character work when str.isprintable() holds; that is only right if isprintable never
    # lets through a character shown_as_is would escape.
    for code in range(0x110000):
        ch = chr(code)
        if ch.isprintable():
            assert shown_as_is(ch), (hex(code), unicodedata.category(ch))


def test_log_lines_hold_nothing_raw_but_keep_a_tracebacks_lines() -> None:
    formatter = VisibleFormatter("%(levelname)s %(message)s")
    try:
        raise KeyError("\x1b]0;pwned\x07")
    except KeyError:
        record = logging.LogRecord("t", logging.ERROR, __file__, 1, "seat %d taken by %s", (1, "\u202eAnna"),
                                   sys.exc_info())
    shown = formatter.format(record)
    assert shown.startswith("ERROR seat 1 taken by <U+202E>Anna\nTraceback")
    assert "\\x1b]0;pwned\\x07" in shown and "\x1b" not in shown and "\x07" not in shown


def test_the_hosts_notices_name_a_person_visibly(capsys: pytest.CaptureFixture[str]) -> None:
    from host.main import _notice

    _notice("seat 1 (\x1b[2JEve\u202e) is away: a bot stands in")
    assert capsys.readouterr().out == "watten-host: seat 1 (\\x1b[2JEve<U+202E>) is away: a bot stands in\n"


@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40))
@settings(max_examples=300, deadline=None)
def test_json_visible_decodes_to_the_same_value_and_holds_nothing_raw(text: str) -> None:
    # (`watten-verify --export`: names exact for a tool, yet nothing that controls a terminal, beyond U+FFFF too)
    value = {"name": text, "names": [text, "\U000e0041\U000f0000\u202e\x9b\x7f"]}
    shown = json_visible(json.dumps(value, ensure_ascii=False))
    assert json.loads(shown) == value and all(shown_as_is(ch) for ch in shown)
