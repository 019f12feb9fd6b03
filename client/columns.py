"""Text measured in terminal columns: cut, padded and broken into rows. A Chinese character takes two columns, and
`len`, `str.ljust` and `textwrap` count characters: a bot's "（机器人）" pushed its seat row's team and cards out of
line, the summary's columns slid apart, and a Chinese help line of 93 columns passed as 72 (the terminal broke it
anywhere). Text that may hold wide characters (a name, a heading) is cut and padded to a width here.

Rows: Chinese has no spaces to break at, so a row breaks at a space, or between two wide characters (never before a
closing mark such as "，" or "）"), and a word longer than a row is cut only when asked.
"""

from __future__ import annotations

from prompt_toolkit.utils import get_cwidth


def cut_columns(text: str, width: int) -> str:
    """`text` cut to at most `width` columns (a wide character that would stand half outside goes whole).

    >>> cut_columns("王小明", 5), cut_columns("Vroni", 3)
    ('王小', 'Vro')
    """
    while text and get_cwidth(text) > width:
        text = text[:-1]
    return text


def pad_columns(text: str, width: int, right: bool = False) -> str:
    """`text` padded with spaces to `width` columns (on the left when `right`: a number's column); a longer text
    stays whole.

    >>> pad_columns("王", 4) + "|", pad_columns("7", 3, right=True)
    ('王  |', '  7')
    """
    pad = " " * max(0, width - get_cwidth(text))
    return pad + text if right else text + pad


def fit_columns(text: str, width: int) -> str:
    """`text` in exactly `width` columns, padded, or cut with the cut marked "…" (never cut silently).

    >>> fit_columns("Vroni（机器人）", 10), fit_columns("王小明", 4), fit_columns("Anna", 6)
    ('Vroni（机…', '王… ', 'Anna  ')
    """
    if get_cwidth(text) > width:
        text = cut_columns(text, width - 1) + "…"
    return pad_columns(text, width)


# marks that stay on the row of the character before them (Chinese typesetting never starts a row with one)
_CLOSING = set("，。、：；！？）》」』】…’”")
_OPENING = set("（《「『【‘“")  # (and these stay with the character after them)


def _tokens(line: str) -> list[tuple[str, str]]:
    """`line` as (the space before, the unbreakable piece): a run of narrow characters, or one wide character with
    the closing marks after it."""
    out: list[tuple[str, str]] = []
    space, piece = "", ""
    for ch in line:
        if ch == " ":
            if piece:
                out.append((space, piece))
                space, piece = "", ""
            space += ch
        elif ch in _CLOSING and (piece or out):
            if piece:
                piece += ch
            else:
                before, last = out.pop()
                piece, space = last + space + ch, before  # (a closing mark after a space stays with it too)
        elif get_cwidth(ch) == 2:
            if piece:
                out.append((space, piece))
                space = ""
            piece = ch
            out.append((space, piece))
            space, piece = "", ""
        else:
            if piece and get_cwidth(piece[-1]) == 2 and piece[-1] not in _CLOSING:
                out.append((space, piece))
                space, piece = "", ""
            piece += ch
    if piece:
        out.append((space, piece))
    return _joined_closing(out)


def _joined_closing(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A token followed without a space by one that opens with a closing mark, or a token that ends with an opening
    mark and the one after it: one token. So is a number that ends the line with the word before it (a German hand's
    first line at 80 columns ended "· Wert" and put its "3" alone on the next row)."""
    out: list[tuple[str, str]] = []
    for at, (space, piece) in enumerate(tokens):
        last_number = at == len(tokens) - 1 and piece.isdigit() and space == " "
        if out and (last_number or (not space and (piece[0] in _CLOSING or out[-1][1][-1] in _OPENING))):
            before, last = out.pop()
            out.append((before, last + space + piece))
        else:
            out.append((space, piece))
    return out


def _cut(piece: str, width: int) -> list[str]:
    """`piece` in parts of at most `width` columns."""
    parts, current = [], ""
    for ch in piece:
        if current and get_cwidth(current + ch) > width:
            parts.append(current)
            current = ""
        current += ch
    return [*parts, current]


def wrap_columns(line: str, width: int, indent: str = "", cut_long: bool = False) -> list[str]:
    """`line` in rows of at most `width` terminal columns, each row after the first starting with `indent` (a piece
    longer than a row stays whole unless `cut_long`). The line's own leading spaces stay."""
    body = line.lstrip(" ")
    rows: list[str] = []
    current = line[: len(line) - len(body)]
    start = len(current)  # (the row holds nothing of its own yet while its length is this)
    for space, piece in _tokens(body):
        said = current + (space if len(current) > start else "") + piece
        if get_cwidth(said) <= width or len(current) <= start:
            current = said
        else:
            rows.append(current)
            current, start = indent + piece, len(indent)
        if cut_long and get_cwidth(current) > width:
            *whole, current = _cut(current, width)
            rows += whole
    return [*rows, current]
