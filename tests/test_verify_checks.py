"""`watten-verify`'s checks driven through their failing branches with crafted records, each checked for its exact
reason and words; and its command line (`--json`, `--show`, the exit codes).

The records come from one honest `LocalTable` game (seeded keys); the crafted ones are what a dishonest host can
produce with its own key: a header it signs with other contents, an envelope it signs as from a seat, a stand-in for
a seat that does not exist with every later envelope signed again, a disclosure of something else than it withheld.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from watten_net.deal.envelope import envelope_hash
from watten_net.deal.identity import public_key_bytes
from watten_net.deal.protocol import make_envelope
from watten_net.deal.receipts import make_receipt
from watten_net.engine import Rules
from watten_net.record import KIND_HOST, KIND_META, KIND_OWN, KIND_REFUSED, KIND_WITHHELD, Entry, encode_entries
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import EXIT_CODES, FAILED, PROVEN, VERIFIED, Report, main, verify_entries

from tampering import Game, play_game, resign_from

RULES = Rules.preset("bavarian", players=4).with_flag("target", "3")


@cache
def _game() -> Game:
    return play_game("checks", RULES, seed=31)


@cache
def _other_game() -> Game:
    return play_game("checks-other", RULES, seed=32)


@pytest.fixture
def game() -> Game:
    return _game()


def _payload(entry: Entry) -> Any:
    env = pb.Envelope.FromString(entry.data)
    return getattr(pb, env.type).FromString(env.payload)


def _failed(entries: list[Entry], reason: str, words: str, envelope: int | None = None,
            meta: dict[str, Any] | None = None) -> Report:
    report = verify_entries(entries, meta=meta)
    assert not report.ok and report.verdict == FAILED
    first = report.errors[0]
    assert first.reason == reason and words in first.message, first.sentence()
    if envelope is not None:
        assert first.envelope == envelope, first.sentence()
    return report


def _header(game: Game, change: Any) -> list[Entry]:
    header = _payload(game.host()[0])
    change(header)
    return [Entry(KIND_HOST, make_envelope(game.host_key, bytes(header.game_id), 1, bytes(32), -1, header))]


def _index(entries: list[Entry], type_: str) -> int:
    return next(i for i, e in enumerate(entries)
                if e.kind == KIND_HOST and pb.Envelope.FromString(e.data).type == type_)


# ---------------------------------------------------------------------- the chain
def test_the_honest_records_verify(game: Game) -> None:
    assert verify_entries(game.host()).verdict == VERIFIED
    assert verify_entries(game.seat(1), meta={"seat": 1}).verdict == VERIFIED


def test_an_empty_record(game: Game) -> None:
    _failed([], "empty", "holds no game")


def test_a_record_that_does_not_start_with_the_header(game: Game) -> None:
    _failed(game.host()[1:], "no-header", "does not start with the game header")


def test_a_chain_envelope_not_sent_by_the_host(game: Game) -> None:
    """The host's key signs an envelope that names a seat as its sender, on the right link: still not a host
    envelope (the signature covers the sender, so it verifies)."""
    entries = game.host()
    i = 5
    prev = envelope_hash(entries[i - 1].data)
    raw = make_envelope(game.host_key, bytes(_payload(entries[0]).game_id), i + 1, prev, 2, _payload(entries[i]))
    _failed([*entries[:i], Entry(KIND_HOST, raw), *entries[i + 1:]], "chain-link",
            "a chain envelope that the host did not send", envelope=i + 1)


def test_a_withheld_stub_that_does_not_parse(game: Game) -> None:
    entries = game.seat(1)
    i = next(i for i, e in enumerate(entries) if e.kind == KIND_WITHHELD)
    _failed([*entries[:i], Entry(KIND_WITHHELD, b"\xff\xff"), *entries[i + 1:]], "parse-error",
            "the withheld stub does not parse")


def test_a_refusal_kept_in_the_record_that_does_not_parse(game: Game) -> None:
    _failed([*game.seat(1), Entry(KIND_REFUSED, b"\xff\xff")], "parse-error", "a refusal kept in the record")


def test_a_refusal_receipt_naming_another_head_is_the_host_equivocating(game: Game) -> None:
    """A receipt the host signed at a chain seq whose head is not the chain's there: it showed two chains, a proven
    dispute (PROTOCOL.md "Disputes": two host envelopes at the same seq), the record otherwise verified
    (tests/test_verify_disputes.py has it from the seat's own code)."""
    entries = game.seat(1)
    own = next(e for e in entries if e.kind == KIND_OWN)
    game_id = bytes(_payload(entries[0]).game_id)
    receipt = make_receipt(game.host_key, game_id, envelope_hash(own.data), "wrong-hash", 3, b"\x01" * 32)
    evidence = pb.RefusalEvidence(envelope=own.data, receipt=receipt).SerializeToString(deterministic=True)
    report = verify_entries([*entries, Entry(KIND_REFUSED, evidence)])
    assert report.verdict == PROVEN and not report.ok and not report.errors
    assert report.notes[0] == ("proven (two chains), before the first hand: the host signed a refusal of seat 1's "
                               "HeaderSignature (wrong-hash) at chain envelope 3 naming another envelope there than "
                               "the chain's Relay: it showed two different chains")
    # (a receipt that is not the host's signature proves nothing either way: the record still verifies)
    forged = make_receipt(game.seat_key(1), game_id, envelope_hash(own.data), "wrong-hash", 3, b"\x01" * 32)
    evidence = pb.RefusalEvidence(envelope=own.data, receipt=forged).SerializeToString(deterministic=True)
    assert verify_entries([*entries, Entry(KIND_REFUSED, evidence)]).verdict == VERIFIED


def test_two_records_of_one_game_that_hold_two_host_envelopes_at_one_seq(game: Game, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The host showed seat 1 another envelope at a chain seq than the one in its own record (a restarted seat keeps
    the record of before the restart for this: client/earlier_record.py). Each record alone may verify or stop
    early; given together, the host's two signatures at one seq prove it showed two chains."""
    entries = game.seat(1)
    last = [i for i, e in enumerate(entries) if e.kind == KIND_HOST][-5]  # (not the end: the next one links to it)
    was = pb.Envelope.FromString(entries[last].data)
    other = make_envelope(game.host_key, bytes(was.game_id), int(was.seq), bytes(was.prev_hash), -1,
                          pb.StandIn(seat=1, active=True))
    shown, honest = tmp_path / "seat1-shown.wrec", tmp_path / "host.wrec"
    shown.write_bytes(encode_entries({"seat": 1}, [*entries[:last], Entry(KIND_HOST, other)]))
    honest.write_bytes(encode_entries({}, game.host()))
    assert main([str(honest)]) == EXIT_CODES[VERIFIED]
    capsys.readouterr()
    assert main([str(honest), str(shown)]) == EXIT_CODES[FAILED]  # (the gravest: the record shown stops there)
    out = capsys.readouterr().out
    hand = verify_entries(game.host()).chain[int(was.seq) - 1][3]
    said = f"the host signed another envelope at this chain seq (hand {hand}) in "  # (each names the one it holds)
    assert f"envelope {int(was.seq)} ({was.type}): {said}{shown}" in out, out
    assert f"envelope {int(was.seq)} (StandIn): {said}{honest}" in out, out
    assert f"{honest}: DISPUTED (proven)" in out  # it holds up by itself: the host's signatures contradict it
    # (the same two records of an honest host: nothing to say)
    shown.write_bytes(encode_entries({"seat": 1}, entries))
    assert main([str(honest), str(shown)]) == EXIT_CODES[VERIFIED]
    # (a record of the same game id under another host key proves nothing against this host: anybody can sign one)
    forged = resign_from(entries, 0, game.seat_key(2))
    header = pb.Envelope.FromString(forged[0].data)
    payload = pb.GameHeader.FromString(header.payload)
    payload.host_public_key = public_key_bytes(game.seat_key(2))
    forged[0] = Entry(KIND_HOST, make_envelope(game.seat_key(2), bytes(header.game_id), 1, bytes(32), -1, payload))
    shown.write_bytes(encode_entries({"seat": 1}, resign_from(forged, 1, game.seat_key(2))))
    capsys.readouterr()
    main([str(honest), str(shown)])
    assert f"{honest}: verified" in capsys.readouterr().out


# ---------------------------------------------------------------------- disclosures
def _stub_and_disclosure(game: Game, disclosed: bytes) -> list[Entry]:
    """A three-entry record: the header, a stub standing for `disclosed`, and a Disclosure holding it."""
    header = game.host()[0]
    game_id = bytes(_payload(header).game_id)
    stub = pb.Withheld(envelope_hash=envelope_hash(disclosed), type="CardDelivery", visible_to=[2])
    disclosure = make_envelope(game.host_key, game_id, 3, envelope_hash(disclosed), -1,
                               pb.Disclosure(envelopes=[disclosed]))
    return [header, Entry(KIND_WITHHELD, stub.SerializeToString(deterministic=True)), Entry(KIND_HOST, disclosure)]


def test_a_disclosed_envelope_that_does_not_parse(game: Game) -> None:
    _failed(_stub_and_disclosure(game, b"\x00not an envelope"), "parse-error", "a disclosed envelope does not parse",
            envelope=3)


def test_a_disclosed_envelope_with_a_bad_signature(game: Game) -> None:
    game_id = bytes(_payload(game.host()[0]).game_id)
    other = make_envelope(game.seat_key(0), game_id, 2, envelope_hash(game.host()[0].data), -1,
                          pb.CardDelivery(seat=2))
    _failed(_stub_and_disclosure(game, other), "bad-signature", "a disclosed envelope is not the withheld one",
            envelope=3)


def test_a_disclosed_envelope_at_another_seq(game: Game) -> None:
    game_id = bytes(_payload(game.host()[0]).game_id)
    other = make_envelope(game.host_key, game_id, 7, envelope_hash(game.host()[0].data), -1, pb.CardDelivery(seat=2))
    _failed(_stub_and_disclosure(game, other), "bad-signature", "a disclosed envelope is not the withheld one")


def test_a_disclosed_envelope_that_does_not_link_to_the_chain(game: Game) -> None:
    """A withheld envelope the host signed on another head than the chain's before it (only its recipient, say the
    host's own bot, would have seen it): the stub's hash carries the chain on, so only the disclosed envelope's own
    prev_hash shows it. The host's record fails there (chain-link); a seat's record must too."""
    game_id = bytes(_payload(game.host()[0]).game_id)
    other = make_envelope(game.host_key, game_id, 2, b"\x07" * 32, -1, pb.CardDelivery(seat=2))
    _failed(_stub_and_disclosure(game, other), "chain-link", "does not link to envelope 1", envelope=2)


# ---------------------------------------------------------------------- the header
def test_a_header_with_rules_that_are_not_valid(game: Game) -> None:
    def bad_rules(h: Any) -> None:
        h.rules_json = '{"players": 4, "deck": 33}'

    _failed(_header(game, bad_rules), "bad-rules", "the rules in the header are not valid", envelope=1)


def test_a_header_whose_roster_is_short_of_a_seat(game: Game) -> None:
    def short(h: Any) -> None:
        del h.roster[3]

    _failed(_header(game, short), "header-mismatch", "the roster does not match the number of players")


def test_a_header_whose_join_nonces_are_short_of_a_seat(game: Game) -> None:
    def short(h: Any) -> None:
        del h.join_nonces[3]

    _failed(_header(game, short), "header-mismatch", "the roster does not match the number of players")


def test_a_header_with_an_unknown_deal_mode(game: Game) -> None:
    def mode(h: Any) -> None:
        h.settings.deal = "lucky"

    _failed(_header(game, mode), "header-mismatch", "unknown deal mode 'lucky'")


def test_a_header_asking_for_blind_dealt_trustless(game: Game) -> None:
    def blind_trustless(h: Any) -> None:
        h.rules_json = Rules.preset("blind", players=4).to_json()
        h.settings.deal = "trustless"

    _failed(_header(game, blind_trustless), "header-mismatch", "unknown deal mode 'trustless'")


def test_a_record_of_another_protocol_version(game: Game) -> None:
    def older(h: Any) -> None:
        h.protocol_version = 1

    _failed(_header(game, older), "older-version", "protocol version 1")


# ---------------------------------------------------------------------- the host's own decisions
def _with_stand_in(game: Game, seat: int, active: bool) -> tuple[list[Entry], int]:
    """The host's record with a StandIn inserted before the first relayed envelope after the first HandOpen (where
    the replay takes the host's own decisions), every later envelope signed again."""
    entries = game.host()
    opened = _index(entries, "HandOpen")
    i = next(i for i in range(opened, len(entries)) if pb.Envelope.FromString(entries[i].data).type == "Relay")
    game_id = bytes(_payload(entries[0]).game_id)
    stand_in = make_envelope(game.host_key, game_id, i + 1, envelope_hash(entries[i - 1].data), -1,
                             pb.StandIn(seat=seat, active=active))
    return resign_from([*entries[:i], Entry(KIND_HOST, stand_in), *entries[i:]], i + 1, game.host_key), i + 1


def test_a_stand_in_for_a_seat_that_does_not_exist(game: Game) -> None:
    entries, seq = _with_stand_in(game, 9, True)
    _failed(entries, "bad-seat", "there is no seat 9", envelope=seq)


def test_a_stand_in_that_changes_nothing(game: Game) -> None:
    """Handing back a seat that nobody stood in for: the host's step changes nothing."""
    entries, seq = _with_stand_in(game, 1, False)
    _failed(entries, "unexpected-envelope", "the host's step changes nothing here", envelope=seq)


# ---------------------------------------------------------------------- the seat's own envelopes
def test_a_seat_record_with_its_last_own_envelope_cut_off(game: Game) -> None:
    entries = game.seat(1)
    last = max(i for i, e in enumerate(entries) if e.kind == KIND_OWN)
    _failed([*entries[:last], *entries[last + 1:]], "own-envelope-missing", "the record holds", meta={"seat": 1})


def test_a_seat_record_with_two_own_envelopes_swapped(game: Game) -> None:
    """Every own envelope is still there and in the chain, but not in the seat's own order."""
    entries = list(game.seat(1))
    first, second = [i for i, e in enumerate(entries) if e.kind == KIND_OWN][:2]
    entries[first], entries[second] = entries[second], entries[first]
    _failed(entries, "own-envelope-missing", "out of order", meta={"seat": 1})


def test_a_seat_record_whose_metadata_names_another_seat(game: Game) -> None:
    _failed(game.seat(1), "bad-metadata", "the record says it is seat 2's, but holds seat 1's", meta={"seat": 2})


# ---------------------------------------------------------------------- the command line
def _write(tmp_path: Path, name: str, entries: list[Entry], meta: dict[str, Any]) -> str:
    path = tmp_path / name
    path.write_bytes(encode_entries(meta, [e for e in entries if e.kind != KIND_META]))
    return str(path)


def test_json_output_of_a_verified_and_a_failed_record(game: Game, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # (the verified record is of another game: a record of this one would be contradicted by the rewritten one, which
    # the host signed too, and so be a proven dispute: test_two_records_of_one_game_that_hold_two_host_envelopes...)
    good = _write(tmp_path, "good.wrec", _other_game().seat(1), {"writer": "seat", "seat": 1})
    entries, seq = _with_stand_in(game, 9, True)
    bad = _write(tmp_path, "bad.wrec", entries, {"writer": "host"})
    assert main(["--json", good, bad]) == EXIT_CODES[FAILED]  # the gravest of the two
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["path"] == good and first["ok"] and first["verdict"] == VERIFIED and first["errors"] == []
    assert first["seat"] == 1 and first["hands"] >= 1 and len(first["final_scores"]) == 2
    assert len(first["game_id"]) == 64 and first["fingerprint"]
    assert not second["ok"] and second["verdict"] == FAILED
    assert second["errors"] == [{"envelope": seq, "type": "StandIn", "reason": "bad-seat", "seat": None,
                                 "message": f"envelope {seq} (StandIn): there is no seat 9"}]


def test_text_and_show_output(game: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _write(tmp_path, "good.wrec", game.host(), {"writer": "host"})
    assert main(["--show", good]) == EXIT_CODES[VERIFIED]
    out = capsys.readouterr().out
    report = verify_entries(game.host())
    assert out.startswith(f"{good}: verified ✓\n  game {report.fingerprint}  ({report.hands} hands, final scores ")
    assert "\nHand 1: seat " in out and " deals, seat " in out and "won by seat" in out
    assert "\nMatch over: " in out
    assert main([good]) == 0
    assert "Hand 1" not in capsys.readouterr().out  # no --show, no game in words
    bad = _write(tmp_path, "bad.wrec", _header(game, lambda h: setattr(h, "protocol_version", 1)), {"writer": "host"})
    assert main(["--show", bad]) == EXIT_CODES[FAILED]
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"{bad}: FAILED"
    assert "envelope 1 (GameHeader): the record was made by an older version" in out
    assert "Hand 1" not in out  # nothing replayed, nothing shown


def test_an_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "junk.wrec"
    path.write_bytes(b"not a record")
    assert main(["--json", str(path)]) == EXIT_CODES[FAILED]
    out = json.loads(capsys.readouterr().out)
    assert out["errors"][0]["reason"] == "unreadable" and not out["ok"]
