"""A 4-player trustless match between separate processes: host with two bots of its own, two remote bots.

Nobody, the host included, sees a card it may not see; at the end every record (the host's and each remote
seat's) verifies with watten-verify, and says it was a trustless deal.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from watten_net.deal.protocol import parse_envelope
from watten_net.record import KIND_HOST, read_record
from watten_net.verify import verify_file

from netutil import clients_then_host_end, host_chain, isolated_env, start, start_host, verified_records

pytestmark = pytest.mark.network


def test_a_four_player_trustless_match_between_processes_completes_and_verifies(tmp_path: Path) -> None:
    records = tmp_path / "records"
    env = isolated_env(tmp_path)
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "4", "--bots", "2",
                            "--set", "deal=trustless", "--set", "target=5", "--record", str(records))
    clients = [
        start("client.main", ["--bot", "heuristic", "--seed", str(i), "--insecure", "--record", str(records),
                              f"127.0.0.1:{port}"], env)
        for i in range(2)
    ]
    try:
        clients_then_host_end(clients, host, 300)
    finally:
        for p in (host, *clients):
            p.stop()
    paths = verified_records(records, 3)
    for path in paths:
        _, entries = read_record(str(path))
        header = parse_envelope(next(e.data for e in entries if e.kind == KIND_HOST), host=True)
        assert header.payload.settings.deal == "trustless"
    cli = subprocess.run([sys.executable, "-m", "watten_net.verify", *map(str, paths)], capture_output=True,
                         text=True, timeout=120)
    assert cli.returncode == 0, cli.stdout + cli.stderr


def test_a_trustless_seat_gone_for_good_costs_its_side_one_hand_per_grace_period_and_the_match_ends(
        tmp_path: Path) -> None:
    """Nobody can play a trustless seat for a person who is away: the table waits for them, a grace period per
    hand, then that hand is forfeited by their side. Gone for good (kill -9, never back), the match still ends,
    hand by hand, and the host's record verifies."""
    records = tmp_path / "records"
    env = isolated_env(tmp_path)
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1", "--grace", "1",
                            "--set", "deal=trustless", "--set", "target=7", "--record", str(records))
    client = start("client.main", ["--bot", "random", "--seed", "3", "--insecure", "--record", str(records),
                                   f"127.0.0.1:{port}"], env)
    try:
        client.wait_for_line(r"seat \d")
        client.proc.kill()  # gone at once: in the lobby, the header or the first deal, whichever it has reached
        client.proc.wait(10)
        assert host.wait(180) == 0, host.output()
    finally:
        for p in (host, client):
            p.stop()
    host_record = next(records.glob("*-host.wrec"))
    report = verify_file(str(host_record))
    assert report.ok, [e.sentence() for e in report.errors]
    chain = host_chain(host_record)
    stand_ins = [(int(s.payload.seat), bool(s.payload.active)) for s in chain if s.type == "StandIn"]
    assert len(stand_ins) == 1 and stand_ins[0][1], (stand_ins, [s.type for s in chain], host.output())
    gone = stand_ins[0][0]
    aborted = [s.payload for s in chain if s.type == "AttemptAborted" and s.payload.reason == "away"]
    assert len(aborted) >= 2 and {int(a.seat) for a in aborted} == {gone}, aborted  # 7 points, 2 a hand
    end = next(s.payload for s in chain if s.type == "MatchEnd")
    assert int(end.winner_side) != gone % 2, end  # (it could not score a point once gone)
