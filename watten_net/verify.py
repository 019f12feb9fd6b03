"""`watten-verify RECORD...`: prove from one party's record alone that the deals were fair and the rules kept.

How: the record's chain is checked link by link (signatures, sequence, hashes; withheld envelopes
resolved from the host's later disclosures). Then the game is replayed through the host's own
protocol code (`HostGame`) and the rules engine, fed only with what the record holds: the seats'
signed envelopes and the seeds the host revealed. At every position the record's envelope must carry
exactly the payload an honest host sends there, so a deck that does not follow from the seeds, a
card that does not open its commitment, a forged or illegal action, or a wrong score all show up as
the first envelope where the record departs from the honest game.

A trustless record (Level 2) replays the same way: the host code checks every key share, shuffle and decryption
share proof the record embeds, decrypts every opened card from the published shares, and its public rules engine
judges every action, obligation and score. A failure that proves a seat cheated (a proof that does not verify, a
card opened from another seat's position) names that seat.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.cardwords import LANGS, default_lang
from watten_net.deal.envelope import GENESIS_PREV_HASH, envelope_hash
from watten_net.deal.host_game import HostGame, Seat
from watten_net.deal.identity import game_fingerprint
from watten_net.deal.keys import host_key_commitment
from watten_net.deal.protocol import (
    HOST_SEAT,
    NEXT_DEAL_MODES,
    PROTOCOL_VERSION,
    STEP_TIMEOUT_FLOOR,
    ProtocolError,
    Signed,
    check_signature,
    header_step_timeout,
    parse_envelope,
    seconds_text,
)
from watten_net.deal.receipts import receipt_holds
from watten_net.deal.seat import SeatGame
from watten_net.deal.series import Series, header_series, next_series
from watten_net.deal.steps import Stage
from watten_net.engine import Match, Rules
from watten_net.engine.public import PublicMatch
from watten_net.export import export_match
from watten_net.printable import json_visible, visible, visible_lines
from watten_net.record import (
    KIND_HOST,
    KIND_NOTE,
    KIND_OWN,
    KIND_REFUSED,
    KIND_WITHHELD,
    Entry,
    RecordError,
    read_record,
)
from watten_net.record_words import NAME_LIMIT, Telling, absence_lines, describe, roster_names, wrap_words
from watten_net.refusal import HostBrokeProtocol, Refusal
from watten_net.v1 import watten_pb2 as pb

# What it means when the record's envelope differs from the honest one, by envelope type.
_MISMATCH = {
    "GameHeader": ("header-mismatch", "the header is not consistent (its game id does not follow from the nonces)"),
    "KeySet": ("replay-mismatch", "the KeySet does not hold the seats' key commitments as they sent them"),
    "HandOpen": ("deal-mismatch", "the deal attempt is not the one the rules give here"),
    "DeckSealed": ("deal-mismatch", "the card commitments do not follow from every seat's game key and the host's"),
    "CardDelivery": ("deal-mismatch", "the cards dealt are not those the keys, the cut and the rules give"),
    "PrivateEvent": ("deal-mismatch", "a card shown at the cut is not the one the keys give"),
    "ActionAccepted": ("replay-mismatch", "the accepted action or its result differs from the rules' replay"),
    "HandEnd": ("score-mismatch", "the hand's result does not follow from the rules"),
    "MatchEnd": ("score-mismatch", "the match result does not follow from the rules"),
    "HostSeedReveal": ("seed-mismatch", "the revealed seed is not the one the host's game key gives"),
    "HostKeyReveal": ("host-key-mismatch", "the host's game key is not revealed where an honest host reveals it"),
    "Checkpoint": ("replay-mismatch", "the checkpoint does not name the chain head"),
    "Disclosure": ("replay-mismatch", "the disclosure does not hold the withheld envelopes"),
    "AttemptAborted": ("replay-mismatch", "the deal attempt was aborted without cause"),
    "StandIn": ("replay-mismatch", "the stand-in change is not the one the record says"),
    "DeckPrepare": ("deal-mismatch", "the deck prepared is not the one the protocol gives here"),
    "TrustlessDealOpen": ("deal-mismatch", "the trustless deal attempt is not the one the rules give"),
    "ShareRequest": ("deal-mismatch", "the share request is not the one the public deal map gives"),
}


@dataclass
class Problem:
    """One thing wrong with a record: where (chain seq), the reason code, the message, the seat that cheated."""

    envelope: int  # chain seq; 0 = the record as a whole
    type: str
    reason: str
    message: str
    seat: int | None = None  # the seat that cheated, when the failure proves one did

    def sentence(self) -> str:
        where = f"envelope {self.envelope} ({self.type})" if self.envelope else "record"
        blame = f" [seat {self.seat} cheated]" if self.seat is not None else ""
        return f"{where}: {self.message}{blame}"


# The kinds of proven dispute (PROTOCOL.md "Disputes"), as a proven dispute's note names them
FALSE_REFUSAL = "false refusal"  # a refusal whose named head validates the envelope
TWO_CHAINS = "two chains"  # two host envelopes at one seq (a receipt naming another head, or another record)
KEY_NAMED_MISSING = "key named missing"  # named as missing a key while the chain shows the KeyReveal


@dataclass(frozen=True)
class Dispute:
    """A proven dispute: its kind, the hand the chain is in there (1-based; 0: before the first hand), what the host
    signed, in words."""

    kind: str
    hand: int
    said: str

    def note(self) -> str:
        return f"proven ({self.kind}), {hand_words(self.hand)}: {self.said}"


def hand_words(hand: int) -> str:
    return f"hand {hand}" if hand else "before the first hand"


VERIFIED, FAILED, ABANDONED, PROVEN, CLAIMED = "verified", "failed", "abandoned", "disputed-proven", "disputed-claimed"
EXIT_CODES = {VERIFIED: 0, FAILED: 1, ABANDONED: 3, PROVEN: 4, CLAIMED: 5}
"""`watten-verify`'s exit code per verdict (2 is argparse's usage error); several records: the gravest."""
GRAVITY = (VERIFIED, ABANDONED, CLAIMED, PROVEN, FAILED)


@dataclass
class Report:
    """What `watten-verify` found in one record: the verdict, the match it replayed, the problems and notes."""

    path: str
    ok: bool = False  # the record is a fair game as far as it goes (abandoned and claimed-disputed records are)
    verdict: str = FAILED
    notes: list[str] = field(default_factory=list)  # what the verdict is about (abandonment, disputes), in words
    disputes: list[Dispute] = field(default_factory=list)  # the proven disputes (each also a note)
    absences: list[str] = field(default_factory=list)  # who was away when, and what played for them, in English
    away: list[tuple[str, int, int, int]] = field(default_factory=list)  # the same as data (record_words.absence_lines)
    game_id: str = ""
    fingerprint: str = ""
    seat: int | None = None
    hands: int = 0
    final_scores: list[int] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    match: Match | PublicMatch | None = None
    preset: str = ""
    names: list[str] = field(default_factory=list)  # by seat, from the header's roster (raw: shown via `visible`)
    keys: list[str] = field(default_factory=list)  # by seat, each seat's public key in hex (who played, by key)
    bots: list[bool] = field(default_factory=list)  # by seat: a bot from the start
    moves: list[tuple[int, str, str]] = field(default_factory=list)  # every accepted action: (seat, action, actor)
    series: Series = field(default_factory=Series)  # the header's previous game and Bummerl carried
    previous_fingerprint: str = ""  # that game's fingerprint (what a screen showed), when its record is given too
    # GameHeader.step_timeout_ms in seconds, a term every seat signed (0.0: no time limit, and every record made before
    # the field): how long the host might wait for a seat online before standing in. Verify has no clock: a StandIn
    # for silence is judged as before, this is the term the seats agreed to.
    step_timeout: float = 0.0
    # Every chain entry by seq: its hash, whether the host's signature binds it (its own envelope, or a stub the next
    # envelope links to), its type, the hand it is in (0: before the first). Several records of one game must agree
    # wherever both are bound (check_equivocation)
    chain: list[tuple[bytes, bool, str, int]] = field(default_factory=list)
    host_key: bytes = b""  # the header's host key, which signed `chain`

    def telling(self, lang: str = "en") -> Telling:
        """How `--show` tells this record: its names, its stand-in's moves, the owner's signals."""
        return Telling(lang=lang, names=self.names, bots=self.bots, moves=self.moves, owner=self.seat)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path, "ok": self.ok, "verdict": self.verdict, "notes": self.notes, "absences": self.absences,
            "disputes": [{"kind": d.kind, "hand": d.hand, "says": d.said} for d in self.disputes],
            "game_id": self.game_id, "fingerprint": self.fingerprint,
            "previous_game_id": self.series.previous_game_id.hex(), "bummerl_carried": list(self.series.carried),
            "step_timeout": self.step_timeout,
            "seat": self.seat, "hands": self.hands, "final_scores": self.final_scores, "preset": self.preset,
            "players": [{"seat": n, "name": name, "key": key, "bot": bot}
                        for n, (name, key, bot) in enumerate(zip(self.names, self.keys, self.bots, strict=False))],
            "errors": [
                {"envelope": p.envelope, "type": p.type, "reason": p.reason, "message": p.sentence(),
                 "seat": p.seat}
                for p in self.errors
            ],
        }


class _Stop(Exception):
    def __init__(self, problem: Problem) -> None:
        self.problem = problem


@dataclass
class _Link:
    seq: int
    hash: bytes
    signed: Signed | None  # None while withheld
    stub_type: str = ""
    stub_visible_to: tuple[int, ...] | None = None  # set when this record holds a stub here

    @property
    def type(self) -> str:
        return self.signed.type if self.signed else self.stub_type


def verify_entries(entries: Sequence[Entry], path: str = "record", meta: dict[str, Any] | None = None) -> Report:
    report = Report(path=path)
    if meta and isinstance(meta.get("seat"), int):
        report.seat = meta["seat"]
    proven: list[Dispute] = []
    try:
        links = _read_chain(entries)
        hands = _hands_by_seq(links)
        report.chain = [(link.hash, link.signed is not None or (n + 1 < len(links) and links[n + 1].signed is not None),
                         link.type, hands[n]) for n, link in enumerate(links)]
        header = links[0].signed
        assert header is not None
        # (whose game, also of a record that ends early: check_equivocation compares it with the others given)
        report.game_id, report.host_key = bytes(header.payload.game_id).hex(), bytes(header.payload.host_public_key)
        report.fingerprint = game_fingerprint(header.raw)
        _header_facts(report, header.payload)
        try:
            _resolve_disclosures(links)
        except _Stop as stop:
            # A seat's record that ends early: the seat may have stopped at a cheat. Name what its own checks find
            # (a card that does not open its seal, a key that does not open its commitment), not the consequence.
            _seat_checks(entries, meta, stop)
            raise
        refusals = _refusals(entries, links, proven)
        game, embedded = _replay(links, refusals, proven)
        report.match = game.engine
        owner = _check_own(entries, embedded, game, meta)
        _check_stubs(links, game, owner)
    except _Stop as stop:
        report.errors.append(stop.problem)
        _say_proven(report, proven)  # (found before the failure: the graver verdict stands, the contradiction is said)
        return report
    match = game.engine
    report.away = _absences(links)
    report.absences = absence_lines(report.away)
    report.moves = [(int(s.signed.payload.seat), str(s.signed.payload.action), str(s.signed.payload.actor))
                    for s in links if s.type == "ActionAccepted" and s.signed is not None]
    report.hands = sum(1 for s in links if s.type == "HandEnd")
    report.final_scores = list(match.scores) if match else []
    report.ok = not proven
    report.verdict = VERIFIED
    end = next((s.signed.payload for s in links if s.type == "MatchEnd" and s.signed is not None), None)
    if end is not None and end.reason != "target-reached":
        report.verdict = ABANDONED
        score = ":".join(map(str, end.scores)) or "0:0"
        missing = _missing_keys(header.payload, list(end.missing_keys))
        report.notes.append(f"the host ended the match at hand {end.hand + 1}, {score} ({end.reason}); it knew every "
                            f"deal{missing}")
        if not game.finished:
            unsigned = ", ".join(map(str, game.waiting_for()[1]))
            report.notes.append(f"the closing checkpoint was never co-signed by seat(s) {unsigned}")
    claims = _claims(entries)
    if proven:
        report.verdict = PROVEN
        _say_proven(report, proven)
    elif claims:
        report.verdict = CLAIMED
        report.notes[:0] = [f"the owner says: {c}; otherwise verified" for c in claims]
    return report


def _say_proven(report: Report, proven: list[Dispute]) -> None:
    report.disputes[:0] = proven
    report.notes[:0] = [d.note() for d in proven]


def _header_facts(report: Report, header: Any) -> None:
    """Who played (names and keys by seat) and the preset, from the header (before the replay: a record that fails
    still says whose game it was)."""
    report.preset = str(header.preset)
    report.names = roster_names(header)
    report.keys = [bytes(r.public_key).hex() for r in header.roster]
    report.bots = [bool(r.bot) for r in header.roster]
    report.series = header_series(header)
    report.step_timeout = header_step_timeout(header)


def _absences(links: list[_Link]) -> list[tuple[str, int, int, int]]:
    """Every StandIn and forfeit for an absence in the record, with the moves the stand-in made: (what, chain seq,
    seat, number), what being "away", "back" (number: the stand-in's moves), "forfeit" (number: the hand) or
    "still" (away at the end; number: the stand-in's moves)."""
    said: list[tuple[str, int, int, int]] = []
    moves: dict[int, int] = {}
    for link in links:
        p = link.signed.payload if link.signed is not None else None
        if link.type == "StandIn" and p is not None:
            if p.active:
                moves[int(p.seat)] = 0
                said.append(("away", link.seq, int(p.seat), 0))
            else:
                said.append(("back", link.seq, int(p.seat), moves.pop(int(p.seat), 0)))
        elif link.type == "ActionAccepted" and p is not None and p.actor == "bot" and int(p.seat) in moves:
            moves[int(p.seat)] += 1
        elif link.type == "AttemptAborted" and p is not None and p.reason == "away":
            said.append(("forfeit", link.seq, int(p.seat), int(p.hand) + 1))
    return said + [("still", 0, seat, n) for seat, n in moves.items()]


def _missing_keys(header: Any, seats: list[int]) -> str:
    """Who held the match up before its first hand: a host-run seat's missing key is the host withholding it."""
    if not seats:
        return ""
    host_run = [s for s in seats if 0 <= s < len(header.roster) and header.roster[s].host_run]
    people = [s for s in seats if s not in host_run]
    said = ""
    if people:
        said += f"; the game keys of seat(s) {', '.join(map(str, people))} never came"
    if host_run:
        said += f"; the host withheld a key (its own seat(s) {', '.join(map(str, host_run))})"
    return said


def _seat_checks(entries: Sequence[Entry], meta: dict[str, Any] | None, stop: _Stop) -> None:
    """Replay the owner seat's own live checks over its record (`SeatGame` as an observer); the first that fails is
    the problem to report instead of `stop`."""
    owner = meta.get("seat") if meta else None
    if stop.problem.reason not in ("incomplete", "withheld") or not isinstance(owner, int):
        return
    seat = SeatGame(owner, Ed25519PrivateKey.generate(), observer=True)
    seq = 0
    for entry in entries:
        if entry.kind not in (KIND_HOST, KIND_WITHHELD):
            continue
        seq += 1
        try:
            if entry.kind == KIND_WITHHELD:
                seat.receive(seq, withheld=pb.Withheld.FromString(entry.data))
            else:
                seat.receive(seq, entry.data)
        except (HostBrokeProtocol, ProtocolError) as err:
            raise _problem(seq, _inner_type(entry.data) if entry.kind == KIND_HOST else "Withheld", err.reason,
                           f"the seat's own check fails here: {err.message}") from None
        except Exception:
            return  # (a record the seat's checks cannot read: the general verdict stands)
        if seat.trustless is not None:
            return  # (Level 1 only: a trustless record is replayed whole without any secret)


def _refusals(entries: Sequence[Entry], links: list[_Link],
              proven: list[Dispute]) -> dict[int, list[tuple[bytes, Any]]]:
    """The owner's refused envelopes whose receipt the host signed, by the chain seq they were judged at. A receipt
    naming a head the chain does not have at that seq is the host signing two chains: a proven dispute at once (in
    `proven`; the record is verified on, as a record that holds up by itself with another's two chains is)."""
    header = links[0].signed
    assert header is not None
    host_key = bytes(header.payload.host_public_key)
    game_id = bytes(header.payload.game_id)
    out: dict[int, list[tuple[bytes, Any]]] = {}
    for entry in entries:
        if entry.kind != KIND_REFUSED:
            continue
        try:
            evidence = pb.RefusalEvidence.FromString(entry.data)
        except Exception:
            raise _problem(0, "RefusalEvidence", "parse-error", "a refusal kept in the record does not parse") from None
        receipt = evidence.receipt
        if not receipt_holds(receipt, host_key) or bytes(receipt.game_id) != game_id or bytes(
                receipt.envelope_hash) != envelope_hash(bytes(evidence.envelope)):
            continue  # not the host's signature over this envelope: proves nothing either way
        seq = int(receipt.chain_seq)
        if 1 <= seq <= len(links) and links[seq - 1].hash != bytes(receipt.chain_head):
            refused = bytes(evidence.envelope)
            said = (f"the host signed a refusal of seat {_sender(refused)}'s {_inner_type(refused)} ({receipt.reason}) "
                    f"at chain envelope {seq} naming another envelope there than the chain's {links[seq - 1].type}: it "
                    "showed two different chains")
            proven.append(Dispute(TWO_CHAINS, _hand_at(links, seq), said))
            continue
        out.setdefault(seq, []).append((bytes(evidence.envelope), receipt))
    return out


def _claims(entries: Sequence[Entry]) -> list[str]:
    """The owner's own unsigned words (claimed disputes), shown as theirs."""
    claims = []
    for entry in entries:
        if entry.kind == KIND_NOTE:
            try:
                note = pb.SeatNote.FromString(entry.data)
            except Exception:
                continue
            claims.append(f"at chain envelope {note.chain_seq}: {note.says}")
    return claims


def _try_refused(game: HostGame, refused: list[tuple[bytes, Any]], proven: list[Dispute], hand: int) -> None:
    """Each envelope the host refused at this head (in `hand`), submitted to an honest host at the same
    head: accepted there, the refusal was false (a proven dispute)."""
    for raw, receipt in refused:
        trial = copy.deepcopy(game)
        trial.envelope_source = None
        trial.host_key = Ed25519PrivateKey.generate()
        try:
            seat = parse_envelope(raw, host=False).sender
            trial.submit(seat, raw)
        except (ProtocolError, ValueError):
            continue
        proven.append(Dispute(FALSE_REFUSAL, hand, f"the host refused seat {seat}'s {_inner_type(raw)} "
                              f"({receipt.reason}) at chain envelope {receipt.chain_seq}, but an honest host "
                              "accepts it there"))


def _problem(seq: int, type_: str, reason: str, message: str, seat: int | None = None) -> _Stop:
    return _Stop(Problem(seq, type_, str(reason), message, seat))  # (str: a Reason as its plain value)


def _read_chain(entries: Sequence[Entry], before: int | None = None) -> list[_Link]:
    """The record's chain, every link checked; `before`: only the links before that chain seq."""
    links: list[_Link] = []
    host_key = b""
    game = b""
    prev = GENESIS_PREV_HASH
    for entry in entries:
        if entry.kind not in (KIND_HOST, KIND_WITHHELD):
            continue
        seq = len(links) + 1
        if before is not None and seq >= before:
            break
        if entry.kind == KIND_WITHHELD:
            stub = pb.Withheld()
            try:
                stub.ParseFromString(entry.data)
            except Exception:
                raise _problem(seq, "?", "parse-error", "the withheld stub does not parse") from None
            links.append(_Link(seq, bytes(stub.envelope_hash), None, str(stub.type), tuple(stub.visible_to)))
            prev = bytes(stub.envelope_hash)
            continue
        try:
            signed = parse_envelope(entry.data, host=True)
        except ProtocolError as err:
            raise _problem(seq, "?", "parse-error", f"the envelope does not parse ({err.message})") from None
        if seq == 1:
            if signed.type != "GameHeader":
                raise _problem(seq, signed.type, "no-header", "the record does not start with the game header")
            version = int(signed.payload.protocol_version)
            if version != PROTOCOL_VERSION:
                raise _problem(seq, signed.type, "older-version",
                               f"the record was made by an older version of watten-net (protocol version {version}); "
                               f"this one verifies version {PROTOCOL_VERSION} only: use the version that made it")
            host_key = bytes(signed.payload.host_public_key)
            game = bytes(signed.payload.game_id)
        if signed.sender != HOST_SEAT:
            raise _problem(seq, signed.type, "chain-link", "a chain envelope that the host did not send")
        if signed.seq != seq or signed.envelope.prev_hash != prev:
            raise _problem(
                seq, signed.type, "chain-link",
                f"the chain is broken here: the envelope says seq {signed.seq} and does not link to envelope {seq - 1}"
                " (an envelope was dropped, duplicated, reordered or changed)",
            )
        if not check_signature(signed, host_key):
            raise _problem(seq, signed.type, "bad-signature", "the host's signature does not verify")
        if signed.envelope.game_id != game:
            raise _problem(seq, signed.type, "wrong-game", "the envelope belongs to another game than the header's")
        links.append(_Link(seq, signed.hash, signed))
        prev = signed.hash
    if not links:
        raise _problem(0, "", "empty", "the record holds no game")
    return links


def _resolve_disclosures(links: list[_Link]) -> None:
    by_hash = {s.hash: s for s in links if s.signed is None}
    header = links[0].signed
    assert header is not None
    host_key = bytes(header.payload.host_public_key)
    for link in list(links):
        if link.signed is None or link.signed.type != "Disclosure":
            continue
        for raw in link.signed.payload.envelopes:
            target = by_hash.get(envelope_hash(raw))
            if target is None:
                continue
            try:
                signed = parse_envelope(raw, host=True)
            except ProtocolError:
                raise _problem(link.seq, "Disclosure", "parse-error", "a disclosed envelope does not parse") from None
            if signed.seq != target.seq or not check_signature(signed, host_key):
                raise _problem(link.seq, "Disclosure", "bad-signature", "a disclosed envelope is not the withheld one")
            if signed.envelope.prev_hash != (links[target.seq - 2].hash if target.seq > 1 else GENESIS_PREV_HASH):
                # (only its recipients saw it whole, and the host's own bot may be all of them: the stub's hash carries
                # the chain on, so the envelope's own link is checked here, as the host's record checks it)
                raise _problem(target.seq, signed.type, "chain-link",
                               f"the withheld envelope does not link to envelope {target.seq - 1}: the host signed it "
                               "on another chain head")
            if signed.type != target.stub_type:
                raise _problem(target.seq, target.stub_type, "withheld",
                               f"the stub says {target.stub_type} but the disclosed envelope is {signed.type}")
            target.signed = signed
    ended = any(s.type == "MatchEnd" for s in links)
    for link in links:
        if link.signed is None:
            if not ended:
                raise _problem(0, "", "incomplete",
                               f"the record ends at envelope {len(links)}, before the match ended and the host "
                               "disclosed what it had withheld")
            raise _problem(link.seq, link.stub_type, "withheld",
                           "this envelope was withheld from the record's owner and never disclosed")


def _replay(links: list[_Link], refusals: dict[int, list[tuple[bytes, Any]]] | None = None,
            proven: list[Dispute] | None = None) -> tuple[HostGame, set[bytes]]:
    game = _game_of_header(links, proven=proven)
    embedded: set[bytes] = set()
    game.start()
    refusals = refusals or {}
    hands = _hands_by_seq(links)
    while True:
        seq = len(game.chain)
        if seq in refusals and proven is not None:
            _try_refused(game, refusals.pop(seq), proven, hands[seq - 1] if seq else 0)
        if seq >= len(links):
            break
        link = links[seq]
        assert link.signed is not None
        if not _host_decision(game, link, embedded):
            _replay_inputs(game, link, embedded)
    if not game.finished and not (game.end_reason in ABANDON_REASONS and game.phase == Stage.CHECKPOINT):
        raise _problem(0, "", "incomplete", "the record ends before the match's final co-signed checkpoint")
    # (an abandoned match whose closing checkpoint some seats never signed, e.g. the host's person who quit: every
    # deal and move up to the end still verified; the verdict says abandoned and names the seats)
    return game, embedded


def _game_of_header(links: list[_Link], reveals: Sequence[_Link] = (), proven: list[Dispute] | None = None) -> HostGame:
    """An honest host's game for the record's header, whose every envelope must be the record's own (`adopt`);
    `reveals`: where else to look for the host's game key (a replay of the record's first part, `replay_before`);
    `proven`: where to say a proven dispute that the replay finds in an envelope (the replay goes on past it)."""
    header_signed = links[0].signed
    assert header_signed is not None
    header = header_signed.payload
    try:
        rules = Rules.from_json(header.rules_json)
    except (ValueError, TypeError) as err:
        raise _problem(1, "GameHeader", "bad-rules", f"the rules in the header are not valid: {err}") from None
    if len(header.roster) != rules.players or len(header.join_nonces) != rules.players:
        raise _problem(1, "GameHeader", "header-mismatch", "the roster does not match the number of players")
    deal = header.settings.deal or "verified"
    if deal not in ("verified", "trustless") or (deal == "trustless" and rules.blind):
        raise _problem(1, "GameHeader", "header-mismatch", f"the header asks for an unknown deal mode {deal!r}")
    if header.next_deal not in NEXT_DEAL_MODES or (deal == "trustless" and header.next_deal):
        raise _problem(1, "GameHeader", "header-mismatch",
                       f"the header asks for an unknown order of the next deal {header.next_deal!r}")
    seats = [
        Seat(bytes(r.public_key), str(r.name), bytes(nonce), bool(r.bot), host_run=bool(r.host_run))
        for r, nonce in zip(header.roster, header.join_nonces, strict=True)
    ]
    host_game_key = None if deal == "trustless" else _host_game_key([*links, *reveals])

    def no_draws(size: int) -> bytes:
        raise AssertionError("an honest host draws nothing after the header: every seed follows from the keys")

    try:
        return HostGame(
            rules, seats, Ed25519PrivateKey.generate(), reveal=header.settings.reveal or "match-end",
            preset=header.preset, tls_fingerprint=bytes(header.host_tls_fingerprint),
            host_nonce=bytes(header.host_nonce), random_bytes=no_draws, envelope_source=_envelope_source(links, proven),
            host_public_key=bytes(header.host_public_key), deal=deal, host_game_key=host_game_key,
            next_deal=str(header.next_deal), series=header_series(header),
            step_timeout_ms=int(header.step_timeout_ms),
        )
    except ValueError as err:  # (settings no host plays, e.g. an unknown reveal: a verdict, never a traceback)
        raise _problem(1, "GameHeader", "header-mismatch", f"the header's settings cannot be played: {err}") from None


def _envelope_source(links: list[_Link], proven: list[Dispute] | None = None) -> Callable[[int, Any], bytes]:
    """The replayed host's envelopes: the record's own, each of which must be the one an honest host makes then, or
    differ from it only by naming a seat missing a key the chain shows revealed (a proven dispute, said in `proven`).
    (A closure, not a partial: a trial copy of the game, see `_try_refused`, shares the record.)"""

    def adopt(seq: int, payload: Any) -> bytes:
        type_name = payload.DESCRIPTOR.name
        if seq > len(links):
            raise _problem(0, type_name, "incomplete",
                           f"the record ends at envelope {len(links)}; the game goes on with {type_name}")
        link = links[seq - 1]
        assert link.signed is not None
        if link.type != type_name:
            raise _problem(seq, link.type, "unexpected-envelope",
                           f"an honest host sends {type_name} here, not {link.type}")
        if link.signed.envelope.payload != payload.SerializeToString(deterministic=True) and not (
                proven is not None and _named_missing(links, link, payload, proven)):
            reason, message = _MISMATCH.get(type_name, ("replay-mismatch", "the envelope differs from the replay"))
            detail = _differing_fields(link.signed.payload, payload)
            raise _problem(seq, type_name, reason, f"{message} (differs in: {detail})")
        return link.signed.raw

    return adopt


def _named_missing(links: list[_Link], link: _Link, honest: Any, proven: list[Dispute]) -> bool:
    """A MatchEnd that differs from an honest host's only in naming more seats as missing their game key, each of
    which the chain before it shows revealing its key: a proven dispute per seat (in `proven`). Any other
    difference (a missing key not named, a seat that does not exist, one whose KeyReveal is not in the chain) is
    not this, and the record fails as before."""
    assert link.signed is not None
    named = link.signed.payload
    if link.type != "MatchEnd" or _differing_fields(named, honest) != "missing_keys":
        return False
    extra = sorted(set(named.missing_keys) - set(honest.missing_keys))
    reveals = {seat: _key_reveal_at(links, seat, link.seq) for seat in extra}
    if not extra or not set(honest.missing_keys) <= set(named.missing_keys) or not all(reveals.values()):
        return False
    for seat in extra:
        proven.append(Dispute(KEY_NAMED_MISSING, _hand_at(links, link.seq),
                              f"envelope {link.seq} (MatchEnd) names seat {seat} as missing its game key, but the "
                              f"chain carries seat {seat}'s KeyReveal at envelope {reveals[seat]}"))
    return True


def _key_reveal_at(links: list[_Link], seat: int, before: int) -> int:
    """The chain seq of the Relay of `seat`'s KeyReveal before chain seq `before`, 0 when there is none."""
    for link in links[:before - 1]:
        if link.type == "Relay" and link.signed is not None and int(link.signed.payload.seat) == seat and (
                _inner_type(bytes(link.signed.payload.envelope)) == "KeyReveal"):
            return link.seq
    return 0


def _hands_by_seq(links: list[_Link]) -> list[int]:
    """For each chain seq, the hand (1-based) the chain is in there: from its deal's opening on; 0 before the first."""
    hands, hand = [], 0
    for link in links:
        if link.type in ("HandOpen", "TrustlessDealOpen") and link.signed is not None:
            hand = int(link.signed.payload.hand) + 1
        hands.append(hand)
    return hands


def _hand_at(links: list[_Link], seq: int) -> int:
    """The hand the chain is in at chain seq `seq` (1-based)."""
    return _hands_by_seq(links)[max(min(seq, len(links)), 1) - 1]


def _sender(raw: bytes) -> str:
    """The seat a client envelope says it is from, in words ("?" when it does not parse)."""
    try:
        return str(parse_envelope(raw, host=False).sender)
    except (ProtocolError, ValueError):
        return "?"


def _replay_inputs(game: HostGame, link: _Link, embedded: set[bytes]) -> None:
    """Submit the seats' envelopes that the host envelope of `link` embeds; they must move the game."""
    assert link.signed is not None
    inputs = _inputs_of(link.signed)
    if not inputs:
        raise _problem(link.seq, link.type, "unexpected-envelope",
                       f"an honest host does not send {link.type} here")
    before = len(game.chain)
    for seat, raw in inputs:
        embedded.add(envelope_hash(raw))
        try:
            game.submit(seat, raw)
        except ProtocolError as err:
            inner = _inner_type(raw)
            raise _problem(link.seq, link.type, err.reason,
                           f"the embedded {inner} of seat {seat} is refused: {err.message}", err.seat) from None
    if len(game.chain) == before:
        raise _problem(link.seq, link.type, "unexpected-envelope", "the embedded envelope changes nothing")


ABANDON_REASONS = ("host-shutdown",)  # why a host may end a match early (HostGame.abandon)


def _host_game_key(links: list[_Link]) -> bytes:
    """k_H from the record's HostKeyReveal, checked against K_H in the header: without it no deal can be checked."""
    header = links[0].signed
    assert header is not None
    reveals = [s for s in links if s.type == "HostKeyReveal"]
    if not reveals:
        if any(s.type == "MatchEnd" for s in links):
            raise _problem(0, "HostKeyReveal", "host-key-withheld",
                           "the match is over but the host never revealed its game key: no deal can be checked")
        raise _problem(0, "", "incomplete", f"the record ends at envelope {len(links)}, before the match ended and "
                       "the host revealed its game key")
    link = reveals[0]
    assert link.signed is not None
    key = bytes(link.signed.payload.key)
    if len(key) != 32 or host_key_commitment(bytes(header.payload.game_id), key) != bytes(
            header.payload.host_key_commitment):
        raise _problem(link.seq, link.type, "host-key-mismatch",
                       "the host's revealed game key does not open K_H in the header")
    return key


def _host_decision(game: HostGame, link: _Link, embedded: set[bytes]) -> bool:
    """The host's own decisions, which no seat's envelope causes: a bot takes over or gives back the seat of a
    person who is away (`StandIn`), the bot's game actions (an `ActionAccepted` with actor "bot" and no seat
    envelope), a trustless hand forfeited after the table waited a grace period more for a seat away (an
    `AttemptAborted` "away" on its own), and ending the match early (a `MatchEnd` before the target, e.g. the host
    was stopped). The replay
    makes the same decision through the same code, so whatever follows from it must match the record as usual;
    that the person really was away, or the host really had to stop, is the host's word (the record shows when)."""
    assert link.signed is not None
    p = link.signed.payload
    before = len(game.chain)
    try:
        if link.type == "StandIn":
            if not 0 <= p.seat < game.n:
                raise _problem(link.seq, link.type, "bad-seat", f"there is no seat {p.seat}")
            game.stand_in(int(p.seat), bool(p.active))
        elif link.type == "ActionAccepted" and p.actor == "bot" and not p.action_envelope:
            game.act_for(int(p.seat), str(p.action))
        elif link.type == "AttemptAborted" and p.reason == "away":
            game.forfeit_away()
        elif link.type == "MatchEnd" and p.reason in ABANDON_REASONS:
            for raw in p.unanswered:  # accepted before the stop, never put into a CommitSet
                signed = parse_envelope(bytes(raw), host=False)
                embedded.add(envelope_hash(bytes(raw)))
                game.submit(signed.sender, bytes(raw))
            game.abandon(str(p.reason))
        else:
            return False
    except ProtocolError as err:
        raise _problem(link.seq, link.type, err.reason, f"the host's step is refused: {err.message}") from None
    if len(game.chain) == before:
        raise _problem(link.seq, link.type, "unexpected-envelope", "the host's step changes nothing here")
    return True


def _inputs_of(signed: Signed) -> list[tuple[int, bytes]]:
    p = signed.payload
    if signed.type == "Relay":
        return [(int(p.seat), bytes(p.envelope))]
    if signed.type == "KeySet":
        return [(int(e.seat), bytes(e.envelope)) for e in p.commits]
    if signed.type == "ActionAccepted" and p.action_envelope:
        return [(int(p.seat), bytes(p.action_envelope))]
    return []


def _inner_type(raw: bytes) -> str:
    env = pb.Envelope()
    try:
        env.ParseFromString(raw)
    except Exception:
        return "envelope"
    return str(env.type) or "envelope"


def _differing_fields(got: Any, want: Any) -> str:
    names = [f.name for f in want.DESCRIPTOR.fields if getattr(got, f.name) != getattr(want, f.name)]
    return ", ".join(names) or "encoding"


def _check_own(entries: Sequence[Entry], embedded: set[bytes], game: HostGame,
               meta: dict[str, Any] | None) -> int | None:
    """A seat's own envelopes: all from one seat, signed by it, in its own order, and all in the host's chain.

    Returns the record's owner seat (None for the host's record, which holds no own envelopes).
    """
    owner: int | None = None
    expected_seq = 1
    for entry in entries:
        if entry.kind != KIND_OWN:
            continue
        try:
            signed = parse_envelope(entry.data, host=False)
        except ProtocolError:
            raise _problem(0, "?", "own-envelope-missing", "an envelope this seat sent does not parse") from None
        if owner is None:
            owner = signed.sender
        if signed.sender != owner or not 0 <= owner < game.n or not check_signature(
            signed, game.seats[owner].public_key
        ):
            raise _problem(0, signed.type, "own-envelope-missing",
                           "the record's own envelopes are not all signed by one seat of this game")
        if signed.seq != expected_seq:
            raise _problem(0, signed.type, "own-envelope-missing",
                           f"the seat's own envelopes are out of order (seq {signed.seq}, expected {expected_seq})")
        expected_seq += 1
        if envelope_hash(entry.data) not in embedded:
            raise _problem(0, signed.type, "own-envelope-missing",
                           "an envelope this seat sent and the host accepted is missing from the host's chain")
    if owner is not None and expected_seq - 1 != game.seat_chains[owner].seq:
        raise _problem(0, "", "own-envelope-missing",
                       f"the record holds {expected_seq - 1} of the {game.seat_chains[owner].seq} envelopes "
                       f"seat {owner} sent")
    if meta and isinstance(meta.get("seat"), int) and owner is not None and meta["seat"] != owner:
        raise _problem(0, "", "bad-metadata", f"the record says it is seat {meta['seat']}'s, but holds seat {owner}'s")
    return owner


def _check_stubs(links: list[_Link], game: HostGame, owner: int | None) -> None:
    """A stub must stand for an envelope that really was withheld from the record's owner, as it says."""
    for link in links:
        if link.stub_visible_to is None:
            continue
        posted = game.chain[link.seq - 1]
        if posted.visible_to is None or link.stub_visible_to != posted.visible_to or (
            owner is not None and owner in posted.visible_to
        ):
            raise _problem(link.seq, link.stub_type, "withheld",
                           "the stub does not match what was withheld from this seat")


def replay_before(entries: Sequence[Entry], report: Report) -> Match | PublicMatch | None:
    """The match as far as the record's envelopes before the report's first problem take it (all of them when the
    problem is the record's as a whole), for `watten-replay`, which shows a record that fails up to its failure and
    one that stops early as far as it goes; the report learns whose game it was, when the chain failed before.
    The host's game key and its disclosures of what it withheld from the owner may come from later in the record (a
    key that opens K_H in the header is the key, an envelope that has a stub's hash is the withheld one, wherever they
    stand); an envelope withheld and never disclosed ends the replay there. None: not even the header reads."""
    failing = report.errors[0].envelope if report.errors else 0
    game: HostGame | None = None
    try:
        links = _read_chain(entries, failing or None)
        header = links[0].signed
        assert header is not None
        if not report.game_id:
            report.game_id, report.fingerprint = bytes(header.payload.game_id).hex(), game_fingerprint(header.raw)
            _header_facts(report, header.payload)
        with contextlib.suppress(_Stop):  # (the stubs the record's disclosures open, wherever those stand)
            _resolve_disclosures([*links, *_host_signed(entries, links, "Disclosure")])
        game = _game_of_header(links, _host_signed(entries, links, "HostKeyReveal"))
        game.start()
        embedded: set[bytes] = set()
        while len(game.chain) < len(links) and links[len(game.chain)].signed is not None:
            link = links[len(game.chain)]
            if not _host_decision(game, link, embedded):
                _replay_inputs(game, link, embedded)
    except (_Stop, Refusal, HostBrokeProtocol, ValueError, AssertionError):
        pass  # (the replay ends where the record stops making sense: what it got so far is the answer)
    if game is None or game.engine is None:
        return None
    # The engine may have taken a move whose ActionAccepted would be the failing envelope itself: the replay shows
    # the moves the host accepted before it (each accepted move is one ActionAccepted).
    return _first_moves(game.engine, sum(1 for p in game.chain if p.type == "ActionAccepted"))


_NO_MOVES = ("deck", "sealed")  # an engine input that is no accepted move (forfeits and silences come with theirs)


def _first_moves(match: Match | PublicMatch, moves: int) -> Match | PublicMatch:
    """`match` rebuilt from its first `moves` accepted moves (and the inputs between them); itself when it has no
    more."""
    history: list[Any] = list(match.history())
    kept, seen = [], 0
    for item in history:
        if item[0] not in _NO_MOVES and item[1] not in ("forfeit", "no-opening"):
            if seen == moves:
                break
            seen += 1
        kept.append(item)
    if len(kept) == len(history):
        return match
    if isinstance(match, PublicMatch):
        return PublicMatch.replay(match.rules, kept, match.first_dealer)
    return Match.replay(match.rules, kept, match.first_dealer)


def _host_signed(entries: Sequence[Entry], links: list[_Link], type_name: str) -> list[_Link]:
    """Every envelope of `type_name` in the record that the header's host signed, wherever it stands (what it says
    is checked where it is used: a key against K_H, a disclosed envelope against its stub's hash)."""
    header = links[0].signed if links else None
    if header is None:
        return []
    found = []
    for entry in entries:
        if entry.kind != KIND_HOST:
            continue
        try:
            signed = parse_envelope(entry.data, host=True)
        except ProtocolError:
            continue
        if signed.type == type_name and check_signature(signed, bytes(header.payload.host_public_key)):
            found.append(_Link(signed.seq, signed.hash, signed))
    return found


def verify_file(path: str) -> Report:
    try:
        meta, entries = read_record(path)
    except FileNotFoundError:
        return _unreadable(path, NO_SUCH_FILE, "no such file")
    except IsADirectoryError:
        return _unreadable(path, "unreadable", "a folder, not a record (give the folder itself to verify every "
                           "record in it)")
    except PermissionError:
        return _unreadable(path, "unreadable", "cannot be read: permission denied")
    except OSError as err:
        return _unreadable(path, "unreadable", f"cannot be read: {err.strerror or type(err).__name__}")
    except RecordError as err:
        return _unreadable(path, "unreadable", str(err))
    return verify_entries(entries, path, meta)


NO_SUCH_FILE = "no-such-file"


def _unreadable(path: str, reason: str, message: str) -> Report:
    report = Report(path=path)
    report.errors.append(Problem(0, "", reason, message))
    return report


def record_paths(paths: Sequence[str]) -> list[str]:
    """The records named: a folder stands for every `*.wrec` in it (sorted by name; an empty folder stands for
    itself, so that it is said to hold none)."""
    out: list[str] = []
    for path in paths:
        folder = Path(path)
        if folder.is_dir():
            found = sorted(str(p) for p in folder.glob("*.wrec") if p.is_file())
            out += found or [path]
        else:
            out.append(path)
    return out


# ---------------------------------------------------------------------------------------------------------------
# --show: the game hand by hand in words
# ---------------------------------------------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="watten-verify",
        description="Check a watten-net game record: signatures, hash chain, commitments, every deck from every seat's "
        "game key, the deal, every card played, every stand-in move and a full replay of the rules. Exit codes: 0 "
        "verified, 1 failed (or no such file), 3 abandoned (every deal verified), 4 disputed (proven), 5 disputed "
        "(claimed by the record's owner, otherwise verified); for several records the gravest.",
    )
    parser.add_argument(
        "records", nargs="+", metavar="RECORD", help="a .wrec file written by watten-host or watten-join, or a folder "
        "of them (every record in it)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per record per line")
    parser.add_argument("--show", action="store_true", help="print the game hand by hand in words")
    parser.add_argument("--lang", choices=LANGS, default=default_lang(), help="language of --show (default: from "
                        "the locale)")
    parser.add_argument("--export", metavar="FILE", help="write the whole match as JSON (docs/export.md) to FILE "
                        "(- for the standard output); with several records, one JSON object a line")
    args = parser.parse_args(argv)
    verdicts: list[str] = []
    exports: list[dict[str, Any]] = []
    reports = [verify_file(path) for path in record_paths(args.records)]
    check_series(reports)
    check_equivocation(reports)
    for report in reports:
        verdicts.append(report.verdict)
        if args.json:
            print(json.dumps(report.to_json(), sort_keys=True))
        elif args.export != "-":
            _print_report(report)
        if args.show and report.match is not None:
            _print_show(report, args.lang)
        if args.export and report.match is not None:
            exports.append(export_match(report))
        elif args.export == "-" and not args.json:  # (the standard output holds the JSON alone: say it aside)
            missing = report.errors and report.errors[0].reason == NO_SUCH_FILE
            said = "no such file" if missing else f"{STATUS[report.verdict]}, nothing to export"
            print(f"{visible(report.path)}: {said}", file=sys.stderr)
    if args.export:
        _write_exports(args.export, exports)
    return EXIT_CODES[max(verdicts, key=GRAVITY.index)]


def check_series(reports: Sequence[Report]) -> None:
    """Several records: each whose header names the game of another record given must carry that game's Bummerl on
    (its header's plus its match's, as `next_series`); else it fails, the previous record named."""
    by_game = {report.game_id: report for report in reports if report.game_id}
    for report in reports:
        previous = by_game.get(report.series.previous_game_id.hex()) if report.series.previous_game_id else None
        if previous is None or report.match is None or previous.verdict == FAILED:
            continue
        report.previous_fingerprint = previous.fingerprint
        marks = tuple(previous.match.bummerl) if previous.match is not None else ()
        expected = next_series(bytes.fromhex(previous.game_id), previous.series, marks,
                               report.match.rules.bummerl_limit)
        if expected != report.series:
            report.errors.append(Problem(1, "GameHeader", "wrong-series", f"the header says this match comes "
                                         f"{report.series.describe()}; the previous record "
                                         f"({previous.path}) leaves: {expected.describe()}"))
            report.ok, report.verdict = False, FAILED


def check_equivocation(reports: Sequence[Report]) -> None:
    """Several records of one game: the host signs one chain. Where two records hold envelopes the host signed at the
    same seq and they differ, it showed two chains (PROTOCOL.md, Disputes: two host envelopes at the same seq); each
    record is disputed (proven) there, or fails, the other named (a restarted seat keeps the record of before its
    restart for this)."""
    for n, report in enumerate(reports):
        for other in reports[n + 1:]:
            if not report.game_id or (report.game_id, report.host_key) != (other.game_id, other.host_key):
                continue  # (another host's key signs nothing of this host's: anybody can make such a record)
            seq = next((i + 1 for i, (a, b) in enumerate(zip(report.chain, other.chain, strict=False))
                        if a[0] != b[0] and a[1] and b[1]), 0)
            for one, two in ((report, other), (other, report)) if seq else ():
                _, _, type_, hand = one.chain[seq - 1]
                problem = Problem(seq, type_, "host-equivocated", f"the host signed another envelope at this chain "
                                  f"seq ({hand_words(hand)}) in {two.path}: it showed two different chains")
                one.ok = False
                if one.verdict == FAILED:  # (the graver finding first)
                    one.errors.insert(0, problem)
                else:  # the record holds up by itself: its host's own signatures contradict it (a proven dispute)
                    one.verdict = PROVEN
                    _say_proven(one, [Dispute(TWO_CHAINS, hand, problem.sentence())])


def step_timeout_term(seconds: float) -> str:
    """The header's step timeout among the match's terms, as watten-verify prints it."""
    if seconds <= 0:
        return "step timeout: none signed (no time limit; a record made before the field says none either)"
    term = (f"step timeout: {seconds_text(seconds)} s (signed by every seat: a bot may stand in for a seat online "
            "that long silent)")
    if seconds < STEP_TIMEOUT_FLOOR:  # (only seats whose floor was lowered sign it: the host's own bots, or a test's)
        term += (f"; below the {seconds_text(STEP_TIMEOUT_FLOOR)} s floor a seat signs unless its software was "
                 "changed, so no unchanged client took part")
    return term


def _print_report(report: Report) -> None:
    # Every string from the record (envelope types, reasons, messages that quote it) and the path itself is
    # shown through `visible`: a record must not be able to rewrite this screen (json.dumps escapes anyway).
    path = visible(report.path)
    if report.errors and report.errors[0].reason == NO_SUCH_FILE:
        print(f"{path}: no such file")
        return
    if report.errors and not report.game_id and Path(report.path).is_dir():
        print(f"{path}: no records (*.wrec) in this folder")
        return
    print(f"{path}: {STATUS[report.verdict]}")
    if report.game_id:
        names = ", ".join(f"{n} {visible(name[:NAME_LIMIT])}" for n, name in enumerate(report.names))
        print(f"  game {report.fingerprint}  ({report.hands} hands, final scores "
              f"{'-'.join(map(str, report.final_scores)) or 'none'})")
        if names:
            print(f"  seats: {names}")
        if report.series.previous_game_id:
            shown = f" (game {report.previous_fingerprint} given)" if report.previous_fingerprint else ""
            print(f"  series: {report.series.describe()}{shown}")
        print(f"  {step_timeout_term(report.step_timeout)}")
    for note in report.notes:
        print(f"  {visible(note)}")
    for problem in report.errors:
        print(f"  {visible(problem.sentence())}")


def _print_show(report: Report, lang: str) -> None:
    assert report.match is not None
    if report.away:
        telling = report.telling(lang)
        print("\n" + telling.words["away_head"])
        print(visible_lines("\n".join(f"  {line}" for line in absence_lines(report.away, telling))))
    said = visible_lines("\n".join(describe(report.match, report.telling(lang))))
    if sys.stdout.isatty():  # (on a terminal, long lines break between words, continued indented; a pipe gets lines)
        width = max(shutil.get_terminal_size().columns - 1, 40)
        said = "\n".join("\n".join(wrap_words(line, width)) for line in said.split("\n"))
    print(said)


def _write_exports(target: str, exports: list[dict[str, Any]]) -> None:
    # (the names and the preset are the host's strings: raw C1 or bidi controls would reach a terminal, or a `cat`)
    text = "".join(json_visible(json.dumps(e, sort_keys=True, ensure_ascii=False)) + "\n" for e in exports)
    if target == "-":
        sys.stdout.write(text)
    else:
        Path(target).write_text(text, encoding="utf-8")


STATUS = {VERIFIED: "verified ✓", FAILED: "FAILED", ABANDONED: "ABANDONED (every deal verified)",
          PROVEN: "DISPUTED (proven): the host's own signatures contradict it",
          CLAIMED: "DISPUTED (claimed by the record's owner; otherwise verified)"}


def run() -> int:
    """Console entry point: like main(), but a closed pipe (`watten-verify --show R | head`) is no error."""
    try:
        return main()
    except BrokenPipeError:
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    raise SystemExit(run())
