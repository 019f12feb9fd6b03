"""The table log on screen, the end-of-match summary, the help text and the too-small notice (pure fragments).

The log pane shows the story's last lines (the layout scrolls it to its end); `v` opens the whole match's log,
scrolled with the arrows. When the match is over, the summary replaces the table: a row per hand, the final score
and Bummerl, this seat's own verdict on the record and the record's path, and the keys to leave.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prompt_toolkit.utils import get_cwidth

from watten_net.cardwords import RANK_DE, SUIT_DE
from watten_net.printable import visible

from .columns import cut_columns, pad_columns, wrap_columns
from .i18n import Words
from .story import HandRow, LogLine, Story
from .viewmodel import ABANDONED, MATCH_OVER, MIN_SIZE, Fragments, ScreenState, side_scores, winners_text

STYLE_OF = {"hand-start": "class:heading", "hand-end": "class:ok", "match-end": "class:ok", "trick": "",
            "raise": "class:alert", "accept": "class:alert", "fold": "class:alert", "concede": "class:alert",
            "signal": "class:key", "stand-in": "class:dim"}


def log_lines(lines: list[LogLine], width: int = 80) -> Fragments:
    """The lines, each wrapped at word boundaries to `width` columns (continuations indented)."""
    out: Fragments = []
    for line in lines:
        style = STYLE_OF.get(line.kind, "class:dim" if line.kind in ("cut", "announced") else "")
        rows = wrap_columns(visible(line.text), max(20, width - 1), indent="    ", cut_long=True)
        out.append((style, "\n".join(rows) + "\n"))
    return out


def log_pane(state: ScreenState, width: int = 80) -> Fragments:
    """The story's recent lines (the window shows as many of the last ones as fit)."""
    story = state.story
    return log_lines(story.last(60), width) if story is not None else []


def full_log(state: ScreenState, width: int = 80) -> Fragments:
    story = state.story
    return log_lines(story.lines if story is not None else [], width)


def full_log_rows(state: ScreenState, width: int = 80) -> int:
    """Rows the whole log takes at `width` (a long line wraps): how far back it scrolls."""
    return sum(text.count("\n") for _, text in full_log(state, width))


def match_over(view: Any) -> bool:
    return view is not None and bool(view.game_fingerprint) and view.table.phase in (MATCH_OVER, ABANDONED)


def summary(state: ScreenState, words: Words, story: Story | None, width: int = 0) -> Fragments:
    """The end of the match: a row per hand, the final score and Bummerl, the own verdict, the record, the keys
    (`width`: the screen's columns, 0 when unknown)."""
    view = state.view
    out: Fragments = [("class:heading", f"{words['summary']}\n")]
    rows = story.hands if story is not None else []
    # (as wide as the widest announcement: "7 (Sieben) ♦ Schellen" took 21 columns of 20 and pushed its row's points,
    # winners and tricks one column out of line with the others, found playing to the end at 80x24)
    wide = max([20, get_cwidth(words["col_announced"])] + [get_cwidth(_announced(row, words)) for row in rows])
    head = (f"{pad_columns(words['col_hand'], 4, right=True)}  {pad_columns(words['col_dealer'], 8)} "
            f"{pad_columns(words['col_announced'], wide)} {pad_columns(words['col_points'], 3, right=True)}  "
            f"{pad_columns(words['col_won'], 16)} {words['col_how']}")
    out.append(("class:dim", head + "\n"))
    for row in rows:
        out.append(("", _row(row, story, words, wide) + "\n"))
    # (each side named, the reader's own marked: "Final score: 15 – 4 · Bummerl 0 – 1" did not say whose was whose)
    score = side_scores(view, words, "score") if view is not None else ""
    bummerl = " – ".join(f"{side.bummerl}" for side in view.sides) if view is not None else ""
    out.append(("class:ok", f"{words['final_score']}{words['colon']}{score} · {words['bummerl']} {bummerl}\n"))
    if view is not None and view.winners:
        out.append(("class:ok", f"{words['match_over']}{words['colon']}{winners_text(view, words)}\n"))
    verdict = _verdict(state, words)
    out.append(("class:ok" if state.deal_status == "verified" else "class:error" if state.deal_status else "class:dim",
                f"{words['own_check']}{words['colon']}{verdict}\n"))
    if state.record_path:
        out.append(("class:dim", _record_line(words["record"] + words["colon"], visible(home_short(state.record_path)),
                                               width)))
    out.append(("class:key", f"\n{words['again']} · {words['leave_keys']}\n"))
    return out


def _record_line(label: str, path: str, width: int) -> str:
    """"Record: PATH", or the path on a row of its own when both do not fit: the terminal cut the German
    "Aufzeichnung: ~/.local/share/watten-net/records/watten-…-seat0" at 80 columns and wrapped ".wrec" alone (a path
    is copied whole from the screen, so it is never broken where it has room on a row of its own)."""
    line = f"{label}{path}"  # (`label` ends with the language's colon: "记录：", not "记录: ")
    if not width or get_cwidth(line) <= width:
        return line + "\n"
    return f"{label.rstrip()}\n  {path}\n"


def _verdict(state: ScreenState, words: Words) -> str:
    if state.deal_status == "verified":
        note = f" · {words['check_' + state.check_note]}" if state.check_note else ""
        return words["deal_verified"] + note
    if state.deal_status:
        return f"{words['deal_failed']}{words['colon']}{visible(state.deal_status)}"
    return words["check_running"]


def _announced(row: HandRow, words: Words) -> str:
    """The hand's Schlag and trump as the summary shows them ("7 (Sieben) ♦ Schellen")."""
    schlag = f"{row.schlag} ({RANK_DE[row.schlag]})" if row.schlag in RANK_DE else "?"
    trump = f"{words.marks[row.trump]} {SUIT_DE[row.trump]}" if row.trump in SUIT_DE else "?"
    return f"{schlag} {trump}"


def _row(row: HandRow, story: Story | None, words: Words, announced_width: int = 20) -> str:
    dealer = story.short(row.dealer) if story is not None and row.dealer >= 0 else "–"
    short = story.short if story is not None else str
    won = cut_columns(" & ".join(short(s) for s in row.winners), 16) or "–"
    # (padded by terminal columns: a Chinese name's characters take two, and its row's columns slid out of line)
    return f"{row.hand + 1:>4}  {pad_columns(dealer, 8)} {pad_columns(_announced(row, words), announced_width)} " \
           f"{row.points:>3}  {pad_columns(won, 16)} {row.how}"


def too_small(cols: int, rows: int, words: Words) -> bool | str:
    """The notice for a window below the minimum (False: the window is large enough)."""
    if cols >= MIN_SIZE[0] and rows >= MIN_SIZE[1]:
        return False
    return words["too_small"].format(cols=cols, rows=rows)


def wrapped_help(words: Words, width: int) -> str:
    """The help text wrapped at word boundaries to `width` terminal columns (continuations indented; a Chinese line
    breaks between characters too)."""
    out: list[str] = []
    for line in words.help().splitlines():
        indent = len(line) - len(line.lstrip())
        out += wrap_columns(line.rstrip(), max(20, width), indent=" " * (indent + 4)) if line.strip() else [""]
    return "\n".join(out)


def home_short(path: str, home: str | None = None) -> str:
    """`path` with the home directory written "~": at 80 columns the record's full path broke inside its file name
    ("...-se" / "at0.wrec"); the shell reads "~/" as well (the farewell on the terminal keeps the full path)."""
    home = str(Path.home()) if home is None else home
    return "~" + path[len(home):] if home.strip("/") and path.startswith(home.rstrip("/") + "/") else path


def farewell(state: ScreenState, words: Words) -> list[str]:
    """What the terminal keeps after the screen closes: the (final) score and Bummerl, the own check, the record."""
    view = state.view
    if view is None or not view.game_fingerprint or not view.sides:
        return []
    score = "–".join(str(side.score) for side in view.sides)
    bummerl = "–".join(str(side.bummerl) for side in view.sides)
    over = match_over(view)
    said = words["final_score" if over else "score_so_far"]
    out = [f"{said}{words['colon']}{score} · {words['bummerl']} {bummerl}"]
    if view.winners:  # (after the score: "… · Team B (you) wins", "… · Team A wins · your side lost")
        out[0] += f" · {winners_text(view, words)}"
    out.append(f"{words['own_check']}{words['colon']}{_verdict(state, words) if over else words['not_over']}")
    if state.record_path:
        out.append(f"{words['record']}{words['colon']}{visible(state.record_path)}")
    return out
