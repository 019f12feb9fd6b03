"""Spectators (issue 13 item 5) between a real host process and clients that join as `watten-join` does
(client.connection.Connection over loopback gRPC).

The leak scan plays a whole match with every seat joined from the test, in both deal modes, and keeps every message
each seat and each spectator received. A spectator's every message (snapshot, events, views, chain entries with the
payloads of every envelope it was given) is read for card names; a card that some seat held at that event seq (the
seat's own view says so: its `your_hand`, which a trustless seat's client fills in itself) is a leak unless every
other seat had been shown it too by then (a card played, shown at a Maschine, opened at the end); in Blind Watten it
never gets the announcers' Schlag or trump while the hand is played. Spectators are
also counted on the seats' screens ("2 watching"), refused at every acting call with `spectator`, and the 17th is
refused with `no-spectators`.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from client.connection import Connection, Refused, open_channel
from watten_net.v1 import watten_pb2 as pb

from netutil import start_host

pytestmark = pytest.mark.network

FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
CARDS = {suit + rank for suit in "ELHS" for rank in ("6", "7", "8", "9", "10", "U", "O", "K", "A")}
TOKEN = re.compile(r"[A-Z0-9]+")
ENVELOPES = {"envelope", "envelopes", "action_envelope", "unanswered"}  # bytes fields that carry whole envelopes
NOT_SCANNED = {"rules_json"}  # the rules name cards by their role (the Belli is "S7"), never a card dealt


@dataclass
class Heard:
    """Every update one connection received, with its event seq; for a seat, its own cards after each seq."""

    updates: list[tuple[int, Any]] = field(default_factory=list)
    hands: dict[int, set[str]] = field(default_factory=dict)

    def note(self, update: Any) -> None:
        seq = update.snapshot.seq if update.HasField("snapshot") else update.event.seq
        copy = pb.TableUpdate()
        copy.CopyFrom(update)
        self.updates.append((int(seq), copy))


# ------------------------------------------------------------------------------------------ reading a message
def _envelope_strings(raw: bytes) -> Iterator[str]:
    """The strings of an envelope's payload (and of the envelopes it carries), by its type."""
    envelope = pb.Envelope.FromString(raw)
    yield envelope.type
    payload_type = getattr(pb, envelope.type, None)
    if payload_type is not None:
        yield from strings(payload_type.FromString(envelope.payload))


def strings(message: Any) -> Iterator[str]:
    """Every string in `message`, recursively: text fields, map values (a GameEvent's are JSON: decoded), and the
    payloads of the envelopes it carries (ENVELOPES)."""
    for descriptor, value in message.ListFields():
        if descriptor.name in NOT_SCANNED:
            continue
        is_map = descriptor.type == descriptor.TYPE_MESSAGE and descriptor.message_type.GetOptions().map_entry
        if is_map:
            for text in value.values():
                yield from _json_strings(text) if descriptor.containing_type.name == "GameEvent" else [text]
            continue
        values = value if descriptor.is_repeated else [value]
        for item in values:
            if descriptor.type == descriptor.TYPE_MESSAGE:
                yield from strings(item)
            elif descriptor.type == descriptor.TYPE_STRING:
                yield item
            elif descriptor.type == descriptor.TYPE_BYTES and descriptor.name in ENVELOPES:
                yield from _envelope_strings(item)


def _json_strings(text: str) -> Iterator[str]:
    def walk(value: Any) -> Iterator[str]:
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            for item in value:
                yield from walk(item)
        elif isinstance(value, dict):
            for item in value.values():
                yield from walk(item)

    yield from walk(json.loads(text))


def cards_in(update: Any) -> set[str]:
    return {token for text in strings(update) for token in TOKEN.findall(text) if token in CARDS}


def leaks(spectator: Heard, seats: dict[int, Heard]) -> tuple[list[tuple[int, str, int]], int]:
    """(seq, card, holder) of every card a spectator was shown while a seat held it and not every other seat had been
    shown it; and how many cards it was shown that some seat had held (to see that the scan saw a game)."""
    shown: dict[int, list[tuple[int, set[str]]]] = {
        seat: [(seq, cards_in(update)) for seq, update in heard.updates] for seat, heard in seats.items()}

    def seen_by(seat: int, card: str, upto: int) -> bool:
        return any(card in cards for seq, cards in shown[seat] if seq <= upto)

    found, once_held = [], 0
    every_hand = {card for heard in seats.values() for hand in heard.hands.values() for card in hand}
    for seq, update in spectator.updates:
        for card in cards_in(update):
            once_held += card in every_hand
            for holder, heard in seats.items():
                if card in heard.hands.get(seq, ()) and not all(
                        seen_by(other, card, seq) for other in seats if other != holder):
                    found.append((seq, card, holder))
    return found, once_held


def _views(heard: Heard) -> Iterator[Any]:
    for _, update in heard.updates:
        yield update.snapshot.view if update.HasField("snapshot") else update.event.view


# ------------------------------------------------------------------------------------------ the table
async def _seat(port: int, seat: int, heard: Heard, started: asyncio.Event) -> None:
    """One seat, as watten-join: random legal moves on its turn; its own cards noted after every event seq."""
    rng = random.Random(seat)
    conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
    conn.on_update = heard.note
    try:
        await conn.join(f"seat {seat}", seat)
        async for view in conn.follow(give_up_after=30):
            heard.hands[conn.last_seq] = set(view.your_hand)
            if view.hand_phase == "play":
                started.set()
            if view.table.phase in FINISHED:
                break
            moves = [a for a in view.legal_actions if not a.startswith("signal ")]
            if seat in view.to_act and moves:
                try:
                    await conn.act(rng.choice(moves))
                except Refused as err:
                    assert err.code == grpc.StatusCode.FAILED_PRECONDITION, err
    finally:
        await conn.close()


async def _spectator(port: int, heard: Heard, name: str, after: asyncio.Event | None = None) -> None:
    if after is not None:
        await after.wait()
    conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
    conn.on_update = heard.note
    try:
        assert await conn.join(name, spectate=True) == -1
        async for view in conn.follow(give_up_after=30):
            if view.table.phase in FINISHED:
                break
    finally:
        await conn.close()


async def _match(port: int, players: int) -> tuple[dict[int, Heard], list[Heard]]:
    seats = {seat: Heard() for seat in range(players)}
    watchers = [Heard(), Heard()]
    started = asyncio.Event()
    early = asyncio.create_task(_spectator(port, watchers[0], "Early"))  # in the lobby, before anybody sits
    await asyncio.sleep(0.5)
    tasks = [early, *(asyncio.create_task(_seat(port, s, seats[s], started)) for s in seats),
             asyncio.create_task(_spectator(port, watchers[1], "Late", after=started))]  # during the first hand
    async with asyncio.timeout(400):
        await asyncio.gather(*tasks)
    return seats, watchers


@pytest.mark.slow
@pytest.mark.parametrize(("deal", "players", "preset"),
                         [("verified", 4, "bavarian"), ("trustless", 2, "bavarian"), ("verified", 4, "blind")])
def test_a_spectator_is_never_shown_a_card_a_player_holds(tmp_path: Path, deal: str, players: int,
                                                          preset: str) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", str(players), "--rules", preset,
                            "--set", f"deal={deal}", "--set", "target=5")
    try:
        seats, watchers = asyncio.run(_match(port, players))
    finally:
        host.stop()
    assert all(any(hand for hand in heard.hands.values()) for heard in seats.values())
    for watcher in watchers:
        found, once_held = leaks(watcher, seats)
        assert found == [], found[:10]
        assert once_held >= 10, once_held  # it watched cards being played
        assert watcher.updates[0][1].HasField("snapshot")
        for view in _views(watcher):
            assert view.your_seat == -1 and not view.your_hand and not view.legal_actions
            assert not view.signals and not view.partners and "schlecken_card" not in view.extra
        assert any(view.table.phase in FINISHED for view in _views(watcher))
        if preset == "blind":  # the announcers' Schlag and trump stay theirs while the hand is played
            hidden = [view for view in _views(watcher) if view.announcement_hidden]
            assert hidden and all(not view.schlag and not view.trump for view in hidden)
            kinds = [e.kind for _, u in watcher.updates if u.HasField("event") for e in u.event.events]
            assert "announced" in kinds and "schlag" not in kinds and "trump" not in kinds
    # The seats saw them come: "watching" events, and the count in their views.
    events = [e for _, u in seats[0].updates if u.HasField("event") for e in u.event.events if e.kind == "watching"]
    assert [json.loads(e.fields["name"]) for e in events if json.loads(e.fields["joined"])][-1] == "Late"
    assert max(view.table.watching for view in _views(seats[0])) == 2


# ------------------------------------------------------------------------------------------ places and refusals
async def _watch_for(conn: Connection, until: asyncio.Event) -> None:
    async for _ in conn.updates():
        if until.is_set():
            return


async def _places(port: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    done = asyncio.Event()
    seat = Connection(await open_channel("127.0.0.1", port, insecure=True))
    await seat.join("Anna", 0)
    watchers = [Connection(await open_channel("127.0.0.1", port, insecure=True)) for _ in range(17)]
    streams = []
    try:
        for i, conn in enumerate(watchers[:16]):
            assert await conn.join(f"watcher {i}", spectate=True) == -1
            streams.append(asyncio.create_task(_watch_for(conn, done)))
        for _ in range(200):
            if (await seat.table()).watching == 16:
                break
            await asyncio.sleep(0.05)
        out["watching"] = (await seat.table()).watching
        try:
            await watchers[16].join("the 17th", spectate=True)
        except Refused as err:
            out["17th"] = (err.code, err.reason, err.message)
        spectator = watchers[0]
        calls = {
            "ChooseSeat": lambda: spectator.choose_seat(1),
            "SetName": lambda: spectator.set_name("Sneaky"),
            "Ready": lambda: spectator.ready(True),
            "Start": lambda: spectator.start(),
            "SubmitEnvelope": lambda: spectator._call(spectator.stub.SubmitEnvelope, pb.SubmitEnvelopeRequest(
                token=spectator.token, envelope=b"\x08\x01"), 5.0),
        }
        for name, call in calls.items():
            try:
                await call()
                out[name] = "accepted"
            except Refused as err:
                out[name] = (err.code, err.reason)
        await watchers[1].leave()  # a place comes free
        out["after a leave"] = await watchers[16].join("the 17th", spectate=True)
        out["seats"] = [s.name for s in (await seat.table()).seats]
    finally:
        done.set()
        for task in streams:
            task.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
        for conn in (seat, *watchers):
            await conn.close()
    return out


def test_sixteen_spectators_are_counted_none_may_act_and_the_seventeenth_is_refused(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2")
    try:
        out = asyncio.run(_places(port))
        host.wait_for_line(r"watcher 15 is watching \(16 watching\)")  # the headless host's log says so too
        host.wait_for_line(r"watcher 1 stopped watching \(15 watching\)")
    finally:
        host.stop()
    assert out["watching"] == 16
    code, reason, message = out["17th"]
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "no-spectators") and "16" in message
    for name in ("ChooseSeat", "SetName", "Ready", "Start", "SubmitEnvelope"):
        assert out[name] == (grpc.StatusCode.PERMISSION_DENIED, "spectator"), (name, out[name])
    assert out["after a leave"] == -1
    assert out["seats"] == ["Anna", ""]  # nothing a spectator did touched a seat


async def _two_matches(port: int) -> tuple[list[bytes], int]:
    """A person plays two matches at one table (another after the first: Ready); a spectator follows both on one
    stream. (The game ids the spectator saw end, and the snapshots it got.)"""
    from watten_net.bots import make_bot

    from netutil import bot_turn

    async def person() -> None:
        conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
        bot, done = make_bot("random", 5), b""
        try:
            await conn.join("Resi")
            for match in range(2):
                async for view in conn.follow(give_up_after=30):
                    if view.table.phase in FINISHED and view.table.game_id not in (b"", done):
                        await conn.send_automatic()
                        done = bytes(view.table.game_id)
                        break
                    await bot_turn(conn, bot, view)
                if match == 0:
                    await conn.again()
        finally:
            await conn.close()

    watcher, ended = Heard(), []
    conn = Connection(await open_channel("127.0.0.1", port, insecure=True))
    conn.on_update = watcher.note
    try:
        await conn.join("Zaungast", spectate=True)
        playing = asyncio.create_task(person())
        async with asyncio.timeout(300):
            async for view in conn.updates():  # one stream, no reconnect
                if view.table.phase in FINISHED and bytes(view.table.game_id) not in ended:
                    ended.append(bytes(view.table.game_id))
                    if len(ended) == 2:
                        break
            await playing
    finally:
        await conn.close()
    return ended, sum(1 for _, u in watcher.updates if u.HasField("snapshot"))


def test_a_spectator_follows_the_table_into_its_next_match(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--headless", "--insecure", "--players", "2", "--bots", "1", "--matches", "2",
                            "--set", "target=3")
    try:
        ended, snapshots = asyncio.run(_two_matches(port))
    finally:
        host.stop()
    assert len(ended) == 2 and ended[0] != ended[1] and snapshots == 1
