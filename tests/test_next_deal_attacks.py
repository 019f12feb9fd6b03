"""A hostile host against the next deal sealed with the checkpoint (GameHeader.next_deal, docs/protocol.md 5.5 item
6) and the header around it: a header whose order of the next deal (or deal, reveal, rules) the seats do not know,
and a record whose header no host can play; a record that claims the other order; a genuine co-signature relayed
twice or from the hand before to make the checkpoint look complete; a redeal to get a cut past an open checkpoint; a
seat rebuilt from the chain at the joined round; a seat shown a DeckSealed of the host's own (a fork the checkpoint
cannot see). Whole matches in one process (LocalTable); the hostile hosts are HostGame subclasses, or envelopes the
host's key signs on the chain one seat holds (`_shown`). test_next_deal.py holds the host that deals on before the
checkpoint and the one that leaves a signature out."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from watten_net.deal.envelope import GENESIS_PREV_HASH
from watten_net.deal.host_game import WITH_CHECKPOINT, HostGame, Posted, Seat
from watten_net.deal.protocol import HOST_SEAT, Signed, make_envelope, parse_envelope
from watten_net.deal.seat import SeatGame
from watten_net.deal.steps import DealStep
from watten_net.engine import Rules
from watten_net.refusal import HostBrokeProtocol, Reason
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_entries

import tampering
from local_table import LocalTable


def _rules() -> Rules:
    return Rules.preset("bavarian", 4).with_flag("target", "11")


# ------------------------------------------------------------------------------------------------ the header
def _set(**fields: str) -> Any:
    def change(header: Any) -> None:
        for name, value in fields.items():
            target = header.settings if name in ("deal", "reveal") else header
            setattr(target, name, value)
    return change


HEADER_SETTINGS = {
    "an order nobody wrote": _set(next_deal="whenever"),
    "one that only looks like the known one": _set(next_deal="with-checkpoint "),
    "the order in a trustless game": _set(deal="trustless", next_deal=WITH_CHECKPOINT),
    "an unknown reveal": _set(reveal="at-once"),
    "an unknown deal": _set(deal="shuffled-by-the-host"),
    "rules that do not parse": _set(rules_json="{"),
    "rules no table plays": _set(rules_json='{"players": 4, "deck": 3}'),
}


@pytest.mark.parametrize("change", HEADER_SETTINGS.values(), ids=HEADER_SETTINGS.keys())
def test_a_seat_signs_no_header_with_settings_it_does_not_know(change: Any) -> None:
    # Signed, it would tie the seat to a match whose every record watten-verify fails at the header (so nothing after
    # it is checked there); rules it cannot read raised a ValueError its client did not catch. Refused as another
    # protocol version is, with a clear reason; nothing signed.
    table = LocalTable(Rules.preset("bavarian", 4), seed=2)
    header = parse_envelope(table.host.start()[0].raw, host=True).payload
    change(header)
    raw = make_envelope(table.host.host_key, bytes(header.game_id), 1, GENESIS_PREV_HASH, HOST_SEAT, header)
    for seat in table.seats:
        with pytest.raises(HostBrokeProtocol) as caught:
            seat.receive(1, raw)
        assert caught.value.reason == Reason.PROTOCOL_VERSION
        assert "this client" in seat.problems[-1]
        assert not seat.outbox  # no HeaderSignature


@pytest.mark.parametrize(("preset", "change"), [
    ("bavarian", _set(reveal="at-once")),
    ("austrian", _set(deal="trustless")),  # (36 cards: no trustless deal deals them)
    ("bavarian", _set(next_deal="whenever")),
])
def test_a_record_whose_header_no_host_can_play_fails_without_a_traceback(preset: str, change: Any) -> None:
    # The host rewrites a finished match's header and signs its chain again: watten-verify gives its verdict on the
    # header (it raised the host's own ValueError for the first two before).
    table = LocalTable(Rules.preset(preset, 4).with_flag("target", "11"), seed=4)
    table.play()
    record = tampering.edit_host(table.host_entries(), 0, change, table.host.host_key)
    report = verify_entries(record)
    assert report.verdict == "failed" and report.errors[0].envelope == 1, report
    assert report.errors[0].reason == "header-mismatch", report


@pytest.mark.parametrize(("claimed", "played"), [(WITH_CHECKPOINT, ""), ("", WITH_CHECKPOINT)])
def test_a_record_that_claims_the_other_order_fails(claimed: str, played: str) -> None:
    # The header says one order, the host deals in the other. The seats' live checks hold in both (the cut waits for
    # the checkpoint either way), so only the verifier can tell: it replays the header's order, and the first envelope
    # after the first hand's Checkpoint is not the one an honest host of that order posts.
    table = LocalTable(_rules(), seed=1, next_deal=claimed)
    table.deliver(table.host.start())
    table.host.next_deal = played
    table.play()
    assert parse_envelope(table.host.chain[0].raw, host=True).payload.next_deal == claimed
    assert all(not seat.problems for seat in table.seats)
    types = [p.type for p in table.host.chain]
    checkpoint = types.index("Checkpoint")
    assert checkpoint + 1 < len(types) and "HandOpen" in types[checkpoint:]  # (a second hand was dealt)
    for record in (table.host_entries(), table.seat_entries(2)):
        report = verify_entries(record)
        assert report.verdict == "failed", report
        problem = report.errors[0]
        assert problem.envelope == checkpoint + 2 and problem.reason == "unexpected-envelope", problem  # (seq: 1-based)


# ------------------------------------------------------------------------------------------------ replayed relays
class RelaysOneSignatureTwice(HostGame):
    """Takes seat 3's checkpoint signature without relaying it, and relays seat 2's a second time in its place: as
    many relays as seats, so a seat that counted them would see a complete checkpoint. Then it deals on."""

    def _on_CheckpointSignature(self, seat: int, signed: Signed) -> list[Posted]:
        if not self.deal_waits_for_checkpoint or seat not in (2, 3):
            return HostGame._on_CheckpointSignature(self, seat, signed)
        self.checkpoint_signed.add(seat)
        return [self._relay(2, signed)] if seat == 2 else [self._relay(2, self.seat_two), *self._checkpoint_done()]

    def _relay(self, seat: int, signed: Signed) -> Posted:
        if signed.type == "CheckpointSignature" and seat == 2:
            self.seat_two = signed
        return super()._relay(seat, signed)

    HANDLERS: ClassVar[dict[str, Any]] = {**HostGame.HANDLERS, "CheckpointSignature": _on_CheckpointSignature}


class RelaysLastHandsSignature(HostGame):
    """From the second checkpoint on, relays seat 1's genuine signature of the checkpoint before in place of its new
    one (which it counts): every seat holds a signature of seat 1's, over another chain head."""

    kept: ClassVar[dict[int, Signed]] = {}

    def _on_CheckpointSignature(self, seat: int, signed: Signed) -> list[Posted]:
        if seat != 1 or not self.deal_waits_for_checkpoint:
            return HostGame._on_CheckpointSignature(self, seat, signed)
        before = self.kept.get(int(signed.payload.hand) - 1)
        self.kept[int(signed.payload.hand)] = signed
        if before is None:
            return HostGame._on_CheckpointSignature(self, seat, signed)
        self.checkpoint_signed.add(seat)
        return [self._relay(seat, before), *self._checkpoint_done()]

    HANDLERS: ClassVar[dict[str, Any]] = {**HostGame.HANDLERS, "CheckpointSignature": _on_CheckpointSignature}


def _hostile(cls: type[HostGame], seed: int = 1) -> LocalTable:
    table = LocalTable(_rules(), seed=seed, next_deal=WITH_CHECKPOINT)
    honest = table.host
    seats = [Seat(s.public_key, s.name, s.join_nonce) for s in honest.seats]
    table.host = cls(honest.rules, seats, honest.host_key, random_bytes=table.rng.randbytes, next_deal=WITH_CHECKPOINT)
    return table


@pytest.mark.parametrize(("cls", "reason", "says"), [
    (RelaysOneSignatureTwice, Reason.BAD_CHECKPOINT, "before every seat present had signed the last checkpoint"),
    (RelaysLastHandsSignature, Reason.FORK, "seat 1's CheckpointSignature is over something else"),
])
def test_a_genuine_signature_relayed_again_completes_no_checkpoint(cls: type[HostGame], reason: Reason,
                                                                    says: str) -> None:
    RelaysLastHandsSignature.kept.clear()
    table = _hostile(cls)
    with pytest.raises(HostBrokeProtocol) as caught:
        table.play()
    assert caught.value.reason == reason, caught.value
    assert any(says in problem for seat in table.seats for problem in seat.problems), [s.problems for s in table.seats]
    # Caught at the relay or the cut itself, before any card of the hand that followed that checkpoint.
    caught_at = "Relay" if reason == Reason.FORK else "ActionAccepted"
    for seat in table.seats:
        if seat.problems:
            assert seat.chain_types[-1] == caught_at and not seat.cards, (seat.seat, seat.chain_types[-4:])


# ------------------------------------------------------------------------------------------------ one seat shown more
def _at_the_joined_round(tmp_path: Path | None = None, rules: Rules | None = None) -> LocalTable:
    """A 4-player table at the first hand's end: the Checkpoint, the next HandOpen and DeckSealed posted; every seat
    has signed the seal, seats 0 to 2 the checkpoint; seat 3's checkpoint signature is not in."""
    table = LocalTable(rules or _rules(), seed=1, next_deal=WITH_CHECKPOINT)
    if tmp_path is not None:  # (where each seat keeps its game key: a seat rebuilt from the chain finds its own again)
        for seat in table.seats:
            seat.secrets_dir = tmp_path
    host = table.host
    table.play_until(lambda: host.checkpoint is not None)
    three = table.seats[3]  # (keeps its checkpoint signature back)
    keep = [r for r in three.outbox if three.parsed(r).type == "CheckpointSignature"]
    three.outbox = [r for r in three.outbox if r not in keep]
    table.flush()
    three.outbox += keep
    assert host.waiting_for() == (DealStep.CHECKPOINT, (3,))
    return table


def _shown(table: LocalTable, seat: SeatGame, *payloads: Any) -> None:
    """Envelopes the host's key signs on the chain `seat` holds, shown to it alone (a fork: the host's own chain and
    every other seat's go on without them)."""
    for payload in payloads:
        seq = seat.chain_seq + 1
        seat.receive(seq, make_envelope(table.host.host_key, seat.game_id, seq, seat.chain_head, HOST_SEAT, payload))


def test_a_redeal_does_not_get_a_cut_past_an_open_checkpoint() -> None:
    # The host aborts the attempt sealed with the checkpoint and opens the next one: a fresh HandOpen and DeckSealed
    # are no reason to forget that the checkpoint before them still lacks seat 3's signature. (Bessere as a redeal,
    # called: a redeal in rules without one, or uncalled, is refused at once, test_hostile_host.py.)
    table = _at_the_joined_round(rules=_rules().with_flag("bessere", "redeal-penalty"))
    seat = table.seats[0]
    hand = seat.hand
    _shown(table, seat, pb.ActionAccepted(hand=hand[0], attempt=hand[1], seat=2, action="bessere?", actor="seat"),
           pb.AttemptAborted(hand=hand[0], attempt=hand[1], reason="bessere-redeal", seat=-1),
           pb.HandOpen(hand=hand[0], attempt=hand[1] + 1, dealer=1),
           pb.DeckSealed(hand=hand[0], attempt=hand[1] + 1, card_commitments=seat.card_commitments))
    assert seat.hand == (hand[0], hand[1] + 1) and not seat.problems
    with pytest.raises(HostBrokeProtocol) as caught:
        _shown(table, seat, pb.ActionAccepted(hand=hand[0], attempt=hand[1] + 1, seat=2, action="cut 3", actor="key"))
    assert caught.value.reason == Reason.BAD_CHECKPOINT


def test_a_seat_rebuilt_from_the_chain_still_refuses_a_cut_before_the_checkpoint(tmp_path: Path) -> None:
    # A restarted client that lost its record catches up from the chain's first envelope: it must come out holding the
    # open checkpoint (both signatures owed, what is still missing known), not a fresh seat that would take any cut.
    table = _at_the_joined_round(tmp_path)
    old = table.seats[0]
    rebuilt = SeatGame(0, old.key, random_bytes=table.rng.randbytes, secrets_dir=tmp_path)
    for posted in table.host.chain:
        posted.deliver_to(rebuilt)
    rebuilt.keep_only(DealStep.CHECKPOINT.owed)
    assert not rebuilt.problems
    assert (rebuilt.chain_head, rebuilt.my_seq, rebuilt.checkpoint) == (old.chain_head, old.my_seq, old.checkpoint)
    assert not rebuilt.outbox  # (seat 0 signed both before it went: it owes nothing)
    with pytest.raises(HostBrokeProtocol) as caught:
        _shown(table, rebuilt, pb.ActionAccepted(hand=rebuilt.hand[0], attempt=rebuilt.hand[1], seat=2,
                                                 action="cut 3", actor="key"))
    assert caught.value.reason == Reason.BAD_CHECKPOINT
    # The honest way on: seat 3's signature relayed, then the cut; the rebuilt seat follows it like the others.
    three = table.seats[3]
    raw = three.next_automatic()
    assert raw is not None and three.parsed(raw).type == "CheckpointSignature"
    out = table.host.submit(3, raw)
    assert [p.type for p in out][:2] == ["Relay", "ActionAccepted"]
    again = SeatGame(0, old.key, random_bytes=table.rng.randbytes, secrets_dir=tmp_path)
    for posted in table.host.chain:
        posted.deliver_to(again)
    assert not again.problems and again.chain_head == table.host.chain[-1].hash


def _relays_in(table: LocalTable, inner_type: str) -> dict[int, bytes]:
    """The raw envelope of every seat's relayed `inner_type` of the last round in the host's chain, by seat."""
    found: dict[int, bytes] = {}
    for posted in table.host.chain:
        if posted.type == "Relay":
            relay = parse_envelope(posted.raw, host=True).payload
            if parse_envelope(bytes(relay.envelope), host=False).type == inner_type:
                found[int(relay.seat)] = bytes(relay.envelope)
    return found


def test_a_seat_shown_another_deck_seal_takes_no_cut_before_every_seat_signed_its_seal(tmp_path: Path) -> None:
    # The fork the checkpoint cannot see: it names the chain before the new DeckSealed. The host shows seat 0 a
    # DeckSealed of its own making (its cards laid out as the host likes; checked against the keys only at the match's
    # end) and the other seats the true one. Every checkpoint signature is genuine and over the same chain, so the
    # host relays them all to seat 0; the other seats' seal signatures are over the true DeckSealed, so it must leave
    # them out and cut without them. A seat takes no cut before every seat present has signed the seal it holds.
    table = _at_the_joined_round(tmp_path)
    three = table.seats[3]
    raw = three.next_automatic()
    assert raw is not None
    table.deliver(table.host.submit(3, raw))  # (the checkpoint complete: the honest cut is in the host's chain)
    checkpoint_signatures = _relays_in(table, "CheckpointSignature")
    assert sorted(checkpoint_signatures) == [0, 1, 2, 3]
    seat = SeatGame(0, table.seats[0].key, random_bytes=table.rng.randbytes, secrets_dir=tmp_path)
    opened = max(i for i, p in enumerate(table.host.chain) if p.type == "HandOpen")
    for posted in table.host.chain[:opened + 1]:
        posted.deliver_to(seat)
    hand = seat.hand
    true_seal = parse_envelope(table.host.chain[opened + 1].raw, host=True).payload
    assert true_seal.DESCRIPTOR.name == "DeckSealed"
    _shown(table, seat, pb.DeckSealed(hand=hand[0], attempt=hand[1],
                                      card_commitments=list(reversed(true_seal.card_commitments))))
    own_seal = next(r for r in seat.outbox if seat.parsed(r).type == "DeckSealedSignature")
    _shown(table, seat, pb.Relay(seat=0, envelope=checkpoint_signatures[0]), pb.Relay(seat=0, envelope=own_seal),
           *(pb.Relay(seat=s, envelope=checkpoint_signatures[s]) for s in (1, 2, 3)))
    assert not seat.problems and not seat.verified.checkpoint_open  # (every checkpoint signature is genuine)
    with pytest.raises(HostBrokeProtocol) as caught:
        _shown(table, seat, pb.ActionAccepted(hand=hand[0], attempt=hand[1], seat=2, action="cut 3", actor="key"))
    assert caught.value.reason == Reason.BAD_DECK_SEALED
    assert "signed the DeckSealed" in seat.problems[-1]
