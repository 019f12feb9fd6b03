"""A hostile host against honest seats (PROTOCOL.md Level 1 version 2): each cheat is caught live by the honest
seat's own checks or by `watten-verify` on the honest seat's record.

The cheating hosts are test doubles of the real `HostGame` (subclasses or patches here, never in the product). The
attacks are the ones that rigged version 1 (a seat left out of a deal, seeds ground until a bot held the best
cards, a present seat called away so the host's bot played it) and their neighbours.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal import host_game, level1
from watten_net.deal import seat as seat_module
from watten_net.deal.envelope import envelope_hash
from watten_net.deal.host_game import HostGame, Posted, Seat
from watten_net.deal.identity import public_key_bytes
from watten_net.deal.keys import all_seeds
from watten_net.deal.protocol import ProtocolError, make_envelope, parse_envelope
from watten_net.deal.seat import SeatGame
from watten_net.engine import Rules
from watten_net.record import KIND_HOST, Entry
from watten_net.refusal import HostBrokeProtocol
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import verify_entries

from local_table import LocalTable

RULES = Rules.preset("bavarian", players=4).with_flag("target", "5")


def _fails(table: LocalTable, seat: int, reason: str) -> None:
    """The honest seat stops with `reason`, or its record fails `watten-verify` with it."""
    problems = table.seats[seat].problems
    if problems:
        return
    report = verify_entries(table.seat_entries(seat))
    assert not report.ok
    assert report.errors[0].reason == reason, report.errors


def _play_until_caught(table: LocalTable) -> str:
    """Play on until an honest seat's check fires; returns the reason."""
    try:
        table.play()
    except HostBrokeProtocol as err:  # (no refusal: the seat's own verdict on the host)
        return err.reason
    return ""


def test_a_deck_dealt_without_one_seats_key_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Version 1's rig: the host deals from its own bots' seeds only (here: seat 2's seed replaced by one the host
    chose). The seals then do not follow from every key: every seat catches it when k_H arrives, and the verifier
    fails the deck."""
    chosen = bytes(32)

    def without_seat_2(keys: list[bytes], game_id: bytes, hand: int, attempt: int) -> list[bytes]:
        seeds = all_seeds(keys, game_id, hand, attempt)
        return [*seeds[:2], chosen, *seeds[3:]]

    monkeypatch.setattr(level1, "all_seeds", without_seat_2)  # the host's dealer only: the seats check on their own
    table = LocalTable(RULES, seed=3)
    assert _play_until_caught(table) == "deal-mismatch"
    monkeypatch.undo()  # the verifier recomputes with the real derivation
    assert any("does not follow from every seat's game key" in p for p in table.seats[0].problems)
    report = verify_entries(table.host_entries()[: len(table.host.chain)])
    assert not report.ok and report.errors[0].reason == "deal-mismatch"
    assert report.errors[0].type in ("HandOpen", "DeckSealed")  # (the first dealer comes from the first deck too)


def test_a_host_key_other_than_the_committed_one_is_caught() -> None:
    """Grinding k_H after the seats' keys are known would choose every deck: K_H in the header forbids it."""
    table = LocalTable(RULES, seed=4)
    table.play()
    honest = table.host_entries()
    reveal = next(i for i, p in enumerate(table.host.chain) if p.type == "HostKeyReveal")
    forged = _resign(table, reveal, pb.HostKeyReveal(key=bytes(32)))
    report = verify_entries([*honest[:reveal], forged])
    assert not report.ok and report.errors[0].reason == "host-key-mismatch", report.errors
    live = LyingTable(RULES, seed=4)
    live.lie = lambda p: pb.HostKeyReveal(key=bytes(32)) if p.type == "HostKeyReveal" else None
    assert _play_until_caught(live) == "host-key-mismatch"


class LyingTable(LocalTable):
    """A host that re-signs some of its envelopes with other payloads before they reach the seats."""

    lie: Any = None

    def deliver(self, posted: list[Posted]) -> None:
        out = []
        for p in posted:
            payload = self.lie(p) if self.lie is not None else None
            if payload is not None:
                prev = self.host.chain[p.seq - 2].hash
                raw = make_envelope(self.host.host_key, self.host.game_id, p.seq, prev, -1, payload)
                p = Posted(raw, p.hash, p.seq, p.type, p.visible_to)
            out.append(p)
        super().deliver(out)


def _resign(table: LocalTable, index: int, payload: Any) -> Any:
    """The chain envelope at `index` replaced by `payload`, signed by the host's own key on the same link."""
    from watten_net.record import KIND_HOST, Entry

    original = table.host.chain[index]
    prev = table.host.chain[index - 1].hash
    raw = make_envelope(table.host.host_key, table.host.game_id, original.seq, prev, -1, payload)
    return Entry(KIND_HOST, raw)


def test_a_withheld_host_key_fails_the_match() -> None:
    """The host sees the deck outcome at the end and withholds k_H: nobody can check a deal, so the match fails."""
    table = LocalTable(RULES, seed=5)
    table.play()
    entries = [e for e, p in zip(table.host_entries(), table.host.chain, strict=True) if p.type != "HostKeyReveal"]
    report = verify_entries(entries)
    assert not report.ok and report.errors[0].reason in ("host-key-withheld", "chain-link")
    cut = next(i for i, p in enumerate(table.host.chain) if p.type == "HostKeyReveal")
    report = verify_entries(table.host_entries()[:cut])
    assert not report.ok and report.errors[0].reason == "host-key-withheld"


def test_nobody_stands_in_or_deals_before_every_key_is_in() -> None:
    """A host that calls a present seat away during the key ceremony gains nothing: no StandIn is posted, the seat's
    key is waited for, and a HandOpen before every key is in stops the honest seats."""
    table = LocalTable(RULES, seed=6)
    table.deliver(table.host.start())
    table.flush()
    assert table.host.stand_in(1, True) == []
    assert not table.host.absent
    seat = table.seats[0]
    early = table.host._post(pb.HandOpen(hand=0, attempt=0, dealer=0))
    with pytest.raises(HostBrokeProtocol) as err:
        early.deliver_to(seat)
    assert err.value.reason == "unexpected-message"


def _host_run_table() -> tuple[HostGame, list[SeatGame]]:
    """Four seats: people at 0 and 1, the host's bots (host-run seats) at 2 and 3."""
    keys = [Ed25519PrivateKey.generate() for _ in range(4)]
    roster = [Seat(public_key_bytes(k), f"p{i}", bytes([i]) * 32, bot=i >= 2, host_run=i >= 2)
              for i, k in enumerate(keys)]
    return HostGame(RULES, roster, Ed25519PrivateKey.generate()), [SeatGame(i, k) for i, k in enumerate(keys)]


def _exchange(host: HostGame, seats: list[SeatGame], posted: list[Posted], hold: Any) -> None:
    """Deliver and answer until nothing moves; a seat's envelope for which `hold(seat, type)` is true (and every
    later one of that seat's) is held back, left in its outbox."""
    while True:
        for p in posted:
            for s in seats:
                p.deliver_to(s)
        posted, moved = [], False
        for s in seats:
            while (raw := s.next_automatic()) is not None:
                if hold(s.seat, parse_envelope(raw, host=False).type):
                    break
                posted += host.submit(s.seat, raw)
                s.accepted(raw)
                moved = True
        if not moved:
            return


def test_a_person_reveals_only_after_every_host_run_seat() -> None:
    """The host's veto is blind: a person's key goes out only once every host-run seat's key is in the chain, and
    the host refuses a person's reveal before that."""
    host, seats = _host_run_table()
    reveal = "KeyReveal"
    _exchange(host, seats, host.start(), lambda seat, kind: kind == reveal)
    assert host.dealing.waiting() == ("key-reveal", (2, 3))  # the host-run seats first
    person = seats[0]
    assert person.verified is not None and not person.outbox  # the person waits for the host-run keys
    early = make_envelope(person.key, host.game_id, person.my_seq + 1, person.my_head, 0,
                          pb.KeyReveal(seat=0, key=person.verified.my_key, chain_seq=person.chain_seq,
                                       chain_head=person.chain_head))
    with pytest.raises(ProtocolError) as err:
        host.submit(0, early)
    assert err.value.reason == "unexpected-message"
    _exchange(host, seats, [], lambda seat, kind: False)
    assert host.match is not None  # every key in: the first hand is dealt
    order = [parse_envelope(pb.Relay.FromString(parse_envelope(p.raw, host=True).envelope.payload).envelope,
                            host=False).sender for p in host.chain if p.type == "Relay"
             and b"KeyReveal" in p.raw]
    assert sorted(order[:2]) == [2, 3] and sorted(order[2:]) == [0, 1]


def test_a_second_header_for_the_same_game_is_refused(tmp_path: Path) -> None:
    """A host that restarts a game under a new header (to deal it again) finds the seat's signature used up."""
    table = LocalTable(RULES, seed=8)
    header = table.host.start()[0]
    seat = SeatGame(0, table.seats[0].key, secrets_dir=tmp_path)
    header.deliver_to(seat)
    assert seat.outbox  # signed once
    again = SeatGame(0, table.seats[0].key, secrets_dir=tmp_path)
    other = make_envelope(table.host.host_key, table.host.game_id, 1, bytes(32), -1,
                          table.host.header_message().__class__.FromString(
                              _with_name(table.host.header_message(), "Mallory")))
    with pytest.raises(HostBrokeProtocol) as err:
        again.receive(1, other)
    assert err.value.reason == "second-header"
    same = SeatGame(0, table.seats[0].key, secrets_dir=tmp_path)
    header.deliver_to(same)  # the very same header again (a client restart): fine
    assert same.outbox


def _with_name(header: Any, name: str) -> bytes:
    header.roster[1].name = name
    return bytes(header.SerializeToString(deterministic=True))


def test_a_header_for_another_certificate_is_refused() -> None:
    """A second host relaying a real host's game shows its own certificate: the header's is not the one on the
    seat's connection."""
    table = LocalTable(RULES, seed=9)
    header = table.host.start()[0]
    seat = SeatGame(0, table.seats[0].key, tls_fingerprint=b"\x01" * 32)
    with pytest.raises(HostBrokeProtocol) as err:
        header.deliver_to(seat)
    assert err.value.reason == "wrong-certificate"


def test_a_key_set_with_a_forged_entry_is_refused() -> None:
    """The host shows a seat a KeySet whose entry for another seat is not that seat's signed commitment."""
    table = LocalTable(RULES, seed=10)
    table.deliver(table.host.start())
    while table.flush():
        if any(p.type == "KeySet" for p in table.host.chain):
            break
    index = next(i for i, p in enumerate(table.host.chain) if p.type == "KeySet")
    key_set = pb.KeySet.FromString(pb.Envelope.FromString(table.host.chain[index].raw).payload)
    forged_inner = make_envelope(table.seats[3].key, table.host.game_id, 2, bytes(32), 1,
                                 pb.KeyCommit(seat=1, header_hash=table.host.header_hash, commitment=bytes(32)))
    key_set.commits[1].envelope = forged_inner
    forged = _resign(table, index, key_set)
    seat = SeatGame(0, table.seats[0].key)
    entries = [*table.host_entries()[:index], forged]
    with pytest.raises(HostBrokeProtocol) as err:
        for i, entry in enumerate(entries):
            seat.receive(i + 1, entry.data)
            seat.outbox.clear()
    assert err.value.reason == "bad-key-set"


def test_a_stand_in_played_differently_from_the_reference_is_caught() -> None:
    """The host calls a seat away and plays its weakest cards: the verifier recomputes every stand-in move."""
    table = LocalTable(Rules.preset("bavarian", players=4).with_flag("target", "11"), seed=11)
    table.play(absences={15: (2, 10_000)})  # (from the first deal on, whenever step 15 falls)
    moves = [i for i, p in enumerate(table.host.chain)
             if p.type == "ActionAccepted" and pb.ActionAccepted.FromString(
                 pb.Envelope.FromString(p.raw).payload).actor == "bot"]
    assert moves, "the stand-in played"
    report = verify_entries(table.host_entries())
    assert report.ok, report.errors  # the reference's own moves verify
    index = moves[0]
    accepted = pb.ActionAccepted.FromString(pb.Envelope.FromString(table.host.chain[index].raw).payload)
    accepted.action = "fold" if accepted.action != "fold" else "accept"
    forged = _resign(table, index, accepted)
    report = verify_entries([*table.host_entries()[:index], forged, *table.host_entries()[index + 1:]])
    assert not report.ok
    assert report.errors[0].reason in ("stand-in-mismatch", "chain-link"), report.errors
    report = verify_entries(_rewritten(table, index, accepted))
    assert not report.ok and report.errors[0].reason == "stand-in-mismatch", report.errors
    assert report.errors[0].envelope == index + 1


def _rewritten(table: LocalTable, index: int, payload: Any) -> list[Any]:
    """The host's whole record with the envelope at `index` replaced and every later one signed again on the new
    links: what a host that forges its own record can produce."""
    from watten_net.record import KIND_HOST, Entry

    entries = table.host_entries()[:index]
    prev = table.host.chain[index - 1].hash
    for i in range(index, len(table.host.chain)):
        env = pb.Envelope.FromString(table.host.chain[i].raw)
        body = payload if i == index else getattr(pb, env.type).FromString(env.payload)
        raw = make_envelope(table.host.host_key, table.host.game_id, i + 1, prev, -1, body)
        entries.append(Entry(KIND_HOST, raw))
        prev = envelope_hash(raw)
    return entries


def test_a_seat_that_stopped_at_a_cheat_has_the_cheat_named_by_the_verifier() -> None:
    """The host delivers seat 0 a card its seal does not hold: the seat stops at once, its record ends there, and
    `watten-verify` names the bad card, not a consequence (a stub never disclosed, a record cut short)."""
    table = LyingTable(RULES, seed=12)

    def swap_a_card(p: Posted) -> Any:
        if p.type != "CardDelivery" or p.visible_to != (0,):
            return None
        delivery = pb.CardDelivery.FromString(pb.Envelope.FromString(p.raw).payload)
        delivery.cards[0].card = "EA" if delivery.cards[0].card != "EA" else "LA"
        return delivery

    table.lie = swap_a_card
    assert _play_until_caught(table) == "card-commit-mismatch"
    report = verify_entries(table.seat_entries(0), meta={"seat": 0})
    assert not report.ok
    assert report.errors[0].reason == "card-commit-mismatch" and report.errors[0].type == "CardDelivery", report.errors


def test_two_seats_shown_different_headers_never_commit_a_key() -> None:
    """Equivocation: the host shows seat 0 a header with another roster name than the others get. The screens show
    different game fingerprints (people compare them aloud); seat 0 stops at the next envelope, which does not link
    to the header it holds; and no other seat ever holds every signature over the header it signed, so nobody
    commits a key and no deal is made."""
    table = LocalTable(RULES, seed=13)
    header = table.host.start()[0]
    other = pb.GameHeader.FromString(pb.Envelope.FromString(header.raw).payload)
    other.roster[2].name = "Mallory"
    forged_raw = make_envelope(table.host.host_key, table.host.game_id, 1, bytes(32), -1, other)
    Posted(forged_raw, envelope_hash(forged_raw), 1, "GameHeader", None).deliver_to(table.seats[0])
    for seat in table.seats[1:]:
        header.deliver_to(seat)
    assert table.seats[0].fingerprint != table.seats[1].fingerprint  # what people compare aloud
    stopped: list[str] = []
    for _ in range(5):
        for seat in table.seats:
            while (raw := seat.next_automatic()) is not None:
                try:
                    posted = table.host.submit(seat.seat, raw)
                except ProtocolError as err:
                    assert seat.seat == 0 and err.reason == "wrong-hash"  # its signature is over the other header
                    seat.outbox.remove(raw)
                    continue
                seat.accepted(raw)
                for p in posted:
                    for other_seat in table.seats:
                        try:
                            p.deliver_to(other_seat)
                        except HostBrokeProtocol as err:
                            assert other_seat.seat == 0
                            stopped.append(err.reason)
    assert stopped and stopped[0] == "chain-link"
    assert not any(parse_envelope(raw, host=False).type == "KeyCommit" for s in table.seats for raw in s.outbox)
    assert not any(p.type in ("KeySet", "HandOpen") for p in table.host.chain)


def test_a_host_that_withholds_its_own_key_vetoes_blind_and_is_named() -> None:
    """The host holds back one of its bots' key reveals (to veto the match after seeing the others' keys): the
    people have not revealed theirs yet, so it vetoes blind; ending the match then is an abandonment that names the
    host as the one who withheld a key."""
    host, seats = _host_run_table()
    _exchange(host, seats, host.start(), lambda seat, kind: seat == 3 and kind == "KeyReveal")  # withheld
    assert host.dealing.waiting() == ("key-reveal", (3,))
    assert not any(parse_envelope(raw, host=False).type == "KeyReveal" for raw in seats[0].outbox)  # blind veto
    for seat in seats:
        seat.outbox.clear()  # (what they held back: only the closing checkpoint's signatures go now)
    _exchange(host, seats[:3], host.abandon(), lambda seat, kind: kind != "CheckpointSignature")
    entries = [Entry(KIND_HOST, p.raw) for p in host.chain]
    report = verify_entries(entries)
    assert report.verdict == "abandoned", report.errors
    assert any("the host withheld a key (its own seat(s) 3)" in note for note in report.notes), report.notes
    assert any("the game keys of seat(s) 0, 1 never came" in note for note in report.notes), report.notes


def test_a_header_whose_game_id_does_not_follow_from_its_nonces_is_refused() -> None:
    """The game id mixes every join nonce, so no party picks it (and a seat's fresh nonce makes every game new): a
    host that names another game id in its header is refused at once."""
    table = LocalTable(RULES, seed=14)
    header = table.host.start()[0]
    other = pb.GameHeader.FromString(pb.Envelope.FromString(header.raw).payload)
    other.host_nonce = bytes(32)
    raw = make_envelope(table.host.host_key, table.host.game_id, 1, bytes(32), -1, other)
    with pytest.raises(HostBrokeProtocol) as err:
        table.seats[0].receive(1, raw)
    assert err.value.reason == "wrong-game"


@pytest.mark.parametrize(("kind", "forged", "says"), [
    # seat 1 signed a checkpoint of another chain head
    ("CheckpointSignature", lambda p: pb.CheckpointSignature(hand=p.hand, seat=1, chain_seq=p.chain_seq,
                                                             chain_head=bytes(32)), "different chains"),
    # seat 1 signed another KeySet (seat 0 would otherwise wait for a signature over its own for ever)
    ("KeySetSignature", lambda p: pb.KeySetSignature(seat=1, key_set_hash=bytes(32)), "different key sets"),
])
def test_a_relayed_cosignature_over_something_else_is_a_fork(kind: str, forged: Any, says: str) -> None:
    """The host shows seats different chains and relays seat 1's signature of the other one to seat 0, which stops:
    every relayed co-signature must be over what the seat itself holds."""
    table = LyingTable(RULES, seed=15)

    def other(p: Posted) -> Any:
        if p.type != "Relay":
            return None
        inner = pb.Envelope.FromString(pb.Relay.FromString(pb.Envelope.FromString(p.raw).payload).envelope)
        if inner.type != kind or inner.sender_seat != 1:
            return None
        payload = forged(getattr(pb, kind).FromString(inner.payload))
        return pb.Relay(seat=1, envelope=make_envelope(table.seats[1].key, inner.game_id, inner.seq, inner.prev_hash,
                                                       1, payload))

    table.lie = other
    assert _play_until_caught(table) == "fork"
    assert any(says in p for p in table.seats[0].problems)


def test_a_bot_the_header_does_not_mark_host_run_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host marks one of its bots (seat 3, `bot` in the roster) as not host-run. The people would then reveal
    their keys before that bot's (they wait for host-run seats only), and the host, which already knows k_H and its
    bots' keys, would see every deal of the match before deciding to reveal seat 3's key or to withhold it: a
    sighted veto, and the abandonment would blame "the game keys of seat(s) 3" instead of the host. An honest seat
    signs no such header, and watten-verify fails one (here a whole match whose seats looked away too)."""
    with monkeypatch.context() as cheat:  # (the cheating host's check of its roster looks away, and its seats')
        cheat.setattr(host_game, "roster_problem", lambda bots, host_run: None, raising=False)
        cheat.setattr(seat_module, "roster_problem", lambda bots, host_run: None, raising=False)
        table = LocalTable(RULES, seed=7)
        roster = [dataclasses.replace(s, bot=i >= 2, host_run=i == 2) for i, s in enumerate(table.host.seats)]
        table.host = HostGame(RULES, roster, Ed25519PrivateKey.generate(), random_bytes=table.rng.randbytes)
        table.play()
    header = table.host.chain[0]
    for seat in range(4):
        honest = SeatGame(seat, table.seats[seat].key)
        with pytest.raises(HostBrokeProtocol) as err:
            header.deliver_to(honest)
        assert err.value.reason == "bot-not-host-run"
    report = verify_entries(table.host_entries())
    assert not report.ok and report.errors[0].reason == "header-mismatch", report.errors
    assert "seat 3 is the host's bot but not marked host-run" in report.errors[0].message


@pytest.mark.parametrize("shown", [
    pb.TableInfo(rules_json=RULES.with_flag("target", "9").to_json()),  # another target
    pb.TableInfo(rules_json=RULES.to_json(), settings=pb.TableSettings(deal="trustless")),  # another deal mode
    pb.TableInfo(rules_json="{not rules"),  # rules the client cannot read: nothing it agreed to
])
def test_a_header_with_other_terms_than_the_table_shown_is_refused(shown: Any) -> None:
    table = LocalTable(RULES, seed=8)
    header = table.host.start()[0]
    seat = SeatGame(1, table.seats[1].key, agreed_terms=shown)
    with pytest.raises(HostBrokeProtocol) as err:
        header.deliver_to(seat)
    assert err.value.reason == "other-terms" and not seat.outbox  # nothing signed
    agreed = SeatGame(1, table.seats[1].key, agreed_terms=pb.TableInfo(rules_json=RULES.to_json()))
    header.deliver_to(agreed)
    assert [parse_envelope(raw, host=False).type for raw in agreed.outbox] == ["HeaderSignature"]


def test_a_deal_attempt_the_rules_do_not_give_is_refused_at_its_opening(monkeypatch: pytest.MonkeyPatch) -> None:
    """In Level 1 version 2 the host knows every deck of the match once the keys are in, for every (hand, attempt):
    it could open a hand as attempt 2 (or any attempt whose deck suits its side) with no redeal. The deck then
    follows from the keys for the (h, a) the HandOpen names, so every seal and card checks out; only a replay of the
    rules shows that attempt 2 was never reached. An honest seat refuses that opening at once, before a card. (From
    the first hand on: a match may end within one hand.)"""
    honest = HostGame._open_attempt

    def open_chosen(self: HostGame, hand: int, attempt: int) -> list[Posted]:
        return honest(self, hand, attempt + 2)

    table = LocalTable(RULES, seed=9)
    monkeypatch.setattr(HostGame, "_open_attempt", open_chosen)
    assert _play_until_caught(table) == "bad-deal-open"
    opened = [parse_envelope(p.raw, host=True).payload for p in table.host.chain if p.type == "HandOpen"]
    assert [(o.hand, o.attempt) for o in opened] == [(0, 2)]
    assert not any(seat.cards for seat in table.seats)  # (refused before a card reached anyone)


def test_a_redeal_without_a_bessere_call_is_refused() -> None:
    """A redeal (AttemptAborted "bessere-redeal") moves to the next attempt's deck: in these rules (Bessere as the
    announcers' agreement) there is none, so a host that posts one to move on to a deck it likes better is refused."""
    table = LocalTable(RULES, seed=10)
    table.play_until(lambda: table.host.match is not None and table.seats[0].hand == (0, 0))
    aborted = table.host._post(pb.AttemptAborted(hand=0, attempt=0, reason="bessere-redeal", seat=-1))
    with pytest.raises(HostBrokeProtocol) as err:
        aborted.deliver_to(table.seats[0])
    assert err.value.reason == "bad-abort"
