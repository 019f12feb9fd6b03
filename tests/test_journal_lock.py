"""A second host never touches the journal of a host that is still running (issue 13 item 7).

Real processes: a headless host plays a match with a remote bot; a second host in the same home, plain, with
`--fresh` and with `--resume PATH`, refuses to take the live journal (naming the running host's pid and port) and
leaves it as it is; after `kill -9` of the first host (the OS releases its lock), a plain start resumes the game at
once on its port, the bot plays it to the end, and every record verifies.
"""

from __future__ import annotations

import fcntl
import re
from pathlib import Path

import pytest

from netutil import (
    clients_then_host_end,
    isolated_env,
    journal_entries,
    start,
    start_host,
    verified_records,
    wait_until,
)

pytestmark = [pytest.mark.network, pytest.mark.slow]


def _second_host(env: dict[str, str], *args: str) -> str:
    """A second host in the same home, on another free port: what it says before it serves (then it is stopped)."""
    second = start("host.main", ["--headless", "--insecure", "--bind", "127.0.0.1", "--port", "0", "--no-announce",
                                 *args], env)
    try:
        if "--resume" in args:
            assert second.wait(60) == 2, second.output()
        else:
            second.wait_for_line(r"on port \d+")
    finally:
        second.stop()
    return second.output()


def test_a_second_host_leaves_a_live_journal_alone_and_a_killed_hosts_is_resumed_at_once(tmp_path: Path) -> None:
    records = tmp_path / "records"
    env = isolated_env(tmp_path)
    journals = tmp_path / "data" / "journal"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1", "--no-announce",
                            "--record", str(records), "--set", "target=15", "--bot-delay", "0.05")
    args = ["--bot", "random", "--identity", str(tmp_path / "seat.key"), "--insecure", "--record", str(records),
            "--delay", "0.3", f"127.0.0.1:{port}"]
    client = start("client.main", args, env)
    resumed = None
    try:
        wait_until(lambda: len(journal_entries(tmp_path)) > 10, "the match under way", unless=host)
        [journal] = journals.glob("*.wjournal")
        pid = host.proc.pid
        for extra in ([], ["--fresh"], ["--resume", str(journal)]):
            said = _second_host(env, *extra)
            # The refusal names the running host, and the journal is where it was, still the first host's.
            assert re.search(rf"\(pid {pid}, port {port}\)", said), (extra, said)
            assert "resuming" not in said and "abandoned" not in said, (extra, said)
            assert journal.exists() and not list(journals.glob("*.abandoned")), (extra, sorted(journals.iterdir()))
        assert host.proc.poll() is None, host.output()
        entries = len(journal_entries(tmp_path))
        wait_until(lambda: len(journal_entries(tmp_path)) > entries, "the first host still playing", unless=host)

        host.proc.kill()  # kill -9: the OS releases its lock with the process
        host.proc.wait(10)
        resumed = start("host.main", ["--headless", "--insecure", "--bind", "127.0.0.1", "--no-announce",
                                      "--grace", "30"], env)
        resumed.wait_for_line(r"resuming the unfinished game of .*" + re.escape(journal.name))
        resumed.wait_for_line(rf"on port {port}\b")
        clients_then_host_end([client], resumed, 180)
    finally:
        for p in (host, client, *([resumed] if resumed else [])):
            p.stop()
    assert "Traceback" not in client.output() + resumed.output()
    verified_records(records, 2)  # the host's record and the bot's, across the crash
    # Nothing holds a lock any more: a lock file a killed host left behind is free (and the next start sweeps it).
    for path in journals.glob("*.lock"):
        with path.open("rb") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # (raises BlockingIOError if a process still held it)
