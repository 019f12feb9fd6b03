"""The defences of a seat in a trustless game (deal/level2_seat.py) driven through their failing branches: a hostile
host crafts one envelope (or relays one a seat signed differently), signs it with its own key on the right link, and
hands it to seat 0 as it stood right before that chain entry in an honest game. Each case checks the exact reason.

Two players keep the game small (a whole match in about half a second); seat 0's state before each chain entry is a
deep copy taken while the honest game was played.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from unittest import mock

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.host_game import Posted
from watten_net.deal.protocol import ProtocolError, make_envelope, parse_envelope
from watten_net.deal.seat import SeatGame
from watten_net.engine import Rules
from watten_net.refusal import HostBrokeProtocol
from watten_net.v1 import watten_pb2 as pb

import local_table
from local_table import LocalTable

RULES = Rules.preset("bavarian", players=2).with_flag("target", "3")
ME = 0


class _DrawnKeys:
    rng = random.Random(5)

    @classmethod
    def generate(cls) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(cls.rng.randbytes(32))


@dataclass
class Recorded(LocalTable):
    """An honest trustless game that keeps seat 0 as it stood before each chain entry it received."""

    before: dict[int, SeatGame] = field(default_factory=dict)  # chain index -> seat 0 before it

    def __post_init__(self) -> None:
        super().__post_init__()
        for seat in self.seats:  # each seat draws from its own generator, which a deep copy carries on
            seat.random_bytes = random.Random(f"seat-{seat.seat}").randbytes

    def deliver(self, posted: list[Posted]) -> None:
        for p in posted:
            self.before[p.seq - 1] = copy.deepcopy(self.seats[ME])
            super().deliver([p])


@dataclass
class Game:
    table: Recorded

    @property
    def chain(self) -> list[Posted]:
        return list(self.table.host.chain)

    def payload(self, i: int) -> Any:
        env = pb.Envelope.FromString(self.chain[i].raw)
        return getattr(pb, env.type).FromString(env.payload)

    def inner(self, i: int) -> Any:
        """The envelope a Relay at i carries, parsed."""
        return parse_envelope(bytes(self.payload(i).envelope), host=False)

    def index(self, kind: str, nth: int = 0, where: Callable[[Any], bool] = lambda p: True) -> int:
        """The nth chain entry of `kind`: a host type, or "Relay/<inner type>"."""
        found = []
        for i, p in enumerate(self.chain):
            if kind.startswith("Relay/"):
                if p.type == "Relay" and self.inner(i).type == kind[6:] and where(self.inner(i).payload):
                    found.append(i)
            elif p.type == kind and where(self.payload(i)):
                found.append(i)
        return found[nth]

    def seat_before(self, i: int) -> SeatGame:
        return copy.deepcopy(self.table.before[i])

    def forge(self, i: int, payload: Any) -> bytes:
        host = self.table.host
        return make_envelope(host.host_key, host.game_id, i + 1, self.chain[i - 1].hash, -1, payload)

    def signed_by(self, seat: int, payload: Any, key: Ed25519PrivateKey | None = None) -> bytes:
        return make_envelope(key or self.table.seats[seat].key, self.table.host.game_id, 90, bytes(32), seat, payload)


@cache
def _game() -> Game:
    _DrawnKeys.rng.seed(5)
    with mock.patch.object(local_table, "Ed25519PrivateKey", _DrawnKeys):
        table = Recorded(RULES, seed=5, deal="trustless")
    table.play()
    return Game(table)


@pytest.fixture
def game() -> Game:
    return _game()


def _caught(game: Game, i: int, payload: Any, reason: str, words: str = "") -> HostBrokeProtocol:
    seat = game.seat_before(i)
    with pytest.raises(HostBrokeProtocol) as err:
        seat.receive(i + 1, game.forge(i, payload))
    assert err.value.reason == reason, err.value
    assert words in err.value.message, err.value.message
    return err.value


def test_the_honest_game_is_followed_from_a_snapshot(game: Game) -> None:
    """A snapshot is a faithful seat: from one taken after the last shuffle it follows the rest of the match without
    a problem. (Not from any earlier one: a deck being prepared draws its randomness through a closure that a deep
    copy shares with the original seat, so the copy's later shuffles would differ from the ones in the chain.)"""
    last_shuffle = max(i for i, p in enumerate(game.chain) if p.type == "Relay" and game.inner(i).type == "Shuffle")
    i = next(j for j in range(last_shuffle, len(game.chain))
             if game.chain[j].type == "ActionAccepted" and game.payload(j).openings)
    seat = game.seat_before(i)
    for p in game.chain[i:]:
        p.deliver_to(seat)
    assert not seat.problems and seat.finished and seat.trustless is not None


# ---------------------------------------------------------------------- preparing and opening decks
@pytest.mark.parametrize("change", ["deck", "size", "order"])
def test_a_deck_preparation_other_than_the_protocols(game: Game, change: str) -> None:
    i = game.index("DeckPrepare")
    prepare = game.payload(i)
    if change == "deck":
        prepare.deck += 1
    elif change == "size":
        prepare.deck_size = 33
    else:
        prepare.shuffle_order[:] = list(reversed(prepare.shuffle_order))
    _caught(game, i, prepare, "bad-deck-prepare", "is not the one the protocol gives")


@pytest.mark.parametrize("change", ["dealer", "deck", "hand", "size"])
def test_a_deal_opening_other_than_the_rules(game: Game, change: str) -> None:
    i = game.index("TrustlessDealOpen")
    opening = game.payload(i)
    if change == "dealer":
        opening.dealer = 1 - opening.dealer
    elif change == "deck":
        opening.deck += 1
    elif change == "hand":
        opening.hand += 1
    else:
        opening.deck_size = 36
    _caught(game, i, opening, "bad-deal-open", "is not the one the rules give")


# ---------------------------------------------------------------------- relayed key shares, shuffles, shares
def test_a_relayed_key_share_for_a_deck_not_being_prepared(game: Game) -> None:
    i = game.index("Relay/KeyShare")
    inner = game.inner(i)
    share = inner.payload
    share.deck = 7
    raw = game.signed_by(inner.sender, share)
    _caught(game, i, pb.Relay(seat=inner.sender, envelope=raw), "bad-relay", "which is not being prepared")


def test_a_relayed_key_share_that_does_not_parse(game: Game) -> None:
    i = game.index("Relay/KeyShare", where=lambda p: p.seat != ME)
    inner = game.inner(i)
    share = inner.payload
    share.message = b"\x01junk"
    err = _caught(game, i, pb.Relay(seat=inner.sender, envelope=game.signed_by(inner.sender, share)), "malformed")
    assert err.seat == inner.sender


def test_a_relayed_shuffle_made_by_another_seat(game: Game) -> None:
    """Seat 1 relays, as its own, the shuffle message seat 0 made: the message is bound to its maker."""
    i = game.index("Relay/Shuffle", where=lambda p: p.seat != ME)
    mine = game.inner(game.index("Relay/Shuffle", where=lambda p: p.seat == ME)).payload
    inner = game.inner(i)
    shuffle = inner.payload
    shuffle.message = mine.message
    err = _caught(game, i, pb.Relay(seat=inner.sender, envelope=game.signed_by(inner.sender, shuffle)),
                  "wrong-context", "message names seat 0 but was sent by seat 1")
    assert err.seat == inner.sender


def test_relayed_decryption_shares_for_another_attempt(game: Game) -> None:
    i = game.index("Relay/DecryptionShares", where=lambda p: p.seat != ME)
    inner = game.inner(i)
    shares = inner.payload
    shares.attempt += 1
    _caught(game, i, pb.Relay(seat=inner.sender, envelope=game.signed_by(inner.sender, shares)), "bad-relay",
            "are not for this deal attempt")


def test_relayed_decryption_shares_that_speak_for_another_seat(game: Game) -> None:
    i = game.index("Relay/DecryptionShares", where=lambda p: p.seat != ME)
    inner = game.inner(i)
    shares = inner.payload
    shares.seat = ME
    _caught(game, i, pb.Relay(seat=inner.sender, envelope=game.signed_by(inner.sender, shares)), "bad-relay")


def test_relayed_decryption_shares_that_answer_no_share_request(game: Game) -> None:
    """The host relays shares of seat 1 that answer no ShareRequest of the chain (an honest host refuses them:
    unexpected-message), so it may publish a share nobody asked for; trustless.md §T10 has a seat stop there."""
    i = game.index("Relay/DecryptionShares", where=lambda p: p.seat != ME)
    inner = game.inner(i)
    shares = inner.payload
    shares.request_hash = bytes(32)
    _caught(game, i, pb.Relay(seat=inner.sender, envelope=game.signed_by(inner.sender, shares)), "bad-relay",
            "answer no open share request")


def test_relayed_decryption_shares_for_a_position_the_request_does_not_ask(game: Game) -> None:
    """Seat 1's answer to one request carries its share of a position that only a later request asks for."""
    first = game.index("Relay/DecryptionShares", where=lambda p: p.seat != ME and bool(p.shares))
    later = game.inner(game.index("Relay/DecryptionShares", nth=1, where=lambda p: p.seat != ME and bool(p.shares)))
    inner = game.inner(first)
    assert (later.payload.hand, later.payload.attempt) == (inner.payload.hand, inner.payload.attempt)
    shares = inner.payload
    shares.shares.append(later.payload.shares[0])
    _caught(game, first, pb.Relay(seat=inner.sender, envelope=game.signed_by(inner.sender, shares)), "bad-relay",
            "is not asked for")


def _sealed_caught(game: Game, box: Callable[[list[bytes]], bytes], words: str) -> None:
    """Seat 1 answers a deal request for seat 0 with its last share sealed, as it would if it had seen that card at
    Schlecken (the snapshot is told so), in a box `box` makes from the answer's public shares."""
    from watten_net.trustless.messages import DecryptionShareMessage

    i = game.index("Relay/DecryptionShares", where=lambda p: p.seat != ME and len(p.shares) > 1)
    inner = game.inner(i)
    shares = inner.payload
    public = [bytes(data) for data in shares.shares]
    position = DecryptionShareMessage.from_bytes(public[-1]).position
    del shares.shares[-1]
    shares.sealed.append(pb.SealedShare(position=position, recipient=ME, box=box(public)))
    seat = game.seat_before(i)
    assert seat.trustless is not None
    seat.trustless.asks.learnt.setdefault(position, set()).add(inner.sender)
    with pytest.raises(HostBrokeProtocol) as err:
        seat.receive(i + 1, game.forge(i, pb.Relay(seat=inner.sender, envelope=game.signed_by(inner.sender, shares))))
    assert (err.value.reason, err.value.seat) == ("bad-sealed-share", inner.sender), err.value
    assert words in err.value.message, err.value.message


def test_a_sealed_share_that_does_not_open(game: Game) -> None:
    _sealed_caught(game, lambda public: b"\x00" * 80, "does not open")


def test_a_sealed_share_for_another_position_than_it_says(game: Game) -> None:
    """A share sealed to this seat that opens, but to a share of another position than the entry names."""
    from watten_net.deal.level2_seat import seal_share

    key = game.table.seats[ME].roster_keys[ME]
    _sealed_caught(game, lambda public: seal_share(public[0], key, b"\x04" * 32), "is for another position")


# ---------------------------------------------------------------------- share requests
def _request(game: Game, why: str) -> tuple[int, Any]:
    i = game.index("ShareRequest", where=lambda p: p.why == why)
    return i, game.payload(i)


def test_a_share_request_for_another_attempt(game: Game) -> None:
    i, request = _request(game, "deal")
    request.attempt += 1
    _caught(game, i, request, "bad-share-request", "outside a dealt attempt")


def test_a_share_request_for_a_seat_that_does_not_exist(game: Game) -> None:
    i, request = _request(game, "deal")
    request.recipient = 5
    _caught(game, i, request, "bad-share-request", "there is no seat 5")


@pytest.mark.parametrize("why", ["deal", "see"])
def test_a_share_request_for_cards_the_recipient_may_not_see(game: Game, why: str) -> None:
    """The host asks this seat to open, for the other seat, positions the rules do not give it (this seat's own)."""
    i, request = _request(game, why)
    seat = game.seat_before(i)
    assert seat.trustless is not None
    other = 1 - ME
    request.recipient = other
    request.positions[:] = sorted(seat.trustless.match.positions_of(ME))[:1] or [31]
    _caught(game, i, request, "share-not-due", f"for seat {other}, which the rules do not give that seat now")


def test_a_share_request_for_an_unknown_purpose(game: Game) -> None:
    i, request = _request(game, "deal")
    request.why = "curiosity"
    _caught(game, i, request, "share-not-due")


def test_an_opening_request_the_rules_do_not_ask_for(game: Game) -> None:
    i, request = _request(game, "deal")
    request.why = "open"
    _caught(game, i, request, "bad-share-request", "which the rules do not ask for")


# ---------------------------------------------------------------------- accepted actions
def _play(game: Game, by: int | None = None) -> tuple[int, Any, Any]:
    """An accepted play with an opening (by seat `by`), its payload, and the seat's signed request in it."""
    i = game.index("ActionAccepted", where=lambda p: bool(p.openings) and (by is None or p.seat == by))
    accepted = game.payload(i)
    return i, accepted, parse_envelope(bytes(accepted.action_envelope), host=False)


def _resigned(game: Game, accepted: Any, request: Any, seat: int, key: Ed25519PrivateKey | None = None) -> Any:
    raw = make_envelope(key or game.table.seats[seat].key, game.table.host.game_id, 90, bytes(32), seat, request)
    accepted.action_envelope = raw
    return accepted


def test_an_action_taken_by_the_host_for_a_seat(game: Game) -> None:
    i, accepted, _ = _play(game)
    accepted.actor = "bot"
    _caught(game, i, accepted, "replay-mismatch", "nobody may act for a seat in a trustless game")
    accepted.actor = ""
    accepted.action_envelope = b""
    _caught(game, i, accepted, "replay-mismatch", "nobody may act for a seat in a trustless game")


def test_an_action_not_signed_by_its_seat(game: Game) -> None:
    i, accepted, inner = _play(game)
    forged = _resigned(game, accepted, inner.payload, inner.sender, key=Ed25519PrivateKey.generate())
    _caught(game, i, forged, "bad-signature", f"the action of seat {accepted.seat} is not signed by that seat")


def test_an_opening_share_for_another_position(game: Game) -> None:
    """The played card's opening carries a share of another position (borrowed from a later play)."""
    i, accepted, inner = _play(game)
    request = inner.payload
    later = [j for j in range(i + 1, len(game.chain)) if game.chain[j].type == "ActionAccepted"
             and game.payload(j).openings]
    assert later, "a later play to borrow a share from"
    donor = parse_envelope(bytes(game.payload(later[0]).action_envelope), host=False).payload
    assert donor.openings[0].position != request.openings[0].position
    request.openings[0].shares[0] = donor.openings[0].shares[0]
    err = _caught(game, i, _resigned(game, accepted, request, inner.sender), "bad-opening", "is for another position")
    assert err.seat == inner.sender


def test_an_opening_that_claims_another_card(game: Game) -> None:
    i, accepted, inner = _play(game)
    request = inner.payload
    claimed = request.openings[0].card
    request.openings[0].card = "EA" if claimed != "EA" else "LA"
    err = _caught(game, i, _resigned(game, accepted, request, inner.sender), "opening-mismatch",
                  f"claims {request.openings[0].card}")
    assert err.seat == inner.sender


def test_an_opening_without_the_owners_share(game: Game) -> None:
    i, accepted, inner = _play(game)
    request = inner.payload
    del request.openings[0].shares[:]
    _caught(game, i, _resigned(game, accepted, request, inner.sender), "bad-opening", "cannot be decrypted")


def test_an_opening_share_that_does_not_parse(game: Game) -> None:
    i, accepted, inner = _play(game)
    request = inner.payload
    request.openings[0].shares[0] = b"\x02junk"
    err = _caught(game, i, _resigned(game, accepted, request, inner.sender), "malformed", "opening of")
    assert err.seat == inner.sender


def test_the_host_shows_another_card_than_the_opening(game: Game) -> None:
    i, accepted, _ = _play(game)
    accepted.openings[0].card = "EA" if accepted.openings[0].card != "EA" else "LA"
    _caught(game, i, accepted, "replay-mismatch", "the host shows other cards than the openings give")


def test_the_host_reports_other_events_than_the_rules(game: Game) -> None:
    i, accepted, _ = _play(game)
    del accepted.events[-1]
    _caught(game, i, accepted, "replay-mismatch", "differ from the rules' replay")


def test_an_action_the_rules_refuse(game: Game) -> None:
    """The host accepts a seat's signed action that the rules refuse (here: a cut while cards are played)."""
    i, accepted, inner = _play(game)
    request = inner.payload
    request.action = "cut 9"
    del request.openings[:]
    accepted.action = "cut 9"
    del accepted.openings[:]
    _caught(game, i, _resigned(game, accepted, request, inner.sender), "replay-mismatch", "which the rules refuse")


def test_an_opening_before_any_deal(game: Game) -> None:
    i = game.index("TrustlessDealOpen")
    _, accepted, inner = _play(game)
    _caught(game, i, accepted, "replay-mismatch", "an opening before any deal")
    assert inner.payload.openings


# ---------------------------------------------------------------------- aborts and scores
def test_an_attempt_forfeited_for_a_seat_that_is_not_away(game: Game) -> None:
    i, _, _ = _play(game)
    seat = game.seat_before(i)
    _caught(game, i, pb.AttemptAborted(hand=seat.hand[0], attempt=seat.hand[1], reason="away", seat=1),
            "bad-abort", "the attempt is forfeited for seat 1, which is not away")


@pytest.mark.parametrize("reason", ["bessere-redeal", "host-says-so"])
def test_an_attempt_aborted_without_a_redeal_the_rules_give(game: Game, reason: str) -> None:
    """The host ends the attempt in play with a redeal nobody called for (bavarian has no redeal Bessere at all), or
    for a reason the protocol does not know. A Level 1 seat refuses this since bad-abort; a trustless seat took it
    without a look, gave up the attempt's deck and dropped the shares and actions it still owed for it."""
    i, _, _ = _play(game)
    seat = game.seat_before(i)
    _caught(game, i, pb.AttemptAborted(hand=seat.hand[0], attempt=seat.hand[1], reason=reason, seat=-1),
            "bad-abort", "without a redeal the rules give")


def test_a_forfeit_for_an_absence_when_no_hand_is_left_to_forfeit(game: Game) -> None:
    """The host stands seat 1 in after the match's last trick and then forfeits the finished hand for its absence."""
    i = game.index("HandEnd", nth=-1)
    seat = game.seat_before(i)
    host = game.table.host
    stand_in = make_envelope(host.host_key, host.game_id, i + 1, game.chain[i - 1].hash, -1,
                             pb.StandIn(seat=1, active=True))
    seat.receive(i + 1, stand_in)
    assert seat.trustless is not None
    m = seat.trustless.match
    aborted = make_envelope(host.host_key, host.game_id, i + 2, seat.chain_head, -1,
                            pb.AttemptAborted(hand=m.hand_number, attempt=m.attempt, reason="away", seat=1))
    with pytest.raises(HostBrokeProtocol) as err:
        seat.receive(i + 2, aborted)
    assert err.value.reason == "replay-mismatch" and "the forfeit cannot be replayed" in err.value.message


def test_a_hand_scored_otherwise_than_the_rules(game: Game) -> None:
    i = game.index("HandEnd")
    end = game.payload(i)
    end.scores[0] += 1
    _caught(game, i, end, "score-mismatch", "the host scores")


def test_a_card_the_seat_may_not_play_is_refused_before_it_leaves(game: Game) -> None:
    i, _, _ = _play(game, by=ME)
    seat = game.seat_before(i)
    assert seat.trustless is not None
    with pytest.raises(ProtocolError) as err:
        seat.action("play EA" if "play EA" not in seat.legal_actions() else "play LA")
    assert (err.value.code, err.value.reason) == ("precondition", "card-not-in-hand")
