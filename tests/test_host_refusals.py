"""The host's refusals of a misbehaving client (deal/host_game.py, deal/level1.py), each driven by a hostile client
that signs a crafted envelope with its own key on its own chain, and checked for its exact reason and words.

`watten-verify` replays a record through this same code, so a refusal removed here would let a record holding such
an envelope verify: these tests are the verifier's as much as the host's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from watten_net.deal.protocol import ProtocolError, make_envelope, parse_envelope
from watten_net.deal.seat import SeatGame
from watten_net.engine import Rules
from watten_net.v1 import watten_pb2 as pb

from local_table import LocalTable

RULES = Rules.preset("bavarian", players=4).with_flag("target", "3")
LAST = 3  # the seat that holds back the step the table waits for


class Table(LocalTable):
    """A LocalTable driven step by step: every seat answers by itself except what `hold` keeps back."""

    def run(self, hold: Callable[[int, str], bool]) -> None:
        if self.host.phase == "new":
            self.deliver(self.host.start())
        moved = True
        while moved:
            moved = False
            for seat in self.seats:
                while (raw := seat.next_automatic()) is not None:
                    if hold(seat.seat, parse_envelope(raw, host=False).type):
                        break
                    out = self.host.submit(seat.seat, raw)
                    seat.accepted(raw)
                    self.deliver(out)
                    moved = True

    def envelope(self, seat: int, payload: Any) -> bytes:
        """`payload` signed by `seat` as its next envelope on its own chain."""
        s = self.seats[seat]
        return make_envelope(s.key, self.host.game_id, s.my_seq + 1, s.my_head, seat, payload)

    def refused(self, seat: int, payload: Any, reason: str, words: str, kind: str = "precondition") -> None:
        chain = len(self.host.chain)
        with pytest.raises(ProtocolError) as err:
            self.host.submit(seat, self.envelope(seat, payload))
        assert (err.value.code, err.value.reason) == (kind, reason), err.value
        assert words in err.value.message, err.value.message
        assert len(self.host.chain) == chain  # nothing posted


def _held(type_: str) -> Table:
    """A table whose last seat holds back its first `type_`: the host waits at that step."""
    table = Table(RULES, seed=41)
    table.run(lambda seat, t: seat == LAST and t == type_)
    return table


def _seat(table: Table, seat: int = 0) -> SeatGame:
    return table.seats[seat]


def _key(table: Table, seat: int) -> bytes:
    v = table.seats[seat].verified
    assert v is not None
    return v.my_key


# ---------------------------------------------------------------------- the header
def test_the_game_starts_once() -> None:
    table = _held("HeaderSignature")
    with pytest.raises(ProtocolError) as err:
        table.host.start()
    assert err.value.reason == "game-started"


def test_the_header_is_signed_once_and_over_its_own_hash() -> None:
    table = _held("HeaderSignature")
    header_hash = table.host.header_hash
    table.refused(0, pb.HeaderSignature(seat=0, header_hash=header_hash), "unexpected-message",
                  "you have signed the header already")
    table.refused(LAST, pb.HeaderSignature(seat=LAST, header_hash=bytes(32)), "wrong-hash",
                  "not over this game's header")
    table.refused(LAST, pb.HeaderSignature(seat=1, header_hash=header_hash), "wrong-hash",
                  "not over this game's header")


def test_no_key_commitment_before_every_header_signature() -> None:
    table = _held("HeaderSignature")
    table.refused(LAST, pb.KeyCommit(seat=LAST, header_hash=table.host.header_hash, commitment=bytes(32)),
                  "unexpected-message", "KeyCommit is not expected now")


# ---------------------------------------------------------------------- the key ceremony (level1)
def test_a_key_commitment_must_answer_the_header_once() -> None:
    table = _held("KeyCommit")
    header_hash = table.host.header_hash
    table.refused(LAST, pb.KeyCommit(seat=LAST, header_hash=bytes(32), commitment=bytes(32)), "wrong-hash",
                  "does not answer this game's header")
    table.refused(LAST, pb.KeyCommit(seat=LAST, header_hash=header_hash, commitment=bytes(31)), "wrong-hash",
                  "does not answer this game's header")
    table.refused(0, pb.KeyCommit(seat=0, header_hash=header_hash, commitment=bytes(32)), "unexpected-message",
                  "you have committed to a key already")


def test_a_message_that_speaks_for_another_seat() -> None:
    table = _held("KeyCommit")
    table.refused(LAST, pb.KeyCommit(seat=1, header_hash=table.host.header_hash, commitment=bytes(32)),
                  "wrong-seat", "names another seat than its sender", kind="permission")


def test_a_key_set_signature_over_the_wrong_hash_or_twice() -> None:
    table = _held("KeySetSignature")
    v = _seat(table).verified
    assert v is not None and v.key_set
    table.refused(LAST, pb.KeySetSignature(seat=LAST, key_set_hash=bytes(32)), "wrong-hash",
                  "not over this game's KeySet")
    table.refused(LAST, pb.KeySetSignature(seat=LAST, key_set_hash=table.host.header_hash), "wrong-hash",
                  "not over this game's KeySet")
    table.refused(0, pb.KeySetSignature(seat=0, key_set_hash=v.key_set), "unexpected-message",
                  "you have signed the KeySet already")


def test_no_key_reveal_before_the_key_set_is_signed() -> None:
    table = _held("KeySetSignature")
    s = _seat(table)
    table.refused(0, pb.KeyReveal(seat=0, key=_key(table, 0), chain_seq=s.chain_seq, chain_head=s.chain_head),
                  "unexpected-message", "a key reveal is not expected now")


def test_a_key_reveal_that_does_not_open_or_comes_twice() -> None:
    table = _held("KeyReveal")
    last = _seat(table, LAST)

    def reveal(key: bytes) -> Any:
        return pb.KeyReveal(seat=LAST, key=key, chain_seq=last.chain_seq, chain_head=last.chain_head)

    table.refused(LAST, reveal(b"\x05" * 32), "commitment-mismatch", "does not open your KeyCommit")
    table.refused(LAST, reveal(_key(table, LAST) + b"\x00"), "commitment-mismatch", "does not open your KeyCommit")
    table.refused(LAST, reveal(_key(table, 0)), "commitment-mismatch", "does not open your KeyCommit")  # another's
    s = _seat(table)
    table.refused(0, pb.KeyReveal(seat=0, key=_key(table, 0), chain_seq=s.chain_seq, chain_head=s.chain_head),
                  "unexpected-message", "you have revealed your key already")


def test_a_key_reveal_naming_a_head_before_every_signature() -> None:
    table = _held("KeyReveal")
    table.refused(LAST, pb.KeyReveal(seat=LAST, key=_key(table, LAST), chain_seq=2,
                                     chain_head=table.host.chain[1].hash),
                  "wrong-hash", "does not name a chain head after every signature")
    last = _seat(table, LAST)
    table.refused(LAST, pb.KeyReveal(seat=LAST, key=_key(table, LAST), chain_seq=last.chain_seq,
                                     chain_head=bytes(32)), "wrong-hash", "does not name a chain head")


# ---------------------------------------------------------------------- the seal (level1)
def test_a_deck_sealed_signature_for_another_attempt_hash_or_twice() -> None:
    table = _held("DeckSealedSignature")
    sealed = next(p for p in table.host.chain if p.type == "DeckSealed")
    p = pb.DeckSealed.FromString(pb.Envelope.FromString(sealed.raw).payload)
    table.refused(LAST, pb.DeckSealedSignature(hand=p.hand, attempt=p.attempt + 1, seat=LAST,
                                               deck_sealed_hash=sealed.hash), "wrong-hand", "another hand or attempt")
    table.refused(LAST, pb.DeckSealedSignature(hand=p.hand + 1, attempt=p.attempt, seat=LAST,
                                               deck_sealed_hash=sealed.hash), "wrong-hand", "another hand or attempt")
    table.refused(LAST, pb.DeckSealedSignature(hand=p.hand, attempt=p.attempt, seat=LAST,
                                               deck_sealed_hash=bytes(32)), "wrong-hash", "the current DeckSealed")
    table.refused(0, pb.DeckSealedSignature(hand=p.hand, attempt=p.attempt, seat=0, deck_sealed_hash=sealed.hash),
                  "unexpected-message", "you have signed the DeckSealed already")


# ---------------------------------------------------------------------- play, checkpoints, the end
def test_openings_travel_only_in_a_trustless_game() -> None:
    table = Table(RULES, seed=41)
    table.run(lambda seat, t: False)
    assert table.host.phase == "play" and table.host.match is not None
    seat = table.host.match.waiting_for[0]
    s = _seat(table, seat)
    action = table.host.match.observe(seat).legal_actions[0]
    table.refused(seat, pb.ActionRequest(action=action, chain_seq=s.chain_seq, chain_head=s.chain_head,
                                         openings=[pb.TrustlessOpening(position=0)]),
                  "bad-payload", "openings travel only in a trustless game", kind="invalid")


def test_a_level_2_message_in_a_verified_game() -> None:
    table = Table(RULES, seed=41)
    table.run(lambda seat, t: False)
    table.refused(0, pb.KeyShare(), "unexpected-message", "has no place in a verified game")


def test_nothing_is_taken_after_the_match_is_over() -> None:
    table = Table(RULES, seed=41)
    table.play()
    assert table.host.finished
    s = _seat(table)
    table.refused(0, pb.ActionRequest(action="fold", chain_seq=s.chain_seq, chain_head=s.chain_head),
                  "unexpected-message", "the match is over")


def test_a_checkpoint_signature_twice_or_over_another_head() -> None:
    table = Table(RULES, seed=41)
    played = False
    # play to the first checkpoint, where the last seat keeps its signature back
    table.deliver(table.host.start())
    while table.host.phase != "checkpoint":
        table.run(lambda seat, t: False)
        if table.host.phase == "play":
            assert table.host.match is not None
            seat = table.host.match.waiting_for[0]
            raw = table.seats[seat].action(table.rng.choice(table.host.match.observe(seat).legal_actions))
            table.deliver(table.host.submit(seat, raw))
            table.seats[seat].accepted(raw)
            played = True
    table.run(lambda seat, t: seat == LAST and t == "CheckpointSignature")
    assert table.host.phase == "checkpoint" and played
    checkpoint = next(p for p in reversed(table.host.chain) if p.type == "Checkpoint")
    c = pb.Checkpoint.FromString(pb.Envelope.FromString(checkpoint.raw).payload)
    table.refused(0, pb.CheckpointSignature(hand=c.hand, seat=0, chain_seq=c.chain_seq, chain_head=c.chain_head),
                  "unexpected-message", "you have signed this checkpoint already")
    table.refused(LAST, pb.CheckpointSignature(hand=c.hand, seat=LAST, chain_seq=c.chain_seq, chain_head=bytes(32)),
                  "wrong-hash", "not over the current checkpoint")


# ---------------------------------------------------------------------- who may submit
def test_envelopes_from_nobody_or_for_someone_else() -> None:
    table = _held("KeyCommit")
    header_hash = table.host.header_hash
    raw = table.envelope(LAST, pb.KeyCommit(seat=LAST, header_hash=header_hash, commitment=bytes(32)))
    for seat, reason in ((9, "bad-seat"), (-1, "bad-seat"), (1, "wrong-seat")):
        with pytest.raises(ProtocolError) as err:
            table.host.submit(seat, raw)
        assert (err.value.code, err.value.reason) == ("permission", reason)
    other = make_envelope(table.seats[0].key, table.host.game_id, 1, bytes(32), LAST, pb.KeyCommit(seat=LAST))
    with pytest.raises(ProtocolError) as err:
        table.host.submit(LAST, other)
    assert err.value.reason == "bad-signature"


def test_the_hosts_own_decisions_for_seats_that_do_not_exist_or_are_not_away() -> None:
    table = Table(RULES, seed=41)
    table.run(lambda seat, t: False)
    with pytest.raises(ValueError, match="there is no seat 9"):
        table.host.stand_in(9, True)
    with pytest.raises(ProtocolError) as err:
        table.host.act_for(1)
    assert (err.value.reason, err.value.message) == ("not-away", "seat 1 is not away: only its person acts for it")
    with pytest.raises(ProtocolError) as err:
        table.host.forfeit_away()
    assert err.value.reason == "not-away"
    assert table.host.match is not None
    idle = next(s for s in range(4) if s not in table.host.match.waiting_for)
    table.go_away(idle)
    with pytest.raises(ProtocolError) as err:
        table.host.act_for(idle)
    assert err.value.reason == "unexpected-message" and f"no game action of seat {idle} now" in err.value.message
    s = _seat(table, idle)
    table.refused(idle, pb.ActionRequest(action="fold", chain_seq=s.chain_seq, chain_head=s.chain_head),
                  "stood-in", "a bot plays this seat while you are away")


def test_nobody_acts_for_a_seat_in_a_trustless_game() -> None:
    table = Table(RULES, seed=41, deal="trustless")
    table.deliver(table.host.start())
    with pytest.raises(ProtocolError) as err:
        table.host.act_for(0)
    assert err.value.reason == "not-trustless"


def test_a_deck_sealed_signature_from_a_seat_stood_in_for_when_it_was_posted() -> None:
    """Seat LAST is away when the second deal's DeckSealed is posted; back before the others have signed, its
    signature is not wanted (the seal went on without it)."""
    table = Table(RULES.with_flag("target", "15"), seed=41)
    table.run(lambda seat, t: False)
    table.go_away(LAST)
    while sum(p.type == "DeckSealed" for p in table.host.chain) < 2:
        table.run(lambda seat, t: t == "DeckSealedSignature" and sum(
            p.type == "DeckSealed" for p in table.host.chain) == 2)
        if sum(p.type == "DeckSealed" for p in table.host.chain) == 2:
            break
        assert table.host.match is not None and table.host.phase == "play", table.host.phase
        seat = table.host.match.waiting_for[0]
        if seat == LAST:
            table.deliver(table.host.act_for(seat))
            continue
        raw = table.seats[seat].action(table.rng.choice(table.host.match.observe(seat).legal_actions))
        table.deliver(table.host.submit(seat, raw))
        table.seats[seat].accepted(raw)
    sealed = [p for p in table.host.chain if p.type == "DeckSealed"][-1]
    p = pb.DeckSealed.FromString(pb.Envelope.FromString(sealed.raw).payload)
    table.come_back(LAST)
    table.refused(LAST, pb.DeckSealedSignature(hand=p.hand, attempt=p.attempt, seat=LAST,
                                               deck_sealed_hash=sealed.hash),
                  "unexpected-message", "a stand-in played your seat when the DeckSealed was posted")


def test_an_action_on_a_head_the_game_does_not_have_or_against_the_rules() -> None:
    table = Table(RULES, seed=41)
    table.run(lambda seat, t: False)
    assert table.host.match is not None
    seat = table.host.match.waiting_for[0]
    s = _seat(table, seat)
    legal = table.host.match.observe(seat).legal_actions[0]
    table.refused(seat, pb.ActionRequest(action=legal, chain_seq=s.chain_seq, chain_head=bytes(32)),
                  "bad-chain-head", "a chain head this game does not have", kind="invalid")
    table.refused(seat, pb.ActionRequest(action=legal, chain_seq=len(table.host.chain) + 5,
                                         chain_head=s.chain_head),
                  "bad-chain-head", "a chain head this game does not have", kind="invalid")
    table.refused(seat, pb.ActionRequest(action="dance", chain_seq=s.chain_seq, chain_head=s.chain_head),
                  "bad-action", "", kind="invalid")
    other = next(x for x in range(4) if x not in table.host.match.waiting_for)
    o = _seat(table, other)
    with pytest.raises(ProtocolError) as err:
        table.host.submit(other, table.envelope(other, pb.ActionRequest(action=legal, chain_seq=o.chain_seq,
                                                                         chain_head=o.chain_head)))
    assert err.value.code == "precondition" and err.value.reason != "malformed"


def test_an_envelope_of_another_game() -> None:
    table = _held("KeyCommit")
    s = _seat(table, LAST)
    raw = make_envelope(s.key, b"\x03" * 32, s.my_seq + 1, s.my_head, LAST, pb.KeyCommit(seat=LAST))
    with pytest.raises(ProtocolError) as err:
        table.host.submit(LAST, raw)
    assert (err.value.reason, err.value.message) == ("wrong-game", "the envelope belongs to another game")


@pytest.mark.parametrize(("change", "words"), [
    ({"seats": 3}, "4 seats needed, got 3"),
    ({"reveal": "never"}, "reveal must be one of"),
    ({"deal": "lucky"}, "deal must be one of"),
    ({"rules": Rules.preset("blind", players=4), "deal": "trustless"}, "blind cannot be played with a trustless"),
    ({"rules": Rules.preset("austrian", players=4), "deal": "trustless"}, "a trustless deal supports decks"),
])
def test_a_host_game_that_cannot_be_run(change: dict[str, Any], words: str) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from watten_net.deal.host_game import HostGame

    table = Table(RULES, seed=41)
    rules = change.pop("rules", RULES)
    seats = [table.host.seats[i % 4] for i in range(change.pop("seats", rules.players))]
    with pytest.raises(ValueError, match=words):
        HostGame(rules, seats, Ed25519PrivateKey.generate(), **change)
