"""Partner signals over the network (docs/rules.md 9: partners only; none in Blind), between a real host process and
seats that join as `watten-join` does (client.connection.Connection over loopback gRPC).

Every update a joined seat receives is read: its TableView's `signals` and its stream's `signal` events. A signal
sent by one seat reaches its partner's view and events, and the sender's own (it was sent), and no opponent's;
host-run bots' signals reach their human partner the same way; in Blind nobody may signal. The leak test plays whole
matches with bots that signal and checks that no seat's view or events ever hold a signal it may not see.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from client.connection import Connection, Refused, open_channel
from watten_net.bots import BotView, make_bot
from watten_net.engine import Rules
from watten_net.engine.seating import seating_for
from watten_net.v1 import watten_pb2 as pb

from netutil import isolated_env, start, start_host

pytestmark = pytest.mark.network

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
Decide = Callable[[int, Any, bool], "str | None"]  # (seat, view, again after a refusal) -> action


@dataclass
class Seen:
    """What one joined seat was shown: (dealer of the hand, sender, name) of every signal, views and events apart."""

    seat: int = -1
    in_views: set[tuple[int, int, str]] = field(default_factory=set)
    in_events: list[tuple[int, int, str]] = field(default_factory=list)
    hand_ends: int = 0
    refusals: list[str] = field(default_factory=list)
    views: int = 0

    def note(self, update: Any) -> None:
        if update.HasField("snapshot"):
            view, events = update.snapshot.view, update.snapshot.recent_events
        else:
            view, events = update.event.view, update.event.events
        self.views += 1
        for event in events:
            if event.kind == "signal":
                self.in_events.append((view.dealer, event.seat, json.loads(event.fields["name"])))
            elif event.kind == "hand-end":
                self.hand_ends += 1
        self.in_views.update((view.dealer, s.seat, s.name) for s in view.signals)

    def senders(self) -> set[int]:
        return {sender for _, sender, _ in self.in_views} | {sender for _, sender, _ in self.in_events}

    def leaks(self, rules: Rules) -> list[tuple[int, int, str]]:
        """Signals shown to this seat although it is neither their sender nor a partner of the sender in that hand."""
        audience = seating_for(rules).signal_audience_of
        shown = self.in_views | set(self.in_events)
        return sorted((d, s, n) for d, s, n in shown if self.seat not in audience[d][s])


async def _sit(port: int, seat: int, seen: Seen, decide: Decide) -> None:
    """One seat, as watten-join: join, follow the stream, act when `decide` says so (a refusal is noted)."""
    conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
    conn.on_update = seen.note
    try:
        seen.seat = await conn.join(f"seat {seat}", seat)
        async for view in conn.follow(give_up_after=30):
            if view is None:
                continue
            if view.table.phase in FINISHED:
                break
            for again in (False, True):  # after a refusal, decide once more on the same view (no new one may come)
                action = decide(conn.seat, view, again)
                if action is None:
                    break
                try:
                    await conn.act(action)
                    break
                except Refused as err:
                    # The table moved on between the view and the action, or (on purpose) a signal not allowed.
                    assert err.code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT), err
                    seen.refusals.append(err.reason)
    finally:
        await conn.close()


async def _table(port: int, seats: dict[int, Decide], until: Callable[[dict[int, Seen]], bool],
                 timeout: float) -> dict[int, Seen]:
    """The given seats at the table until `until` holds for what they have seen (or every seat is done)."""
    seen = {seat: Seen() for seat in seats}
    tasks = [asyncio.create_task(_sit(port, seat, seen[seat], decide)) for seat, decide in seats.items()]
    try:
        async with asyncio.timeout(timeout):
            while not until(seen):
                done = [t for t in tasks if t.done()]
                for task in done:
                    task.result()  # a seat that failed fails the test at once
                if len(done) == len(tasks):
                    break
                await asyncio.sleep(0.05)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return seen


def _mover(seed: int) -> Decide:
    """A seat that plays random legal moves on its turn and never signals by itself."""
    rng = random.Random(seed)

    def decide(seat: int, view: Any, again: bool = False) -> str | None:
        if seat not in view.to_act:
            return None
        moves = [a for a in view.legal_actions if not a.startswith("signal ")]
        return rng.choice(moves) if moves else None

    return decide


def _signaller(name: str, seed: int, sent: dict[int, bool]) -> Decide:
    """A random mover that sends `signal name` once, as soon as its view offers it (out of turn too)."""
    move = _mover(seed)

    def decide(seat: int, view: Any, again: bool) -> str | None:
        if not again and not sent.get(seat) and f"signal {name}" in view.legal_actions:
            if any((s.seat, s.name) == (seat, name) for s in view.signals):
                sent[seat] = True  # accepted: its own view shows it
            else:
                return f"signal {name}"
        return move(seat, view, again)

    return decide


def _host(tmp_path: Path, *args: str) -> tuple[Any, int]:
    return start_host(tmp_path, "--headless", "--insecure", "--players", "4", *args)


@pytest.mark.parametrize("preset", ["austrian", "bavarian"])
def test_a_signal_reaches_the_partners_view_and_events_and_no_opponents(tmp_path: Path, preset: str) -> None:
    """Seat 0 signals `belli` (the Austrian Belli is the S6), seat 1 `max`: seat 2 sees seat 0's, seat 3 seat 1's, each
    sender its own, in view and events; neither opponent ever sees the other side's."""
    host, port = _host(tmp_path, "--rules", preset)
    sent: dict[int, bool] = {}
    seats = {0: _signaller("belli", 0, sent), 1: _signaller("max", 1, sent), 2: _mover(2), 3: _mover(3)}
    ends_when_sent: dict[int, int] = {}

    def hand_over_after_both(seen: dict[int, Seen]) -> bool:
        if not (sent.get(0) and sent.get(1)):
            return False
        for seat, s in seen.items():
            ends_when_sent.setdefault(seat, s.hand_ends)
        return all(s.hand_ends > ends_when_sent[seat] for seat, s in seen.items())

    try:
        seen = asyncio.run(_table(port, seats, hand_over_after_both, timeout=150))
    finally:
        host.stop()
    rules = Rules.preset(preset, 4)
    for seat, s in seen.items():
        assert s.seat == seat and s.leaks(rules) == [], (seat, s.leaks(rules))
    for sender, name, partner in ((0, "belli", 2), (1, "max", 3)):
        for who in (sender, partner):
            assert (sender, name) in {(s, n) for _, s, n in seen[who].in_views}, (who, seen[who].in_views)
            assert (sender, name) in {(s, n) for _, s, n in seen[who].in_events}, (who, seen[who].in_events)
    assert seen[1].senders() == {1} and seen[3].senders() == {1}
    assert seen[0].senders() == {0} and seen[2].senders() == {0}


def test_nobody_may_signal_in_blind(tmp_path: Path) -> None:
    host, port = _host(tmp_path, "--rules", "blind")
    tried: dict[int, bool] = {}
    move = _mover(0)

    def try_to_signal(seat: int, view: Any, again: bool) -> str | None:
        if seat in view.to_act and not tried.get(seat):
            assert not [a for a in view.legal_actions if a.startswith("signal ")]
            tried[seat] = True
            return "signal max"
        return move(seat, view, again)

    seats = {0: try_to_signal, 1: try_to_signal, 2: _mover(2), 3: _mover(3)}
    try:
        seen = asyncio.run(_table(port, seats, lambda seen: all(s.hand_ends for s in seen.values()), timeout=150))
    finally:
        host.stop()
    assert all(s.hand_ends for s in seen.values())
    assert seen[0].refusals.count("no-signals") == 1 and seen[1].refusals.count("no-signals") == 1
    assert all(not s.in_views and not s.in_events for s in seen.values())


def test_a_host_bots_signals_reach_its_human_partner(tmp_path: Path) -> None:
    """Two bots of the host at seats 0 and 1 (the `easy` level tells its partner what it holds on every turn), two
    people at 2 and 3: each person is shown their bot partner's signals and never the other bot's."""
    host, port = _host(tmp_path, "--bots", "2:easy")

    def heard_their_partner(seen: dict[int, Seen]) -> bool:
        return all(seen[seat].senders() >= {partner} for seat, partner in ((2, 0), (3, 1)))

    try:
        seen = asyncio.run(_table(port, {2: _mover(2), 3: _mover(3)}, heard_their_partner, timeout=150))
    finally:
        host.stop()
    rules = Rules.preset("bavarian", 4)
    assert seen[2].senders() == {0} and seen[3].senders() == {1}
    for s in seen.values():
        assert s.leaks(rules) == []
        assert {sender for _, sender, _ in s.in_views} == {sender for _, sender, _ in s.in_events}


@pytest.mark.parametrize("preset", ["austrian", "bavarian"])
def test_the_signals_of_watten_join_bots_reach_their_partner_and_no_opponent(tmp_path: Path, preset: str) -> None:
    """Seats 2 and 3 are `watten-join --bot easy` processes (the level tells its partner what it holds on its turns,
    deciding from its TableView); seats 0 and 1 are people watching their streams: seat 0 is shown seat 2's signals,
    seat 1 seat 3's, and neither the other side's."""
    host, port = _host(tmp_path, "--rules", preset)
    bots = [start("client.main", ["--bot", "easy", "--seed", str(seat), "--seat", str(seat), "--insecure",
                                  f"127.0.0.1:{port}"], isolated_env(tmp_path)) for seat in (2, 3)]

    def heard_their_partner(seen: dict[int, Seen]) -> bool:
        return all({s for _, s, _ in seen[seat].in_events} >= {partner} for seat, partner in ((0, 2), (1, 3)))

    try:
        seen = asyncio.run(_table(port, {0: _mover(0), 1: _mover(1)}, heard_their_partner, timeout=150))
        for bot in bots:
            bot.wait_for_line(r"seat \d at 127\.0\.0\.1:\d+, played by the easy bot")
    finally:
        for proc in (*bots, host):
            proc.stop()
    rules = Rules.preset(preset, 4)
    assert seen[0].senders() == {2} and seen[1].senders() == {3}
    for s in seen.values():
        assert s.leaks(rules) == []
        assert {sender for _, sender, _ in s.in_views} == {sender for _, sender, _ in s.in_events}


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "players"), [("bavarian", 4), ("tyrolean", 3)])
def test_whole_matches_of_signalling_bots_never_show_a_seat_a_signal_it_may_not_see(
    tmp_path: Path, preset: str, players: int
) -> None:
    """Every seat joined over the network, each played by the `easy` bot from its TableView (as `watten-join --bot
    easy` plays): they signal on every turn they may. With three players the pair changes every hand, so the audience
    of a signal is the hand's."""
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", str(players), "--rules", preset,
                            "--set", "target=11")
    bots = {seat: make_bot("easy", seat) for seat in range(players)}

    def play(seat: int, view: Any, again: bool) -> str | None:
        if seat not in view.to_act or not view.legal_actions:
            return None
        return bots[seat].choose(BotView.from_table_view(view))

    try:
        seen = asyncio.run(_table(port, dict.fromkeys(range(players), play), lambda _: False, timeout=400))
    finally:
        host.stop()
    rules = Rules.preset(preset, players)
    for seat, s in seen.items():
        assert s.leaks(rules) == [], (seat, s.leaks(rules))
        # (One hand may decide a match: a raise can take the stake to the target.)
        assert s.hand_ends >= 1
        if players == 4:  # (fixed partners who signal on every turn they may: each sees its own and the partner's)
            assert seat in s.senders() and len(s.senders()) >= 2, "own signals and a partner's were shown"
    # With three players a seat is the lone player in some hands and signals nothing then; in a short match a seat may
    # never have had a partner who signalled. Over the table, own signals and a partner's were shown.
    assert any(seat in s.senders() for seat, s in seen.items()), "nobody was shown its own signal"
    assert any(s.senders() - {seat} for seat, s in seen.items()), "nobody was shown a partner's signal"
