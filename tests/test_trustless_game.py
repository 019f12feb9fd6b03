"""Whole trustless games (PROTOCOL.md Level 2) through HostGame, SeatGame and watten-verify, without the network.

`LocalTable(deal="trustless")`: the host knows no card, each seat decrypts its own. Honest matches must finish and
every record verify; nothing the host holds or posts may name a card before its owner opens it; live cheats are
refused with the right reason and seat; a broken obligation costs the hand; tampered records fail where they
were changed.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest

from watten_net.deal.host_game import HostGame
from watten_net.deal.protocol import HOST_SEAT, ProtocolError, Signed, event_from_pb, make_envelope, parse_envelope
from watten_net.engine import Rules, canonical_deck
from watten_net.refusal import HostBrokeProtocol
from watten_net.trustless import DealId, DealSetup, SeatDeal, TrustlessError
from watten_net.trustless.messages import DecryptionShareMessage, ShuffleMessage
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_entries

import local_table
from local_table import LocalTable
from tampering import _SeededKeys, client_envelope, drop, edit_host, host_indices, relay_indices, signed

# ---------------------------------------------------------------------------------------------- helpers


def _rules(preset: str = "bavarian", players: int = 2) -> Rules:
    return Rules.preset(preset, players=players).with_flag("target", "5")


def _table(preset: str = "bavarian", players: int = 2, seed: int = 0) -> LocalTable:
    with mock.patch.object(local_table, "Ed25519PrivateKey", _SeededKeys(seed)):
        table = LocalTable(_rules(preset, players), seed=seed, deal="trustless")
    table.deliver(table.host.start())
    return table


Intercept = Callable[[int, Signed], bool]


def _drive(table: LocalTable, *, intercept: Intercept | None = None,
           until: Callable[[LocalTable], bool] | None = None) -> tuple[int, bytes] | None:
    """Play on (automatic answers first, then random legal actions of the seat to move) until `until` holds, or
    until a seat is about to submit an automatic envelope that `intercept` picks: that one is returned unsent."""
    for _ in range(20_000):
        if table.host.finished or (until is not None and until(table)):
            return None
        moved = False
        for seat in table.seats:
            while (raw := seat.next_automatic()) is not None:
                if intercept is not None and intercept(seat.seat, parse_envelope(raw, host=False)):
                    return seat.seat, raw
                table.deliver(table.host.submit(seat.seat, raw))
                seat.accepted(raw)
                moved = True
        if moved:
            continue
        phase, waiting = table.host.waiting_for()
        assert phase == "play" and waiting, (phase, waiting)
        seat = table.seats[waiting[0]]
        raw = seat.action(table.rng.choice(seat.legal_actions()))
        table.deliver(table.host.submit(seat.seat, raw))
        seat.accepted(raw)
    raise AssertionError("the game did not get there")


def _submit(table: LocalTable, seat: int, raw: bytes) -> None:
    table.deliver(table.host.submit(seat, raw))
    table.seats[seat].accepted(raw)


def _refused(table: LocalTable, seat: int, raw: bytes) -> ProtocolError:
    chain = len(table.host.chain)
    with pytest.raises(ProtocolError) as caught:
        table.host.submit(seat, raw)
    assert len(table.host.chain) == chain  # nothing changed
    return caught.value


def _resigned(table: LocalTable, seat: int, raw: bytes, change: Callable[[Any], None]) -> bytes:
    return client_envelope(table.seats[seat].key, raw, change)


def _named_cards(payload: Any, kind: str) -> set[str]:
    """Every card a host envelope names in a structured field (openings, event fields)."""
    names: set[str] = set()
    if kind == "ActionAccepted":
        names |= {str(o.card) for o in payload.openings}
        for event in payload.events:
            _, _, data = event_from_pb(event)
            for key in ("card", "cards"):
                value = data.get(key)
                if isinstance(value, str):
                    names.add(value)
                elif isinstance(value, list):
                    names |= {str(v) for v in value}
    if kind == "Relay":
        inner = parse_envelope(bytes(payload.envelope), host=False)
        if inner.type == "ActionRequest":
            names |= {str(o.card) for o in inner.payload.openings}
    return names


def _check_secrecy(table: LocalTable) -> None:
    """No card is named in the chain before its owner opened it, the host keeps no seat secret, and no position
    ever had all of its shares published unless it was opened."""
    opened: set[str] = set()
    for posted in table.host.chain:
        s = parse_envelope(posted.raw, host=True)
        if s.type == "ActionAccepted":
            opened |= {str(o.card) for o in s.payload.openings}
            request = parse_envelope(bytes(s.payload.action_envelope), host=False).payload
            assert {str(o.card) for o in request.openings} == {str(o.card) for o in s.payload.openings}
        named = _named_cards(s.payload, s.type)
        assert named <= opened, (posted.seq, s.type, named - opened)
    dealer = table.host.trustless_dealing
    assert dealer is not None
    n = table.rules.players
    for attempt in dealer.attempts:
        deal = attempt.deal
        if deal.phase.value != "dealing":
            continue
        for k in range(table.rules.deck):
            if len(deal.shares_at(k)) == n:  # openable by anyone: must have been opened by its owner
                card = deal.open_card(k)
                assert card is not None
    seen: set[int] = set()

    def walk(value: Any, depth: int) -> None:
        if id(value) in seen or depth > 6:
            return
        seen.add(id(value))
        assert not isinstance(value, SeatDeal), "the host holds a seat's deal secret"
        if isinstance(value, dict):
            for item in value.values():
                walk(item, depth + 1)
        elif isinstance(value, list | tuple | set | frozenset):
            for item in value:
                walk(item, depth + 1)
        elif hasattr(value, "__dict__") and not isinstance(value, type):
            for name, item in vars(value).items():
                assert name != "_secret", f"the host holds a secret ({type(value).__name__})"
                walk(item, depth + 1)

    walk(table.host, 0)
    # Every unplayed card a seat held at the end of its last hand stays unnamed in the whole chain.
    for seat in table.seats:
        assert seat.trustless is not None
        unopened = set(seat.trustless.known.values()) - opened
        for posted in table.host.chain:
            s = parse_envelope(posted.raw, host=True)
            assert not _named_cards(s.payload, s.type) & unopened


def _verify_all(table: LocalTable) -> None:
    report = verify_entries(table.host_entries())
    assert report.ok, report.errors
    for seat in range(table.rules.players):
        report = verify_entries(table.seat_entries(seat))
        assert report.ok, (seat, report.errors)


# ---------------------------------------------------------------------------------------------- honest games

# Seeds picked for short matches; the bavarian ones see a Schlecken card kept and later dealt to another seat
# (a sealed share) and a hand-end opening.
GAMES = [("bavarian", 4, 2), ("bavarian", 2, 4), ("south-tyrolean", 2, 2), ("tyrolean", 3, 2)]


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "players", "seed"), GAMES, ids=[f"{p}-{n}p" for p, n, _ in GAMES])
def test_honest_trustless_matches_finish_and_every_record_verifies(preset: str, players: int, seed: int) -> None:
    table = _table(preset, players, seed)
    table.play()
    assert table.host.finished and table.host.public is not None and table.host.public.is_over
    assert table.host.match is None  # the host never had a Match (which needs the deck)
    types = {p.type for p in table.host.chain}
    assert {"TrustlessDealOpen", "ShareRequest", "HandEnd", "MatchEnd"} <= types
    assert not types & {"HandOpen", "CommitSet", "DeckSealed", "CardDelivery", "HostSeedReveal"}
    header = parse_envelope(table.host.chain[0].raw, host=True).payload
    assert header.settings.deal == "trustless"
    for seat in table.seats:
        assert seat.trustless is not None and not seat.problems
        assert seat.trustless.match.scores == table.host.public.scores
    if preset == "bavarian":
        whys = {parse_envelope(p.raw, host=True).payload.why for p in table.host.chain if p.type == "ShareRequest"}
        assert {"deal", "see"} <= whys
    _check_secrecy(table)
    _verify_all(table)


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "what"), [(0, "sealed"), (4, "open")])
def test_sealed_shares_and_hand_end_openings_happen_and_verify(seed: int, what: str) -> None:
    """The rarer paths of an honest match: a card seen at Schlecken and kept, later dealt to another seat (its share
    travels sealed), and an obligation opened at hand end. (Seeds chosen so that each occurs.)"""
    table = _table("bavarian", 4, seed)
    table.play()
    entries = table.host_entries()
    if what == "sealed":
        assert any(parse_envelope(signed(entries[i]).payload.envelope, host=False).payload.sealed
                   for i in relay_indices(entries, "DecryptionShares"))
    else:
        whys = {parse_envelope(p.raw, host=True).payload.why for p in table.host.chain if p.type == "ShareRequest"}
        assert "open" in whys
    _check_secrecy(table)
    _verify_all(table)


def test_the_host_of_a_trustless_game_refuses_what_it_cannot_run() -> None:
    key = mock.Mock()
    seats = [mock.Mock(join_nonce=bytes(32), public_key=bytes(32)) for _ in range(4)]
    with pytest.raises(ValueError, match="blind"):
        HostGame(Rules.preset("blind", players=4), seats, key, host_public_key=bytes(32), deal="trustless")
    with pytest.raises(ValueError, match="decks"):
        HostGame(Rules.preset("austrian", players=4), seats, key, host_public_key=bytes(32), deal="trustless")
    with pytest.raises(ValueError, match="deal must be"):
        HostGame(Rules.preset("bavarian", players=4), seats, key, host_public_key=bytes(32), deal="secret")


@pytest.mark.slow
def test_people_away_forfeit_the_hands_that_need_them_and_the_match_still_ends() -> None:
    rng = random.Random(3)
    table = _table("bavarian", 4, seed=3)
    absences = {rng.randrange(0, 150): (rng.randrange(4), rng.randrange(1, 60)) for _ in range(4)}
    table.play(absences=absences)
    while table.away:
        table.come_back(min(table.away))
    table.flush()
    assert table.host.finished
    aborted = [parse_envelope(p.raw, host=True).payload for p in table.host.chain if p.type == "AttemptAborted"]
    assert aborted and all(a.reason == "away" for a in aborted)
    assert any(e.kind == "forfeit" for e in table.host.public.events())  # type: ignore[union-attr]
    _verify_all(table)
    with pytest.raises(ProtocolError) as err:
        table.host.act_for(0, "keep")
    assert err.value.reason in ("not-trustless",)


@pytest.mark.slow
def test_a_seat_away_in_the_middle_of_a_hand_forfeits_it_at_its_current_value() -> None:
    table = _table("bavarian", 4, seed=2)
    _drive(table, until=lambda t: t.host.public is not None and t.host.public.phase == "play"
           and t.host.public.played_cards >= 2)
    public = table.host.public
    assert public is not None
    value, side = public.value, public.hand_sides[1]
    before = list(public.scores)
    posted = len(table.host.chain)
    table.go_away(1)
    last = [parse_envelope(p.raw, host=True) for p in table.host.chain[posted:]]
    assert [s.type for s in last[:2]] == ["StandIn", "AttemptAborted"]
    end = next(s.payload for s in last if s.type == "HandEnd")
    assert end.reason == "forfeit" and end.winner_side == 1 - side
    after = table.host.public
    assert after is not None
    assert sum(after.scores) - sum(before) == value  # (scores are per side)
    table.come_back(1)
    table.play()
    _verify_all(table)


# ---------------------------------------------------------------------------------------------- live cheats


def _is(kind: str, seat: int | None = None) -> Intercept:
    return lambda s, env: env.type == kind and (seat is None or s == seat)


@pytest.mark.slow
def test_a_shuffle_with_a_wrong_proof_is_refused_and_names_the_seat() -> None:
    table = _table()
    first = _drive(table, intercept=_is("Shuffle"))
    assert first is not None
    seat, raw = first
    honest = ShuffleMessage.from_bytes(parse_envelope(raw, host=False).payload.message)
    # A proof from another shuffle: the next seat's, made on the honest output.
    _submit(table, seat, raw)
    nxt = _drive(table, intercept=_is("Shuffle"))
    assert nxt is not None and nxt[0] != seat
    other = ShuffleMessage.from_bytes(parse_envelope(nxt[1], host=False).payload.message)
    forged = dataclasses.replace(other, proof=honest.proof)

    def change(p: Any) -> None:
        p.message = forged.to_bytes()

    err = _refused(table, nxt[0], _resigned(table, nxt[0], nxt[1], change))
    assert (err.reason, err.seat) == ("bad-shuffle-proof", nxt[0])
    _submit(table, *nxt)  # the honest one goes through, and the game goes on
    table.play()
    _verify_all(table)


@pytest.mark.parametrize("how", ["reordered", "replaced"])
def test_a_reordered_or_replaced_ciphertext_is_refused(how: str) -> None:
    table = _table(seed=1)
    caught = _drive(table, intercept=_is("Shuffle"))
    assert caught is not None
    seat, raw = caught
    message = ShuffleMessage.from_bytes(parse_envelope(raw, host=False).payload.message)
    deck = list(message.deck)
    if how == "reordered":
        deck[0], deck[1] = deck[1], deck[0]
    else:
        deck[3] = deck[4]
    forged = dataclasses.replace(message, deck=tuple(deck))

    def change(p: Any) -> None:
        p.message = forged.to_bytes()

    err = _refused(table, seat, _resigned(table, seat, raw, change))
    assert (err.reason, err.seat) == ("bad-shuffle-proof", seat)


def test_a_wrong_decryption_share_is_refused_and_names_the_seat() -> None:
    table = _table(seed=2)
    caught = _drive(table, intercept=_is("DecryptionShares"))
    assert caught is not None
    seat, raw = caught
    payload = parse_envelope(raw, host=False).payload
    first = DecryptionShareMessage.from_bytes(bytes(payload.shares[0]))
    deal = table.seats[seat].trustless.deal  # type: ignore[union-attr]
    assert deal is not None
    other = deal.delivery_share((first.position + 7) % table.rules.deck, 1 - seat)
    forged = dataclasses.replace(first, share=other.share)  # a real share, of another position

    def change(p: Any) -> None:
        p.shares[0] = forged.to_bytes()

    err = _refused(table, seat, _resigned(table, seat, raw, change))
    assert (err.reason, err.seat) == ("bad-decryption-proof", seat)


def test_a_proof_from_another_game_or_hand_is_refused() -> None:
    table = _table(seed=3)
    caught = _drive(table, intercept=_is("KeyShare", 0))
    assert caught is not None
    seat, raw = caught
    att = table.host.trustless_dealing.current  # type: ignore[union-attr]
    for game_id, hand in ((bytes(32), att.hand), (table.host.game_id, att.hand + 1)):
        setup = DealSetup(DealId(game_id, hand, att.attempt), 2, table.rules.deck, att.deal.setup.shuffle_order)
        stale = SeatDeal(setup, seat).key_share_message()

        def change(p: Any, data: bytes = stale.to_bytes()) -> None:
            p.message = data

        err = _refused(table, seat, _resigned(table, seat, raw, change))
        assert (err.reason, err.seat) == ("wrong-context", seat)
    # A decryption share of this hand, replayed in the next one.
    _submit(table, seat, raw)
    shares = _drive(table, intercept=_is("DecryptionShares"))
    assert shares is not None
    old_seat, old_raw = shares
    old = bytes(parse_envelope(old_raw, host=False).payload.shares[0])
    _submit(table, old_seat, old_raw)
    hand = table.host.public.hand_number  # type: ignore[union-attr]
    again = _drive(table, intercept=lambda s, env: env.type == "DecryptionShares" and s == old_seat
                   and env.payload.hand > hand)
    assert again is not None

    def replay(p: Any) -> None:
        p.shares[0] = old

    err = _refused(table, old_seat, _resigned(table, old_seat, again[1], replay))
    assert err.reason in ("wrong-context", "not-asked") and err.seat == old_seat


def _to_play(table: LocalTable) -> bool:
    public = table.host.public
    dealer = table.host.trustless_dealing
    return (public is not None and dealer is not None and public.phase == "play" and not dealer.dealing
            and public.raise_pending is None and not public.schadet_pending)


def test_a_card_played_from_another_seats_position_is_refused() -> None:
    table = _table(seed=4)
    _drive(table, until=_to_play)
    public = table.host.public
    assert public is not None
    seat = public.turn
    other = 1 - seat
    k = public.positions_of(other)[0]
    cheat = table.seats[seat]
    assert cheat.trustless is not None and cheat.trustless.deal is not None
    own = cheat.trustless.deal.opening_share(k)
    request = pb.ActionRequest(action="play EA", chain_seq=cheat.chain_seq, chain_head=cheat.chain_head,
                               openings=[pb.TrustlessOpening(position=k, card="EA", shares=[own.to_bytes()])])
    raw = make_envelope(cheat.key, cheat.game_id, cheat.my_seq + 1, cheat.my_head, seat, request)
    err = _refused(table, seat, raw)
    assert (err.reason, err.seat) == ("not-your-position", seat)
    # Its own position with another card than the one there: the decryption says so.
    mine = public.positions_of(seat)[0]
    real = cheat.trustless.known[mine]
    wrong = next(c for c in ("EA", "HK", "S7") if c != real)
    opening = cheat.trustless.opening(mine)
    opening.card = wrong
    request = pb.ActionRequest(action=f"play {wrong}", chain_seq=cheat.chain_seq, chain_head=cheat.chain_head,
                               openings=[opening])
    raw = make_envelope(cheat.key, cheat.game_id, cheat.my_seq + 1, cheat.my_head, seat, request)
    err = _refused(table, seat, raw)
    assert err.reason in ("opening-mismatch", "card-seen-twice") and err.seat == seat


def test_the_seats_refuse_a_second_packet_share_demanded_early() -> None:
    table = _table("bavarian", 4, seed=6)
    public = None

    def announcing(t: LocalTable) -> bool:
        p = t.host.public
        return p is not None and p.phase == "announce" and not t.host.trustless_dealing.dealing  # type: ignore

    _drive(table, until=announcing)
    public = table.host.public
    assert public is not None and public.stack
    forehand = public.forehand
    k = public.stack[0]  # the top of the stack: the forehand's second packet after the trump
    head = table.host.chain[-1]
    request = pb.ShareRequest(hand=public.hand_number, attempt=public.attempt, recipient=forehand, positions=[k],
                              why="deal")
    raw = make_envelope(table.host.host_key, table.host.game_id, head.seq + 1, head.hash, HOST_SEAT, request)
    for seat in table.seats:
        if seat.seat == forehand:
            continue
        outbox = list(seat.outbox)
        with pytest.raises(HostBrokeProtocol) as err:
            seat.receive(head.seq + 1, raw)
        assert err.value.reason == "share-not-due"
        assert seat.outbox == outbox  # no share left the seat


@pytest.mark.slow
def test_a_broken_obligation_costs_the_side_the_hand() -> None:
    for seed in (31, *range(40)):  # seed 31 is the first to give a seat the chance; the others only if it changes
        table = _table("bavarian", 4, seed=seed)

        def can_cheat(t: LocalTable) -> bool:
            if not _to_play(t):
                return False
            seat = t.seats[t.host.public.turn]  # type: ignore[union-attr]
            held = set(seat.cards.values())
            legal = {a[5:] for a in seat.legal_actions() if a.startswith("play ")}
            return bool(legal) and held != legal

        _drive(table, until=can_cheat)
        if table.host.finished:
            continue
        public = table.host.public
        assert public is not None
        seat = table.seats[public.turn]
        legal = {a[5:] for a in seat.legal_actions() if a.startswith("play ")}
        k, card = next((k, c) for k, c in seat.cards.items() if c not in legal)
        assert seat.trustless is not None
        request = pb.ActionRequest(action=f"play {card}", chain_seq=seat.chain_seq, chain_head=seat.chain_head,
                                   openings=[seat.trustless.opening(k)])
        raw = make_envelope(seat.key, seat.game_id, seat.my_seq + 1, seat.my_head, seat.seat, request)
        hand = public.hand_number
        side = public.hand_sides[seat.seat]
        _submit(table, seat.seat, raw)  # the host cannot tell: accepted, and recorded as an obligation
        _drive(table, until=lambda t, h=hand: t.host.public.hand_number != h or t.host.finished)  # type: ignore
        ends = [e for e in table.host.public.events() if e.kind == "hand-end"  # type: ignore[union-attr]
                and e.data["hand"] == hand]
        violations = ends[0].data.get("violations", [])
        assert [(v["seat"], v["reason"]) for v in violations] == [(seat.seat, "must-play-trump")] or any(
            v["seat"] == seat.seat for v in violations), violations
        assert ends[0].data["side"] != side
        table.play()
        _verify_all(table)
        return
    pytest.fail("no seed gave a chance to break the follow rule")


# ---------------------------------------------------------------------------------------------- tampered records


@pytest.fixture(scope="module")
def game() -> LocalTable:
    table = _table("bavarian", 2, seed=2)
    table.play()
    return table


def _first_error(record: Any) -> tuple[int, str, int | None]:
    report = verify_entries(record)
    assert not report.ok
    problem = report.errors[0]
    return problem.envelope, problem.reason, problem.seat


def test_a_relayed_shuffle_with_a_bad_proof_fails_at_its_envelope_and_names_the_seat(game: LocalTable) -> None:
    entries = game.host_entries()
    index = relay_indices(entries, "Shuffle")[1]
    inner = parse_envelope(signed(entries[index]).payload.envelope, host=False)
    message = ShuffleMessage.from_bytes(inner.payload.message)
    deck = list(message.deck)
    deck[0], deck[1] = deck[1], deck[0]
    forged = client_envelope(game.seats[inner.sender].key, inner.raw,
                             lambda p: setattr(p, "message", dataclasses.replace(message, deck=tuple(deck)).to_bytes()))
    record = edit_host(entries, index, lambda p: setattr(p, "envelope", forged), game.host.host_key)
    assert _first_error(record) == (index + 1, "bad-shuffle-proof", inner.sender)


def test_a_relayed_decryption_share_that_does_not_verify_fails_and_names_the_seat(game: LocalTable) -> None:
    entries = game.host_entries()
    index = relay_indices(entries, "DecryptionShares")[2]
    inner = parse_envelope(signed(entries[index]).payload.envelope, host=False)
    first = DecryptionShareMessage.from_bytes(bytes(inner.payload.shares[0]))
    other = DecryptionShareMessage.from_bytes(bytes(inner.payload.shares[-1]))
    assert first.share != other.share
    forged_share = dataclasses.replace(first, share=other.share).to_bytes()

    def change(p: Any) -> None:
        p.shares[0] = forged_share

    forged = client_envelope(game.seats[inner.sender].key, inner.raw, change)
    record = edit_host(entries, index, lambda p: setattr(p, "envelope", forged), game.host.host_key)
    assert _first_error(record) == (index + 1, "bad-decryption-proof", inner.sender)


def test_a_changed_opening_a_changed_score_and_a_dropped_request_fail_where_they_are(game: LocalTable) -> None:
    entries = game.host_entries()
    plays = host_indices(entries, "ActionAccepted", lambda p: len(p.openings) == 1)
    index = plays[3]

    def other_card(p: Any) -> None:
        p.openings[0].card = "EA" if p.openings[0].card != "EA" else "HK"

    envelope, reason, _ = _first_error(edit_host(entries, index, other_card, game.host.host_key))
    assert (envelope, reason) == (index + 1, "replay-mismatch")
    end = host_indices(entries, "HandEnd")[0]

    def more_points(p: Any) -> None:
        p.scores[0] += 1

    assert _first_error(edit_host(entries, end, more_points, game.host.host_key))[:2] == (end + 1, "score-mismatch")
    request = host_indices(entries, "ShareRequest")[1]
    assert _first_error(drop(entries, request))[:2] == (request + 1, "chain-link")

    def other_positions(p: Any) -> None:
        p.positions[0] = (p.positions[0] + 1) % 32

    assert _first_error(edit_host(entries, request, other_positions, game.host.host_key))[:2] == (
        request + 1, "deal-mismatch")
    # The record of a seat fails the same way (its copy of the chain is the same).
    seat_end = host_indices(game.seat_entries(0), "HandEnd")[0]
    report = verify_entries(edit_host(game.seat_entries(0), seat_end, more_points, game.host.host_key))
    assert not report.ok and report.errors[0].reason == "score-mismatch"


def test_a_trustless_error_is_never_anything_else() -> None:
    with pytest.raises(TrustlessError):
        ShuffleMessage.from_bytes(b"\x02" + bytes(10))


@pytest.mark.slow
def test_a_maschine_is_claimed_by_its_holder_by_itself() -> None:
    """The first shuffler's permutation is fixed (the others keep the order) so that, cut at 4 and kept, the
    forehand's first packet holds every Kritischer: its seat claims the Maschine as soon as it has all its cards."""
    rules = _rules("bavarian", 2)
    canonical = [c.text for c in canonical_deck(32)]
    kritische = [canonical.index(c.text) for c in rules.kritische_cards]
    rest = [j for j in range(32) if j not in kritische]
    stacked = (*rest[:4], *kritische, *rest[4:])  # positions 4.. are dealt first, from the forehand
    calls: list[int] = []

    def permutation(n: int, draw: Any) -> tuple[int, ...]:
        calls.append(n)
        return stacked if len(calls) == 1 else tuple(range(n))

    with mock.patch("watten_net.trustless.shuffle.random_permutation", permutation):
        table = _table("bavarian", 2, seed=0)
        _drive(table, until=lambda t: t.host.public is not None and t.host.public.phase == "cut")
        public = table.host.public
        assert public is not None
        cutter, forehand = public.cutter, public.forehand
        _submit(table, cutter, table.seats[cutter].action("cut 4"))
        _drive(table, until=lambda t: t.host.public.phase == "schlecken"  # type: ignore[union-attr]
               and not t.host.trustless_dealing.dealing)  # type: ignore[union-attr]
        _submit(table, cutter, table.seats[cutter].action("keep"))
        hand = public.hand_number
        _drive(table, until=lambda t: t.host.public.hand_number != hand)  # type: ignore[union-attr]
    end = next(e for e in table.host.public.events() if e.kind == "hand-end")  # type: ignore[union-attr]
    assert end.data["reason"] == "maschine" and forehand in end.data["seats"]
    claim = next(parse_envelope(p.raw, host=True).payload for p in table.host.chain if p.type == "ActionAccepted"
                 and parse_envelope(p.raw, host=True).payload.action == "maschine")
    assert claim.seat == forehand and {o.card for o in claim.openings} == {c.text for c in rules.kritische_cards}
    table.play()
    _verify_all(table)
