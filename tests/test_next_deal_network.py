"""The next deal sealed with the checkpoint (GameHeader.next_deal) between real processes over gRPC on 127.0.0.1: the
host's default writes "with-checkpoint" and `--set next-deal=after-checkpoint` the order before; in both, two
`watten-join --bot` processes and the host's bots play a whole match, every record verifies with `watten-verify`, and
the host's record holds the order its header names."""

from __future__ import annotations

from pathlib import Path

import pytest

from watten_net.deal.protocol import parse_envelope
from watten_net.record import KIND_HOST, read_record
from watten_net.refusal import Reason
from watten_net.verify import FAILED, verify_file
from watten_net.verify import main as watten_verify

from netutil import a_seat_refuses_the_header, clients_then_host_end, isolated_env, start, start_host

pytestmark = pytest.mark.network


def _between_hands(path: Path) -> list[list[str]]:
    """From each Checkpoint that a next hand follows to that hand's cut: the host entries' types (a relay by the type
    it carries)."""
    _, entries = read_record(path)
    types = []
    for entry in entries:
        if entry.kind != KIND_HOST:
            continue
        signed = parse_envelope(entry.data, host=True)
        inner = parse_envelope(bytes(signed.payload.envelope), host=False).type if signed.type == "Relay" else ""
        types.append(f"Relay:{inner}" if inner else signed.type)
    runs = []
    for i, kind in enumerate(types):
        if kind == "Checkpoint" and "HandOpen" in types[i:]:
            cut = types.index("ActionAccepted", types.index("HandOpen", i))
            runs.append(types[i:cut + 1])
    return runs


@pytest.mark.parametrize("order", ["with-checkpoint", "after-checkpoint"])
def test_a_whole_match_in_either_order_verifies(tmp_path: Path, order: str) -> None:
    records = tmp_path / "records"
    setting = [] if order == "with-checkpoint" else ["--set", f"next-deal={order}"]  # (the default: with-checkpoint)
    host, port = start_host(tmp_path, "--headless", "--insecure", "--record", str(records), "--players", "4",
                            "--bots", "2", "--set", "target=11", *setting)
    env = isolated_env(tmp_path)
    clients = [start("client.main", ["--bot", "random", "--seed", str(i), "--insecure", "--record", str(records),
                                     f"127.0.0.1:{port}"], env) for i in range(2)]
    try:
        clients_then_host_end(clients, host, 180)
    finally:
        for p in (host, *clients):
            p.stop()
    paths = sorted(records.glob("*.wrec"))
    assert len(paths) == 3  # the host's and the two clients'
    assert watten_verify([str(p) for p in paths]) == 0
    reports = [verify_file(str(p)) for p in paths]
    assert all(r.ok for r in reports) and len({tuple(r.final_scores) for r in reports}) == 1
    host_record = next(p for p in paths if p.name.endswith("-host.wrec"))
    _, entries = read_record(host_record)
    header = parse_envelope(entries[0].data, host=True).payload
    assert header.next_deal == ("with-checkpoint" if order == "with-checkpoint" else "")
    runs = _between_hands(host_record)
    assert runs, "the match had more than one hand"
    for run in runs:
        if header.next_deal:  # the seal with the checkpoint; the cut after both co-signatures of every seat
            assert run[:3] == ["Checkpoint", "HandOpen", "DeckSealed"]
            assert sorted(run[3:-1]) == sorted(["Relay:CheckpointSignature", "Relay:DeckSealedSignature"] * 4)
        else:
            assert run[:7] == ["Checkpoint", *["Relay:CheckpointSignature"] * 4, "HandOpen", "DeckSealed"]


def test_a_host_that_deals_on_before_the_checkpoint_is_complete_is_caught(tmp_path: Path) -> None:
    # tests/cheating_host.py: the host keeps the joined seat's CheckpointSignature out of the chain and cuts anyway.
    env = isolated_env(tmp_path)
    env["WATTEN_CHEAT"] = "skip-checkpoint"
    records = tmp_path / "records"
    host = start("tests.cheating_host", ["--port", "0", "--bind", "127.0.0.1", "--headless", "--insecure",
                                         "--players", "2", "--bots", "1", "--set", "target=15", "--record",
                                         str(records)], env)
    port = int(host.wait_for_line(r"on port (\d+)").group(1))
    victim = start("client.main", ["--bot", "random", "--insecure", "--record", str(records),
                                   f"127.0.0.1:{port}"], isolated_env(tmp_path))
    try:
        assert victim.wait(120) == 5, victim.output()  # (watten-join's exit for a host that broke the protocol)
    finally:
        host.stop()
        victim.stop()
    assert "before every seat present had signed the last checkpoint" in victim.output(), victim.output()
    [record] = sorted(records.glob("*-seat1.wrec"))
    report = verify_file(str(record))
    assert report.verdict == FAILED, report
    assert any(p.reason in (Reason.BAD_CHECKPOINT, "unexpected-envelope") for p in report.errors), report.errors


def test_a_header_with_an_order_of_the_next_deal_nobody_knows_is_never_signed(tmp_path: Path) -> None:
    # tests/cheating_host.py: the real host writes next_deal "whenever". watten-join stops at the header with the
    # host's fault in words (exit 5); that the seat signs nothing there is test_next_deal_attacks.py's.
    said = a_seat_refuses_the_header(tmp_path, "odd-header")
    assert "order of the next deal this client does not know ('whenever'" in said, said
