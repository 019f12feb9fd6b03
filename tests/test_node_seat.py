"""The Node.js seat of examples/node-seat (written from docs/ and proto/ alone) plays a whole match against a real
watten-host and one of its bots, over loopback gRPC, and watten-verify accepts the record that seat wrote.

No test ran it before, and it stalled mid-match for several sessions unnoticed. It needs node and the seat's packages
(`npm ci` in examples/node-seat): .ci/run installs both, so under CI their absence fails the test; where npm is at hand
and the packages are not, the test runs `npm ci` itself; a developer without node gets a skip that says what to
install."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from netutil import ROOT, host_chain
from nodeseats import done_counters, node_with_packages, seat_plays_match, watten_verify

pytestmark = [pytest.mark.network, pytest.mark.slow]

SEAT_DIR = ROOT / "examples" / "node-seat"
# The seat's own clock (SEAT_TIMEOUT): past it the seat gives up by itself and exits 2. The test's bound is a little
# longer, so a hung seat is stopped even if its own clock never fires. A match to 11 takes a few seconds here.
SEAT_SECONDS = 180
# A short match that still crosses next deals (where the seat once stalled): to 11 it took 3 to 7 hands in 12 runs,
# a few seconds; to 5 it was a single hand in 2 of 12 (a hand is worth 2, more when raised).
TARGET = 11


def test_node_seat_plays_a_whole_match_and_its_record_verifies(tmp_path: Path) -> None:
    node = node_with_packages(SEAT_DIR)
    said, out = seat_plays_match(node, SEAT_DIR, "seat.js", tmp_path, "--set", f"target={TARGET}",
                                 seconds=SEAT_SECONDS)
    for trouble in ("FATAL", "TIMEOUT", "DEALMAP", "BAD RECEIPT", "stream handler error"):
        assert trouble not in said, said
    assert "HostKeyReveal ok" in said, said  # every seed, deck and seal of the match recomputed by the seat
    stats = done_counters(said)[0]
    assert stats["actions"] > 0 and stats["checks"] > 0, stats
    # Every deal's packets held against the seat's own deal map (a hand may end before any card is played: a raise
    # declined, so played positions are not counted on).
    assert stats.get("dealmapOk", 0) > 0, stats

    records = sorted(out.glob("*.wrec"))
    assert len(records) == 1, records
    chain_types = [envelope.type for envelope in host_chain(records[0])]
    assert "MatchEnd" in chain_types and "HostKeyReveal" in chain_types, chain_types
    assert chain_types.count("HandEnd") >= 1, chain_types
    report = watten_verify(records[0])
    joined = re.search(r"joined seat (\d+)", said)
    assert joined is not None and report["verdict"] == "verified" and report["seat"] == int(joined.group(1)), report
    assert max(report["final_scores"]) >= TARGET, report
