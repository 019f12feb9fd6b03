"""kill -9 a client mid-hand and start it again: it gets its seat back, catches up, and the hand goes on."""

from __future__ import annotations

import time
from pathlib import Path

from watten_net.verify import verify_file

from netutil import isolated_env, start, start_host


def test_a_client_killed_mid_hand_comes_back_and_every_record_verifies(tmp_path: Path) -> None:
    records = tmp_path / "records"
    env = isolated_env(tmp_path)
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--record", str(records), "--set", "target=15", "--bot-delay", "0.05")
    identity = str(tmp_path / "seat.key")
    args = ["--bot", "random", "--identity", identity, "--insecure", "--record", str(records), f"127.0.0.1:{port}"]
    client = start("client.main", [*args, "--seed", "1"], env)
    try:
        client.wait_for_line(r"seat \d")
        time.sleep(1.2)  # into the match
        assert client.proc.poll() is None, client.output()
        client.proc.kill()
        client.proc.wait(10)
        again = start("client.main", [*args, "--seed", "2"], env)
        assert again.wait(180) == 0, again.output()
        assert host.wait(60) == 0, host.output()
    finally:
        for p in (host, client):
            p.stop()
    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == 2
    for path in paths:
        report = verify_file(str(path))
        assert report.ok, [p.sentence() for p in report.errors]
