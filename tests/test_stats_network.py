"""`watten-stats` and `watten-verify` over the records of real matches (issue 14): a real host with two bots of its
own and two `watten-join --bot` processes over loopback, two matches with the same two joining identities, every
party's record kept (three records of each match) and one tampered copy. The totals must equal those counted here
apart: from `watten-verify --json` (who played, the final scores) and the engine's replay of each match."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from watten_net.engine.events import EventKind
from watten_net.engine.seating import seating_for
from watten_net.verify import verify_file

from netutil import ROOT, isolated_env, start, start_host

pytestmark = pytest.mark.network

NAME = re.compile(r"watten-([0-9a-f]{4}(?:-[0-9a-f]{4}){3})-(seat[0-9]|table-[0-9a-f]+-host)\.wrec")


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("stats")
    folder = tmp / "records"
    env = isolated_env(tmp)
    host, port = start_host(tmp, "--headless", "--insecure", "--bots", "2", "--matches", "2", "--record",
                            str(folder), "--set", "target=11", "--no-announce")
    try:
        for match in range(2):
            if match:  # (a joiner that came before the fresh table would find the finished match)
                host.wait_for_line(r"opened \(in place of a finished one\)")
            joiners = [start("client.main", ["--bot", "random", "--insecure", "--name", name, "--seed", str(match),
                                             "--identity", str(tmp / f"{name}.key"), "--record", str(folder),
                                             f"127.0.0.1:{port}"], env) for name in ("Ann", "Bert")]
            for joiner in joiners:
                assert joiner.wait(240) == 0, joiner.output()
        assert host.wait(120) == 0, host.output()
    finally:
        host.stop()
    return folder


def _run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_records_are_named_by_the_fingerprint_and_a_folder_verifies(records: Path) -> None:
    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == 6, paths
    for path in paths:
        found = NAME.fullmatch(path.name)
        assert found, path.name
        assert verify_file(str(path)).fingerprint == found.group(1).replace("-", " ")
    done = _run("watten_net.verify", str(records))
    assert done.returncode == 0 and done.stdout.count(": verified ✓") == 6, done.stdout
    # the README's examples, as written: the folder (above), and one game's records by the fingerprint on screen
    game = NAME.fullmatch(paths[0].name)
    assert game
    shell = subprocess.run(f"{sys.executable} -m watten_net.verify {records}/watten-{game.group(1)}-*.wrec",
                           shell=True, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert shell.returncode == 0 and shell.stdout.count(": verified ✓") == 3, shell.stdout + shell.stderr


def _expected(records: Path) -> dict[str, dict[str, Any]]:
    """Each player's totals counted apart: who played and the final scores from `watten-verify --json`, the hands
    from the engine's replay of one record of each match."""
    done = _run("watten_net.verify", "--json", str(records))
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    games: dict[str, dict[str, Any]] = {}
    for r in reports:
        if r["ok"]:
            games.setdefault(r["game_id"], r)
    assert len(games) == 2
    totals: dict[str, Counter[str]] = {}
    for game in games.values():
        match = verify_file(game["path"]).match
        assert match is not None
        scorer = seating_for(match.rules).scorer_of
        winner = max(range(len(game["final_scores"])), key=lambda s: game["final_scores"][s])
        for player in game["players"]:
            seat, mine = player["seat"], totals.setdefault(player["key"], Counter())
            mine["matches"] += 1
            mine["wins"] += scorer[seat] == winner
            mine["points_for"] += game["final_scores"][scorer[seat]]
            mine["points_against"] += sum(game["final_scores"]) - game["final_scores"][scorer[seat]]
            raised = 0
            for e in match.events():
                if e.kind == EventKind.HAND_START:
                    raised = 0
                raised += e.kind == EventKind.RAISE and e.seat == seat
                mine["raises"] += e.kind == EventKind.RAISE and e.seat == seat
                mine["folds"] += e.kind == EventKind.FOLD and e.seat == seat
                if e.kind == EventKind.HAND_END:
                    won = seat in e.data["seats"]
                    mine["hands"] += 1
                    mine["hands_won"] += won
                    mine["raises_won"] += raised if won else 0
    return {key: dict(c) for key, c in totals.items()}


def test_stats_count_each_match_once_and_skip_a_tampered_record(records: Path, tmp_path: Path) -> None:
    expected = _expected(records)
    tampered = tmp_path / "tampered.wrec"
    data = bytearray(sorted(records.glob("*-seat2.wrec"))[0].read_bytes())
    data[-200] ^= 1
    tampered.write_bytes(bytes(data))
    done = _run("watten_net.stats", "--json", str(records), str(tampered))
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)
    assert len(stats["matches"]) == 2 and all(len(m["records"]) == 3 for m in stats["matches"])
    assert [s["record"] for s in stats["skipped"]] == [str(tampered)]
    assert "envelope" in stats["skipped"][0]["reason"]
    rows = {row["key"]: row for row in stats["players"]}
    assert set(rows) == set(expected)
    for key, mine in expected.items():
        for column, value in mine.items():
            assert rows[key][column] == value, (key, column)
    joiners = [row for row in rows.values() if row["names"] in (["Ann"], ["Bert"])]
    assert len(joiners) == 2 and all(row["matches"] == 2 for row in joiners)  # one key, two matches
    assert sum(p["matches"] for p in stats["presets"]) == 2
    table = list(csv.DictReader(io.StringIO(_run("watten_net.stats", "--csv", str(records)).stdout)))
    assert {row["key"]: int(row["hands_won"]) for row in table} == {k: r["hands_won"] for k, r in rows.items()}
    text = _run("watten_net.stats", str(records), str(tampered), str(tmp_path / "gone.wrec")).stdout
    newest = stats["matches"][-1]["fingerprint"]
    assert f"Game {newest} (bavarian): score after each hand, target 11" in text
    assert f"{tampered}: envelope " in text and f"{tmp_path / 'gone.wrec'}: no such file" in text
    assert "2 match(es) from 6 verified record(s)" in text
