"""A Chinese screen in terminal columns (a Chinese character takes two): the brackets beside a name, the match
summary's rows, the help's and the log's rows (client/columns.py). Found in the `words` helper's playtest: "Anna (你)"
and "(空)" with Latin brackets, summary columns that slid out of line, a help line of 93 columns at 72."""

from __future__ import annotations

import asyncio
import io
from typing import Any

from prompt_toolkit.application import create_app_session
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.utils import get_cwidth
from test_story import HAND, named_view, story_of
from test_viewmodel import FakeConnection, make_view, text

from client import log_view
from client import viewmodel as vm
from client.app import TableApp
from client.columns import cut_columns, fit_columns, pad_columns, wrap_columns
from client.i18n import Words
from client.story import LogLine
from watten_net.v1 import watten_pb2 as pb

ZH = Words("zh")


def test_a_word_beside_a_name_is_in_full_width_brackets() -> None:
    view = make_view()
    view.seats[0].name = "Anna"
    assert vm.seat_name(view, 0, ZH) == "Anna（你）"
    assert vm.seat_name(view, 0, Words("de")) == "Anna (du)"
    lobby = make_view()
    lobby.seats[3].name = ""
    shown = text(vm.lobby(vm.ScreenState(view=lobby), ZH))
    assert "（空）" in shown and "(空)" not in shown


def test_the_summarys_rows_line_up_in_columns_with_chinese_names() -> None:
    view = named_view(winners=[0])
    for s, name in zip(view.seats, ["王小明", "李四", "张三丰", "赵六"], strict=True):
        s.name = name
    view.table.phase = vm.MATCH_OVER
    view.sides.extend([pb.SideView(side=0, seats=[0, 2], score=15), pb.SideView(side=1, seats=[1, 3], score=4)])
    story = story_of(HAND, ZH, view)
    state = vm.ScreenState(view=view, story=story, record_path="/r/w.wrec")
    rows = text(log_view.summary(state, ZH, story)).splitlines()
    assert "记录：/r/w.wrec" in rows  # (played at 80x24: "记录: ~/…" with a Latin colon)
    head, row = rows[1], next(r for r in rows if r.lstrip().startswith("1 "))
    assert "赵六" in row and "王小明 & 张三丰" in row
    # the points column ends where its heading ends, in terminal columns
    heading_end = get_cwidth(head[: head.index(ZH["col_points"]) + len(ZH["col_points"])])
    points_at = get_cwidth(row[: row.index(" 3 ") + 2])
    assert points_at == heading_end, (head, row)


def test_the_help_and_the_log_fit_their_width_in_columns() -> None:
    for width in (40, 72):
        rows = log_view.wrapped_help(ZH, width).splitlines()
        assert all(get_cwidth(r) <= width for r in rows), [r for r in rows if get_cwidth(r) > width]
        # nothing lost: the same characters, spaces aside
        assert "".join("".join(rows).split()) == "".join(ZH.help().split())
        assert not any(r.lstrip()[:1] in "，。）；：、" for r in rows if r.strip())  # (no row opens with a closing)
    long = LogLine(0, "trick", "赵六 出 ♥K，王小明 出 ♦7，" * 8)
    logged = text(log_view.log_lines([long], 60)).splitlines()
    assert len(logged) > 2 and all(get_cwidth(r) <= 59 for r in logged)


def test_latin_text_wraps_at_spaces_as_before() -> None:
    assert wrap_columns("  Trick: Laub Ober, Eichel Acht (led by seat 0)", 30, indent="      ") == [
        "  Trick: Laub Ober, Eichel", "      Acht (led by seat 0)"]
    assert wrap_columns("x" * 12, 5, cut_long=True) == ["xxxxx", "xxxxx", "xx"]


def test_a_name_is_cut_and_padded_by_terminal_columns() -> None:
    # (one module cuts and pads the seat rows, the lobby and the summary: a Chinese character takes two columns, is
    # never split, and a cut name is marked "…")
    for name in ("Vroni（机器人）", "王小明", "Anna", "", "x" * 30):
        for width in range(1, 20):
            fitted, padded, cut = fit_columns(name, width), pad_columns(name, width), cut_columns(name, width)
            assert get_cwidth(fitted) == width, (name, width, fitted)
            shown = fitted.rstrip(" ")
            assert shown.endswith("…") == (get_cwidth(name) > width) and name.startswith(shown.rstrip("…"))
            assert padded.rstrip(" ") == name and get_cwidth(padded) == max(width, get_cwidth(name))
            assert pad_columns(name, width, right=True) == " " * (get_cwidth(padded) - get_cwidth(name)) + name
            rest = name[len(cut):]
            assert name.startswith(cut) and get_cwidth(cut) <= width
            assert not rest or get_cwidth(cut + rest[0]) > width  # (as much as fits)
    assert fit_columns("王小明", 4) == "王… " and cut_columns("王小明", 5) == "王小"


def test_the_scores_line_and_a_tricks_line_use_chinese_marks() -> None:
    # found playing at 80x24 under --lang zh: "队 A (0+2): 2 · 队 B (1+3): 0" and "第 1 墩：Loisl ♦10, Resi ♥9, …"
    view = named_view()
    view.sides.extend([pb.SideView(side=0, seats=[0, 2], score=2), pb.SideView(side=1, seats=[1, 3], score=0)])
    line = text(vm.scores_pane(view, ZH, 80))
    assert line.startswith("队 A（0+2）：2 · 队 B（1+3）：0 · ") and "(" not in line
    assert text(vm.scores_pane(view, Words("en"), 80)).startswith("Team A (0+2): 2 · Team B (1+3): 0 · ")
    trick = next(t for t in (line.text for line in story_of(HAND, ZH).lines) if t.startswith("第 1 墩"))
    assert "Anna ♦7，Vroni ♦8，Sepp ♦O，Resi ♠7" in trick and ", " not in trick, trick


def _rows_seen(table: Any, cols: int, rows: int) -> list[str]:
    """The application's screen as a terminal shows it: a wide character takes its column and the next, and
    whatever a float wrote into that next column is not seen (as prompt-toolkit's renderer walks a row)."""
    screen = Screen()
    table.app.layout.container.write_to_screen(screen, MouseHandlers(), WritePosition(0, 0, cols, rows), "", False,
                                               None)
    screen.draw_all_floats()
    seen = []
    for y in range(rows):
        line, x = "", 0
        while x < cols:
            cell = screen.data_buffer[y][x]
            line, x = line + cell.char, x + max(1, cell.width)
        seen.append(line)
    return seen


def test_the_help_box_keeps_its_border_over_a_chinese_screen() -> None:
    # found at 80x24 under --lang zh: "?" over the match summary showed "本─────" and "最  r 加注" (the box's left
    # border at column 1 fell inside a Chinese character below, which takes columns 0 and 1)
    view = named_view()
    for s, name in zip(view.seats, ["王小明", "李四", "张三丰", "赵六"], strict=True):
        s.name = name
    view.table.phase = vm.MATCH_OVER

    async def scenario() -> list[str]:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=80), term="xterm")
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=output):
            table = TableApp(FakeConnection(view), ZH)  # type: ignore[arg-type]
            table.state.view, table.state.story, table.state.show_help = view, story_of(HAND, ZH, view), True
            with set_app(table.app):
                return _rows_seen(table, 80, 24)

    rows = asyncio.run(scenario())
    box = [r for r in rows[1:] if "│" in r or "┌" in r or "└" in r]
    assert len(box) > 10 and all(r[0] in "┌│└" and r.rstrip()[-1] in "┐│┘" for r in box), "\n".join(rows)


def test_the_farewell_names_the_winner_in_chinese_brackets() -> None:
    # found leaving a finished Chinese match at 80x24: "最终比分：3–0 · Bummerl 0–1 (队 A 获胜)"
    view = named_view(winners=[0])
    view.table.phase = vm.MATCH_OVER
    view.sides.extend([pb.SideView(side=0, seats=[0, 2], score=3), pb.SideView(side=1, seats=[1, 3], score=0)])
    said = log_view.farewell(vm.ScreenState(view=view, deal_status="verified"), ZH)
    assert said[0].endswith(" · 队 A（你）获胜") and "(" not in said[0], said
    assert log_view.farewell(vm.ScreenState(view=view), Words("en"))[0].endswith(" · Team A (you) wins")


def test_the_lobbys_tags_line_up_in_columns_with_and_without_a_team() -> None:
    """The lobby padded the team to 8 characters: "队 A" is 4 columns in 3 characters, so in Chinese a seat with a team
    put its tags one column further right than a seat without one."""
    view = make_view(game_fingerprint="")
    view.table.phase = pb.TABLE_PHASE_LOBBY
    view.seats[2].side = -1  # (a seat whose team is not known yet)
    words = Words("zh")
    rows = [row for row in text(vm.lobby(vm.ScreenState(view=view), words)).splitlines() if "P" in row]
    assert len(rows) == 4 and rows[0].endswith(words["you"]), rows
    before_tags = [get_cwidth(row) - (get_cwidth(words["you"]) if i == 0 else 0) for i, row in enumerate(rows)]
    assert len(set(before_tags)) == 1, rows


def test_a_number_that_ends_a_log_line_stays_with_its_word() -> None:
    """Found playing in German at 80x24: "── Hand 9: Loisl (Bot) gibt, Vroni (Bot) hebt ab, Resi (Bot) kommt raus ·
    Wert" and a "3" alone on the next row."""
    line = "── Hand 9: Loisl (Bot) gibt, Vroni (Bot) hebt ab, Resi (Bot) kommt raus · Wert 3"
    assert wrap_columns(line, 79, indent="    ") == [line[:-7], "    Wert 3"]
    assert wrap_columns(line, 120, indent="    ") == [line]
    assert wrap_columns("Trick 1: Anna ♥K, Vroni ♥7 (0–1)", 12, indent="  ")[0] == "Trick 1:"  # (only the last)
