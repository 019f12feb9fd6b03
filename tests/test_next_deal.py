"""GameHeader.next_deal = "with-checkpoint": the next hand's HandOpen and DeckSealed follow a hand's Checkpoint at once,
and the seats sign both in one round; the cut and every card of that hand still wait for every checkpoint signature
of the seats present (docs/protocol.md 5.5 item 6). The order of records made before the setting ("") is unchanged.
Whole matches in one process (LocalTable); the real host and client over gRPC are in test_next_deal_network.py."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.host_game import WITH_CHECKPOINT, HostGame, Posted, Seat
from watten_net.deal.identity import public_key_bytes
from watten_net.deal.level1_seat import VerifiedSeat
from watten_net.deal.protocol import ProtocolError, parse_envelope
from watten_net.deal.steps import DealStep, Stage
from watten_net.engine import Rules
from watten_net.refusal import HostBrokeProtocol, Reason
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_entries

from local_table import LocalTable

GAMES = [("bavarian", 4, 1), ("south-tyrolean", 2, 5), ("bavarian", 3, 9)]


def _rules(preset: str, players: int) -> Rules:
    return Rules.preset(preset, players).with_flag("target", "11")


def _inner_type(posted: Posted) -> str:
    return parse_envelope(bytes(parse_envelope(posted.raw, host=True).payload.envelope), host=False).type


def _between_hands(chain: list[Posted]) -> list[list[str]]:
    """For every Checkpoint that a next hand follows: the chain from it to that hand's cut, as entry types (a relay as
    'Relay:<its type>'). The cut is the first ActionAccepted after the next HandOpen."""
    types = [f"Relay:{_inner_type(p)}" if p.type == "Relay" else p.type for p in chain]
    runs = []
    for i, kind in enumerate(types):
        if kind != "Checkpoint" or "HandOpen" not in types[i:]:
            continue
        opened = types.index("HandOpen", i)
        cut = types.index("ActionAccepted", opened)
        runs.append(types[i:cut + 1])
    return runs


@pytest.mark.parametrize(("preset", "players", "seed"), GAMES)
def test_a_match_with_the_deal_sealed_with_the_checkpoint_verifies(preset: str, players: int, seed: int) -> None:
    table = LocalTable(_rules(preset, players), seed=seed, next_deal=WITH_CHECKPOINT)
    table.play()
    header = parse_envelope(table.host.chain[0].raw, host=True).payload
    assert header.next_deal == WITH_CHECKPOINT
    runs = _between_hands(table.host.chain)
    assert runs, "the match had more than one hand"
    for run in runs:
        # The seal travels with the checkpoint: nothing between them; both co-signatures of every seat come after.
        assert run[:3] == ["Checkpoint", "HandOpen", "DeckSealed"], run
        signatures = run[3:-1]
        assert sorted(signatures) == sorted(["Relay:CheckpointSignature", "Relay:DeckSealedSignature"] * players)
        assert run[-1] == "ActionAccepted"  # the cut, once every signature of both is in
    assert verify_entries(table.host_entries()).verdict == "verified"
    for seat in range(players):
        assert not table.seats[seat].problems
        assert verify_entries(table.seat_entries(seat), meta={"seat": seat}).verdict == "verified"


def test_the_order_before_the_setting_is_unchanged() -> None:
    # next_deal "" (every record made before it): the next HandOpen only after every checkpoint signature.
    table = LocalTable(_rules("bavarian", 4), seed=1)
    table.play()
    assert parse_envelope(table.host.chain[0].raw, host=True).payload.next_deal == ""
    runs = _between_hands(table.host.chain)
    assert runs
    for run in runs:
        assert run[:5] == ["Checkpoint"] + ["Relay:CheckpointSignature"] * 4, run
        assert run[5:7] == ["HandOpen", "DeckSealed"]
    assert verify_entries(table.host_entries()).verdict == "verified"


def test_a_seat_away_while_both_are_signed() -> None:
    # A stand-in plays seat 2 across several hands: its signatures are not waited for, as in today's order.
    table = LocalTable(_rules("bavarian", 4), seed=3, next_deal=WITH_CHECKPOINT)
    table.play(absences={40: (2, 60), 150: (1, 40)})
    assert any(p.type == "StandIn" for p in table.host.chain)
    assert verify_entries(table.host_entries()).verdict == "verified"
    assert all(not s.problems for s in table.seats)


def _to_second_checkpoint() -> LocalTable:
    """A 4-player table stopped right after the first hand's Checkpoint, HandOpen and DeckSealed (nothing signed)."""
    table = LocalTable(_rules("bavarian", 4), seed=1, next_deal=WITH_CHECKPOINT)
    host = table.host
    table.play_until(lambda: host.checkpoint is not None)
    assert [p.type for p in host.chain[-3:]] == ["Checkpoint", "HandOpen", "DeckSealed"]
    return table


def _submit_owed(table: LocalTable, seat: int, kind: str) -> list[Posted]:
    game = table.seats[seat]
    raw = next(r for r in game.outbox if game.parsed(r).type == kind)
    if game.outbox[0] != raw:  # (signed on the head before the other: the seat signs it anew on its chain head)
        game.outbox.remove(raw)
        game.outbox.insert(0, raw)
    raw = game.next_automatic() or b""
    out = table.host.submit(seat, raw)
    game.accepted(raw)
    table.deliver(out)
    return out


def test_no_card_before_the_checkpoint_is_complete_whatever_the_order() -> None:
    table = _to_second_checkpoint()
    host = table.host
    # Both owed at once: the host names the checkpoint step and every seat that owes either.
    assert host.waiting_for() == (DealStep.CHECKPOINT, (0, 1, 2, 3))
    for seat in range(4):
        assert {table.seats[seat].parsed(r).type for r in table.seats[seat].outbox} == {
            "CheckpointSignature", "DeckSealedSignature"}
    # Every seal signature first (signed anew on the seat's head), then all checkpoint signatures but one: no cut yet.
    for seat in range(4):
        _submit_owed(table, seat, "DeckSealedSignature")
    assert host.waiting_for() == (DealStep.CHECKPOINT, (0, 1, 2, 3))
    for seat in range(3):
        out = _submit_owed(table, seat, "CheckpointSignature")
        assert [p.type for p in out] == ["Relay"]
    assert host.waiting_for() == (DealStep.CHECKPOINT, (3,))
    assert host.phase == Stage.DEAL and host.match is not None and host.match.hand_number == 1
    assert not host.match.deck  # (the next deck is not in the engine)
    out = _submit_owed(table, 3, "CheckpointSignature")
    assert [p.type for p in out][:2] == ["Relay", "ActionAccepted"]  # the last signature, then the cut at once
    assert host.phase == Stage.PLAY


def test_a_checkpoint_signature_after_the_seals_are_done_and_a_late_seal_signature() -> None:
    table = _to_second_checkpoint()
    host = table.host
    for seat in range(4):
        _submit_owed(table, seat, "CheckpointSignature")
    assert host.waiting_for() == (DealStep.SEAL_SIGN, (0, 1, 2, 3))  # the checkpoint is complete: the seal is owed
    for seat in range(4):
        out = _submit_owed(table, seat, "DeckSealedSignature")
    assert "ActionAccepted" in [p.type for p in out]
    assert host.phase == Stage.PLAY
    hand, seq, head = table.seats[0].checkpoint
    again = table.seats[0].send(pb.CheckpointSignature(hand=hand, seat=0, chain_seq=seq, chain_head=head))
    table.seats[0].outbox.remove(again)
    length = len(host.chain)
    with pytest.raises(ProtocolError) as err:  # (a checkpoint signature once it is complete: refused, nothing changes)
        host.submit(0, again)
    assert err.value.reason == Reason.UNEXPECTED_MESSAGE and len(host.chain) == length


def test_a_seat_that_reconnects_keeps_both_owed_signatures() -> None:
    # keep_only, after a catch-up: the host names the checkpoint step; the seat still owes the seal signature too.
    table = _to_second_checkpoint()
    seat = table.seats[1]
    seat.keep_only(DealStep.CHECKPOINT.owed)
    assert [seat.parsed(r).type for r in seat.outbox] == ["CheckpointSignature", "DeckSealedSignature"]
    header = pb.GameHeader()
    header.CopyFrom(seat.header)
    header.next_deal = ""
    seat.header = header  # (today's order: only the step the host names is kept, as before)
    seat.keep_only(DealStep.CHECKPOINT.owed)
    assert [seat.parsed(r).type for r in seat.outbox] == ["CheckpointSignature"]


class DealsBeforeTheCheckpoint(HostGame):
    """A hostile host: it cuts and deals the next hand as soon as the seals are signed, checkpoint or not."""

    def _after_dealing(self) -> list[Posted]:
        self.deal_waits_for_checkpoint = False
        return super()._after_dealing()


class LeavesOutASignature(HostGame):
    """A hostile host: it takes seat 1's checkpoint signature but never relays it, and deals on without it."""

    def _on_CheckpointSignature(self, seat: int, signed: Any) -> list[Posted]:
        if seat == 1 and self.deal_waits_for_checkpoint:
            self.checkpoint_signed.add(seat)
            return self._checkpoint_done()
        return HostGame._on_CheckpointSignature(self, seat, signed)

    HANDLERS: ClassVar[dict[str, Any]] = {**HostGame.HANDLERS, "CheckpointSignature": _on_CheckpointSignature}


def _hostile(cls: type[HostGame], monkeypatch: pytest.MonkeyPatch) -> LocalTable:
    table = LocalTable(_rules("bavarian", 4), seed=1, next_deal=WITH_CHECKPOINT)
    honest = table.host
    seats = [Seat(s.public_key, s.name, s.join_nonce) for s in honest.seats]
    table.host = cls(honest.rules, seats, honest.host_key, random_bytes=table.rng.randbytes,
                     next_deal=WITH_CHECKPOINT)
    flush = table.flush

    def seals_first() -> bool:  # (each seat signs the seal before the checkpoint: anew, on its own chain head)
        for seat in table.seats:
            seat.outbox.sort(key=lambda raw, seat=seat: seat.parsed(raw).type != "DeckSealedSignature")
        return flush()

    monkeypatch.setattr(table, "flush", seals_first)
    return table


@pytest.mark.parametrize("cls", [DealsBeforeTheCheckpoint, LeavesOutASignature])
def test_a_host_that_deals_before_the_checkpoint_is_complete_is_caught(
        cls: type[HostGame], monkeypatch: pytest.MonkeyPatch) -> None:
    table = _hostile(cls, monkeypatch)
    with pytest.raises(HostBrokeProtocol) as caught:
        table.play()
    assert caught.value.reason == Reason.BAD_CHECKPOINT, caught.value
    assert any("before every seat present had signed the last checkpoint" in p for s in table.seats for p in s.problems)
    # The verifier, over the whole record of such a match (played to its end by seats that do not look): it replays
    # an honest host, who posts no cut there (or misses a seat's envelope never relayed), so the record fails.
    table = _hostile(cls, monkeypatch)
    with monkeypatch.context() as blind:
        blind.setattr(VerifiedSeat, "check_checkpoint_complete", lambda self, what: None)
        table.play()
    report = verify_entries(table.host_entries())
    assert report.verdict == "failed", report
    problem = report.errors[0]
    assert problem.envelope > [p.type for p in table.host.chain].index("Checkpoint"), problem
    if cls is DealsBeforeTheCheckpoint:
        assert problem.type == "ActionAccepted" and problem.reason == "unexpected-envelope", problem
    seat_report = verify_entries(table.seat_entries(0), meta={"seat": 0})
    assert seat_report.verdict == "failed" and seat_report.errors[0].envelope == problem.envelope, seat_report


def test_a_trustless_game_refuses_the_setting() -> None:
    rules = Rules.preset("bavarian", 4)
    keys = [Ed25519PrivateKey.generate() for _ in range(4)]
    seats = [Seat(public_key_bytes(k), f"p{i}", bytes([i]) * 32) for i, k in enumerate(keys)]
    with pytest.raises(ValueError, match="next_deal"):
        HostGame(rules, seats, Ed25519PrivateKey.generate(), deal="trustless", next_deal=WITH_CHECKPOINT)
    with pytest.raises(ValueError, match="next_deal"):
        HostGame(rules, seats, Ed25519PrivateKey.generate(), next_deal="whenever")


def test_the_next_deal_is_derived_during_the_hand_before(monkeypatch: pytest.MonkeyPatch) -> None:
    # HostGame.prepare_next_deal (the host calls it after each change) derives hand h+1's deal while hand h is played,
    # so the HandOpen and DeckSealed go out with the Checkpoint without that work; the bytes are the same.
    table = LocalTable(_rules("bavarian", 4), seed=1, next_deal=WITH_CHECKPOINT)
    host, dealing = table.host, table.host.verified_dealing
    assert dealing is not None
    submit, open_attempt = host.submit, dealing.open_attempt
    opened: list[tuple[int, int, bool]] = []

    def submit_then_prepare(seat: int, raw: bytes) -> Any:
        out = submit(seat, raw)
        host.prepare_next_deal()
        return out

    def counted_open(hand: int, attempt: int, dealer: int | None) -> list[Any]:
        prepared = dealing._prepared
        opened.append((hand, attempt, prepared is not None and prepared.of == (hand, attempt)))
        return open_attempt(hand, attempt, dealer)

    monkeypatch.setattr(host, "submit", submit_then_prepare)
    monkeypatch.setattr(dealing, "open_attempt", counted_open)
    table.play()
    firsts = [used for hand, attempt, used in opened if hand > 0 and attempt == 0]
    assert firsts and all(firsts), opened
    assert verify_entries(table.host_entries()).verdict == "verified"
