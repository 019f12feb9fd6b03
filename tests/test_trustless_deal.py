"""The trustless deal session: honest deals for every table size, and every cheat caught with its reason and seat."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl.bindings import crypto_core_ed25519_add

from watten_net.trustless import (
    DealStateError,
    Phase,
    PublicDeal,
    Reason,
    TrustlessError,
    decode_message,
)
from watten_net.trustless.elgamal import Ciphertext, reencrypt
from watten_net.trustless.group import BASE, FIELD_P, IDENTITY, L, hash_to_point
from watten_net.trustless.messages import DecryptionShareMessage, KeyShareMessage, Message, ShuffleMessage

from trustless_table import Table, make_setup


def _refused(deal: PublicDeal, sender: int, message: Message | bytes) -> TrustlessError:
    data = message if isinstance(message, bytes) else message.to_bytes()
    with pytest.raises(TrustlessError) as info:
        deal.accept(sender, data)
    return info.value


def _assert_refused(deal: PublicDeal, sender: int, message: Message | bytes, reason: Reason) -> None:
    error = _refused(deal, sender, message)
    assert (error.reason, error.seat) == (reason, sender), str(error)


# --- honest deals -----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("n_cards", [32, 33])
@pytest.mark.parametrize("n_seats", [2, 3, 4, 6])
def test_honest_deal_first_packet_and_an_opening(n_seats: int, n_cards: int) -> None:
    table = Table(make_setup(n_seats, n_cards)).prepared(offset=n_cards // 3)
    received: dict[int, int] = {}
    for k in range(3 * n_seats):  # the first packet: three cards per seat
        received[k] = table.deliver(k, k % n_seats)
    assert len(set(received.values())) == len(received)
    for s, seat in enumerate(table.seats):
        assert seat.cards == {k: c for k, c in received.items() if k % n_seats == s}
    owner = 1
    assert table.open(owner, owner) == received[owner]  # position 1 belongs to seat 1
    assert all(seat.public.open_card(owner) == received[owner] for seat in table.seats)


def test_every_card_of_the_deck_arrives_exactly_once() -> None:
    table = Table(make_setup(2, 33), seed=b"whole deck").prepared(offset=0)
    cards = [table.deliver(k, k % 2) for k in range(33)]
    assert sorted(cards) == list(range(33))


def test_the_cut_is_a_public_rotation() -> None:
    table = Table(make_setup(2, 32)).prepared(offset=11)
    shuffled = table.observer.sealed_deck
    assert table.observer.deck == shuffled[11:] + shuffled[:11]
    assert table.observer.cut_offset == 11


def test_a_custom_shuffle_order_is_enforced() -> None:
    table = Table(make_setup(3, 32, shuffle_order=(2, 0, 1)))
    table.exchange_keys()
    assert table.observer.next_shuffler() == 2
    with pytest.raises(DealStateError):
        table.seats[0].shuffle_message()
    messages = table.shuffle_all()
    assert [m.seat for m in messages] == [2, 0, 1]
    assert table.observer.phase is Phase.CUTTING


def test_same_seeds_same_messages() -> None:
    one, two = Table(make_setup(2, 32), seed=b"x"), Table(make_setup(2, 32), seed=b"x")
    assert [m.to_bytes() for m in one.exchange_keys()] == [m.to_bytes() for m in two.exchange_keys()]
    assert [m.to_bytes() for m in one.shuffle_all()] == [m.to_bytes() for m in two.shuffle_all()]


def test_repeated_messages_are_accepted_once() -> None:
    table = Table(make_setup(2, 32))
    keys = table.exchange_keys()
    table.observer.accept(0, keys[0].to_bytes())
    shuffles = table.shuffle_all()
    table.observer.accept(0, shuffles[0].to_bytes())
    table.cut(3)
    share = table.seats[1].delivery_share(0, recipient=0)
    table.broadcast(1, share)
    table.observer.accept(1, share.to_bytes())
    assert table.seats[0].receive_card(0) in range(32)


# --- fixtures: a deal in each phase (copied per test; building them costs the shuffles) ------------------

_KEYS_DONE = Table(make_setup(3, 33, game=b"cheats"))
_KEY_MESSAGES = _KEYS_DONE.exchange_keys()
_DEALING = copy.deepcopy(_KEYS_DONE)
_SHUFFLES = _DEALING.shuffle_all()
_DEALING.cut(4)


def keys_done() -> Table:
    return copy.deepcopy(_KEYS_DONE)


def dealing() -> Table:
    return copy.deepcopy(_DEALING)


# (game, hand, attempt) of another deal than the fixtures' (b"cheats", 1, 0)
OTHER_DEALS = pytest.mark.parametrize("game, hand, attempt", [(b"cheats", 2, 0), (b"cheats", 1, 1), (b"other", 1, 0)],
                                      ids=["hand", "attempt", "game"])


# --- key shares ------------------------------------------------------------------------------------------


def test_a_bad_key_proof_is_caught() -> None:
    table = Table(make_setup(3, 33, game=b"cheats"))
    message = table.seats[1].key_share_message()
    proof = dataclasses.replace(message.proof, response=(message.proof.response + 1) % L)
    bad = dataclasses.replace(message, proof=proof)
    _assert_refused(table.observer, 1, bad, Reason.BAD_KEY_PROOF)


def test_a_schnorr_proof_for_another_seat_is_caught() -> None:
    table = Table(make_setup(3, 33, game=b"cheats"))
    seat0 = table.seats[0].key_share_message()
    _assert_refused(table.observer, 2, seat0, Reason.WRONG_CONTEXT)  # seat 2 sends seat 0's share as is
    relabelled = dataclasses.replace(seat0, seat=2)  # ... or relabelled as its own: the proof names seat 0
    _assert_refused(table.observer, 2, relabelled, Reason.BAD_KEY_PROOF)


@OTHER_DEALS
def test_a_key_share_from_another_deal_is_caught(game: bytes, hand: int, attempt: int) -> None:
    other = Table(make_setup(3, 33, game, hand, attempt))
    message = other.seats[1].key_share_message()
    table = Table(make_setup(3, 33, game=b"cheats"))
    _assert_refused(table.observer, 1, message, Reason.WRONG_CONTEXT)
    relabelled = dataclasses.replace(message, deal=table.setup.deal)
    _assert_refused(table.observer, 1, relabelled, Reason.BAD_KEY_PROOF)


def test_a_second_different_key_share_is_caught() -> None:
    table = keys_done()
    other = Table(make_setup(3, 33, game=b"cheats"), seed=b"another seed").seats[1].key_share_message()
    _assert_refused(table.observer, 1, other, Reason.CONFLICTING_MESSAGE)


# --- shuffles --------------------------------------------------------------------------------------------


def _seat0_shuffle() -> tuple[Table, ShuffleMessage]:
    table = keys_done()
    return table, table.seats[0].shuffle_message()


def _with_deck(message: ShuffleMessage, change: Callable[[list[Ciphertext]], None]) -> ShuffleMessage:
    deck = list(message.deck)
    change(deck)
    return dataclasses.replace(message, deck=tuple(deck))


def _reorder(deck: list[Ciphertext]) -> None:
    deck[0], deck[1] = deck[1], deck[0]


def _replace(deck: list[Ciphertext]) -> None:
    deck[5] = Ciphertext(deck[5].c1, hash_to_point("trustless/test", b"not a card"))


def _duplicate(deck: list[Ciphertext]) -> None:
    deck[7] = reencrypt(deck[3], _KEYS_DONE.observer.joint_key, 4242)


def _reencrypt_again(deck: list[Ciphertext]) -> None:
    deck[2] = reencrypt(deck[2], _KEYS_DONE.observer.joint_key, 1)


@pytest.mark.parametrize("change", [_reorder, _replace, _duplicate, _reencrypt_again])
def test_a_deck_changed_after_proving_is_caught(change: Callable[[list[Ciphertext]], None]) -> None:
    table, message = _seat0_shuffle()
    _assert_refused(table.observer, 0, _with_deck(message, change), Reason.BAD_SHUFFLE_PROOF)
    _assert_refused(table.seats[2].public, 0, _with_deck(message, change), Reason.BAD_SHUFFLE_PROOF)


def test_a_wrong_shuffle_proof_is_caught() -> None:
    table, message = _seat0_shuffle()
    bad = dataclasses.replace(message, proof=dataclasses.replace(message.proof, s4=(message.proof.s4 + 1) % L))
    error = _refused(table.observer, 0, bad)
    assert (error.reason, error.seat) == (Reason.BAD_SHUFFLE_PROOF, 0)
    assert "t4_c2" in error.detail and "t4_c1" in error.detail


def _seat1_shuffle_of_the_canonical_deck(table: Table) -> ShuffleMessage:
    """Seat 1's honest-looking shuffle of the canonical deck, as if seat 0 had not shuffled (or was ignored)."""
    early = copy.deepcopy(table.seats[1])
    early.public._record_shuffle(0, early.public.deck)  # pretend seat 0's output was the canonical deck
    return early.shuffle_message()


def test_a_shuffle_out_of_turn_is_caught() -> None:
    table = keys_done()
    _assert_refused(table.observer, 1, _seat1_shuffle_of_the_canonical_deck(table), Reason.OUT_OF_TURN)
    before_keys = Table(make_setup(3, 33, game=b"cheats")).observer
    _assert_refused(before_keys, 0, _SHUFFLES[0], Reason.OUT_OF_TURN)
    late = _seat1_shuffle_of_the_canonical_deck(keys_done())
    _assert_refused(dealing().observer, 1, late, Reason.OUT_OF_TURN)  # a second shuffle once the deck is sealed


def test_a_shuffle_of_a_stale_deck_is_caught() -> None:
    table = keys_done()
    stale = _seat1_shuffle_of_the_canonical_deck(table)
    table.observer.accept(0, _SHUFFLES[0].to_bytes())
    _assert_refused(table.observer, 1, stale, Reason.BAD_SHUFFLE_PROOF)  # its input is not seat 0's output


@OTHER_DEALS
def test_a_shuffle_from_another_deal_is_caught(game: bytes, hand: int, attempt: int) -> None:
    other = Table(make_setup(3, 33, game, hand, attempt))
    other.exchange_keys()
    message = other.seats[0].shuffle_message()
    table = keys_done()
    _assert_refused(table.observer, 0, message, Reason.WRONG_CONTEXT)
    _assert_refused(table.observer, 0, dataclasses.replace(message, deal=table.setup.deal), Reason.BAD_SHUFFLE_PROOF)


def test_a_shuffle_for_another_seat_is_caught() -> None:
    table, message = _seat0_shuffle()
    _assert_refused(table.observer, 2, message, Reason.WRONG_CONTEXT)


# --- decryption shares -----------------------------------------------------------------------------------


def test_a_wrong_decryption_share_is_caught() -> None:
    table = dealing()
    honest = table.seats[1].delivery_share(6, recipient=0)
    wrong = dataclasses.replace(honest, share=hash_to_point("trustless/test", b"wrong"))
    _assert_refused(table.observer, 1, wrong, Reason.BAD_DECRYPTION_PROOF)
    _assert_refused(table.seats[0].public, 1, wrong, Reason.BAD_DECRYPTION_PROOF)
    with pytest.raises(DealStateError):  # the recipient never finishes with the refused share
        table.seats[0].receive_card(6)


def test_a_share_replayed_to_another_position_is_caught() -> None:
    table = dealing()
    message = table.seats[1].delivery_share(6, recipient=0)
    _assert_refused(table.observer, 1, dataclasses.replace(message, position=7), Reason.BAD_DECRYPTION_PROOF)


def test_a_share_replayed_as_another_seat_is_caught() -> None:
    table = dealing()
    message = table.seats[1].delivery_share(6, recipient=0)
    _assert_refused(table.observer, 2, message, Reason.WRONG_CONTEXT)
    _assert_refused(table.observer, 2, dataclasses.replace(message, seat=2), Reason.BAD_DECRYPTION_PROOF)


@OTHER_DEALS
def test_a_share_from_another_deal_is_caught(game: bytes, hand: int, attempt: int) -> None:
    other = Table(make_setup(3, 33, game, hand, attempt), seed=b"other").prepared(offset=4)
    message = other.seats[1].delivery_share(6, recipient=0)
    table = dealing()
    _assert_refused(table.observer, 1, message, Reason.WRONG_CONTEXT)
    _assert_refused(table.observer, 1, dataclasses.replace(message, deal=table.setup.deal),
                    Reason.BAD_DECRYPTION_PROOF)


def test_shares_before_the_cut_are_out_of_turn() -> None:
    table = keys_done()
    message = dealing().seats[1].delivery_share(0, recipient=0)
    _assert_refused(table.observer, 1, message, Reason.OUT_OF_TURN)


def test_local_misuse_is_a_state_error_not_a_cheat() -> None:
    table = dealing()
    with pytest.raises(DealStateError):
        table.seats[0].delivery_share(3, recipient=0)  # would open seat 0's own card
    with pytest.raises(DealStateError):
        table.seats[0].receive_card(3)
    with pytest.raises(DealStateError):
        table.observer.open_card(3)
    with pytest.raises(DealStateError):
        _ = Table(make_setup(2, 32)).observer.joint_key


def test_a_bad_cut_is_refused() -> None:
    table = keys_done()
    with pytest.raises(TrustlessError) as info:
        table.observer.apply_cut(3, cutter=2)
    assert (info.value.reason, info.value.seat) == (Reason.OUT_OF_TURN, 2)
    table = copy.deepcopy(_KEYS_DONE)
    for message in _SHUFFLES:
        table.observer.accept(message.seat, message.to_bytes())
    for offset in (-1, 33, 1.5):
        with pytest.raises(TrustlessError) as info:
            table.observer.apply_cut(offset, cutter=1)  # type: ignore[arg-type]
        assert (info.value.reason, info.value.seat) == (Reason.MALFORMED, 1)


# --- hostile encodings -----------------------------------------------------------------------------------

SMALL_ORDER = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
NON_CANONICAL = (FIELD_P + 1).to_bytes(32, "little")  # the identity, encoded with y = p + 1
ORDER_4 = bytes(32)  # y = 0
TORSIONED = crypto_core_ed25519_add(BASE, SMALL_ORDER)  # on the curve, but with a component of order 8
BAD_POINTS = {"identity": IDENTITY, "small-order": SMALL_ORDER, "order-4": ORDER_4, "torsioned": TORSIONED,
              "non-canonical": NON_CANONICAL, "off-curve": (2).to_bytes(32, "little")}

KEY_POINT_AT = 1 + 40 + 1  # kind, deal id, seat
SHARE_POINT_AT = 1 + 40 + 2  # kind, deal id, position, seat


def _splice(data: bytes, at: int, value: bytes) -> bytes:
    return data[:at] + value + data[at + len(value):]


@pytest.mark.parametrize("bad", BAD_POINTS.values(), ids=BAD_POINTS.keys())
@pytest.mark.parametrize("where", ["key", "key-commitment", "share", "share-commitment", "shuffle-deck",
                                   "shuffle-proof"])
def test_invalid_points_are_refused_and_blamed(bad: bytes, where: str) -> None:
    table = dealing() if where.startswith("share") else keys_done()
    if where.startswith("key"):
        data = Table(make_setup(3, 33, game=b"cheats")).seats[1].key_share_message().to_bytes()
        fresh = Table(make_setup(3, 33, game=b"cheats")).observer
        at = KEY_POINT_AT + (32 if where == "key-commitment" else 0)
        _assert_refused(fresh, 1, _splice(data, at, bad), Reason.INVALID_POINT)
        return
    if where.startswith("share"):
        data = table.seats[1].delivery_share(2, recipient=0).to_bytes()
        at = SHARE_POINT_AT + (64 if where == "share-commitment" else 0)
        _assert_refused(table.observer, 1, _splice(data, at, bad), Reason.INVALID_POINT)
        return
    data = _SHUFFLES[0].to_bytes()
    at = 1 + 40 + 2 + (64 * 10 + 32 if where == "shuffle-deck" else 64 * 33 + 32 * 40)
    _assert_refused(table.observer, 0, _splice(data, at, bad), Reason.INVALID_POINT)


@pytest.mark.parametrize("value", [L, 2**256 - 1])
def test_non_canonical_scalars_are_refused_and_blamed(value: int) -> None:
    scalar = value.to_bytes(32, "little")
    key = Table(make_setup(3, 33, game=b"cheats")).seats[2].key_share_message().to_bytes()
    _assert_refused(keys_done().observer, 2, _splice(key, len(key) - 32, scalar), Reason.NON_CANONICAL_SCALAR)
    table = dealing()
    share = table.seats[2].delivery_share(1, recipient=1).to_bytes()
    _assert_refused(table.observer, 2, _splice(share, len(share) - 32, scalar), Reason.NON_CANONICAL_SCALAR)
    shuffle = _SHUFFLES[0].to_bytes()
    _assert_refused(keys_done().observer, 0, _splice(shuffle, len(shuffle) - 32 * 40, scalar),
                    Reason.NON_CANONICAL_SCALAR)


@pytest.mark.parametrize("data", [b"", b"\x09", _KEY_MESSAGES[0].to_bytes()[:-1], _KEY_MESSAGES[0].to_bytes() + b"\0",
                                  _SHUFFLES[0].to_bytes()[:-32], b"\x02" + bytes(41) + b"\x00", b"\x02" + bytes(41)
                                  + b"\xff"], ids=["empty", "kind", "short", "long", "short-shuffle", "zero-cards",
                                                   "too-many-cards"])
def test_malformed_messages_are_refused_and_blamed(data: bytes) -> None:
    _assert_refused(keys_done().observer, 0, data, Reason.MALFORMED)


def test_a_shuffle_of_the_wrong_deck_size_is_refused() -> None:
    small = Table(make_setup(3, 32, game=b"cheats"))
    small.exchange_keys()
    message = small.seats[0].shuffle_message()
    _assert_refused(keys_done().observer, 0, message, Reason.MALFORMED)


def test_messages_round_trip() -> None:
    table = dealing()
    share = table.seats[2].delivery_share(8, recipient=0)
    for message in (_KEY_MESSAGES[1], _SHUFFLES[2], share):
        data = message.to_bytes()
        assert decode_message(data) == message
        assert type(message).from_bytes(data) == message
    assert len(_KEY_MESSAGES[0].to_bytes()) == 1 + 40 + 1 + 32 + 64
    assert len(share.to_bytes()) == 1 + 40 + 2 + 32 + 96
    with pytest.raises(TrustlessError):
        KeyShareMessage.from_bytes(share.to_bytes())
    with pytest.raises(TrustlessError):
        DecryptionShareMessage.from_bytes(b"not bytes at all" * 10)


_FLIP = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_FLIP
@given(st.data())
def test_any_flipped_byte_of_a_key_share_is_caught(data: st.DataObject) -> None:
    message = Table(make_setup(3, 33, game=b"cheats")).seats[1].key_share_message().to_bytes()
    at = data.draw(st.integers(0, len(message) - 1))
    flip = data.draw(st.integers(1, 255))
    observer = Table(make_setup(3, 33, game=b"cheats")).observer
    error = _refused(observer, 1, _splice(message, at, bytes([message[at] ^ flip])))
    assert error.seat == 1


_SHARE = _DEALING.seats[2].delivery_share(5, recipient=1)


@_FLIP
@given(st.data())
def test_any_flipped_byte_of_a_decryption_share_is_caught(data: st.DataObject) -> None:
    message = _SHARE.to_bytes()
    at = data.draw(st.integers(0, len(message) - 1))
    flip = data.draw(st.integers(1, 255))
    observer = _DEALING.observer  # refusals leave the state untouched
    error = _refused(observer, 2, _splice(message, at, bytes([message[at] ^ flip])))
    assert error.seat == 2


@settings(max_examples=12, deadline=None)
@given(st.data())
def test_any_flipped_byte_of_a_shuffle_is_caught(data: st.DataObject) -> None:
    message = _SHUFFLES[0].to_bytes()
    at = data.draw(st.integers(0, len(message) - 1))
    flip = data.draw(st.integers(1, 255))
    error = _refused(_KEYS_DONE.observer, 0, _splice(message, at, bytes([message[at] ^ flip])))
    assert error.seat == 0


@settings(max_examples=300)
@given(st.sampled_from([b"", b"\x01", b"\x02", b"\x03"]), st.binary(max_size=400))
def test_arbitrary_bytes_decode_or_fail_cleanly(kind: bytes, body: bytes) -> None:
    try:
        decode_message(kind + body)
    except TrustlessError as exc:
        assert exc.reason in {Reason.MALFORMED, Reason.INVALID_POINT, Reason.NON_CANONICAL_SCALAR}
