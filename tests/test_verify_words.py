"""`watten-verify --show` in words (names from the roster, German card names, de/en/zh, the stand-in's moves
marked, the owner's signals), `--export` (docs/export.md), and the messages a person reads for a missing file, a
folder, a corrupt header (issue 14). Records from whole games played through the real protocol code in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from watten_net.engine import Rules
from watten_net.engine.events import EventKind
from watten_net.printable import shown_as_is
from watten_net.verify import EXIT_CODES, FAILED, VERIFIED, main, verify_file

from local_table import LocalTable
from tampering import Game, encode, play_game


@pytest.fixture(scope="module")
def away_game() -> Game:
    # seat 2 is away from step 30 for 60 steps: the reference stand-in plays it; the Bavarian preset signals
    return play_game("away", Rules.preset("bavarian"), seed=14, absences={30: (2, 60)})


def _record(game: Game, tmp: Path, seat: int | None) -> str:
    path = tmp / f"seat{seat}.wrec"
    path.write_bytes(encode(game.record(seat), seat))
    return str(path)


def test_show_in_english_names_cards_stand_in_and_the_owners_signals(
        away_game: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _record(away_game, tmp_path, 0)
    report = verify_file(path)
    assert report.ok and report.names and report.match is not None
    assert main(["--show", "--lang", "en", path]) == EXIT_CODES[VERIFIED]
    out = capsys.readouterr().out
    name = report.names[2]
    assert f"seat 2 ({name})" in out
    by_bot = sum(1 for _, _, actor in report.moves if actor == "bot")
    assert by_bot > 0 and out.count("[the stand-in, for a seat away]") == by_bot
    # the owner (seat 0) sees its own and its partner's (seat 2) signals, never the other side's
    signals = [e for e in report.match.events() if e.kind == EventKind.SIGNAL]
    mine = [e for e in signals if 0 in (e.to or ())]
    assert out.count(" signals ") == len(mine) and len(mine) < len(signals)
    trick = next(e for e in report.match.events() if e.kind == EventKind.TRICK)
    from watten_net.cardwords import card_words
    assert ", ".join(card_words(c) for c in trick.data["cards"]) in out
    assert "Leaves ♠" in out or "Acorns ♣" in out or "Hearts ♥" in out or "Bells ♦" in out  # trump explained


def test_show_in_german(away_game: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _record(away_game, tmp_path, 2)
    report = verify_file(path)
    assert main(["--show", "--lang", "de", path]) == EXIT_CODES[VERIFIED]
    out = capsys.readouterr().out
    assert f"Platz 2 ({report.names[2]})" in out and "\nHand 1: " in out and " gibt, " in out
    assert out.count("[der Vertreter, Platz war weg]") == sum(1 for m in report.moves if m[2] == "bot")
    assert " deutet " in out and "Partie vorbei: " in out and " seat " not in out.split("\nHand 1: ", 1)[1]


def test_a_hostile_name_is_shown_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = play_game("plain", Rules.preset("bavarian", players=2), seed=3)
    path = _record(game, tmp_path, None)
    report = verify_file(path)
    from watten_net.record_words import Telling, describe
    assert report.match is not None
    lines = describe(report.match, Telling(names=["\x1b[2Jevil", "ok"]))
    assert not any("\x1b" in line for line in lines) and any("\\x1b[2Jevil" in line for line in lines)


def test_export_holds_every_hand(away_game: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, out = _record(away_game, tmp_path, None), tmp_path / "match.json"
    assert main(["--export", str(out), path]) == EXIT_CODES[VERIFIED]
    exported = json.loads(out.read_text())
    report = verify_file(path)
    assert report.match is not None
    events = report.match.events()
    assert exported["format"] == "watten-net-match/1" and exported["game_id"] == report.game_id
    assert [p["key"] for p in exported["players"]] == report.keys
    assert len(exported["hands"]) == sum(1 for e in events if e.kind == EventKind.HAND_START)
    assert sum(len(h["tricks"]) for h in exported["hands"]) == sum(1 for e in events if e.kind == EventKind.TRICK)
    assert exported["final_scores"] == report.final_scores
    played = [h for h in exported["hands"] if h["result"] and h["result"]["kind"] == "hand-end"]
    # the host's record after the reveal: every seat's cards of every hand
    assert all(len(h["dealt"]) == 4 for h in played)
    # every move the stand-in made is an action marked as its own (the host's record shows every signal too)
    assert sum(a["stand_in"] for h in exported["hands"] for a in h["actions"]) == sum(
        1 for m in report.moves if m[2] == "bot") > 0
    capsys.readouterr()
    assert main(["--export", "-", path]) == EXIT_CODES[VERIFIED]
    assert json.loads(capsys.readouterr().out)["game_id"] == report.game_id  # alone on stdout: a pipe gets JSON


HOSTILE = "Eve\x9b2J\x7f\u202eevil\u200b"  # C1 CSI, DEL, a bidi override, a zero-width space: JSON leaves them raw


def test_export_holds_no_raw_control_from_the_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The header's names are the host's strings, and an honest seat signs them (its screen shows them via `visible`).
    # `--export -` is the standard output, often a terminal; json.dumps(ensure_ascii=False) escapes C0 only, so the
    # C1 CSI, DEL and the bidi override reached the terminal raw. They are JSON escapes now: the same value decoded.
    rules = Rules.preset("bavarian", players=2)
    table = LocalTable(rules, seed=5, names=["Ann", HOSTILE])
    table.play()
    path = tmp_path / "seat0.wrec"
    path.write_bytes(encode(table.seat_entries(0), 0))
    assert main(["--export", "-", str(path)]) == EXIT_CODES[VERIFIED]  # the seats signed it: the record is fair
    out = capsys.readouterr().out
    assert all(shown_as_is(ch) or ch == "\n" for ch in out), [ch for ch in set(out) if not shown_as_is(ch)]
    exported = json.loads(out)
    assert [p["name"] for p in exported["players"]] == ["Ann", HOSTILE]  # exact, not `visible`'s lossy form
    written = tmp_path / "match.json"
    assert main(["--export", str(written), str(path)]) == EXIT_CODES[VERIFIED]
    text = written.read_text(encoding="utf-8")  # (a file, later shown with `cat`, holds none either)
    assert all(shown_as_is(ch) or ch == "\n" for ch in text) and json.loads(text) == exported
    capsys.readouterr()


def test_messages_for_files_and_folders(away_game: Game, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "watten-nothing-seat1.wrec"
    assert main([str(missing)]) == EXIT_CODES[FAILED]
    assert capsys.readouterr().out == f"{missing}: no such file\n"
    assert main(["--export", "-", str(missing)]) == EXIT_CODES[FAILED]
    assert capsys.readouterr() == ("", f"{missing}: no such file\n")  # (stdout holds exports alone)
    folder = tmp_path / "records"
    folder.mkdir()
    assert main([str(folder)]) == EXIT_CODES[FAILED]
    assert capsys.readouterr().out == f"{folder}: no records (*.wrec) in this folder\n"
    for seat in (None, 1):
        (folder / f"{seat}.wrec").write_bytes(encode(away_game.record(seat), seat))
    assert main([str(folder)]) == EXIT_CODES[VERIFIED]
    out = capsys.readouterr().out
    assert out.count(": verified ✓") == 2, out
    corrupt = folder / "corrupt.wrec"
    corrupt.write_bytes(b"\x00\x01garbage")
    assert main([str(corrupt)]) == EXIT_CODES[FAILED]
    out = capsys.readouterr().out
    assert "b'" not in out and "Errno" not in out and "its first line is not WATTEN-RECORD/1" in out
    assert main([str(folder)]) == EXIT_CODES[FAILED]  # the gravest of the folder's three
    assert capsys.readouterr().out.count("\n/") == 2


def test_a_bot_is_marked_in_the_language_of_show(tmp_path: Path) -> None:
    # found in the `words` playtest: a German and a Chinese --show said "Vroni (bot)"; the roster's bot flag says
    # who is a bot (a person named "Sepp (bot)" keeps their name as it is)
    from watten_net.record_words import describe
    game = play_game("plain", Rules.preset("bavarian", players=2), seed=3)
    report = verify_file(_record(game, tmp_path, None))
    assert report.match is not None
    report.names, report.bots = ["Sepp (bot)", "Vroni (bot)"], [False, True]
    said = {lang: "\n".join(describe(report.match, report.telling(lang))) for lang in ("en", "de", "zh")}
    assert "seat 1 (Vroni (bot))" in said["en"] and "seat 0 (Sepp (bot))" in said["en"]
    assert "Platz 1 (Vroni (Bot))" in said["de"] and "Platz 0 (Sepp (bot))" in said["de"]
    assert "座位 1（Vroni，机器人）" in said["zh"] and "座位 0（Sepp (bot)）" in said["zh"]
    assert "(bot)" not in said["zh"].replace("Sepp (bot)", "") and "Vroni (bot)" not in said["de"]


def test_a_chinese_show_uses_chinese_marks(tmp_path: Path) -> None:
    # found reading --show --lang zh of a game played at 80x24: "一墩：Eichel Neun, Schellen Ober, …（座位 3（Resi，
    # 机器人） 先出），…", "叫 Schlag O (Ober)", "座位 0（小明）, 座位 2（Loisl，机器人） 赢"
    from watten_net.record_words import describe
    game = play_game("plain", Rules.preset("bavarian"), seed=5)
    report = verify_file(_record(game, tmp_path, None))
    assert report.match is not None
    report.names, report.bots = ["小明", "Vroni (bot)", "Loisl (bot)", "Resi (bot)"], [False, True, True, True]
    said = describe(report.match, report.telling("zh"))
    tricks = [line for line in said if line.startswith("  一墩：")]
    assert tricks and all(", " not in line and line.count("（") == line.count("）") <= 2 for line in tricks), tricks
    assert all("先出，" in line and "；座位 " in line for line in tricks)
    assert any(" 叫 Schlag " in line and "（" in line.split("Schlag", 1)[1] for line in said)
    ends = [line for line in said if " 分（" in line]
    assert ends and all(", " not in line for line in ends) and any("）和座位 " in line for line in ends), ends
    german = describe(report.match, report.telling("de"))
    assert any(") und Platz " in line and " gewinnen " in line for line in german)


def test_a_seat_keeps_its_number_on_a_narrow_terminal() -> None:
    # found reading --show --lang zh at 80 columns: "…；座位" / "      2（Loisl，机器人） 先出，…"
    from watten_net.record_words import wrap_words
    line = ("  一墩：Eichel Ass，Schellen Sieben (Belli)，Herz Zehn，Laub Ober；座位 2（Loisl，机器人） 先出，"
            "座位 3（Resi） 赢。")
    for width in range(40, 80):
        rows = wrap_words(line, width)
        assert not any(row.endswith("座位") or row.lstrip()[:1].isdigit() for row in rows), rows
    assert wrap_words("  Platz 1 hebt 14 Karten ab.", 12) == ["  Platz 1", "      hebt 14", "      Karten", "      ab."]
