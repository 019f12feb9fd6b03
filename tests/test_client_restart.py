"""kill -9 a client mid-hand and start it again: it gets its seat back, catches up, and the hand goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from netutil import (
    actions_of,
    clients_then_host_end,
    isolated_env,
    journal_entries,
    start,
    start_host,
    verified_records,
    wait_until,
)

pytestmark = pytest.mark.network


def test_a_client_killed_mid_hand_comes_back_and_every_record_verifies(tmp_path: Path) -> None:
    records = tmp_path / "records"
    env = isolated_env(tmp_path)
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--record", str(records), "--set", "target=15", "--bot-delay", "0.05")
    identity = str(tmp_path / "seat.key")
    args = ["--bot", "random", "--identity", identity, "--insecure", "--record", str(records), f"127.0.0.1:{port}"]
    client = start("client.main", [*args, "--seed", "1"], env)
    try:
        seat = int(client.wait_for_line(r"seat (\d)").group(1))
        # Into the match: the host has accepted a move of the client's own (a fixed pause could end before the game
        # has even begun on a loaded machine, or after the match on a fast one).
        wait_until(lambda: actions_of(journal_entries(tmp_path), seat)[0] >= 1, "the client's first move",
                   unless=client)
        client.proc.kill()
        client.proc.wait(10)
        again = start("client.main", [*args, "--seed", "2"], env)
        clients_then_host_end([again], host, 180)
    finally:
        for p in (host, client):
            p.stop()
    verified_records(records, 2)
    # the record of before the restart was set aside while the catch-up was compared with it, then removed: the host
    # showed the same history (client/earlier_record.py; its refusals and notes, if any, joined the new record)
    assert not list(records.glob("*.before-restart*")), list(records.iterdir())
