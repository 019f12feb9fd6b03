"""The small guards of the dealing code (deal/ and trustless/) that no game reaches by itself: malformed envelopes and
events, tags, framing, identity files, the reference stand-in without a move, and the trustless deal's parameter
and state checks. Each is called directly and checked for its exact words.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net import hashing
from watten_net.deal.identity import IdentityFileError, leave_proof_message, load_identity
from watten_net.deal.protocol import ProtocolError, event_from_pb, make_envelope, parse_envelope
from watten_net.engine import Match, Rules
from watten_net.trustless.context import DealId
from watten_net.trustless.deal import DealSetup, PublicDeal, SeatDeal
from watten_net.trustless.elgamal import card_index
from watten_net.trustless.errors import DealStateError, Reason, TrustlessError
from watten_net.trustless.group import base_mul, neg, random_below
from watten_net.trustless.wire import Reader
from watten_net.v1 import watten_pb2 as pb

DEAL = DealId(b"\x05" * 32, 0, 0)


# ---------------------------------------------------------------------- envelopes and events
@pytest.mark.parametrize("raw", [b"", "text", None])
def test_an_envelope_that_is_not_bytes_or_empty(raw: object) -> None:
    with pytest.raises(ProtocolError) as err:
        parse_envelope(raw, host=True)  # type: ignore[arg-type]
    assert (err.value.kind, err.value.reason, err.value.message) == (
        "invalid", "bad-envelope", "an envelope must be non-empty bytes")


@pytest.mark.parametrize("field", ["game_id", "prev_hash", "signature"])
def test_an_envelope_field_of_the_wrong_length(field: str) -> None:
    raw = make_envelope(Ed25519PrivateKey.generate(), b"\x01" * 32, 1, bytes(32), -1, pb.HandOpen())
    env = pb.Envelope.FromString(raw)
    setattr(env, field, getattr(env, field)[:-1])
    with pytest.raises(ProtocolError) as err:
        parse_envelope(env.SerializeToString(deterministic=True), host=True)
    assert err.value.reason == "bad-envelope" and "fixed lengths" in err.value.message


def test_an_event_field_that_is_not_json() -> None:
    with pytest.raises(ProtocolError) as err:
        event_from_pb(pb.GameEvent(kind="see", seat=0, fields={"card": "not json"}))
    assert (err.value.reason, err.value.message) == ("bad-payload", "event field 'card' is not JSON")


# ---------------------------------------------------------------------- hashing and identity
def test_tags_of_an_unknown_version_and_fields_too_long(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="no tags of version 3"):
        hashing.tag("deck-key", version=3)
    monkeypatch.setattr(hashing, "_MAX_FIELD", 4)  # (a real one would take 4 GiB)
    with pytest.raises(ValueError, match="field of 5 bytes is too long for a u32 length prefix"):
        hashing.length_prefixed(b"12345")


def test_a_leave_proof_for_a_seat_beyond_one_byte() -> None:
    with pytest.raises(ValueError, match="a seat number fits one byte"):
        leave_proof_message("t", bytes(32), bytes(32), 256, bytes(32))


def test_an_identity_key_that_is_not_a_regular_file(tmp_path: Path) -> None:
    """A name that leads to a device (here a link to /dev/null) is no key file, whatever it reads as."""
    link = tmp_path / "key"
    link.symlink_to("/dev/null")
    with pytest.raises(IdentityFileError, match="is not a regular file"):
        load_identity(link)


# ---------------------------------------------------------------------- the reference stand-in
def test_the_reference_stand_in_for_a_seat_with_nothing_to_do() -> None:
    from watten_net.deal.stand_in import reference_v1

    match = Match.new(Rules.preset("bavarian", players=4), first_dealer=0)
    idle = next(s for s in range(4) if s not in match.waiting_for)
    with pytest.raises(ValueError, match=f"seat {idle} has nothing to do"):
        reference_v1(match.observe(idle))


# ---------------------------------------------------------------------- the trustless deal
@pytest.mark.parametrize(("seats", "cards", "order", "words"), [
    (5, 32, None, "5 seats; the trustless deal supports"),
    (4, 36, None, "a deck of 36 cards; the trustless deal supports"),
    (4, 32, (0, 1, 1, 2), "must list each of the 4 seats once"),
])
def test_deal_parameters_the_trustless_deal_does_not_support(seats: int, cards: int, order: tuple[int, ...] | None,
                                                              words: str) -> None:
    with pytest.raises(ValueError, match=words):
        DealSetup(DEAL, seats, cards, order)


def test_a_deal_asked_for_what_its_phase_does_not_have() -> None:
    setup = DealSetup(DEAL, 2, 32)
    public = PublicDeal(setup)
    with pytest.raises(DealStateError, match="no deck before every key share is in"):
        public.deck  # noqa: B018
    with pytest.raises(DealStateError, match="the deck is sealed only once every seat has shuffled"):
        public.sealed_deck  # noqa: B018
    with pytest.raises(ValueError, match="sender 2 is no seat of a 2-seat deal"):
        public.check_decryption_share(2, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seat 2 is no seat of a 2-seat deal"):
        SeatDeal(setup, 2)
    with pytest.raises(DealStateError, match="no decryption shares before the deck is cut"):
        SeatDeal(setup, 0).opening_share(0)


def test_key_shares_that_cancel_out() -> None:
    public = PublicDeal(DealSetup(DEAL, 2, 32))
    point = base_mul(7)
    public._record_key_share(0, point)
    with pytest.raises(TrustlessError) as err:
        public._record_key_share(1, neg(point))
    assert err.value.reason is Reason.DEGENERATE_KEY


def test_wire_and_group_guards() -> None:
    with pytest.raises(TrustlessError) as err:
        Reader("text", "a key share")  # type: ignore[arg-type]
    assert err.value.reason is Reason.MALFORMED and "a key share must be bytes, not str" in str(err.value)
    with pytest.raises(TrustlessError) as err:
        card_index(base_mul(12345), 32)
    assert err.value.reason is Reason.NOT_A_CARD
    for bound in (0, 2**32):
        with pytest.raises(ValueError, match=r"bound must be in \[1, 2\*\*32\)"):
            random_below(bound)
