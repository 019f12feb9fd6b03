"""The Node.js example seats (examples/node-seat, Level 1; examples/node-trustless-seat, Level 2), written from
docs/protocol.md, refuse a header whose step timeout is under their 5 s floor (GameHeader.step_timeout_ms, docs
"The step timeout"): against a hostile host (tests/cheating_host.py `short-step-timeout`, the real host writing
50 ms) each stops at the header with `short-step-timeout` and signs nothing. That they play a whole match against the
honest default host (30 s in its header) is test_node_seat.py's and test_node_trustless_seat.py's."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from netutil import ROOT, Proc, isolated_env, start
from nodeseats import node_with_packages

pytestmark = [pytest.mark.network, pytest.mark.slow]


@pytest.mark.parametrize(("folder", "script", "deal"), [("node-seat", "seat.js", "verified"),
                                                        ("node-trustless-seat", "seat_l2.js", "trustless")])
def test_a_node_seat_signs_no_header_with_a_tiny_step_timeout(tmp_path: Path, folder: str, script: str,
                                                              deal: str) -> None:
    seat_dir = ROOT / "examples" / folder
    node = node_with_packages(seat_dir)
    env = isolated_env(tmp_path)
    env["WATTEN_CHEAT"] = "short-step-timeout"
    host = start("tests.cheating_host", ["--port", "0", "--bind", "127.0.0.1", "--headless", "--insecure",
                                         "--no-announce", "--players", "2", "--bots", "1", "--step-timeout", "0.05",
                                         "--set", f"deal={deal}"], env)
    out = tmp_path / "seat"
    try:
        port = int(host.wait_for_line(r"on port (\d+)").group(1))
        seat_env = {name: value for name, value in os.environ.items() if not name.startswith("SEAT_")}
        seat_env["SEAT_TIMEOUT"] = "60"
        seat = Proc(subprocess.Popen([node, str(seat_dir / script), f"127.0.0.1:{port}", str(out)], cwd=seat_dir,
                                     env=seat_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        assert seat.wait(120) == 2, seat.output()
    finally:
        host.stop()
    said = seat.output()
    assert "short-step-timeout: the header's step timeout 50 ms is below 5000 ms" in said, said
    # Neither wrote a record nor noted a signed header: no HeaderSignature left it.
    assert not list(out.glob("*.wrec")) and not (out / "signed-headers.txt").exists(), sorted(out.iterdir())
    counters = said.rsplit(" done ", 1)[-1]
    assert '"actions":0' in counters, said
