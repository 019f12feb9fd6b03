"""The host's refusals of a misbehaving client in a trustless game (deal/level2.py), each driven by a hostile client
that signs a crafted envelope with its own key on its own chain, checked for its exact reason (and the seat blamed
where the refusal proves a cheat). `watten-verify` replays a record through this same code.

A two-player match (three where a share must come from more than one other seat), stepped: every seat answers by
itself except what `hold` keeps back, and the game actions are the seats' own random legal ones.
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

RULES = Rules.preset("bavarian", players=2).with_flag("target", "3")


class Table(LocalTable):
    def run(self, hold: Callable[[int, Any], bool] = lambda seat, signed: False,
            until: Callable[[Table], bool] = lambda t: False, max_steps: int = 2000) -> None:
        """Answer automatically (except `hold`), take random legal actions, until `until` holds."""
        if self.host.phase == "new":
            self.deliver(self.host.start())
        for _ in range(max_steps):
            if until(self):
                return
            moved = False
            for seat in self.seats:
                while (raw := seat.next_automatic()) is not None:
                    if hold(seat.seat, parse_envelope(raw, host=False)):
                        break
                    self.deliver(self.host.submit(seat.seat, raw))
                    seat.accepted(raw)
                    moved = True
            if moved or until(self):
                continue
            phase, waiting = self.host.waiting_for()
            assert phase == "play" and waiting, (phase, waiting)
            s = self.seats[waiting[0]]
            raw = s.action(self.rng.choice(s.legal_actions()))
            self.deliver(self.host.submit(s.seat, raw))
            s.accepted(raw)
        raise AssertionError("the state never came")

    def envelope(self, seat: int, payload: Any) -> bytes:
        s = self.seats[seat]
        return make_envelope(s.key, self.host.game_id, s.my_seq + 1, s.my_head, seat, payload)

    def refused(self, seat: int, payload: Any, reason: str, words: str = "", kind: str = "precondition",
                blamed: int | None = None) -> ProtocolError:
        chain = len(self.host.chain)
        with pytest.raises(ProtocolError) as err:
            self.host.submit(seat, self.envelope(seat, payload))
        assert (err.value.code, err.value.reason) == (kind, reason), err.value
        assert words in err.value.message, err.value.message
        if blamed is not None:
            assert err.value.seat == blamed, err.value.seat
        assert len(self.host.chain) == chain
        return err.value


def _table(players: int = 2, seed: int = 51) -> Table:
    return Table(RULES if players == 2 else Rules.preset("bavarian", players=players).with_flag("target", "3"),
                 seed=seed, deal="trustless")


def _deal(seat: SeatGame) -> Any:
    assert seat.trustless is not None and seat.trustless.deal is not None
    return seat.trustless.deal


# ---------------------------------------------------------------------- key shares and shuffles
def test_key_shares_for_another_seat_another_deck_or_twice() -> None:
    t = _table()
    t.run(hold=lambda seat, s: seat == 1 and s.type == "KeyShare",
          until=lambda t: any(p.type == "DeckPrepare" for p in t.host.chain))
    t.run(hold=lambda seat, s: seat == 1 and s.type == "KeyShare", until=lambda t: not t.seats[0].outbox)
    held = next(parse_envelope(r, host=False) for r in t.seats[1].outbox)
    assert held.type == "KeyShare"
    share = held.payload
    t.refused(1, pb.KeyShare(deck=share.deck, seat=0, message=share.message), "wrong-seat",
              "names another seat than its sender", kind="permission")
    t.refused(1, pb.KeyShare(deck=share.deck + 5, seat=1, message=share.message), "unexpected-message",
              "is not being prepared")
    mine = next(parse_envelope(p.payload.envelope, host=False) for p in (
        parse_envelope(q.raw, host=True) for q in t.host.chain if q.type == "Relay")
        if parse_envelope(p.payload.envelope, host=False).type == "KeyShare")
    assert mine.sender == 0
    t.refused(0, mine.payload, "unexpected-message", "you have sent your key share already")
    # a shuffle before every key share is in is out of turn
    t.refused(0, pb.Shuffle(deck=share.deck, seat=0, message=b"\x00"), "out-of-turn", "not your turn to shuffle")
    # a key share whose bytes do not parse is refused and blames its sender
    t.refused(1, pb.KeyShare(deck=share.deck, seat=1, message=b"\x01junk"), "malformed", kind="invalid", blamed=1)


# ---------------------------------------------------------------------- decryption shares
def _asked(players: int = 2) -> tuple[Table, int, Any]:
    """A table waiting for seat `giver`'s answer to the first ShareRequest "deal" of another seat."""
    t = _table(players)

    def holding(seat: int, s: Any) -> bool:
        return s.type == "DecryptionShares" and seat == giver[0] and _is_deal(t, s)

    giver = [1]
    t.run(hold=holding, until=lambda t: any(
        parse_envelope(r, host=False).type == "DecryptionShares" and _is_deal(t, parse_envelope(r, host=False))
        for r in t.seats[giver[0]].outbox))
    raw = next(r for r in t.seats[giver[0]].outbox if parse_envelope(r, host=False).type == "DecryptionShares")
    return t, giver[0], parse_envelope(raw, host=False).payload


def _is_deal(t: Table, s: Any) -> bool:
    request = next((parse_envelope(p.raw, host=True).payload for p in t.host.chain if p.hash == s.payload.request_hash),
                   None)
    return request is not None and str(request.why) == "deal"


def test_decryption_shares_that_answer_nothing_asked() -> None:
    t, giver, answer = _asked()
    wrong = pb.DecryptionShares()
    wrong.CopyFrom(answer)
    wrong.attempt += 1
    t.refused(giver, wrong, "wrong-hand", "another hand or attempt")
    wrong.CopyFrom(answer)
    wrong.seat = 1 - giver
    t.refused(giver, wrong, "wrong-seat", "names another seat than its sender", kind="permission")
    wrong.CopyFrom(answer)
    wrong.request_hash = bytes(32)
    t.refused(giver, wrong, "unexpected-message", "the shares answer no open share request")
    wrong.CopyFrom(answer)
    del wrong.shares[:]
    t.refused(giver, wrong, "bad-payload", "no shares in the answer", kind="invalid")


def test_decryption_shares_in_any_order_are_accepted() -> None:
    """Each share names its position, so the order of an answer carries nothing (docs/trustless.md §T10): the host
    takes the shares of a deal request in reverse order as it takes them in the request's order."""
    t, giver, answer = _asked()
    assert len(answer.shares) > 1
    backwards = pb.DecryptionShares()
    backwards.CopyFrom(answer)
    del backwards.shares[:]
    backwards.shares.extend(reversed(answer.shares))
    chain = len(t.host.chain)
    t.host.submit(giver, t.envelope(giver, backwards))
    relay = parse_envelope(t.host.chain[chain].raw, host=True)
    assert relay.type == "Relay" and relay.payload.seat == giver
    assert list(parse_envelope(relay.payload.envelope, host=False).payload.shares) == list(backwards.shares)


def test_decryption_shares_of_positions_not_asked_or_not_due_sealed() -> None:
    t, giver, answer = _asked()
    deal = _deal(t.seats[giver])
    asked = {int(k) for k in next(parse_envelope(p.raw, host=True).payload for p in t.host.chain
                                  if p.hash == answer.request_hash).positions}
    recipient = 1 - giver
    other = next(k for k in range(32) if k not in asked and k not in t.seats[giver].my_positions)
    stray = pb.DecryptionShares(hand=answer.hand, attempt=answer.attempt, seat=giver, request_hash=answer.request_hash,
                                shares=[deal.delivery_share(other, recipient).to_bytes()])
    t.refused(giver, stray, "not-asked", f"position {other} is not asked for here", blamed=giver)
    twice = pb.DecryptionShares()
    twice.CopyFrom(answer)
    twice.shares.append(answer.shares[0])
    t.refused(giver, twice, "not-asked", "is not asked for here", blamed=giver)
    k = min(asked)
    sealed = pb.DecryptionShares(hand=answer.hand, attempt=answer.attempt, seat=giver,
                                 request_hash=answer.request_hash,
                                 sealed=[pb.SealedShare(position=k, recipient=giver, box=b"\x01" * 80)])
    t.refused(giver, sealed, "not-asked", f"a sealed share for position {k} is not due", blamed=giver)
    sealed.sealed[0].recipient = recipient
    t.refused(giver, sealed, "unexpected-message", f"no sealed share of position {k} is due")
    t.refused(recipient, pb.DecryptionShares(hand=answer.hand, attempt=answer.attempt, seat=recipient,
                                             request_hash=answer.request_hash, shares=list(answer.shares)),
              "own-card", "never shares the cards dealt to itself", blamed=recipient)


def test_a_decryption_share_that_does_not_verify_blames_its_sender() -> None:
    t, giver, answer = _asked()
    bad = pb.DecryptionShares()
    bad.CopyFrom(answer)
    bad.shares[0] = b"\x02junk"
    t.refused(giver, bad, "malformed", kind="invalid", blamed=giver)


def test_a_position_shared_twice() -> None:
    """Three players: the recipient's card needs both others' shares; one that has given its share gives it again
    before the other has answered."""
    t = _table(3, seed=52)
    first: dict[str, Any] = {}

    def holding(seat: int, s: Any) -> bool:
        if s.type != "DecryptionShares" or not _is_deal(t, s):
            return False
        if not first:
            first["seat"], first["answer"] = seat, s.payload
            return False
        return bool(s.payload.request_hash == first["answer"].request_hash) and seat != first["seat"]

    t.run(hold=holding, until=lambda t: bool(first) and any(
        parse_envelope(r, host=False).type == "DecryptionShares"
        and parse_envelope(r, host=False).payload.request_hash == first["answer"].request_hash
        for s in t.seats if s.seat != first["seat"] for r in s.outbox))
    t.refused(first["seat"], first["answer"], "unexpected-message", "you have shared position")


# ---------------------------------------------------------------------- openings of played cards
def _to_play() -> tuple[Table, SeatGame, str, Any]:
    """A table where a seat is to play a card: the seat, the card action, and its honest opening."""
    t = _table(seed=53)

    def a_card_to_play(t: Table) -> bool:
        phase, waiting = t.host.waiting_for()
        return phase == "play" and bool(waiting) and any(
            a.startswith("play ") for a in t.seats[waiting[0]].legal_actions())

    t.run(until=a_card_to_play)
    seat = t.seats[t.host.waiting_for()[1][0]]
    action = next(a for a in seat.legal_actions() if a.startswith("play "))
    request = parse_envelope(seat.action(action), host=False).payload
    return t, seat, action, request


def _play(t: Table, seat: SeatGame, request: Any, change: Callable[[Any], None]) -> Any:
    out = pb.ActionRequest()
    out.CopyFrom(request)
    out.chain_seq, out.chain_head = seat.chain_seq, seat.chain_head
    change(out)
    return out


def test_a_played_card_with_a_bad_opening() -> None:
    t, seat, action, request = _to_play()
    me = seat.seat
    k = int(request.openings[0].position)

    def misplaced(r: Any) -> None:
        r.openings[0].shares.append(r.openings[0].shares[0])  # the same seat's share twice

    t.refused(me, _play(t, seat, request, misplaced), "bad-opening", f"a share in the opening of {k} is misplaced",
              kind="invalid", blamed=me)

    def without_own(r: Any) -> None:
        del r.openings[0].shares[:]

    t.refused(me, _play(t, seat, request, without_own), "no-opening", "lacks your own share", kind="invalid",
              blamed=me)

    def others_share(r: Any) -> None:
        other = t.seats[1 - me]
        r.openings[0].shares.append(_deal(other).delivery_share(k, me).to_bytes())

    t.refused(me, _play(t, seat, request, others_share), "bad-opening", "was never sealed to you", blamed=me)

    def another_card(r: Any) -> None:
        card = r.openings[0].card
        r.openings[0].card = "EA" if card != "EA" else "LA"
        r.action = "play " + r.openings[0].card

    t.refused(me, _play(t, seat, request, another_card), "opening-mismatch", "holds another card", blamed=me)

    def twice(r: Any) -> None:
        r.openings.append(r.openings[0])

    t.refused(me, _play(t, seat, request, twice), "bad-opening", f"position {k} is opened twice", kind="invalid")

    def no_card(r: Any) -> None:
        r.openings[0].card = "ZZ"

    t.refused(me, _play(t, seat, request, no_card), "bad-card", "'ZZ' is no card", kind="invalid")

    def garbage_share(r: Any) -> None:
        r.openings[0].shares[0] = b"\x03junk"

    t.refused(me, _play(t, seat, request, garbage_share), "malformed", kind="invalid", blamed=me)
    assert action.startswith("play ")


def test_a_played_card_whose_action_and_opening_disagree() -> None:
    t, seat, action, request = _to_play()
    me = seat.seat

    def no_opening(r: Any) -> None:
        del r.openings[:]

    t.refused(me, _play(t, seat, request, no_opening), "no-position", "exactly one opening")

    def misspelt_without_opening(r: Any) -> None:
        r.action = "play XX"
        del r.openings[:]

    # The spelling is judged first, as in Level 1: `play XX` is `bad-card` whatever its openings.
    t.refused(me, _play(t, seat, request, misspelt_without_opening), "bad-card", "no card", kind="invalid")

    def unnamed(r: Any) -> None:
        r.action = "play"

    t.refused(me, _play(t, seat, request, unnamed), "malformed", "names no card", kind="invalid")

    def other_card(r: Any) -> None:
        r.action = "play EA" if action != "play EA" else "play LA"

    t.refused(me, _play(t, seat, request, other_card), "opening-mismatch", "but opens")

    def opening_on_a_fold(r: Any) -> None:
        r.action = "fold"

    t.refused(me, _play(t, seat, request, opening_on_a_fold), "malformed",
              "only a played card, a Maschine and a hand-end opening carry openings", kind="invalid")


@pytest.mark.slow
def test_an_opening_that_lacks_a_share_sealed_to_its_owner() -> None:
    """Three players, a card its owner saw at Schlecken: the others' shares of it were sealed to the owner, and an
    opening without them cannot be decrypted."""
    for seed in range(60, 80):
        t = _table(3, seed=seed)
        try:
            t.run(until=lambda t: _sealed_card_playable(t) is not None, max_steps=400)
        except AssertionError:
            continue  # (this seed's match ends without such a play)
        found = _sealed_card_playable(t)
        assert found is not None
        seat, action = found
        request = parse_envelope(seat.action(action), host=False).payload
        out = pb.ActionRequest()
        out.CopyFrom(request)
        assert len(out.openings[0].shares) > 1
        del out.openings[0].shares[1:]  # the owner's share only
        t.refused(seat.seat, out, "incomplete-opening", "lacks a share", blamed=seat.seat)
        return
    raise AssertionError("no seed in range gave a card seen at Schlecken that its owner plays")


def _sealed_card_playable(t: Table) -> tuple[SeatGame, str] | None:
    phase, waiting = t.host.waiting_for()
    if phase != "play" or not waiting:
        return None
    seat = t.seats[waiting[0]]
    tl = seat.trustless
    if tl is None:
        return None
    for action in seat.legal_actions():
        if not action.startswith("play "):
            continue
        k = next((p for p, c in tl.known.items() if c == action[5:]), None)
        if k is not None and tl.sealed_in.get(k):
            return seat, action
    return None


def test_no_game_action_while_cards_are_being_dealt() -> None:
    t, giver, _ = _asked()
    seat = t.seats[1 - giver]
    t.refused(seat.seat, pb.ActionRequest(action="fold", chain_seq=seat.chain_seq, chain_head=seat.chain_head),
              "dealing", "cards are still being dealt: wait until every decryption share is in")


def test_decryption_shares_after_the_attempt_is_closed() -> None:
    """At the checkpoint after a hand (the next deck may be prepared then, so dealing messages are taken), shares for
    the finished attempt answer nothing."""
    t = _table()
    t.run(hold=lambda seat, s: seat == 1 and s.type == "CheckpointSignature",
          until=lambda t: t.host.phase == "checkpoint")
    dealer = t.host.trustless_dealing
    assert dealer is not None and dealer.current.closed
    seat = t.seats[0]
    t.refused(0, pb.DecryptionShares(hand=dealer.current.hand, attempt=dealer.current.attempt, seat=0,
                                     request_hash=bytes(32), shares=[b"\x01"]),
              "unexpected-message", "DecryptionShares: no deal attempt is open")
    assert seat.chain_seq == len(t.host.chain)


@pytest.mark.slow
def test_a_public_share_of_a_card_its_sender_has_seen() -> None:
    """A seat that saw a card at Schlecken must seal its share of it to the recipient: a public one would open the
    card to everyone (the other shares are public already)."""
    for seed in range(60, 90):
        t = _table(3, seed=seed)
        try:
            t.run(hold=lambda seat, s: s.type == "DecryptionShares" and bool(s.payload.sealed),
                  until=lambda t: any(parse_envelope(r, host=False).type == "DecryptionShares"
                                      and parse_envelope(r, host=False).payload.sealed
                                      for s in t.seats for r in s.outbox), max_steps=400)
        except AssertionError:
            continue  # (no card seen at Schlecken went to another seat in this match)
        seat, raw = next((s, r) for s in t.seats for r in s.outbox
                         if parse_envelope(r, host=False).type == "DecryptionShares"
                         and parse_envelope(r, host=False).payload.sealed)
        answer = parse_envelope(raw, host=False).payload
        entry = answer.sealed[0]
        public = _deal(seat).delivery_share(int(entry.position), int(entry.recipient))
        t.refused(seat.seat, pb.DecryptionShares(hand=answer.hand, attempt=answer.attempt, seat=seat.seat,
                                                 request_hash=answer.request_hash, shares=[public.to_bytes()]),
                  "must-seal", "a public share would open it to everyone", blamed=seat.seat)
        return
    raise AssertionError("no seed in range gave a sealed share")
