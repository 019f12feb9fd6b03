"""A 4-player trustless match between separate processes: host with two bots of its own, two remote bots.

Nobody, the host included, sees a card it may not see; at the end every record (the host's and each remote
seat's) verifies with watten-verify, and says it was a trustless deal.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from watten_net.deal.protocol import parse_envelope
from watten_net.record import KIND_HOST, read_record
from watten_net.verify import verify_file

from netutil import isolated_env, start, start_host


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
        for client in clients:
            assert client.wait(300) == 0, client.output()
        assert host.wait(60) == 0, host.output()
    finally:
        for p in (host, *clients):
            p.stop()
    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == 3, paths
    for path in paths:
        report = verify_file(str(path))
        assert report.ok, (path.name, [p.sentence() for p in report.errors])
        _, entries = read_record(str(path))
        header = parse_envelope(next(e.data for e in entries if e.kind == KIND_HOST), host=True)
        assert header.payload.settings.deal == "trustless"
    cli = subprocess.run([sys.executable, "-m", "watten_net.verify", *map(str, paths)], capture_output=True,
                         text=True, timeout=120)
    assert cli.returncode == 0, cli.stdout + cli.stderr
