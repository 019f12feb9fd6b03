"""Ctrl-C (SIGINT) the host while a joined person is offline, then start it again: it resumes, no traceback.

The stop abandons the match (MatchEnd "host-shutdown", a closing checkpoint the offline seat cannot sign yet), so the
journal stays unfinished; the seats that were there sign the closing checkpoint and those signatures are journaled.
The abandon is journaled and replayed like any other input, so a restart replays those signatures on a match it knows
is abandoned (without it, every later start would end in a traceback until `--fresh`).
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from netutil import isolated_env, journal_entries, start, start_host, wait_until

pytestmark = pytest.mark.network


def test_a_restart_after_ctrl_c_with_a_person_offline_resumes_without_a_traceback(tmp_path: Path) -> None:
    records = tmp_path / "records"
    env = isolated_env(tmp_path)
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--record", str(records))
    clients = [start("client.main", ["--bot", "random", "--seed", str(i), "--delay", "0.3", "--insecure",
                                     "--record", str(records), f"127.0.0.1:{port}"], env) for i in range(2)]
    restarted = None
    try:
        # Playing: the journal has the game's start and some envelopes of both seats.
        wait_until(lambda: len(journal_entries(tmp_path)) > 10, "the game under way", unless=host)
        clients[1].proc.kill()  # a person whose client is gone: offline, its grace period running
        clients[1].proc.wait(10)
        host.proc.send_signal(signal.SIGINT)
        assert host.wait(60) == 130, host.output()
        assert list((tmp_path / "data" / "journal").glob("*.wjournal")), "the stopped match left no journal"
        # A plain start resumes the abandoned match on its port; the offline seat's grace ends the closing
        # checkpoint (a bot stands in), the match is over, and the headless host exits 0.
        restarted = start("host.main", ["--headless", "--insecure", "--bind", "127.0.0.1", "--grace", "1"], env)
        restarted.wait_for_line(r"resuming the unfinished game")
        restarted.wait_for_line(rf"on port {port}")
        assert restarted.wait(90) == 0, restarted.output()
    finally:
        for p in (host, *clients, *([restarted] if restarted else [])):
            p.stop()
    assert "Traceback" not in host.output() + restarted.output(), restarted.output()
    assert not list((tmp_path / "data" / "journal").glob("*.wjournal")), "the match's journal is still open"
    from watten_net.verify import verify_file

    # The host's record of the resumed match, its end included, verifies.
    [path] = records.glob("*-host.wrec")
    report = verify_file(str(path))
    assert report.ok, (path.name, [e.sentence() for e in report.errors])
    # And a third start is a plain fresh one: nothing left to resume.
    again = start("host.main", ["--headless", "--insecure", "--bind", "127.0.0.1", "--port", "0"], env)
    try:
        again.wait_for_line(r"on port \d+")
        assert "resuming" not in again.output()
    finally:
        again.stop()
    assert "Traceback" not in again.output()
