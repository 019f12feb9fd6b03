"""A seat that stays connected but never sends a protocol step it owes does not hold the table for ever.

`watten-host --step-timeout SECONDS`: a person's seat that is online and owes one of the protocol's own steps
(its header signature, seed commitment, reveal, key share, shuffle, decryption shares...) for that long gets a
bot standing in, exactly as a seat offline past the grace period does; when its client sends anything again the
person is back. A person's own move has no clock.

Real processes: the host (with one bot of its own) and, in this test process, a `Connection` whose client
"hangs": it follows the table but sends nothing until the test lets it.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import grpc.aio
import pytest

from client.away_claims import CONNECTED_FOR
from client.connection import Connection
from watten_net.bots import make_bot
from watten_net.deal.protocol import STEP_TIMEOUT_FLOOR
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import VERIFIED, verify_file

from netutil import bot_turn, host_chain, start_host, verified_records

pytestmark = pytest.mark.network

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
# The step clock: the test waits it out once (the hanging header signature), and every later step of the seat must
# come in within it. At 1 s a trustless shuffle on a loaded 2-core machine took longer: a second stand-in, and the
# trustless hand in progress forfeited ("away"), which this test says does not happen once the seat answers.
STEP_TIMEOUT = 5


class HangingConnection(Connection):
    """A client that is connected and subscribed but sends none of the steps it owes while `hanging` is set.

    With `after_keys` it answers the key ceremony before the first hand (Level 1 version 2: nobody stands in for a
    seat before the first HandOpen; its key is waited for) and hangs from the first deal on."""

    hanging = True
    after_keys = False

    async def send_automatic(self) -> None:
        keys_time = self.after_keys and (self.game is None or self.game.hand == (-1, -1))
        if not self.hanging or keys_time:
            await super().send_automatic()


@pytest.mark.parametrize("deal", ["verified", "trustless"])
def test_a_seat_silent_on_a_protocol_step_gets_a_stand_in_and_comes_back_when_it_answers(
        tmp_path: Path, deal: str) -> None:
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--step-timeout", str(STEP_TIMEOUT), "--grace", "600", "--record", str(records),
                            "--set", "target=5", "--set", f"deal={deal}", "--bot-delay", "0.02")

    async def scenario() -> tuple[bool, bool, int, list[str]]:
        conn = HangingConnection(grpc.aio.insecure_channel(f"127.0.0.1:{port}"), record_dir=records)
        conn.after_keys = deal == "verified"
        bot = make_bot("random", 7)
        stood_in = came_back = False
        phase = 0
        try:
            seat = await conn.join("Hängt")
            async for view in conn.follow(give_up_after=30):
                if view is None:
                    continue
                phase = int(view.table.phase)
                if phase in FINISHED:
                    break
                me = view.table.seats[seat]
                if conn.hanging and me.stand_in:
                    # Online all along (grace is 600 s): only the step clock can have brought the bot in. From
                    # now on the client answers again, and that alone gives the person the seat back.
                    stood_in, conn.hanging = True, False
                    await conn.send_automatic()
                elif stood_in and not me.stand_in:
                    came_back = True
                if not conn.hanging:
                    await bot_turn(conn, bot, view)
            await conn.send_automatic()
            return stood_in, came_back, phase, conn.disputes
        finally:
            await conn.close()

    try:
        stood_in, came_back, phase, disputes = asyncio.run(asyncio.wait_for(scenario(), 240))
        assert host.wait(60) == 0, host.output()
    finally:
        host.stop()
    assert stood_in and came_back, host.output()
    assert phase == pb.TABLE_PHASE_MATCH_OVER
    assert "while online: a bot stands in" in host.output()
    # It really was silent past the step timeout (TableInfo.step_timeout, by its own clock): it claims nothing.
    assert disputes == [], disputes

    paths = verified_records(records, 2)  # the host's record and the hanging seat's own
    chain = host_chain(next(p for p in paths if p.name.endswith("-host.wrec")))
    seat_record = next(p for p in paths if not p.name.endswith("-host.wrec"))
    assert verify_file(str(seat_record)).verdict == VERIFIED  # (no claimed dispute in its record)
    stand_ins = [bool(s.payload.active) for s in chain if s.type == "StandIn"]
    assert stand_ins[:2] == [True, False], stand_ins
    if deal == "verified":
        # Level 1 version 2: the seat answered the key ceremony and went silent on its first DeckSealed signature;
        # nobody stands in before the first HandOpen.
        types = [s.type for s in chain]
        assert types.index("StandIn") > types.index("HandOpen"), types[:20]
    if deal == "trustless":
        # The silent step was the header signature, before any hand: nobody can act for a trustless seat, so the
        # first hand waited for it (the grace period, 600 s here, would have been the limit) and nothing was
        # forfeited once it answered.
        aborted = [s.payload for s in chain if s.type == "AttemptAborted" and s.payload.reason == "away"]
        assert aborted == [], aborted


class LateHangingConnection(Connection):
    """A client that answers every step until a deal after hand 0 that came while it had been connected a few seconds
    (`hang_after`, its own clock), and from there sends none of the steps it owes until `hanging` is cleared."""

    hanging = True
    hang_after = 0.0
    hung = False

    async def send_automatic(self) -> None:
        late = self.game is not None and self.game.hand[0] >= 1 and time.monotonic() > self.hang_after
        self.hung = self.hung or (self.hanging and late and bool(self.game and self.game.outbox))
        if not (self.hanging and self.hung):
            await super().send_automatic()


def test_a_connected_seat_really_silent_past_the_step_timeout_claims_nothing(tmp_path: Path) -> None:
    """The honest side of PROTOCOL.md "Disputes": the seat owed a step that reached it on a live stream, said nothing
    for the whole step timeout by its own clock, and was called away: it was silent, so no claimed dispute (the
    cheating side, called away right after the step reached it, is in test_disputes_network.py)."""
    records = tmp_path / "records"
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--step-timeout", str(STEP_TIMEOUT), "--grace", "600", "--record", str(records),
                            "--set", "target=15", "--bot-delay", "0.3")  # (a hand takes a few seconds)

    async def scenario() -> tuple[bool, list[str]]:
        conn = LateHangingConnection(grpc.aio.insecure_channel(f"127.0.0.1:{port}"), record_dir=records)
        bot = make_bot("random", 11)
        stood_in = False
        try:
            seat = await conn.join("Schweigt")
            conn.hang_after = time.monotonic() + 2 * CONNECTED_FOR
            async for view in conn.follow(give_up_after=30):
                if view is None:
                    continue
                if int(view.table.phase) in FINISHED:
                    break
                if conn.hung and conn.hanging and view.table.seats[seat].stand_in:
                    stood_in, conn.hanging = True, False  # (answering again gives the person the seat back)
                    await conn.send_automatic()
                if not (conn.hung and conn.hanging):  # (an action would carry the steps it owes along)
                    await bot_turn(conn, bot, view)
            await conn.send_automatic()
            return stood_in, conn.disputes
        finally:
            await conn.close()

    try:
        stood_in, disputes = asyncio.run(asyncio.wait_for(scenario(), 240))
        assert host.wait(60) == 0, host.output()
    finally:
        host.stop()
    assert stood_in, host.output()
    assert disputes == [], disputes
    [seat_record] = [p for p in verified_records(records, 2) if not p.name.endswith("-host.wrec")]
    assert verify_file(str(seat_record)).verdict == VERIFIED


def test_a_persons_own_move_has_no_clock(tmp_path: Path) -> None:
    """A person who thinks longer than the step clock over a move of their own (here: two step periods over the
    first decision) is not stood in for: the clock is for the protocol's own steps only (docs/protocol-decisions.md).
    Applying it to a person's move fails this test. (The clock is the seats' floor, 5 s: no seat signs less, and
    watten-host starts with no less.)"""
    step = STEP_TIMEOUT_FLOOR
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1",
                            "--step-timeout", str(step), "--grace", "600", "--set", "target=3", "--bot-delay", "0.02")

    async def scenario() -> list[bool]:
        conn = Connection(grpc.aio.insecure_channel(f"127.0.0.1:{port}"))
        bot = make_bot("random", 3)
        stand_ins: list[bool] = []
        thought = False
        try:
            seat = await conn.join("Denkt")
            async for view in conn.follow(give_up_after=30):
                if view is None:
                    continue
                stand_ins.append(view.table.seats[seat].stand_in)
                if int(view.table.phase) in FINISHED:
                    break
                if seat in view.to_act and view.legal_actions and not thought:
                    thought = True
                    await asyncio.sleep(2 * step)  # a long think (the stream keeps its views meanwhile)
                await bot_turn(conn, bot, view)
            await conn.send_automatic()
            return stand_ins
        finally:
            await conn.close()

    try:
        stand_ins = asyncio.run(asyncio.wait_for(scenario(), 180))
        assert host.wait(60) == 0, host.output()
    finally:
        host.stop()
    assert stand_ins and not any(stand_ins), "the person was stood in for while thinking over a move"
    assert "a bot stands in" not in host.output()
