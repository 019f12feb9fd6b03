"""The signed step timeout between real processes over gRPC on 127.0.0.1 (GameHeader.step_timeout_ms; the sans-I/O
checks are in test_step_timeout_signed.py).

- A hostile host (tests/cheating_host.py `short-step-timeout`: the real host with its start-up check removed) writes a
  header with a 50 ms step timeout: the real `watten-join` signs nothing and says why (exit 5).
- The real host refuses such a `--step-timeout` at start (exit 2, nothing started); 0 (no limit) it takes.
- The honest default host plays on: its header says 30 s, every record verifies, and `watten-verify` prints the term.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from watten_net.deal.protocol import parse_envelope
from watten_net.record import read_record
from watten_net.verify import main as watten_verify
from watten_net.verify import verify_file

from netutil import a_seat_refuses_the_header, clients_then_host_end, isolated_env, start, start_host

pytestmark = pytest.mark.network


def test_a_header_with_a_tiny_step_timeout_is_never_signed(tmp_path: Path) -> None:
    said = a_seat_refuses_the_header(tmp_path, "short-step-timeout", "--step-timeout", "0.05")
    assert "the header's step timeout is too short to sign: a step timeout of 0.05 s is below the 5 s" in said, said
    # A seat notes each header it signs before its signature leaves (watten_net/deal/seat.py `_sign_header_once`):
    # none here, so no HeaderSignature left this seat.
    signed = list((tmp_path / "seat").rglob("headers/*"))
    assert signed == [], signed


@pytest.mark.parametrize("seconds", ["0.05", "4.9", "-1", "nan"])
def test_the_host_refuses_a_step_timeout_its_seats_would_not_sign(tmp_path: Path, seconds: str) -> None:
    host = start("host.main", ["--port", "0", "--bind", "127.0.0.1", "--headless", "--insecure", "--players", "2",
                               "--bots", "1", f"--step-timeout={seconds}"], isolated_env(tmp_path))
    try:
        assert host.wait(60) == 2, host.output()
    finally:
        host.stop()
    assert "--step-timeout:" in host.output() and "on port" not in host.output(), host.output()


def test_the_default_host_signs_its_step_timeout_and_plays_on(tmp_path: Path) -> None:
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--record", str(records), "--players", "2",
                            "--bots", "1", "--set", "target=5")
    client = start("client.main", ["--bot", "random", "--insecure", "--record", str(records), f"127.0.0.1:{port}"],
                   isolated_env(tmp_path))
    try:
        clients_then_host_end([client], host, 180)
    finally:
        for p in (host, client):
            p.stop()
    assert len(list((tmp_path / "data").rglob("headers/*"))) == 1  # (where the seat notes the header it signed)
    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == 2 and watten_verify([str(p) for p in paths]) == 0
    for path in paths:
        _, entries = read_record(path)
        assert parse_envelope(entries[0].data, host=True).payload.step_timeout_ms == 30_000
        report = verify_file(str(path))
        assert report.verdict == "verified" and report.step_timeout == 30.0, report
    shown = start("watten_net.verify", [str(paths[0])], isolated_env(tmp_path))
    assert shown.wait(60) == 0, shown.output()
    assert "step timeout: 30 s (signed by every seat" in shown.output(), shown.output()
