"""Every defence of an honest seat against its host (deal/seat.py, deal/level1_seat.py), driven through its failing
branch: a hostile host as a test double crafts one envelope, signs it with its own key on the right link, and hands
it to a SeatGame that has followed an honest game up to that point. Each case checks the exact reason the seat stops
with, so a check that is removed or weakened fails here (tests/mutants.py plants such bugs and runs this file).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any
from unittest import mock

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.commitments import seal_deck
from watten_net.deal.deck import deck_permutation
from watten_net.deal.host_game import Posted
from watten_net.deal.keys import all_seeds, deck_key
from watten_net.deal.protocol import PROTOCOL_VERSION, make_envelope
from watten_net.deal.seat import SeatGame
from watten_net.engine import Rules, canonical_deck
from watten_net.refusal import HostBrokeProtocol
from watten_net.v1 import watten_pb2 as pb

import local_table
from local_table import LocalTable

RULES = Rules.preset("bavarian", players=4).with_flag("target", "3")


@dataclass
class Game:
    """One honest game, played through; the forger's raw material."""

    table: LocalTable

    @property
    def chain(self) -> list[Posted]:
        return list(self.table.host.chain)

    def index(self, type_: str, nth: int = 0, where: Callable[[Any], bool] = lambda p: True) -> int:
        found = [i for i, p in enumerate(self.chain) if p.type == type_ and where(self.payload(i))]
        return found[nth]

    def payload(self, i: int) -> Any:
        env = pb.Envelope.FromString(self.chain[i].raw)
        return getattr(pb, env.type).FromString(env.payload)

    def seat_before(self, i: int, seat: int = 0, **kwargs: Any) -> SeatGame:
        """A fresh SeatGame for `seat` (same identity and game key) that has received the chain up to index i."""
        honest = self.table.seats[seat]
        assert honest.verified is not None or honest.trustless is not None
        my_key = honest.verified.my_key if honest.verified is not None else b""
        game = SeatGame(seat, kwargs.pop("key", honest.key), random_bytes=lambda n: my_key[:n], **kwargs)
        for p in self.chain[:i]:
            p.deliver_to(game)
        return game

    def forge(self, i: int, payload: Any, *, key: Ed25519PrivateKey | None = None, prev: bytes | None = None,
              game_id: bytes | None = None, sender: int = -1) -> bytes:
        """`payload` as the host's envelope at chain index i (seq i + 1), on the honest link unless told otherwise."""
        host = self.table.host
        prev = prev if prev is not None else (self.chain[i - 1].hash if i else bytes(32))
        return make_envelope(key or host.host_key, game_id or host.game_id, i + 1, prev, sender, payload)

    def seat_key(self, seat: int) -> Ed25519PrivateKey:
        return self.table.seats[seat].key

    def relay(self, seat: int, inner: Any, *, key: Ed25519PrivateKey | None = None, named: int | None = None) -> Any:
        raw = make_envelope(key or self.seat_key(seat), self.table.host.game_id, 99, bytes(32), seat, inner)
        return pb.Relay(seat=seat if named is None else named, envelope=raw)


class _DrawnKeys:
    """Ed25519 keys drawn from a seeded generator: the header (and with it every deck) is the same on every run."""

    rng = random.Random(21)

    @classmethod
    def generate(cls) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(cls.rng.randbytes(32))


@cache
def _game(reveal: str = "match-end") -> Game:
    # (hand-end: a longer match, so that some hand ends before the last and has its seed revealed)
    _DrawnKeys.rng.seed(21)
    with mock.patch.object(local_table, "Ed25519PrivateKey", _DrawnKeys):
        table = LocalTable(RULES if reveal == "match-end" else RULES.with_flag("target", "9"), seed=21, reveal=reveal)
    table.play()
    return Game(table)


@pytest.fixture
def game() -> Game:
    return _game()


def _stops(seat: SeatGame, seq: int, raw: bytes, reason: str) -> str:
    """The seat refuses the envelope with `reason` (and keeps the failure among its problems)."""
    before = len(seat.problems)
    with pytest.raises(HostBrokeProtocol) as err:
        seat.receive(seq, raw)
    assert err.value.reason == reason, err.value
    assert len(seat.problems) == before + 1
    return str(err.value)


def _caught(game: Game, i: int, payload: Any, reason: str, seat: int = 0, **forge: Any) -> str:
    return _stops(game.seat_before(i, seat), i + 1, game.forge(i, payload, **forge), reason)


def _header(game: Game) -> Any:
    return game.payload(0)


# ---------------------------------------------------------------------- the chain itself
def test_the_honest_game_is_followed_without_a_problem(game: Game) -> None:
    seat = game.seat_before(len(game.chain))
    assert not seat.problems and seat.chain_seq == len(game.chain)
    assert seat.verified is not None and seat.verified.decks_checked > 0


def test_a_gap_in_the_chain(game: Game) -> None:
    seat = game.seat_before(5)
    with pytest.raises(HostBrokeProtocol) as err:
        seat.receive(7, game.chain[6].raw)
    assert err.value.reason == "chain-gap"


def test_an_entry_that_is_both_an_envelope_and_a_stub(game: Game) -> None:
    """A caller's mistake, not the host's: refused before anything is recorded."""
    seat = game.seat_before(5)
    with pytest.raises(ValueError, match="either an envelope or a withheld stub"):
        seat.receive(6, game.chain[5].raw, withheld=game.chain[5].stub())
    assert seat.chain_seq == 5 and not seat.problems


def test_an_envelope_off_the_chain_head(game: Game) -> None:
    _caught(game, 5, game.payload(5), "chain-link", prev=bytes(32))


def test_an_envelope_whose_seq_is_not_its_place(game: Game) -> None:
    seat = game.seat_before(5)
    raw = make_envelope(game.table.host.host_key, game.table.host.game_id, 7, game.chain[4].hash, -1, game.payload(5))
    _stops(seat, 6, raw, "chain-link")


def test_an_envelope_not_sent_by_the_host(game: Game) -> None:
    """An envelope in the host's chain that names a seat as its sender (signed by the host's key all the same)."""
    _caught(game, 5, game.payload(5), "chain-link", sender=1)


def test_a_second_game_header(game: Game) -> None:
    _caught(game, 5, _header(game), "chain-link")


@pytest.mark.parametrize("type_", ["KeySet", "HandOpen", "DeckSealed", "CardDelivery", "ActionAccepted",
                                   "Checkpoint", "HostKeyReveal"])
def test_a_host_envelope_with_a_bad_signature(game: Game, type_: str) -> None:
    """Every host envelope's signature is checked, a card delivered to this very seat's included."""
    i = game.index(type_, where=lambda p: type_ != "CardDelivery" or p.seat == 0)
    assert f"({type_}) has a bad signature" in _caught(game, i, game.payload(i), "bad-signature",
                                                        key=Ed25519PrivateKey.generate())


# ---------------------------------------------------------------------- the header
def test_a_header_that_seats_another_key_here(game: Game) -> None:
    seat = SeatGame(0, Ed25519PrivateKey.generate())
    _stops(seat, 1, game.chain[0].raw, "not-in-roster")


def test_a_header_with_fewer_seats_than_this_seats_number(game: Game) -> None:
    seat = SeatGame(5, Ed25519PrivateKey.generate())
    _stops(seat, 1, game.chain[0].raw, "not-in-roster")


def test_a_header_whose_envelope_names_another_game(game: Game) -> None:
    seat = game.seat_before(0)
    _stops(seat, 1, game.forge(0, _header(game), game_id=b"\x07" * 32), "wrong-game")


def test_a_header_of_another_protocol_version(game: Game) -> None:
    header = _header(game)
    header.protocol_version = PROTOCOL_VERSION + 1
    _caught(game, 0, header, "protocol-version")


# ---------------------------------------------------------------------- messages of the other level
def _trustless_seat(game: Game) -> SeatGame:
    header = _header(game)
    header.settings.deal = "trustless"
    seat = game.seat_before(0)
    seat.receive(1, game.forge(0, header))
    assert seat.trustless is not None and seat.verified is None
    return seat


@pytest.mark.parametrize("message", [pb.KeySet(), pb.HostSeedReveal(), pb.HostKeyReveal()])
def test_a_level_1_message_in_a_trustless_game(game: Game, message: Any) -> None:
    seat = _trustless_seat(game)
    raw = make_envelope(game.table.host.host_key, game.table.host.game_id, 2, seat.chain_head, -1, message)
    _stops(seat, 2, raw, "unexpected-message")


@pytest.mark.parametrize("message", [pb.DeckPrepare(), pb.TrustlessDealOpen(), pb.ShareRequest()])
def test_a_level_2_message_in_a_verified_game(game: Game, message: Any) -> None:
    _caught(game, 3, message, "unexpected-message")


def test_a_deal_opened_before_every_key_is_revealed(game: Game) -> None:
    _caught(game, game.index("KeySet") + 1, pb.HandOpen(hand=0, attempt=0, dealer=0), "unexpected-message")


# ---------------------------------------------------------------------- relays
def test_a_relay_that_names_another_seat_than_its_envelopes(game: Game) -> None:
    i = game.index("Relay")
    _caught(game, i, game.relay(1, pb.HeaderSignature(seat=1), named=2), "bad-relay")


def test_a_relay_of_a_seat_beyond_the_roster(game: Game) -> None:
    i = game.index("Relay")
    _caught(game, i, game.relay(7, pb.HeaderSignature(seat=7), key=game.seat_key(1)), "bad-relay")


def test_a_relayed_envelope_with_a_bad_signature(game: Game) -> None:
    i = game.index("Relay")
    _caught(game, i, game.relay(1, pb.HeaderSignature(seat=1, header_hash=game.table.host.header_hash),
                                key=game.seat_key(2)), "bad-signature")


# ---------------------------------------------------------------------- the KeySet (level1_seat)
def _key_set(game: Game) -> tuple[int, Any]:
    i = game.index("KeySet")
    return i, game.payload(i)


def test_a_key_set_with_an_entry_missing(game: Game) -> None:
    i, key_set = _key_set(game)
    del key_set.commits[3]
    assert "one entry per roster seat" in _caught(game, i, key_set, "bad-key-set")


def test_a_key_set_out_of_seat_order(game: Game) -> None:
    i, key_set = _key_set(game)
    first, second = copy.deepcopy(key_set.commits[1]), copy.deepcopy(key_set.commits[2])
    key_set.commits[1].CopyFrom(second)
    key_set.commits[2].CopyFrom(first)
    assert "one entry per roster seat" in _caught(game, i, key_set, "bad-key-set")


def test_a_second_key_set(game: Game) -> None:
    i, key_set = _key_set(game)
    assert "one entry per roster seat" in _caught(game, i + 1, key_set, "bad-key-set")


def test_a_key_set_entry_that_does_not_parse(game: Game) -> None:
    i, key_set = _key_set(game)
    key_set.commits[2].envelope = b"\x00junk"
    assert "does not parse" in _caught(game, i, key_set, "bad-key-set")


@pytest.mark.parametrize("change", ["signer", "header", "length", "type", "game"])
def test_a_key_set_entry_that_is_not_that_seats_commitment(game: Game, change: str) -> None:
    i, key_set = _key_set(game)
    header_hash = game.table.host.header_hash
    commit: Any = pb.KeyCommit(seat=2, header_hash=header_hash, commitment=b"\x05" * 32)
    key, game_id = game.seat_key(2), game.table.host.game_id
    if change == "signer":
        key = game.seat_key(3)
    elif change == "header":
        commit.header_hash = bytes(32)
    elif change == "length":
        commit.commitment = b"\x05" * 31
    elif change == "type":
        commit = pb.HeaderSignature(seat=2, header_hash=header_hash)
    else:
        game_id = b"\x09" * 32
    key_set.commits[2].envelope = make_envelope(key, game_id, 2, bytes(32), 2, commit)
    assert "is not that seat's commitment" in _caught(game, i, key_set, "bad-key-set")


def test_a_key_set_without_this_seats_own_commitment(game: Game) -> None:
    """Another commitment, validly signed by this very seat's key (an old one, say): still not the one it sent."""
    i, key_set = _key_set(game)
    key_set.commits[0].envelope = make_envelope(
        game.seat_key(0), game.table.host.game_id, 2, bytes(32), 0,
        pb.KeyCommit(seat=0, header_hash=game.table.host.header_hash, commitment=b"\x05" * 32))
    assert "the key commitment this seat sent" in _caught(game, i, key_set, "bad-key-set")


# ---------------------------------------------------------------------- key reveals
def test_a_relayed_key_reveal_that_does_not_open(game: Game) -> None:
    i = game.index("Relay", where=lambda r: b"KeyReveal" in r.envelope)
    assert "does not open its commitment" in _caught(
        game, i, game.relay(1, pb.KeyReveal(seat=1, key=b"\x06" * 32)), "bad-key-reveal")


def test_a_relayed_key_reveal_of_the_wrong_length(game: Game) -> None:
    i = game.index("Relay", where=lambda r: b"KeyReveal" in r.envelope)
    honest = game.table.seats[1]
    assert honest.verified is not None
    _caught(game, i, game.relay(1, pb.KeyReveal(seat=1, key=honest.verified.my_key + b"\x00")), "bad-key-reveal")


def test_a_key_reveal_before_the_key_set(game: Game) -> None:
    i = game.index("KeySet")
    honest = game.table.seats[1]
    assert honest.verified is not None
    _caught(game, i, game.relay(1, pb.KeyReveal(seat=1, key=honest.verified.my_key)), "bad-key-reveal")


# ---------------------------------------------------------------------- the deal
def test_a_deck_sealed_for_another_hand(game: Game) -> None:
    i = game.index("DeckSealed")
    sealed = game.payload(i)
    sealed.hand += 1
    _caught(game, i, sealed, "bad-deck-sealed")


def test_a_deck_sealed_of_the_wrong_size(game: Game) -> None:
    i = game.index("DeckSealed")
    sealed = game.payload(i)
    del sealed.card_commitments[-1]
    _caught(game, i, sealed, "bad-deck-sealed")


def _my_delivery(game: Game) -> tuple[int, Any]:
    i = game.index("CardDelivery", where=lambda d: d.seat == 0)
    return i, game.payload(i)


def test_a_card_delivery_for_another_seat(game: Game) -> None:
    i, delivery = _my_delivery(game)
    delivery.seat = 1
    _caught(game, i, delivery, "bad-delivery")


def test_a_card_delivery_for_another_hand(game: Game) -> None:
    i, delivery = _my_delivery(game)
    delivery.hand += 1
    _caught(game, i, delivery, "bad-delivery")


def test_a_delivered_card_that_does_not_open_its_seal(game: Game) -> None:
    i, delivery = _my_delivery(game)
    delivery.cards[0].card = "EA" if delivery.cards[0].card != "EA" else "LA"
    assert "does not open its commitment" in _caught(game, i, delivery, "card-commit-mismatch")


def test_a_delivered_card_with_another_salt(game: Game) -> None:
    i, delivery = _my_delivery(game)
    delivery.cards[0].salt = bytes(32)
    _caught(game, i, delivery, "card-commit-mismatch")


def test_a_delivered_card_at_a_position_outside_the_deck(game: Game) -> None:
    i, delivery = _my_delivery(game)
    delivery.cards[0].position = 99
    _caught(game, i, delivery, "card-commit-mismatch")


def test_a_card_seen_at_schlecken_that_does_not_open_its_seal(game: Game) -> None:
    i = game.index("PrivateEvent", where=lambda p: p.events[0].kind == "see")
    visible_to = game.chain[i].visible_to
    assert visible_to is not None and len(visible_to) == 1
    event = game.payload(i)
    event.events[0].fields["card"] = '"EA"' if event.events[0].fields["card"] != '"EA"' else '"LA"'
    _caught(game, i, event, "card-commit-mismatch", seat=visible_to[0])


def _hands(game: Game) -> list[list[int]]:
    """Per attempt, its HandOpen's chain index followed by those of its accepted plays (with an opening)."""
    hands: list[list[int]] = []
    for i, p in enumerate(game.chain):
        if p.type == "HandOpen":
            hands.append([i])
        elif p.type == "ActionAccepted" and game.payload(i).openings:
            hands[-1].append(i)
    return [[opened, *plays] for opened, *plays in hands]


def test_a_played_card_that_does_not_open_its_seal(game: Game) -> None:
    i = next(plays[1] for plays in _hands(game) if len(plays) > 1)
    accepted = game.payload(i)
    accepted.openings[0].card = "EA" if accepted.openings[0].card != "EA" else "LA"
    _caught(game, i, accepted, "card-commit-mismatch")


def test_a_card_played_twice(game: Game) -> None:
    first, second = next(plays[1:3] for plays in _hands(game) if len(plays) > 2)
    accepted = game.payload(second)
    accepted.openings[0].CopyFrom(game.payload(first).openings[0])
    assert "played twice" in _caught(game, second, accepted, "played-twice")


def test_another_seat_playing_this_seats_card(game: Game) -> None:
    """Another seat's play opens a position dealt to this seat (one it has not played yet)."""
    for opened, *plays in _hands(game):
        for i in plays:
            delivered = [o for j in range(opened, i) for o in (
                game.payload(j).cards if game.chain[j].type == "CardDelivery" and game.payload(j).seat == 0 else ())]
            accepted = game.payload(i)
            played = {int(game.payload(j).openings[0].position) for j in plays if j < i}
            unplayed = [o for o in delivered if int(o.position) not in played]
            if accepted.seat != 0 and unplayed:
                accepted.openings[0].CopyFrom(unplayed[-1])
                assert "a card of this seat" in _caught(game, i, accepted, "not-their-card")
                return
    raise AssertionError("no play by another seat while this seat held a card")


@pytest.mark.parametrize("field", ["chain_seq", "chain_head"])
def test_a_checkpoint_over_another_head(game: Game, field: str) -> None:
    i = game.index("Checkpoint")
    checkpoint = game.payload(i)
    if field == "chain_seq":
        checkpoint.chain_seq += 1
    else:
        checkpoint.chain_head = bytes(32)
    _caught(game, i, checkpoint, "bad-checkpoint")


# ---------------------------------------------------------------------- the host's key and seeds (level1_seat)
def test_a_host_key_that_does_not_open_its_commitment(game: Game) -> None:
    i = game.index("HostKeyReveal")
    _caught(game, i, pb.HostKeyReveal(key=bytes(32)), "host-key-mismatch")
    _caught(game, i, pb.HostKeyReveal(key=game.payload(i).key + b"\x00"), "host-key-mismatch")


def test_the_host_key_revealed_twice(game: Game) -> None:
    i = game.index("HostKeyReveal")
    seat = game.seat_before(len(game.chain))
    _stops(seat, len(game.chain) + 1, game.forge(len(game.chain), game.payload(i)), "bad-reveal")


def _reseal(game: Game, seat: SeatGame, secret: bytes, hand: int = 0, attempt: int = 0) -> Any:
    """The DeckSealed a host would post for hand 0 had it drawn `secret` as its seed instead of S(0, 0)."""
    v = seat.verified
    assert v is not None and seat.rules is not None
    keys = [v.keys[s] for s in range(v.n)]
    dk = deck_key(secret, all_seeds(keys, seat.game_id, hand, attempt), v.key_set, seat.game_id, hand, attempt)
    canonical = canonical_deck(seat.rules.deck)
    deck = [canonical[j].text for j in deck_permutation(dk, len(canonical))]
    return pb.DeckSealed(hand=hand, attempt=attempt,
                         card_commitments=seal_deck(secret, seat.game_id, hand, attempt, deck))


def _host_key(game: Game) -> bytes:
    return bytes(game.payload(game.index("HostKeyReveal")).key)


def test_a_deck_that_does_not_follow_from_the_keys(game: Game) -> None:
    """The host seals a deck of its choosing; k_H at the end shows that it does not follow from every key."""
    i = game.index("DeckSealed")
    sealed = game.payload(i)
    sealed.card_commitments[0], sealed.card_commitments[1] = sealed.card_commitments[1], sealed.card_commitments[0]
    seat = game.seat_before(i)
    seat.receive(i + 1, game.forge(i, sealed))
    raw = game.forge(i + 1, pb.HostKeyReveal(key=_host_key(game)), prev=seat.chain_head)
    assert "does not follow from every seat's game key" in _stops(seat, i + 2, raw, "deal-mismatch")


def test_a_hand_sealed_with_a_seed_not_from_the_host_key() -> None:
    """reveal = hand-end: the host seals hand 0 with a seed of its choosing and reveals that seed at the hand's end
    (the deck checks out against it); k_H at the match's end gives another seed."""
    game = _game("hand-end")
    i = game.index("DeckSealed")
    seat = game.seat_before(i)
    chosen = b"\x0c" * 32
    seat.receive(i + 1, game.forge(i, _reseal(game, seat, chosen)))
    host = game.table.host
    seed = make_envelope(host.host_key, host.game_id, i + 2, seat.chain_head, -1,
                         pb.HostSeedReveal(hand=0, attempt=0, seed=chosen))
    seat.receive(i + 2, seed)
    assert seat.verified is not None and seat.verified.decks_checked == 1
    raw = make_envelope(host.host_key, host.game_id, i + 3, seat.chain_head, -1, pb.HostKeyReveal(key=_host_key(game)))
    assert "is not the one the host's key gives" in _stops(seat, i + 3, raw, "seed-mismatch")


def test_a_seed_revealed_for_a_hand_never_opened() -> None:
    game = _game("hand-end")
    i = game.index("HostSeedReveal")
    seed = game.payload(i)
    seed.hand = 40
    _caught(game, i, seed, "bad-reveal")


def test_a_wrong_seed_revealed_at_a_hands_end() -> None:
    game = _game("hand-end")
    i = game.index("HostSeedReveal")
    seed = game.payload(i)
    seed.seed = bytes(32)
    _caught(game, i, seed, "deal-mismatch")
