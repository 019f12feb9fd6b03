"""A seat checks every envelope of a whole match once: each parsed once, each host envelope's signature checked once
by every seat that was shown it (never fewer), and no envelope parsed or checked again (issue #17, the seat's cost)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import watten_net.deal.level1_seat as level1_seat
import watten_net.deal.seat as seat_module
from watten_net.deal.protocol import make_envelope, make_signed, parse_envelope
from watten_net.deal.seat import SeatGame
from watten_net.engine import Rules
from watten_net.record import KIND_HOST, KIND_OWN
from watten_net.v1 import watten_pb2 as pb

from local_table import LocalTable


@pytest.mark.parametrize("reveal", ["match-end", "hand-end"])
def test_every_envelope_is_parsed_once_and_every_host_signature_checked_once_per_seat(
        monkeypatch: pytest.MonkeyPatch, reveal: str) -> None:
    parsed: Counter[bytes] = Counter()
    checked: Counter[bytes] = Counter()
    plain_parse, plain_check = seat_module.parse_envelope, seat_module.check_signature

    def counted_parse(raw: bytes, *, host: bool) -> Any:
        parsed[bytes(raw)] += 1
        return plain_parse(raw, host=host)

    def counted_check(signed: Any, key: bytes) -> bool:
        checked[signed.raw] += 1
        return plain_check(signed, key)

    monkeypatch.setattr(seat_module, "parse_envelope", counted_parse)
    monkeypatch.setattr(seat_module, "check_signature", counted_check)
    monkeypatch.setattr(level1_seat, "check_signature", counted_check)
    table = LocalTable(Rules.preset("bavarian", players=4).with_flag("target", "9"), seed=11, reveal=reveal)
    table.play()

    players = len(table.seats)
    shown = Counter(e.data for s in table.seats for e in s.record if e.kind == KIND_HOST)  # per host envelope
    assert len(shown) == len(table.host.chain) and sum(shown.values()) > 4 * len(table.host.chain) // 2
    for raw, seats in shown.items():
        assert parsed[raw] == seats, "a host envelope is parsed once by every seat it reaches"
        assert checked[raw] == seats, "a host envelope's signature is checked once by every seat it reaches"
    # The seats' own envelopes (made by one seat, relayed to or embedded for every seat): parsed at most once per
    # seat, and their signatures checked by every other seat at most once, never by the seat that made them (the
    # bytes it made prove them better: issue #17).
    assert parsed and max(parsed.values()) <= players, max(parsed.items(), key=lambda item: item[1])
    relayed = [raw for raw in checked if raw not in shown]  # relayed co-signatures and the KeySet's commitments
    assert relayed, "the seats checked the relayed envelopes' signatures too"
    assert max(checked[raw] for raw in relayed) == players - 1
    assert table.host.finished and not any(s.problems for s in table.seats)


def test_an_envelope_as_made_is_what_parsing_its_bytes_gives() -> None:
    key = Ed25519PrivateKey.generate()
    for payload in (pb.CheckpointSignature(hand=3, seat=1, chain_seq=77, chain_head=bytes(range(32))),
                    pb.ActionRequest(action="play eichel-7", chain_seq=5, chain_head=b"\x01" * 32)):
        made = make_signed(key, b"\x07" * 32, 4, b"\x09" * 32, 1, payload)
        parsed = parse_envelope(made.raw, host=False)
        assert made.raw == make_envelope(key, b"\x07" * 32, 4, b"\x09" * 32, 1, payload)  # (Ed25519 is deterministic)
        assert (made.hash, made.envelope, made.payload, made.type) == (
            parsed.hash, parsed.envelope, parsed.payload, parsed.type)



def test_a_trustless_seat_checks_every_other_seats_action_once_and_its_own_never(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Level 2: each seat checks the signature of every other seat's action it is shown once, and never one of its
    own envelopes (its actions echoed in ActionAccepted, its relayed shares and shuffles): the bytes it made prove
    them. Each check is put down to the seat whose `receive` made it."""
    checks: Counter[tuple[int, bytes]] = Counter()
    receiving: list[int] = []
    plain_check, plain_receive = seat_module.check_signature, SeatGame.receive

    def counted_check(signed: Any, key: bytes) -> bool:
        checks[(receiving[-1], signed.raw)] += 1
        return plain_check(signed, key)

    def receive(self: SeatGame, *args: Any, **kwargs: Any) -> list[bytes]:
        receiving.append(self.seat)
        try:
            return plain_receive(self, *args, **kwargs)
        finally:
            receiving.pop()

    monkeypatch.setattr(seat_module, "check_signature", counted_check)
    monkeypatch.setattr(SeatGame, "receive", receive)
    table = LocalTable(Rules.preset("bavarian", players=4).with_flag("target", "3"), seed=3, deal="trustless")
    table.play()
    assert table.host.finished and not any(s.problems for s in table.seats)

    assert max(checks.values()) == 1, "no seat checks one signature twice"
    own = {(s.seat, e.data) for s in table.seats for e in s.record if e.kind == KIND_OWN}
    assert own and not own & set(checks), "a seat checks none of its own envelopes"
    others_actions = set()
    for s in table.seats:
        for e in s.record:
            signed = parse_envelope(e.data, host=True) if e.kind == KIND_HOST else None
            if signed is not None and signed.type == "ActionAccepted" and signed.payload.seat != s.seat:
                others_actions.add((s.seat, bytes(signed.payload.action_envelope)))
    assert others_actions and others_actions <= set(checks), "every other seat's action is checked"
