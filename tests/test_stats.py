"""`watten-stats` counting over records of whole games played in-process through the real protocol code: one match
per game however many parties' records hold it, a record that fails skipped with the reason, the table and the
chart (the network test, tests/test_stats_network.py, counts records of real host and client processes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from watten_net.engine import Rules
from watten_net.engine.events import EventKind
from watten_net.printable import shown_as_is
from watten_net.stats import count, main, table
from watten_net.stats_chart import score_chart, score_steps

from local_table import LocalTable
from tampering import encode, play_game


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("records")
    game = play_game("three", Rules.preset("bavarian", players=3), seed=5)
    for seat in (None, 0, 1, 2):
        (where / f"{seat}.wrec").write_bytes(encode(game.record(seat), seat))
    bad = bytearray(encode(game.record(1), 1))
    bad[-100] ^= 4
    (where / "bad.wrec").write_bytes(bytes(bad))
    return where


def test_one_match_however_many_records(folder: Path) -> None:
    evening = count([str(folder)])
    assert len(evening.matches) == 1 and len(next(iter(evening.records.values()))) == 4
    assert [Path(p).name for p, _ in evening.skipped] == ["bad.wrec"]
    report = evening.matches[0]
    assert report.match is not None
    ends = [e for e in report.match.events() if e.kind == EventKind.HAND_END]
    for seat, key in enumerate(report.keys):
        person = evening.players[key]
        assert person.matches == 1 and person.hands == len(ends)
        assert person.hands_won == sum(seat in e.data["seats"] for e in ends)
        # three players: each keeps a score of their own
        assert person.points_for == report.final_scores[seat]
        assert person.points_against == sum(report.final_scores) - report.final_scores[seat]
    assert sum(p.wins for p in evening.players.values()) == 1


def test_text_json_and_chart(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--json", str(folder)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert len(stats["players"]) == 3 and stats["skipped"][0]["reason"].startswith("envelope ")
    evening = count([str(folder)])
    report = evening.matches[0]
    steps = score_steps(report.match)
    assert steps[0] == [0, 0, 0] and steps[-1] == report.final_scores
    chart = score_chart(report).splitlines()
    assert chart[0].startswith(f"Game {report.fingerprint} ({report.preset or 'custom'}): score after each hand")
    assert all(len(line) <= 80 for line in chart) and len(chart[-5]) >= len(steps) * 3
    evening.players[report.keys[0]].names = ["\x1b[31mred"]
    assert "\x1b" not in table(evening) and "\\x1b[31mred" in table(evening)


def test_csv_holds_no_raw_control_from_a_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A name in the header is the host's string, and honest seats sign it; CSV has no escapes, so `watten-stats --csv`
    # wrote the ESC of "\x1b[2J" (and a bidi override) to the terminal raw. The key column names the player exactly.
    table = LocalTable(Rules.preset("bavarian", players=2), seed=6, names=["\x1b[2Jeve\u202e", "Bob"])
    table.play()
    (tmp_path / "seat1.wrec").write_bytes(encode(table.seat_entries(1), 1))
    assert main(["--csv", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert all(shown_as_is(ch) or ch == "\n" for ch in out), out
    assert "\\x1b[2Jeve<U+202E>" in out and "Bob" in out
