"""Shuffling ahead in trustless games (PROTOCOL.md Level 2 step 2): the next deck is prepared while a hand is played.

Deck d belongs to the game's d-th deal attempt: its DeckPrepare, key shares and shuffles appear in the chain during
the attempt before it, so that attempt d's TrustlessDealOpen is followed at once by the cut and the dealing. A
redeal or a forfeit takes the next deck, never one used before; a deck given up is never touched again; the
verifier replays all of it and names the seat behind a tampered key share or shuffle of a prepared deck.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from unittest import mock

import pytest
from test_trustless_game import _drive, _first_error, _refused, _table, _verify_all

from watten_net.deal.level2 import deck_shuffle_order
from watten_net.deal.protocol import HOST_SEAT, Signed, make_envelope, parse_envelope
from watten_net.engine import Rules
from watten_net.refusal import HostBrokeProtocol
from watten_net.trustless.group import L
from watten_net.trustless.messages import KeyShareMessage, ShuffleMessage
from watten_net.trustless.proofs import SchnorrProof
from watten_net.v1 import watten_pb2 as pb

import local_table
from local_table import LocalTable
from tampering import _SeededKeys, client_envelope, edit_host, signed

pytestmark = pytest.mark.slow  # whole trustless deals, several decks ahead

# ---------------------------------------------------------------------------------------------- reading the chain


@dataclass
class Chain:
    """Where things are in a host chain (0-based indices into `table.host.chain`)."""

    types: list[str]
    payloads: list[Any]
    opens: list[int]  # TrustlessDealOpen
    prepares: dict[int, int]  # deck -> its DeckPrepare
    keys: dict[int, list[int]]  # deck -> the Relays of its KeyShares
    shuffles: dict[int, list[int]]  # deck -> the Relays of its Shuffles
    inner: dict[int, Signed]  # index of a Relay -> the relayed envelope

    def deck_of_open(self, i: int) -> int:
        return int(self.payloads[i].deck)

    def first_after(self, i: int, kind: str, where: Callable[[Any], bool] = lambda p: True) -> int:
        return next(j for j in range(i + 1, len(self.types)) if self.types[j] == kind and where(self.payloads[j]))


def _read(table: LocalTable) -> Chain:
    chain = Chain([], [], [], {}, defaultdict(list), defaultdict(list), {})
    for i, posted in enumerate(table.host.chain):
        s = parse_envelope(posted.raw, host=True)
        chain.types.append(s.type)
        chain.payloads.append(s.payload)
        if s.type == "TrustlessDealOpen":
            chain.opens.append(i)
        elif s.type == "DeckPrepare":
            assert int(s.payload.deck) not in chain.prepares, "a deck prepared twice"
            chain.prepares[int(s.payload.deck)] = i
        elif s.type == "Relay":
            inner = parse_envelope(bytes(s.payload.envelope), host=False)
            chain.inner[i] = inner
            if inner.type == "KeyShare":
                chain.keys[int(inner.payload.deck)].append(i)
            elif inner.type == "Shuffle":
                chain.shuffles[int(inner.payload.deck)].append(i)
    return chain


def _dealt_at_once(chain: Chain, i: int, n: int) -> None:
    """Attempt opened at chain index `i` found its deck sealed: the deck's preparation is entirely before the
    opening, and the next envelope is the cutter's cut (no key share or shuffle in between)."""
    d = chain.deck_of_open(i)
    assert chain.prepares[d] < i
    assert len(chain.keys[d]) == n and max(chain.keys[d]) < i
    assert len(chain.shuffles[d]) == n and max(chain.shuffles[d]) < i
    assert chain.types[i + 1] == "ActionAccepted" and chain.payloads[i + 1].action.startswith("cut "), (
        chain.types[i + 1])


def _step_until(table: LocalTable, done: Callable[[LocalTable], bool]) -> None:
    """Submit the present seats' automatic envelopes one at a time until `done` holds (no game moves)."""
    for _ in range(2_000):
        if done(table):
            return
        for seat in table.seats:
            if seat.seat in table.away:
                continue
            raw = seat.next_automatic()
            if raw is not None:
                table.deliver(table.host.submit(seat.seat, raw))
                seat.accepted(raw)
                break
        else:
            raise AssertionError("nothing left to send")
    raise AssertionError("the table did not get there")


def _posted(table: LocalTable, kind: str, where: Callable[[Any], bool] = lambda p: True) -> bool:
    return any(p.type == kind and where(parse_envelope(p.raw, host=True).payload) for p in table.host.chain)


# ---------------------------------------------------------------------------------------------- honest matches


@pytest.mark.parametrize(("preset", "players", "seed"), [("bavarian", 4, 2), ("tyrolean", 3, 2)])
def test_after_the_first_hand_every_deal_starts_at_once_on_a_deck_shuffled_during_the_hand_before(
        preset: str, players: int, seed: int) -> None:
    table = _table(preset, players, seed)
    table.play()
    chain = _read(table)
    n = players
    assert len(chain.opens) >= 2
    # One deck per attempt, numbered in order; every deck prepared once, and at most the one after the last used.
    assert [chain.deck_of_open(i) for i in chain.opens] == list(range(len(chain.opens)))
    assert sorted(chain.prepares) == list(range(len(chain.prepares)))
    assert len(chain.prepares) in (len(chain.opens), len(chain.opens) + 1)
    for d, i in chain.prepares.items():
        assert list(chain.payloads[i].shuffle_order) == list(deck_shuffle_order(table.host.game_id, d, n))
        order = [chain.inner[j].sender for j in chain.shuffles[d]]
        assert order == list(chain.payloads[i].shuffle_order)[:len(order)]
    # The first deal waits for its deck: DeckPrepare(0) right before it, the shuffles after it.
    first = chain.opens[0]
    assert chain.types[first - 1] == "DeckPrepare" and chain.prepares[0] == first - 1
    assert min(chain.shuffles[0]) > first
    # Every later one: prepared while the attempt before was played (after its first cards were delivered, before
    # it ended), so dealing starts at once.
    for before, i in zip(chain.opens, chain.opens[1:], strict=False):
        d = chain.deck_of_open(i)
        first_request = chain.first_after(before, "ShareRequest", lambda p: p.why == "deal")
        ended = chain.first_after(before, "HandEnd")
        assert first_request < chain.prepares[d] < ended
        assert min(chain.keys[d] + chain.shuffles[d]) > chain.prepares[d]
        _dealt_at_once(chain, i, n)
    # The deck prepared when the match ended is abandoned: no seat keeps it or still owes it anything.
    for seat in table.seats:
        assert seat.trustless is not None and not seat.trustless.decks and not seat.problems
        assert not [raw for raw in seat.outbox if parse_envelope(raw, host=False).type in ("KeyShare", "Shuffle")]
    _verify_all(table)


def test_a_queued_key_share_for_the_next_deck_does_not_hold_up_a_game_move() -> None:
    table = _table("bavarian", 2, seed=4)

    def next_deck_key_of_the_seat_to_move(seat: int, env: Signed) -> bool:
        phase, waiting = table.host.waiting_for()
        return (env.type == "KeyShare" and env.payload.deck >= 1 and phase == "play" and bool(waiting)
                and waiting[0] == seat)

    caught = _drive(table, intercept=next_deck_key_of_the_seat_to_move)
    assert caught is not None
    seat_no, raw = caught
    seat = table.seats[seat_no]
    assert raw in seat.outbox
    move = seat.action(next(a for a in seat.legal_actions()))
    table.deliver(table.host.submit(seat_no, move))  # the move goes first, the key share waits
    seat.accepted(move)
    again = seat.next_automatic()  # the same key share, signed again on the seat's new chain head
    assert again is not None and again != raw
    assert parse_envelope(again, host=False).payload == parse_envelope(raw, host=False).payload
    table.deliver(table.host.submit(seat_no, again))
    seat.accepted(again)
    table.play()
    _verify_all(table)


# ---------------------------------------------------------------------------------------------- redeal, forfeit


def _redeal_table(seed: int) -> LocalTable:
    """Two players, bavarian, but `bessere = "redeal-penalty"`: the call alone forces a new deal attempt."""
    rules = Rules.preset("bavarian", players=2).with_flag("target", "5").with_flag("bessere", "redeal-penalty")
    with mock.patch.object(local_table, "Ed25519PrivateKey", _SeededKeys(seed)):
        table = LocalTable(rules, seed=seed, deal="trustless")
    table.deliver(table.host.start())
    return table


@pytest.mark.parametrize("sealed", [True, False], ids=["next-deck-sealed", "next-deck-half-done"])
def test_a_bessere_redeal_takes_the_next_deck_prepared_during_the_redealt_attempt(sealed: bool) -> None:
    for seed in range(12):
        table = _redeal_table(seed)

        def can_ask(t: LocalTable) -> bool:
            public = t.host.public
            if public is None or public.phase != "announce" or t.host.trustless_dealing.dealing:  # type: ignore
                return False
            phase, waiting = t.host.waiting_for()
            return phase == "play" and "bessere?" in t.seats[waiting[0]].legal_actions()

        _drive(table, until=can_ask)
        if not table.host.finished:
            break
    else:
        pytest.fail("no seed reached a Bessere call")
    if sealed:
        while table.flush():  # the seats' automatic envelopes first: the next deck is sealed before the call
            pass
    _, waiting = table.host.waiting_for()
    asker = table.seats[waiting[0]]
    table.deliver(table.host.submit(asker.seat, raw := asker.action("bessere?")))
    asker.accepted(raw)
    chain = _read(table)
    aborted = chain.first_after(0, "AttemptAborted")
    assert chain.payloads[aborted].reason == "bessere-redeal"
    redealt = max(i for i in chain.opens if i < aborted)
    again = chain.first_after(aborted, "TrustlessDealOpen")
    assert chain.types[aborted + 1] == "TrustlessDealOpen" and again == aborted + 1
    d = chain.deck_of_open(redealt)
    assert (chain.payloads[again].hand, chain.payloads[again].attempt) == (chain.payloads[redealt].hand, 1)
    assert chain.deck_of_open(again) == d + 1  # a fresh deck, the one prepared while the redealt attempt ran
    assert redealt < chain.prepares[d + 1] < aborted
    assert min(chain.keys[d + 1]) < aborted
    # The redealt attempt's deck is used up: the seats let it go, and the host refuses anything more for it.
    seat = table.seats[0]
    assert seat.trustless is not None and d not in seat.trustless.decks and d + 1 in seat.trustless.decks
    late = make_envelope(seat.key, seat.game_id, seat.my_seq + 1, seat.my_head, 0,
                         pb.KeyShare(deck=d, seat=0, message=b"late"))
    assert _refused(table, 0, late).reason == "unexpected-message"
    table.play()
    chain = _read(table)
    if sealed:
        _dealt_at_once(chain, again, 2)
    else:  # the call came while the next deck was still being prepared: the new attempt waits for the rest of it
        assert len(chain.keys[d + 1]) == 2 and len(chain.shuffles[d + 1]) == 2
        assert max(chain.shuffles[d + 1]) > again
        assert chain.first_after(again, "ActionAccepted") > max(chain.shuffles[d + 1])
    _verify_all(table)


def test_a_forfeited_hand_hands_its_prepared_successor_on_and_a_deck_given_up_is_never_used() -> None:
    table = _table("bavarian", 2, seed=4)
    # Seat 1's key share for deck 1 is ready but not sent when it goes away in the middle of hand 0.
    caught = _drive(table, intercept=lambda s, env: env.type == "KeyShare" and env.payload.deck == 1 and s == 1)
    assert caught is not None
    _, stale = caught
    table.go_away(1)
    assert _posted(table, "AttemptAborted", lambda p: p.reason == "away" and p.attempt == 0 and p.hand == 0)
    # Deck 1 waits for the seat away; the next attempt opens while it is still away and waits for it too, until
    # the host's clock runs out: then it is forfeited, giving deck 1 up unsealed.
    _step_until(table, lambda t: _posted(t, "TrustlessDealOpen", lambda p: p.hand == 1))
    assert not _posted(table, "AttemptAborted", lambda p: p.hand == 1)
    table.wait_out_the_away()
    assert _posted(table, "AttemptAborted", lambda p: p.reason == "away" and p.hand == 1)
    chain = _read(table)
    assert chain.deck_of_open(chain.opens[-1]) == 1 and len(chain.shuffles[1]) == 0
    table.come_back(1)
    # The seat dropped what it owed the given-up deck; sent anyway, the host refuses it.
    assert stale not in table.seats[1].outbox
    assert not [r for r in table.seats[1].outbox if parse_envelope(r, host=False).type == "KeyShare"]
    assert _refused(table, 1, stale).reason == "unexpected-message"
    table.play()
    chain = _read(table)
    assert [chain.deck_of_open(i) for i in chain.opens] == list(range(len(chain.opens)))
    # The attempt after the given-up deck prepares the next one from scratch, right before it opens.
    after = chain.opens[2]
    assert chain.prepares[2] == after - 1
    assert len(chain.keys[1]) == 1  # seat 0's only: deck 1 was never finished, nor touched again
    _verify_all(table)


def test_a_hand_forfeited_after_its_deal_leaves_the_next_deck_ready() -> None:
    table = _table("bavarian", 4, seed=2)
    _drive(table, until=lambda t: t.host.public is not None and t.host.public.phase == "play"
           and t.host.public.played_cards >= 1 and not t.host.trustless_dealing.dealing)  # type: ignore
    hand = table.host.public.hand_number  # type: ignore[union-attr]
    table.go_away(1)
    assert _posted(table, "AttemptAborted", lambda p: p.reason == "away" and p.hand == hand)
    table.come_back(1)
    table.play()
    chain = _read(table)
    forfeited = next(i for i in chain.opens if chain.payloads[i].hand == hand)
    nxt = chain.opens[chain.opens.index(forfeited) + 1]
    assert chain.deck_of_open(nxt) == chain.deck_of_open(forfeited) + 1
    _dealt_at_once(chain, nxt, 4)
    _verify_all(table)


# ---------------------------------------------------------------------------------------------- seats check


def _host_envelope(table: LocalTable, payload: Any) -> tuple[int, bytes]:
    head = table.host.chain[-1]
    raw = make_envelope(table.host.host_key, table.host.game_id, head.seq + 1, head.hash, HOST_SEAT, payload)
    return head.seq + 1, raw


def test_the_seats_refuse_a_deck_out_of_turn_and_an_attempt_on_a_used_deck() -> None:
    table = _table("bavarian", 2, seed=4)
    _drive(table, until=lambda t: t.host.phase == "checkpoint")  # hand 0 is over, deck 1 prepared, not used yet
    assert table.host.trustless_dealing is not None and table.host.trustless_dealing.prepared == 2
    n, game_id = 2, table.host.game_id
    public = table.host.public
    assert public is not None and public.phase == "deal"
    wrong = [
        (pb.DeckPrepare(deck=3, deck_size=32, shuffle_order=list(deck_shuffle_order(game_id, 3, n))),
         "bad-deck-prepare"),  # skips a deck
        (pb.DeckPrepare(deck=1, deck_size=32, shuffle_order=list(deck_shuffle_order(game_id, 1, n))),
         "bad-deck-prepare"),  # prepares a deck again
        (pb.TrustlessDealOpen(hand=public.hand_number, attempt=public.attempt, dealer=public.dealer, deck_size=32,
                              deck=0), "bad-deal-open"),  # the deck of the hand before
    ]
    seat = table.seats[0]
    for payload, reason in wrong:
        seq, raw = _host_envelope(table, payload)
        with pytest.raises(HostBrokeProtocol) as err:
            seat.receive(seq, raw)
        assert err.value.reason == reason, payload
        seat.chain_seq -= 1  # (receive takes the entry before its handler refuses it: undo that for the next try)
        seat.chain_head = table.host.chain[-1].hash
        seat.record.pop()


# ---------------------------------------------------------------------------------------------- tampered records


@pytest.fixture(scope="module")
def match() -> LocalTable:
    table = _table("bavarian", 2, seed=4)
    table.play()
    return table


def _ahead(chain: Chain, indices: dict[int, list[int]]) -> int:
    """A relay of a deck prepared ahead: in the chain before its attempt opened, after an earlier attempt did."""
    for d in sorted(indices):
        if d >= 1 and d < len(chain.opens):
            j = indices[d][-1]
            assert chain.opens[d - 1] < j < chain.opens[d]
            return j
    raise AssertionError("no deck was prepared ahead")


def _with_inner(match: LocalTable, entries: list[Any], index: int, message: bytes) -> list[Any]:
    inner = parse_envelope(signed(entries[index]).payload.envelope, host=False)
    forged = client_envelope(match.seats[inner.sender].key, inner.raw, lambda p: setattr(p, "message", message))
    return edit_host(entries, index, lambda p: setattr(p, "envelope", forged), match.host.host_key)


def test_a_tampered_shuffle_of_a_prepared_deck_fails_at_its_envelope_and_names_the_seat(match: LocalTable) -> None:
    entries = match.host_entries()
    chain = _read(match)
    index = _ahead(chain, chain.shuffles)
    inner = chain.inner[index]
    message = ShuffleMessage.from_bytes(inner.payload.message)
    deck = list(message.deck)
    deck[0], deck[1] = deck[1], deck[0]
    record = _with_inner(match, entries, index, dataclasses.replace(message, deck=tuple(deck)).to_bytes())
    assert _first_error(record) == (index + 1, "bad-shuffle-proof", inner.sender)


def test_a_tampered_key_share_of_a_prepared_deck_fails_at_its_envelope_and_names_the_seat(match: LocalTable) -> None:
    entries = match.host_entries()
    chain = _read(match)
    index = _ahead(chain, chain.keys)
    inner = chain.inner[index]
    message = KeyShareMessage.from_bytes(inner.payload.message)
    proof = SchnorrProof(message.proof.commitment, (message.proof.response + 1) % L)
    record = _with_inner(match, entries, index, dataclasses.replace(message, proof=proof).to_bytes())
    assert _first_error(record) == (index + 1, "bad-key-proof", inner.sender)
    # A key share of another deck (the one before), relayed for this one: bound to its deck, it does not verify.
    other = _read(match).keys[int(inner.payload.deck) - 1]
    old = next(chain.inner[j] for j in other if chain.inner[j].sender == inner.sender)
    record = _with_inner(match, entries, index, bytes(old.payload.message))
    envelope, reason, seat = _first_error(record)
    assert (envelope, reason, seat) == (index + 1, "wrong-context", inner.sender)


def test_a_changed_deck_preparation_or_deck_number_fails_where_it_is(match: LocalTable) -> None:
    entries = match.host_entries()
    chain = _read(match)
    index = chain.prepares[1]

    def reorder(p: Any) -> None:
        p.shuffle_order[:] = list(reversed(p.shuffle_order))

    assert _first_error(edit_host(entries, index, reorder, match.host.host_key))[:2] == (index + 1, "deal-mismatch")
    opened = chain.opens[1]

    def reuse(p: Any) -> None:
        p.deck = 0

    assert _first_error(edit_host(entries, opened, reuse, match.host.host_key))[:2] == (opened + 1, "deal-mismatch")


def _queued(seat: Any, kind: str) -> list[bytes]:
    return [raw for raw in seat.outbox if parse_envelope(raw, host=False).type == kind]


def test_a_seat_catching_up_keeps_every_share_it_still_owes_and_drops_those_answered() -> None:
    """After a host restart a seat catches up from a snapshot and prunes its queue (`SeatGame.keep_only`). The host's
    one current step cannot name every ShareRequest waiting for this seat's shares, and it never asks twice: each
    share still owed must stay queued; one the chain shows answered must go (sent again it would be refused)."""
    table = _table("bavarian", 4, seed=2)
    caught = _drive(table, intercept=lambda s, env: env.type == "DecryptionShares"
                    and len(_queued(table.seats[s], "DecryptionShares")) >= 2)
    assert caught is not None, "a seat queues the shares of several ShareRequests at once"
    seat = table.seats[caught[0]]
    owed = _queued(seat, "DecryptionShares")
    seat.keep_only(None)  # the host's step names no message of this seat's (it waits for several)
    assert _queued(seat, "DecryptionShares") == owed

    first = seat.next_automatic()
    assert first is not None and parse_envelope(first, host=False).type == "DecryptionShares"
    table.deliver(table.host.submit(seat.seat, first))
    seat.accepted(first)
    seat.outbox.insert(0, first)  # as if the restart came before the client heard its first answer was taken
    seat.keep_only(None)
    assert first not in seat.outbox, "a share the chain shows answered is not sent again"
    assert len(_queued(seat, "DecryptionShares")) == len(owed) - 1
    table.play()
    _verify_all(table)
