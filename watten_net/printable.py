"""Text from elsewhere, made safe to show on a terminal: `visible(text)`.

Any string that came from the host, a record file or another player may hold terminal control. An escape sequence
moves the cursor, erases a line, recolours text or sets the window title (a hostile host's "\\x1b[1A\\x1b[2K" once
turned `watten-verify`'s FAILED line into "verified ✓"); C1 code 0x9b is CSI on many terminals; a bidi override
(U+202E) reverses what follows it; zero-width characters make two different names look alike; a lone surrogate
makes `print` raise. Such text must never reach a terminal raw, so everything that prints or renders a foreign
string passes it through `visible` first.

What is shown as is: every character that is not in a Unicode category C (Cc control, Cf format such as the bidi
controls and zero-width joiners, Cs surrogate, Co private use, Cn unassigned) and not a line or paragraph separator
(Zl, Zp). That is the same test the host's `clean_name` applies to names, so a name the host accepted is shown
unchanged, and umlauts, the suit marks ♥♦♠♣, CJK, Arabic or Hebrew letters and emoji pass untouched.

What is shown instead: `\\t`, `\\n`, `\\r` for those three, `\\xNN` for the other C0 codes, DEL and the C1 codes
(U+0000-U+001F, U+007F-U+009F), and `<U+XXXX>` for everything else that is escaped (U+202E -> `<U+202E>`). The
replacements are plain ASCII, so the output never holds a character that is escaped.

`visible` is idempotent (`visible(visible(s)) == visible(s)`): applying it twice, say once where a message is built
and once more where the screen renders it, changes nothing. The price is that it is not reversible: a name that
really is the four characters `\\x1b` looks like one holding an ESC. That is fine for a screen, which must be safe
rather than exact; where exactness matters (`watten-verify --json`) the JSON encoder escapes instead.
"""

from __future__ import annotations

import logging
import unicodedata

_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def shown_as_is(ch: str) -> bool:
    """Whether the single character `ch` may reach a terminal raw (see the module's docstring)."""
    category = unicodedata.category(ch)
    return category[0] != "C" and category not in ("Zl", "Zp")


def _escape(ch: str) -> str:
    if ch in _SHORT:
        return _SHORT[ch]
    code = ord(ch)
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def visible(text: str) -> str:
    """`text` with every character that could control or deceive a terminal shown as an escape instead.

    Use it on any string from the network or a record before it is printed or rendered; newlines are escaped too,
    so one foreign string stays on one line (use `visible_lines` for text whose line breaks are wanted).
    """
    if text.isprintable():  # (the common case, and cheap: isprintable is stricter than shown_as_is)
        return text
    return "".join(ch if shown_as_is(ch) else _escape(ch) for ch in text)


def visible_lines(text: str) -> str:
    """Like `visible`, but the line breaks ("\\n") stay line breaks: for text laid out in lines on purpose."""
    return "\n".join(visible(line) for line in text.split("\n"))


def json_visible(text: str) -> str:
    """JSON text (`json.dumps(..., ensure_ascii=False)`) with every character `visible` would escape written as a JSON
    escape (`\\u009b`, `\\u202e`, a surrogate pair beyond U+FFFF) instead: the same value when decoded, exactly, and
    safe on a terminal, while letters of any script stay readable. `ensure_ascii=False` escapes only C0, so DEL, the
    C1 codes and the bidi controls of a name would reach the screen raw. Such characters only occur inside strings
    of a JSON text (its syntax is ASCII), where a `\\u` escape is valid."""
    if text.isprintable():
        return text
    return "".join(ch if shown_as_is(ch) else _json_escape(ch) for ch in text)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


class VisibleFormatter(logging.Formatter):
    """A log formatter whose lines hold nothing raw: a log line quotes names, refusals and exception texts that
    came from the network, and the log goes to the same terminal (a traceback keeps its line breaks)."""

    def format(self, record: logging.LogRecord) -> str:
        return visible_lines(super().format(record))


def log_visibly(level: int, fmt: str | None = None) -> None:
    """`logging.basicConfig(level=..., format=...)`, with the records written through `VisibleFormatter`."""
    handler = logging.StreamHandler()
    handler.setFormatter(VisibleFormatter(fmt or logging.BASIC_FORMAT))
    logging.basicConfig(level=level, handlers=[handler])


def visible_bytes(data: bytes) -> str:
    """Bytes meant to be UTF-8 text (a name read from a file, say), shown safely; a byte that is not UTF-8 reads
    `\\xNN` as well."""
    return visible(data.decode("utf-8", "backslashreplace"))
