"""A hostile host process against an honest `watten-join` (PROTOCOL.md "Disputes"), over real gRPC on 127.0.0.1.

The host is the real one changed at run time (tests/cheating_host.py). The honest seat says at once that it
disputes what the host did, keeps the evidence in its record, and `watten-verify` on that record answers
"disputed": claimed (the seat's word) when the host called a connected seat away, proven (the host's own signature
contradicts it) when the host refused a valid envelope.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from watten_net.verify import CLAIMED, EXIT_CODES, PROVEN, verify_file

from netutil import ROOT, clients_then_host_end, isolated_env, journal_entries, start, wait_until

pytestmark = pytest.mark.network


def _cheated_game(tmp_path: Path, cheat: str, *host_args: str) -> tuple[str, Path]:
    env = isolated_env(tmp_path)
    env["WATTEN_CHEAT"] = cheat
    records = tmp_path / "records"
    host = start("tests.cheating_host", ["--port", "0", "--bind", "127.0.0.1", "--headless", "--insecure",
                                         "--players", "2", "--bots", "1", "--bot-delay", "0.2", "--set", "target=15",
                                         "--record", str(records), *host_args], env)
    port = int(host.wait_for_line(r"on port (\d+)").group(1))
    victim = start("client.main", ["--bot", "heuristic", "--insecure", "--record",
                                   str(records), f"127.0.0.1:{port}"], isolated_env(tmp_path))
    try:
        clients_then_host_end([victim], host, 240)
    finally:
        host.stop()
        victim.stop()
    [record] = sorted(records.glob("*-seat1.wrec"))
    return victim.output(), record


def _cli(record: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "watten_net.verify", "--show", str(record)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


CALLED_AWAY = "DISPUTE: the host says this seat is away, but it is connected"


@pytest.mark.parametrize(("cheat", "deal", "says", "verdict", "note", "status"), [
    # the host calls a connected seat that answered every step away: the seat's word against the host's (in a
    # trustless game every such call costs the seat's side a hand)
    ("away", "verified", CALLED_AWAY, CLAIMED, "the owner says", "DISPUTED (claimed"),
    ("away", "trustless", CALLED_AWAY, CLAIMED, "the owner says", "DISPUTED (claimed"),
    # the host calls the seat away in the very change that posts the checkpoint (and the next seal) it owes, long
    # before the step timeout: it had no chance to answer, so it was not silent (the host completes both without it)
    ("away-owing", "verified", CALLED_AWAY + " and had owed its CheckpointSignature for only 0.", CLAIMED,
     "the owner says", "DISPUTED (claimed"),
    # the host refuses a valid signature: its own signed receipt, replayed, contradicts it
    ("refuse", "verified", "DISPUTE: the host refused this seat's DeckSealedSignature (wrong-hash)", PROVEN,
     "an honest host accepts it there", "DISPUTED (proven)"),
])
def test_a_cheated_seat_says_so_at_once_and_its_record_is_disputed(
        tmp_path: Path, cheat: str, deal: str, says: str, verdict: str, note: str, status: str) -> None:
    output, record = _cheated_game(tmp_path, cheat, "--set", f"deal={deal}")
    assert says in output
    report = verify_file(str(record))
    assert report.verdict == verdict, (report.verdict, report.errors)
    assert any(note in n for n in report.notes), report.notes
    cli = _cli(record)
    assert cli.returncode == EXIT_CODES[verdict], cli.stdout + cli.stderr
    assert status in cli.stdout
    assert "the host says seat 1 is away; the reference stand-in plays it" in cli.stdout or deal == "trustless"


def test_a_match_abandoned_after_the_keys_is_counted_and_shown_at_the_next_join(tmp_path: Path) -> None:
    """PROTOCOL.md: clients count, per host key, the matches a host abandoned after the KeySet (it knew every deal
    then) and show that count at the next join."""
    import json
    import signal

    from host.journal import SUBMIT

    env = isolated_env(tmp_path)
    args = ["--port", "0", "--bind", "127.0.0.1", "--headless", "--insecure", "--players", "2", "--bots", "1",
            "--bot-delay", "0.3", "--set", "target=15"]
    host = start("host.main", args, env)
    port = int(host.wait_for_line(r"on port (\d+)").group(1))
    client = start("client.main", ["--bot", "random", "--insecure", f"127.0.0.1:{port}"], env)
    try:
        wait_until(lambda: any(kind == SUBMIT and b"ActionRequest" in raw for kind, _, raw in
                               journal_entries(tmp_path)), "a move after the key ceremony", unless=host)
        host.proc.send_signal(signal.SIGTERM)
        host.wait(60)  # (130: stopped by a signal)
        assert client.wait(60) == 0, client.output()
    finally:
        host.stop()
        client.stop()
    counted = json.loads((tmp_path / "config" / "abandoned.json").read_text())
    assert [len(games) for games in counted.values()] == [1], counted
    again = start("host.main", [*args, "--fresh"], env)
    port = int(again.wait_for_line(r"on port (\d+)").group(1))
    client = start("client.main", ["--bot", "random", "--insecure", f"127.0.0.1:{port}"], env)
    try:
        client.wait_for_line(r"this host has abandoned 1 match\(es\) after every game key was fixed")
    finally:
        client.stop()
        again.stop()
