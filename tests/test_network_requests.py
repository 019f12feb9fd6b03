"""Bad requests get the documented status and change nothing; no seat ever receives what it may not see.

One host process (two bots) and two seats played by this test over real gRPC on 127.0.0.1. While the
match runs, the test sends every kind of bad request at moments where the answer is known; it keeps
every message each seat received and, after the match, scans them against the host's own record.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import grpc
import pytest

from client.connection import Connection, Refused, open_channel
from watten_net.deal.keys import host_seed
from watten_net.deal.protocol import make_envelope, parse_envelope
from watten_net.record import KIND_HOST, read_record
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_file

from netutil import run_then_host_ends, start_host

pytestmark = pytest.mark.network

NEVER = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}


async def _status(awaitable: Any) -> tuple[grpc.StatusCode, str]:
    try:
        await awaitable
    except Refused as err:
        return err.code, err.reason
    return grpc.StatusCode.OK, ""


async def _raw_submit(conn: Connection, envelope: bytes, token: str | None = None) -> tuple[grpc.StatusCode, str]:
    request = pb.SubmitEnvelopeRequest(token=conn.token if token is None else token, envelope=envelope)
    return await _status(conn._call(conn.stub.SubmitEnvelope, request, 10))


class Seat:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.updates: list[bytes] = []
        conn.on_update = lambda update: self.updates.append(update.SerializeToString())


async def _table_seq(conn: Connection) -> int:
    return int((await conn.table()).seq)


async def _bad_requests_before_joining(conn: Connection) -> dict[str, tuple[grpc.StatusCode, str]]:
    out: dict[str, tuple[grpc.StatusCode, str]] = {}
    stub = conn.stub
    for label, token in (("no token", ""), ("wrong token", "not-a-token")):
        call = stub.Subscribe(pb.SubscribeRequest(token=token))
        try:
            async for _ in call:
                break
            out[label] = (grpc.StatusCode.OK, "")
        except grpc.aio.AioRpcError as err:
            from client.errors import refusal_from_error

            info = refusal_from_error(err)
            out[label] = (info.code, info.reason)
    base = {"protocol_version": 2, "public_key": bytes(32), "join_nonce": bytes(32)}
    out["control-character name"] = await _status(conn._call(stub.Join, pb.JoinRequest(name="\x00\x07", **base), 5))
    out["short key"] = await _status(conn._call(
        stub.Join, pb.JoinRequest(name="x", protocol_version=2, public_key=b"12345", join_nonce=bytes(32)), 5))
    out["no such seat"] = await _status(conn._call(stub.Join, pb.JoinRequest(name="x", seat=9, **base), 5))
    out["old protocol"] = await _status(conn._call(
        stub.Join, pb.JoinRequest(name="x", protocol_version=99, public_key=bytes(32), join_nonce=bytes(32)), 5))
    out["version 1 protocol"] = await _status(conn._call(  # a client of Level 1 version 1 (per-hand seeds)
        stub.Join, pb.JoinRequest(name="x", protocol_version=1, public_key=bytes(32), join_nonce=bytes(32)), 5))
    return out


async def _probe_at_own_turn(me: Seat, other: Seat, view: Any) -> dict[str, tuple[grpc.StatusCode, str]]:
    """Bad requests while the game waits for `me`: each refused, and the table's log does not move."""
    conn = me.conn
    game = conn.game
    assert game is not None
    out: dict[str, tuple[grpc.StatusCode, str]] = {}
    await conn.send_automatic()  # protocol steps this seat still owes are not part of the probe
    before = await _table_seq(conn)
    out["garbage bytes"] = await _raw_submit(conn, b"\x00garbage\xff")
    out["empty envelope"] = await _raw_submit(conn, b"")
    out["malformed action"] = await _status(conn.act("dance a jig"))
    if view.hand_phase == "play" and any(a.startswith("play ") for a in view.legal_actions):
        mine = set(view.your_hand)
        absent = next(c for c in ("HK", "S7", "E7", "LA", "EA", "HA", "SA", "L10", "E10") if c not in mine)
        out["card not in hand"] = await _status(conn.act(f"play {absent}"))
    request = pb.ActionRequest(action=view.legal_actions[0], chain_seq=game.chain_seq, chain_head=game.chain_head)
    out["another seat's envelope"] = await _raw_submit(
        conn, make_envelope(conn.key, game.game_id, game.my_seq + 1, game.my_head, other.conn.seat, request))
    out["signed with another key"] = await _raw_submit(
        conn, make_envelope(other.conn.key, game.game_id, game.my_seq + 1, game.my_head, conn.seat, request))
    out["another game"] = await _raw_submit(
        conn, make_envelope(conn.key, bytes(32), game.my_seq + 1, game.my_head, conn.seat, request))
    out["stale sequence"] = await _raw_submit(
        conn, make_envelope(conn.key, game.game_id, max(1, game.my_seq), bytes(32), conn.seat, request))
    out["another seat's token"] = await _raw_submit(conn, game.action(view.legal_actions[0]), other.conn.token)
    out["oversized"] = await _raw_submit(conn, b"\x0a" + bytes(2 << 20))
    assert await _table_seq(conn) == before, "a refused request changed the table"
    return out


def _other_is_to_play(me: Seat, other: Seat, view: Any) -> bool:
    """The view shows a trick under way with the other test seat to play a card: not to answer a raise (a pending
    raise is refused first, as raise-pending), and `me` holding a card to play out of turn."""
    return (view.hand_phase == "play" and not view.HasField("pending_raise") and view.your_hand
            and other.conn.seat in view.to_act and me.conn.seat not in view.to_act)


async def _out_of_turn(me: Seat, other: Seat, view: Any) -> tuple[grpc.StatusCode, str] | None:
    """A card played while the other test seat is to play: refused as not-your-turn, and nothing accepted. None when
    the view was no longer the table's (the next chance probes)."""
    game = me.conn.game
    assert game is not None
    # The table is live: this seat's stream sends the protocol steps it owes whenever it gets a view. Holding the
    # connection's send lock, those go first and then only the probe, so "the host accepted nothing from it" is
    # checked on this seat's own chain and cards.
    async with me.conn._send_lock:
        await me.conn._flush_automatic()
        # The view says what the table waits for only if it is the table's latest: a change this seat's stream has
        # not brought yet (the other seat's move just made, a raise among them) is a later chance's. Nothing moves
        # meanwhile: the other seat acts only under the turn lock the caller holds, and the bots wait for it.
        if await _table_seq(me.conn) != me.conn.last_seq or not _other_is_to_play(me, other, view):
            return None
        accepted, held = game.my_seq, dict(game.cards)
        result = await _status(me.conn._submit([game.action(f"play {view.your_hand[0]}")], kind="action"))
    assert game.my_seq == accepted and game.cards == held
    return result


async def _run_match(port: int, records: Path) -> tuple[list[Seat], dict[str, tuple[grpc.StatusCode, str]]]:
    results: dict[str, tuple[grpc.StatusCode, str]] = {}
    seats = []
    for _ in range(2):
        channel = await open_channel("127.0.0.1", port, insecure=True)
        seats.append(Seat(Connection(channel, record_dir=records)))
    results.update(await _bad_requests_before_joining(seats[0].conn))
    for i, seat in enumerate(seats):
        await seat.conn.join(f"tester {i}")
    rng = random.Random(3)
    probed = out_of_turn = False
    # Probes must see the table hold still: a seat acts only while holding this lock (bots act only when
    # the game waits for them, so while a test seat is to act nothing else moves).
    turn = asyncio.Lock()

    async def follow(me: Seat, other: Seat) -> None:
        nonlocal probed, out_of_turn
        async for view in me.conn.updates():
            if view is None:
                continue
            if view.table.phase in (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED):
                return
            if me.conn.seat not in view.to_act or not view.legal_actions:
                if not out_of_turn and _other_is_to_play(me, other, view):
                    async with turn:
                        probe = await _out_of_turn(me, other, view)
                        if probe is not None:
                            out_of_turn = True
                            results["out of turn"] = probe
                continue
            async with turn:
                if me.conn.view is not view:
                    continue  # the table moved on; act on the newer view
                if not probed and view.hand_phase == "play":
                    probed = True
                    results.update(await _probe_at_own_turn(me, other, view))
                    own = [e.data for e in me.conn.game.record if e.kind == 3] if me.conn.game else []
                    results["replayed accepted envelope"] = await _raw_submit(me.conn, own[-1])
                try:
                    await me.conn.act(rng.choice(list(view.legal_actions)))
                except Refused as err:
                    assert err.code == grpc.StatusCode.FAILED_PRECONDITION, err

    await asyncio.gather(follow(seats[0], seats[1]), follow(seats[1], seats[0]))
    for seat in seats:
        await seat.conn.send_automatic()
        await seat.conn.close()
    return seats, results


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Seat], dict[str, Any], Path]:
    tmp = tmp_path_factory.mktemp("requests")
    records = tmp / "records"
    host, port = start_host(tmp, "--headless", "--insecure", "--players", "4", "--bots", "2", "--record",
                            str(records), "--set", "target=11")
    seats, results = run_then_host_ends(host, _run_match(port, records), 180)
    return seats, results, records


EXPECTED = {
    "no token": (grpc.StatusCode.UNAUTHENTICATED, "no-token"),
    "wrong token": (grpc.StatusCode.UNAUTHENTICATED, "bad-token"),
    "control-character name": (grpc.StatusCode.INVALID_ARGUMENT, "bad-name"),
    "short key": (grpc.StatusCode.INVALID_ARGUMENT, "bad-public-key"),
    "no such seat": (grpc.StatusCode.INVALID_ARGUMENT, "bad-seat"),
    "old protocol": (grpc.StatusCode.FAILED_PRECONDITION, "protocol-version"),
    "version 1 protocol": (grpc.StatusCode.FAILED_PRECONDITION, "protocol-version"),
    "garbage bytes": (grpc.StatusCode.INVALID_ARGUMENT, "bad-envelope"),
    "empty envelope": (grpc.StatusCode.INVALID_ARGUMENT, "bad-envelope"),
    "malformed action": (grpc.StatusCode.INVALID_ARGUMENT, "bad-action"),
    "card not in hand": (grpc.StatusCode.FAILED_PRECONDITION, "card-not-in-hand"),
    "another seat's envelope": (grpc.StatusCode.PERMISSION_DENIED, "wrong-seat"),
    "signed with another key": (grpc.StatusCode.INVALID_ARGUMENT, "bad-signature"),
    "another game": (grpc.StatusCode.FAILED_PRECONDITION, "wrong-game"),
    "stale sequence": (grpc.StatusCode.ABORTED, "stale-envelope-seq"),
    "another seat's token": (grpc.StatusCode.PERMISSION_DENIED, "wrong-seat"),
    "out of turn": (grpc.StatusCode.FAILED_PRECONDITION, "not-your-turn"),
    "replayed accepted envelope": (grpc.StatusCode.OK, ""),
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_each_bad_request_gets_its_documented_status(played: tuple[list[Seat], dict[str, Any], Path],
                                                     case: str) -> None:
    _, results, _ = played
    assert case in results, f"the match never reached the moment for {case!r}"
    assert results[case] == EXPECTED[case]


def test_an_oversized_message_is_refused_by_size_not_by_a_crash(
        played: tuple[list[Seat], dict[str, Any], Path]) -> None:
    code, _ = played[1]["oversized"]
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_nothing_a_client_sent_was_answered_unknown_or_internal(
        played: tuple[list[Seat], dict[str, Any], Path]) -> None:
    assert not [k for k, (code, _) in played[1].items() if code in NEVER]


def test_every_record_of_the_match_verifies(played: tuple[list[Seat], dict[str, Any], Path]) -> None:
    records = sorted(played[2].glob("*.wrec"))
    assert records
    for path in records:
        report = verify_file(str(path))
        assert report.ok, [p.sentence() for p in report.errors]


def _secrets_from_host_record(records: Path) -> dict[str, Any]:
    """Ground truth from the host's record: every hidden card's salt and holder, every game key and seed."""
    host_record = next(p for p in records.glob("*-host.wrec"))
    _, entries = read_record(host_record)
    salts: dict[bytes, tuple[int, str]] = {}  # salt -> (seat it was dealt or shown to, card)
    seeds: list[bytes] = []  # k_H, every S(h, a) it gives, every seat's game key k_i
    dealt: dict[tuple[int, int, int], set[str]] = {}  # (hand, attempt, seat) -> cards delivered
    attempts: list[tuple[int, int]] = []
    game_id = b""
    for entry in entries:
        if entry.kind != KIND_HOST:
            continue
        signed = parse_envelope(entry.data, host=True)
        p = signed.payload
        if signed.type == "GameHeader":
            game_id = bytes(p.game_id)
        elif signed.type == "HandOpen":
            attempts.append((int(p.hand), int(p.attempt)))
        elif signed.type == "CardDelivery":
            for opening in p.cards:
                salts[bytes(opening.salt)] = (int(p.seat), str(opening.card))
                dealt.setdefault((int(p.hand), int(p.attempt), int(p.seat)), set()).add(str(opening.card))
        elif signed.type == "HostKeyReveal":
            seeds.append(bytes(p.key))
            seeds += [host_seed(bytes(p.key), game_id, h, a) for h, a in attempts]
        elif signed.type == "Relay":
            inner = parse_envelope(bytes(p.envelope), host=False)
            if inner.type == "KeyReveal":
                seeds.append(bytes(inner.payload.key))
    assert len(seeds) == 1 + len(attempts) + 4, "the host's key, every attempt's seed and every seat's key"
    return {"salts": salts, "seeds": seeds, "dealt": dealt}


def test_no_seat_ever_received_a_card_or_secret_it_may_not_see(
        played: tuple[list[Seat], dict[str, Any], Path]) -> None:
    seats, _, records = played
    truth = _secrets_from_host_record(records)
    scanned = 0
    for me in seats:
        seat = me.conn.seat
        public: set[bytes] = set()  # secrets that became public (a card played, a seed revealed)
        for raw in me.updates:
            update = pb.TableUpdate()
            update.ParseFromString(raw)
            body = update.snapshot if update.HasField("snapshot") else update.event
            for entry in body.chain:
                if not entry.HasField("envelope"):
                    continue
                signed = parse_envelope(bytes(entry.envelope), host=True)
                p = signed.payload
                if signed.type in ("CardDelivery", "PrivateEvent"):
                    assert p.seat == seat, f"seat {seat} got another seat's {signed.type}"
                elif signed.type == "ActionAccepted":
                    public.update(bytes(o.salt) for o in p.openings)
                    assert not p.action.startswith("signal ") or seat in _partners_or_self(p.seat), p.action
                elif signed.type == "HostSeedReveal":
                    public.add(bytes(p.seed))
                    public.update(truth["salts"])  # every salt derives from the seeds now revealed
                elif signed.type == "HostKeyReveal":
                    public.update(truth["seeds"])  # k_H opens every seed of the match, hence every salt
                    public.update(truth["salts"])
                elif signed.type == "Relay":
                    inner = parse_envelope(bytes(p.envelope), host=False)
                    if inner.type == "KeyReveal":
                        public.add(bytes(inner.payload.key))
            if body.HasField("view") and body.view.your_hand:
                held = truth["dealt"].get((body.view.hand, body.view.attempt, seat), set())
                assert set(body.view.your_hand) <= held, f"seat {seat} was shown cards it was not dealt"
            events = update.event.events if update.HasField("event") else update.snapshot.recent_events
            for event in events:
                if event.kind in ("deal", "took", "see"):
                    assert event.seat == seat, f"seat {seat} saw a {event.kind} event of seat {event.seat}"
            for secret, (holder, card) in truth["salts"].items():
                if holder != seat and secret not in public:
                    assert secret not in raw, f"seat {seat} received the opening of {card} held by seat {holder}"
            for secret in truth["seeds"]:
                if secret not in public:
                    assert secret not in raw, f"seat {seat} received a game key or seed before its reveal"
            scanned += 1
    assert scanned > 100


def _partners_or_self(seat: int) -> set[int]:
    return {seat, (seat + 2) % 4}
