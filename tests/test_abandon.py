"""A match the host stops early (Ctrl-C, SIGTERM) at any step: every record still verifies.

The host posts MatchEnd (reason "host-shutdown"), reveals every seed it used and asks for the last
checkpoint; that is the host's own decision, which the verifier replays like a stand-in's.
"""

from __future__ import annotations

import random

import pytest

from watten_net.engine import Rules
from watten_net.verify import verify_entries

from local_table import LocalTable


@pytest.mark.parametrize("seed", range(12))
def test_a_match_abandoned_at_any_step_leaves_records_that_verify(seed: int) -> None:
    rng = random.Random(seed)
    rules = Rules.preset("bavarian", players=4).with_flag("target", "9")
    table = LocalTable(rules, seed=seed)
    table.deliver(table.host.start())
    stop_after = rng.randrange(1, 160)  # host envelopes into the match: header, deal steps, play, checkpoints
    table.play_until(lambda: len(table.host.chain) >= stop_after or table.host.finished, rng=rng)
    table.deliver(table.host.abandon("host-shutdown"))
    while table.flush():
        pass
    assert table.host.finished
    report = verify_entries(table.host_entries())
    assert report.ok, (stop_after, [p.sentence() for p in report.errors])
    for seat in range(4):
        report = verify_entries(table.seat_entries(seat))
        assert report.ok, (seat, stop_after, [p.sentence() for p in report.errors])
