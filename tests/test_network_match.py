"""Whole matches over real gRPC between real processes on 127.0.0.1; every record verifies and agrees."""

from __future__ import annotations

from pathlib import Path

import pytest

from watten_net.verify import verify_file

from netutil import clients_then_host_end, isolated_env, start, start_host

pytestmark = pytest.mark.network


def _play(tmp_path: Path, host_args: list[str], join_args: list[str], joiners: int) -> list[Path]:
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--record", str(records), *host_args)
    env = isolated_env(tmp_path)
    clients = [
        start("client.main", ["--bot", "random", "--seed", str(i), "--record", str(records), *join_args,
                              f"127.0.0.1:{port}"], env)
        for i in range(joiners)
    ]
    try:
        clients_then_host_end(clients, host, 180)
    finally:
        for p in (host, *clients):
            p.stop()
    assert "match over" in host.output()
    return sorted(records.glob("*.wrec"))


def _check_records(paths: list[Path], expected: int) -> None:
    assert len(paths) == expected, paths
    reports = [verify_file(str(p)) for p in paths]
    for report in reports:
        assert report.ok, [p.sentence() for p in report.errors]
    assert len({r.game_id for r in reports}) == 1, "every party's record describes the same game"
    assert len({tuple(r.final_scores) for r in reports}) == 1
    assert len({r.hands for r in reports}) == 1 and reports[0].hands >= 1
    assert max(reports[0].final_scores) >= 11


def test_a_headless_host_with_bots_and_two_joined_bots_play_a_verifiable_match(tmp_path: Path) -> None:
    paths = _play(tmp_path, ["--insecure", "--players", "4", "--bots", "2", "--set", "target=11"],
                  ["--insecure"], joiners=2)
    _check_records(paths, expected=3)


def test_over_tls_with_a_pinned_fingerprint_and_per_hand_reveals(tmp_path: Path) -> None:
    # First start makes the certificate; read its fingerprint from the host's own words.
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--record", str(records), "--players", "2", "--rules",
                            "south-tyrolean", "--bots", "1", "--set", "target=11", "--set", "reveal=hand-end")
    fingerprint = host.wait_for_line(r"fingerprint ([0-9a-f ]+)").group(1)
    client = start("client.main", ["--bot", "random", "--fingerprint", fingerprint, "--record", str(records),
                                   f"127.0.0.1:{port}"], isolated_env(tmp_path))
    try:
        clients_then_host_end([client], host, 180)
    finally:
        host.stop()
        client.stop()
    _check_records(sorted(records.glob("*.wrec")), expected=2)


def test_a_client_pinned_to_another_certificate_is_refused_before_sending_anything(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--players", "2", "--bots", "1")
    try:
        client = start("client.main", ["--bot", "random", "--fingerprint", "00" * 32, f"127.0.0.1:{port}"],
                       isolated_env(tmp_path))
        assert client.wait(30) == 3
        assert "fingerprint" in client.output().lower()
    finally:
        host.stop()


@pytest.mark.parametrize("players", [3, 6])
def test_three_and_six_player_tables_finish_and_verify(tmp_path: Path, players: int) -> None:
    paths = _play(tmp_path, ["--insecure", "--players", str(players), "--bots", str(players - 1),
                             "--set", "target=11"], ["--insecure"], joiners=1)
    _check_records(paths, expected=2)
