"""Records, journals and seat secrets are private: files 0600, the program's folders 0700 (issue #19, item 6).

A host's record and journal hold every seat's cards while the game runs, a seat's secrets its unrevealed seeds. The
processes here run with umask 0, so every mode checked is one the code chose, not one the umask narrowed.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from host.journal import Journal
from watten_net.record import RecordWriter

from netutil import ROOT, Proc, clients_then_host_end, isolated_env

pytestmark = [pytest.mark.network, pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def start_umask0(module: str, args: list[str], tmp_path: Path) -> Proc:
    return Proc(subprocess.Popen([sys.executable, "-m", module, *args], cwd=ROOT, env=isolated_env(tmp_path),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, umask=0))


def test_a_real_game_leaves_only_private_records_journals_and_secrets(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "records").mkdir(parents=True, mode=0o777)  # as an older version left it: ours, so made 0700 now
    os.chmod(data / "records", 0o777)
    os.chmod(data, 0o755)  # (the data folder itself may be the user's choice: it keeps its mode)
    shared = tmp_path / "shared"  # a folder the user names with --record and shares on purpose: it keeps its mode
    shared.mkdir()
    os.chmod(shared, 0o755)
    host = start_umask0("host.main", ["--port", "0", "--bind", "127.0.0.1", "--headless", "--insecure",
                                      "--players", "2", "--bots", "1", "--set", "target=3"], tmp_path)
    try:
        port = int(host.wait_for_line(r"on port (\d+)").group(1))
        client = start_umask0("client.main", ["--bot", "random", "--seed", "1", "--insecure", "--record",
                                              str(shared), f"127.0.0.1:{port}"], tmp_path)
        try:
            clients_then_host_end([client], host, 180)
        finally:
            client.stop()
    finally:
        host.stop()
    host_records, seat_records = list((data / "records").glob("*.wrec")), list(shared.glob("*.wrec"))
    journals = [p for p in (data / "journal").iterdir() if p.is_file()]
    secrets = [p for p in (data / "seats").rglob("*") if p.is_file()]
    assert host_records and seat_records and journals, (host_records, seat_records, journals)
    for path in (*host_records, *seat_records, *journals, *secrets):
        assert mode(path) == 0o600, (path, oct(mode(path)))
    for folder in ("records", "journal", "seats"):
        assert mode(data / folder) == 0o700, (folder, oct(mode(data / folder)))
    assert mode(data) == 0o755 and mode(shared) == 0o755


def test_a_record_in_a_new_folder_makes_every_missing_folder_0700(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        writer = RecordWriter(tmp_path / "a" / "b" / "game.wrec", {"written_by": "test"})
        writer.close()
    finally:
        os.umask(old)
    assert mode(tmp_path / "a") == mode(tmp_path / "a" / "b") == 0o700
    assert mode(tmp_path / "a" / "b" / "game.wrec") == 0o600


def test_a_record_or_journal_written_over_an_older_wider_file_becomes_0600(tmp_path: Path) -> None:
    record, journal = tmp_path / "old.wrec", tmp_path / "old.wjournal"
    for path in (record, journal):
        path.write_bytes(b"")
        os.chmod(path, 0o644)
    RecordWriter(record, {"written_by": "test"}).close()
    Journal(journal, {}).close()
    assert mode(record) == mode(journal) == 0o600
    os.chmod(journal, 0o644)  # (a journal an older version wrote, resumed after a crash)
    Journal.reopen(journal).close()
    assert mode(journal) == 0o600
