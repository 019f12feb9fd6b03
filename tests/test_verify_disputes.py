"""`watten-verify`'s proven disputes (PROTOCOL.md "Disputes"), each from a record the real code wrote.

A proven dispute is a host-signed contradiction in the seat's own record. Each test plays a `LocalTable` game in
which the host does one dishonest thing through its own code (it signs a refusal receipt with
`HostGame.refusal_receipt`, names missing keys in its MatchEnd, shows two chains), the honest seat keeps what it
got (`SeatGame.judge_refusal`, its record), and `watten-verify` must answer "disputed (proven)" with exit code 4,
naming the kind of contradiction, the hand and the envelope. A refusal against a head that has since moved on is a
race: the record verifies.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from watten_net.deal.envelope import envelope_hash
from watten_net.deal.host_game import Posted
from watten_net.deal.protocol import ProtocolError, make_envelope
from watten_net.deal.seat import signed_type
from watten_net.engine import Rules
from watten_net.record import KIND_REFUSED, encode_entries
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import (
    EXIT_CODES,
    FAILED,
    FALSE_REFUSAL,
    KEY_NAMED_MISSING,
    PROVEN,
    TWO_CHAINS,
    VERIFIED,
    Report,
    main,
    verify_entries,
)

import local_table
from local_table import LocalTable
from tampering import _SeededKeys

RULES = Rules.preset("bavarian", players=4).with_flag("target", "7")
VICTIM = 1


def _table(seed: int) -> LocalTable:
    with mock.patch.object(local_table, "Ed25519PrivateKey", _SeededKeys(seed)):
        return LocalTable(RULES, seed=seed)


def _hand(table: LocalTable) -> int:
    engine = table.host.engine
    return engine.hand_number if engine is not None else -1


Cheat = Callable[[LocalTable, bytes, Callable[[int, bytes], list[Posted]]], list[Posted]]


def _play_cheating_once(seed: int, step: str, cheat: Cheat, victim: int = VICTIM) -> LocalTable:
    """A whole game in which, the first time `victim` submits a `step` in the second hand or later, `cheat`
    answers it instead of the honest host (given the honest submit)."""
    table = _table(seed)
    honest = table.host.submit
    done: list[bool] = []

    def submit(seat: int, raw: bytes) -> list[Posted]:
        if seat == victim and not done and signed_type(raw) == step and _hand(table) >= 1:
            done.append(True)
            return cheat(table, raw, honest)
        return honest(seat, raw)

    table.host.submit = submit  # type: ignore[method-assign]
    table.play()
    assert done, f"the victim never sent a {step}"
    return table


def _proven(table: LocalTable, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, hand: int,
            *words: str) -> Report:
    """The victim's record is disputed (proven) with exit code 4, names the dispute's kind and hand (also in
    `--json`), and says `words` in its first note."""
    entries = table.seat_entries(VICTIM)
    report = verify_entries(entries, meta={"seat": VICTIM})
    assert report.verdict == PROVEN and not report.errors, (report.verdict, [p.sentence() for p in report.errors])
    path = tmp_path / "victim.wrec"
    path.write_bytes(encode_entries({"seat": VICTIM}, entries))
    assert main([str(path)]) == EXIT_CODES[PROVEN] == 4
    out = capsys.readouterr().out
    assert f"{path}: DISPUTED (proven)" in out
    for said in (f"proven ({kind}), hand {hand}: ", *words):
        assert said in report.notes[0] and said in out, (said, report.notes)
    assert main(["--json", str(path)]) == 4
    [dispute, *_] = json.loads(capsys.readouterr().out)["disputes"]
    assert (dispute["kind"], dispute["hand"]) == (kind, hand) and dispute["says"] in report.notes[0]
    return report


def _hand_of_seq(table: LocalTable, seq: int) -> int:
    """The hand (1-based) the chain is in at `seq`: the last HandOpen at or before it."""
    hands = [pb.HandOpen.FromString(pb.Envelope.FromString(p.raw).payload).hand
             for p in table.host.chain[:seq] if p.type == "HandOpen"]
    return hands[-1] + 1


# ---------------------------------------------------------------------- (b) a refusal the chain's head validates
def test_a_refusal_whose_named_head_validates_the_envelope_is_proven(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The host refuses the victim's DeckSealedSignature with a signed receipt at the head it was made for, then
    takes it again: an honest host at that head accepts it."""
    judged: list[str] = []
    at: list[int] = []

    def refuse(table: LocalTable, raw: bytes, honest: Callable[[int, bytes], list[Posted]]) -> list[Posted]:
        receipt = table.host.refusal_receipt(raw, "wrong-hash")
        at.append(int(receipt.chain_seq))
        judged.append(table.seats[VICTIM].judge_refusal(raw, receipt))
        return honest(VICTIM, raw)

    table = _play_cheating_once(41, "DeckSealedSignature", refuse)
    assert judged == ["dispute"]
    _proven(table, tmp_path, capsys, FALSE_REFUSAL, _hand_of_seq(table, at[0]),
            f"the host refused seat {VICTIM}'s DeckSealedSignature (wrong-hash) at chain envelope {at[0]}, but an "
            "honest host accepts it there")


def test_a_refusal_against_a_head_that_has_moved_on_is_a_race(tmp_path: Path) -> None:
    """The last seat's CheckpointSignature arrives after the host stood a bot in for it (the seat was away), which
    completed the checkpoint and opened the next deal, and handed the seat back: the host refuses the signature
    against the moved head, rightly. The seat says race, and its record verifies."""
    judged: list[str] = []
    last = RULES.players - 1  # (it signs last: the stand-in completes the checkpoint)

    def overtake(table: LocalTable, raw: bytes, honest: Callable[[int, bytes], list[Posted]]) -> list[Posted]:
        table.deliver(table.host.stand_in(last, True))
        table.deliver(table.host.stand_in(last, False))
        try:
            return honest(last, raw)
        except ProtocolError as err:
            judged.append(table.seats[last].judge_refusal(raw, table.host.refusal_receipt(raw, err.reason)))
            raise

    table = _play_cheating_once(42, "CheckpointSignature", overtake, victim=last)
    assert judged == ["race"]
    entries = table.seat_entries(last)
    assert any(e.kind == KIND_REFUSED for e in entries)  # (the receipt is kept, and proves nothing against the host)
    path = tmp_path / "last.wrec"
    path.write_bytes(encode_entries({"seat": last}, entries))
    assert main([str(path)]) == EXIT_CODES[VERIFIED]


# ---------------------------------------------------------------------- (d) two host envelopes at one seq
def test_a_receipt_naming_another_envelope_at_a_seq_is_proven(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The host signs a refusal whose head at the chain seq is another envelope it signed there (a StandIn on a
    chain it showed someone else) than the one in the chain: two host envelopes at one seq."""
    judged: list[str] = []
    at: list[int] = []

    def equivocate(table: LocalTable, raw: bytes, honest: Callable[[int, bytes], list[Posted]]) -> list[Posted]:
        host = table.host
        seq = len(host.chain)
        other = make_envelope(host.host_key, host.game_id, seq, host.chain[seq - 2].hash, -1,
                              pb.StandIn(seat=VICTIM, active=True))
        fork = copy.copy(host)
        fork.chain = [*host.chain[:seq - 1], Posted(other, envelope_hash(other), seq, "StandIn", None)]
        at.append(seq)
        judged.append(table.seats[VICTIM].judge_refusal(raw, fork.refusal_receipt(raw, "wrong-hash")))
        return honest(VICTIM, raw)

    table = _play_cheating_once(43, "DeckSealedSignature", equivocate)
    assert judged == ["proven"]
    _proven(table, tmp_path, capsys, TWO_CHAINS, _hand_of_seq(table, at[0]),
            f"a refusal of seat {VICTIM}'s DeckSealedSignature (wrong-hash) at chain envelope {at[0]} naming another "
            "envelope there than the chain's")


def test_two_records_of_the_victim_that_part_at_a_seq_are_both_proven(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The host plays one game on, then (its state and the victim's copied: the victim's record of before a restart,
    client/earlier_record.py) another from the same point: two complete records of the victim's of one game, each
    fine by itself, that hold two host envelopes at one seq."""
    table = _table(44)
    table.play_until(lambda: _hand(table) >= 1 and table.host.phase == "play")
    other = copy.deepcopy(table)
    table.play()
    other.play_until(lambda: other.host.finished, rng=random.Random(7))
    seq = next(n + 1 for n, (a, b) in enumerate(zip(table.host.chain, other.host.chain, strict=False))
               if a.hash != b.hash)
    one, two = tmp_path / "one.wrec", tmp_path / "two.wrec"
    one.write_bytes(encode_entries({"seat": VICTIM}, table.seat_entries(VICTIM)))
    two.write_bytes(encode_entries({"seat": VICTIM}, other.seat_entries(VICTIM)))
    assert main([str(one)]) == main([str(two)]) == EXIT_CODES[VERIFIED]
    capsys.readouterr()
    assert main([str(one), str(two)]) == EXIT_CODES[PROVEN] == 4
    out = capsys.readouterr().out
    hand, type_ = _hand_of_seq(table, seq), table.host.chain[seq - 1].type
    for path, against in ((one, two), (two, one)):
        assert f"{path}: DISPUTED (proven)" in out, out
        assert (f"proven ({TWO_CHAINS}), hand {hand}: envelope {seq} ({type_}): the host signed another envelope at "
                f"this chain seq (hand {hand}) in {against}: it showed two different chains") in out, out


# ---------------------------------------------------------------------- (c) named as missing a key it revealed
def test_being_named_as_missing_a_key_the_chain_shows_revealed_is_proven(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The host stops the match in the second hand and its MatchEnd names the victim as missing its game key, though
    the chain carries the victim's KeyReveal."""
    table = _table(45)
    table.play_until(lambda: _hand(table) >= 1 and table.host.phase == "play")
    dealing: Any = table.host.verified_dealing
    with mock.patch.object(dealing, "missing_keys", lambda: (VICTIM,)):
        table.deliver(table.host.abandon("host-shutdown"))
    while table.flush():
        pass
    reveal = next(p.seq for p in table.host.chain if p.type == "Relay" and signed_type(
        pb.Relay.FromString(pb.Envelope.FromString(p.raw).payload).envelope) == "KeyReveal" and pb.Relay.FromString(
        pb.Envelope.FromString(p.raw).payload).seat == VICTIM)
    end = next(p.seq for p in table.host.chain if p.type == "MatchEnd")
    _proven(table, tmp_path, capsys, KEY_NAMED_MISSING, 2, f"envelope {end} (MatchEnd) names seat {VICTIM} as "
            f"missing its game key, but the chain carries seat {VICTIM}'s KeyReveal at envelope {reveal}")


@pytest.mark.parametrize("named", [(9,), (VICTIM, 9)])
def test_a_match_end_naming_a_seat_with_no_key_reveal_in_the_chain_still_fails(named: tuple[int, ...]) -> None:
    """Only a seat whose KeyReveal the chain carries makes a wrong missing_keys a proven dispute: one naming a seat
    that is not at the table (alone, or beside a seat that revealed) is a MatchEnd no honest host sends."""
    table = _table(46)
    table.play_until(lambda: _hand(table) >= 1 and table.host.phase == "play")
    dealing: Any = table.host.verified_dealing
    with mock.patch.object(dealing, "missing_keys", lambda: named):
        table.deliver(table.host.abandon("host-shutdown"))
    while table.flush():
        pass
    report = verify_entries(table.seat_entries(VICTIM), meta={"seat": VICTIM})
    assert report.verdict == FAILED and report.errors[0].type == "MatchEnd", report.errors
    assert "differs in: missing_keys" in report.errors[0].message and not report.disputes
