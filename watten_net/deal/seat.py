"""A seat's side of a verifiable game (docs/protocol.md Level 1, and Level 2 through `level2_seat`), without any I/O.

`SeatGame` receives the host's chain entry by entry (whole envelopes, or stubs for envelopes
withheld from this seat), checks every signature, link and card opening on arrival, answers the
protocol's steps by itself (signatures, seed commitment and reveal) and builds the seat's game
actions. It keeps the seat's record: every host entry and every envelope the seat sent, in order.
The terminal client, remote bots, bots in the host process and the tests all use it.

In a trustless game (GameHeader.settings.deal = "trustless") `trustless` holds the seat's side of Level 2: its
own replay of the public rules engine, its deal secret per attempt, and every check and automatic answer of that
level (see level2_seat.py); `cards` is then filled from the cards this seat decrypted, and `legal_actions()`
says what the seat may do (the host cannot: it does not know the cards).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.engine import Rules
from watten_net.engine.events import EventKind
from watten_net.record import KIND_HOST as RECORD_HOST
from watten_net.record import KIND_NOTE as RECORD_NOTE
from watten_net.record import KIND_OWN as RECORD_OWN
from watten_net.record import KIND_REFUSED as RECORD_REFUSED
from watten_net.record import KIND_WITHHELD as RECORD_WITHHELD
from watten_net.refusal import HostBrokeProtocol, Reason
from watten_net.v1 import watten_pb2 as pb

from .commitments import card_matches
from .envelope import GENESIS_PREV_HASH, envelope_hash
from .identity import game_fingerprint, game_id, public_key_bytes
from .level1_seat import VerifiedSeat
from .level2_seat import TrustlessSeat
from .protocol import (
    DEAL_MODES,
    HOST_SEAT,
    NEXT_DEAL_MODES,
    PROTOCOL_VERSION,
    REVEAL_MODES,
    STEP_TIMEOUT_FLOOR,
    ProtocolError,
    Signed,
    check_signature,
    header_hash,
    header_step_timeout,
    make_signed,
    parse_envelope,
    roster_problem,
    step_timeout_problem,
)
from .receipts import receipt_holds
from .series import Series, next_series, series_problem


def _game_id_of(header: Any) -> bytes:
    try:
        return game_id(bytes(header.host_nonce), [bytes(n) for n in header.join_nonces])
    except ValueError:
        return b""


def signed_type(raw: bytes) -> str:
    try:
        return parse_envelope(raw, host=False).type
    except ProtocolError:
        return "envelope"


@dataclass
class RecordEntry:
    """One entry of a seat's own record: its kind (`watten_net.record`'s KIND_*) and its bytes."""

    kind: int
    data: bytes  # envelope bytes, or a serialised pb.Withheld


@dataclass
class SeatGame:
    """One seat's verified view of the chain; call `receive` for each chain entry in order."""

    seat: int
    key: Ed25519PrivateKey
    random_bytes: Callable[[int], bytes] = os.urandom
    record: list[RecordEntry] = field(default_factory=list)
    chain_seq: int = 0
    chain_head: bytes = GENESIS_PREV_HASH
    header: Any = None
    header_hash: bytes = b""
    rules: Rules | None = None
    game_id: bytes = b""
    fingerprint: str = ""
    host_key: bytes = b""
    roster_keys: list[bytes] = field(default_factory=list)
    my_seq: int = 0
    my_head: bytes = GENESIS_PREV_HASH
    outbox: list[bytes] = field(default_factory=list)  # envelopes to submit, in order
    hand: tuple[int, int] = (-1, -1)
    deck_sealed_hash: bytes = b""  # the current DeckSealed's, and the current Checkpoint's (hand, seq, head):
    checkpoint: tuple[int, int, bytes] = (-1, 0, b"")  # every relayed co-signature must be over these
    stood_in: set[int] = field(default_factory=set)  # seats a host bot plays now (their people are away)
    card_commitments: list[bytes] = field(default_factory=list)
    my_positions: set[int] = field(default_factory=set)
    played_positions: set[int] = field(default_factory=set)
    cards: dict[int, str] = field(default_factory=dict)  # my cards this attempt: position -> card
    problems: list[str] = field(default_factory=list)  # every failed check, in words
    finished: bool = False
    secrets_dir: Path | None = None  # where this seat keeps its secrets (game key, deal secrets) and signed headers
    # SHA-256 of the TLS certificate on this seat's own connection (b"" plaintext); None where there is no
    # connection to compare (a bot inside the host process, a test)
    tls_fingerprint: bytes | None = None
    verified: VerifiedSeat | None = None  # the seat's side of Level 1 (None in a trustless game)
    # watten-verify replays a seat's own checks over its record with a key that is not the seat's: nothing it would
    # send counts, and its own entries are not compared with what it would have sent
    observer: bool = False
    end_reason: str = ""  # MatchEnd's reason once the match is over ("target-reached", or why it was abandoned)
    match_bummerl: tuple[int, ...] = ()  # MatchEnd's Bummerl of this match (what it adds to the series)
    # What this match's header must say of its series (watten_net/deal/series.py), known to a client that played the
    # table's previous match (`next_series` of that match's SeatGame); None: new to the series, nothing to compare
    follows: Series | None = None
    # The shortest step timeout (GameHeader.step_timeout_ms, in seconds; 0 there is no limit) this seat signs: the
    # seat's own decision, never the host's (tests with quick stand-ins lower it; docs/protocol-decisions.md)
    step_timeout_floor: float = STEP_TIMEOUT_FLOOR
    # The TableInfo whose rules and deal settings the person chose: the one it joined under, or the lobby's last before
    # the game (the client sets it). The host's views are its word and only the header is signed, so the header must
    # carry those terms; None: nothing to compare (a restarted client, a test, watten-verify)
    agreed_terms: Any = None

    @property
    def abandoned_after_keys(self) -> bool:
        """The host ended the match early after the KeySet (docs/protocol.md: clients count these per host key)."""
        return bool(self.end_reason) and self.end_reason != "target-reached" and bool(
            self.verified is not None and self.verified.key_set)
    chain_hashes: list[bytes] = field(default_factory=list)  # the hash of every chain entry, in order
    chain_types: list[str] = field(default_factory=list)  # and its type
    sent_at: dict[bytes, int] = field(default_factory=dict)  # our envelope's hash -> the chain seq it answered
    # StandIns for us: (seq, our envelopes not yet accepted then, oldest first: what we owed; () = nothing)
    called_away: list[tuple[int, tuple[bytes, ...]]] = field(default_factory=list)
    # Refusals judged at a head this seat has not received yet: (envelope, receipt), judged when it arrives
    refusals_ahead: list[tuple[bytes, Any]] = field(default_factory=list)
    disputed: list[str] = field(default_factory=list)  # disputes found since `take_disputes`, in words
    trustless: TrustlessSeat | None = None  # the seat's side of a trustless game (None in Level 1)
    # This seat's own envelopes as made here (raw -> Signed, `make_signed`): `next_automatic`, `accepted` and the chain
    # entry that embeds one (its echo: a Relay, an ActionAccepted, the KeySet) would otherwise each parse it again.
    # Dropped at its echo; a bounded few more are kept (see `_made`).
    own_parsed: dict[bytes, Signed] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ receiving
    def receive(self, chain_seq: int, raw: bytes | None = None, withheld: Any = None) -> list[bytes]:
        """Take the next chain entry; returns the envelopes this seat now wants to submit.

        Raises HostBrokeProtocol when the host broke the protocol (bad signature, broken link, a card that
        does not open its commitment); the failure is also kept in `problems`. An envelope that does not parse at
        all is the ProtocolError of `parse_envelope`.
        """
        if chain_seq != self.chain_seq + 1:
            raise self.fault(Reason.CHAIN_GAP, f"chain entry {chain_seq} arrived after {self.chain_seq}")
        if withheld is not None:
            if raw is not None:
                raise ValueError("an entry is either an envelope or a withheld stub")
            self.record.append(RecordEntry(RECORD_WITHHELD, withheld.SerializeToString(deterministic=True)))
            self.chain_seq = chain_seq
            self.chain_head = bytes(withheld.envelope_hash)
            self.chain_hashes.append(self.chain_head)
            self.chain_types.append(str(withheld.type))
            return []
        assert raw is not None
        signed = parse_envelope(raw, host=True)
        env, kind = signed.envelope, signed.type  # (the type read once: each read makes a new str)
        if env.sender_seat != HOST_SEAT or env.seq != chain_seq or env.prev_hash != self.chain_head:
            raise self.fault(Reason.CHAIN_LINK, f"host envelope {chain_seq} does not link to the chain head")
        if kind == "GameHeader":
            if chain_seq != 1:
                raise self.fault(Reason.CHAIN_LINK, "a second game header")
            self.host_key = bytes(signed.payload.host_public_key)
        if not check_signature(signed, self.host_key):
            raise self.fault(Reason.BAD_SIGNATURE, f"host envelope {chain_seq} ({kind}) has a bad signature")
        self.record.append(RecordEntry(RECORD_HOST, signed.raw))
        self.chain_seq = chain_seq
        self.chain_head = signed.hash
        self.chain_hashes.append(signed.hash)
        self.chain_types.append(kind)
        before = len(self.outbox)
        self.HANDLERS[kind](self, signed)
        if self.trustless is not None:
            self.trustless.tick()
        return self.outbox[before:]

    def fault(self, reason: Reason, message: str, seat: int | None = None) -> HostBrokeProtocol:
        """The host broke the protocol: noted among this seat's problems, and returned for the caller to raise."""
        self.problems.append(message)
        return HostBrokeProtocol(reason, message, seat)

    def send(self, payload: Any) -> bytes:
        # Queued behind another step (a checkpoint's and the next deal's seal signatures are owed together): made on
        # that one, so it is not signed again once that one is accepted (`next_automatic` re-signs it if it was not).
        signed = self._made(payload, self.parsed(self.outbox[-1]) if self.outbox else None)
        self.outbox.append(signed.raw)
        self.sent_at[signed.hash] = self.chain_seq
        return signed.raw

    def _made(self, payload: Any, after: Signed | None = None) -> Signed:
        """A signed envelope of `payload` on this seat's chain head (or after `after`, an own envelope not yet
        accepted), kept as made (`own_parsed`): never parsed again."""
        seq, prev = (after.seq + 1, after.hash) if after is not None else (self.my_seq + 1, self.my_head)
        signed = make_signed(self.key, self.game_id, seq, prev, self.seat, payload)
        if len(self.own_parsed) >= 64:  # (never echoed: dropped from the outbox, refused, or a stand-in's turn)
            recent = list(self.own_parsed)[-16:]
            self.own_parsed = {r: s for r, s in self.own_parsed.items() if r in self.outbox or r in recent}
        self.own_parsed[signed.raw] = signed
        return signed

    def made_here(self, raw: bytes) -> bool:
        """Whether these are the very bytes of an envelope this seat made and signed (and still holds as made): its
        own, proven by byte-identity (a stronger check than its signature)."""
        return raw in self.own_parsed

    def parsed(self, raw: bytes) -> Signed:
        """Client envelope bytes parsed (`parse_envelope(raw, host=False)`): from `own_parsed` when this seat made
        them, else parsed now."""
        signed = self.own_parsed.get(raw)
        return signed if signed is not None else parse_envelope(raw, host=False)

    # ------------------------------------------------------------------ disputes (docs/protocol.md)
    def judge_refusal(self, raw: bytes, receipt: Any) -> str:
        """The host refused an envelope of ours: keep its receipt as evidence and judge it. Returns "race" (the host
        judged it against a head that had moved on since the step was made: something other than relayed
        co-signatures came in between, so the table may have gone past the step), "dispute" (nothing but relays in
        between: a step it was owed), "proven" (the receipt names a head that is not the chain's at that seq: the
        host signed two chains), "pending" (the receipt names a head this seat has not received yet: judged when it
        comes, see `take_disputes`), or "unsigned" (no valid receipt to keep)."""
        digest = envelope_hash(raw)
        if receipt is None or not self.host_key or not receipt_holds(receipt, self.host_key) or bytes(
                receipt.game_id) != self.game_id or bytes(receipt.envelope_hash) != digest:
            return "unsigned"
        evidence = pb.RefusalEvidence(envelope=raw, receipt=receipt)
        self.record.append(RecordEntry(RECORD_REFUSED, evidence.SerializeToString(deterministic=True)))
        if int(receipt.chain_seq) > len(self.chain_hashes):
            self.refusals_ahead.append((raw, receipt))  # the host is ahead of us: judged once we hold that head
            return "pending"
        return self._judge(raw, receipt)

    def _judge(self, raw: bytes, receipt: Any) -> str:
        digest = envelope_hash(raw)
        reason = str(receipt.reason)
        seq = int(receipt.chain_seq)
        if 1 <= seq <= len(self.chain_hashes) and self.chain_hashes[seq - 1] != bytes(receipt.chain_head):
            says = "the host signed a refusal naming another chain head than the chain's: it shows two chains"
            self.note_claim(seq, says)
            self.disputed.append(says)
            return "proven"
        answered = self.sent_at.get(digest)
        if reason == Reason.STALE_ENVELOPE_SEQ or answered is None or any(
                kind != "Relay" for kind in self.chain_types[answered:seq]):
            return "race"
        self.note_claim(seq, f"the host refused this seat's {signed_type(raw)} ({reason}) although only relayed "
                        "co-signatures came after the head it answered")
        self.disputed.append(f"the host refused this seat's {signed_type(raw)} ({reason}) although it answered the "
                             "chain as it stood: it may be cheating; the evidence is in your record")
        return "dispute"

    def take_disputes(self) -> list[str]:
        """Disputes found since the last call (a refusal judged once its head arrived), in words."""
        still = []
        for raw, receipt in self.refusals_ahead:
            if int(receipt.chain_seq) <= len(self.chain_hashes):
                self._judge(raw, receipt)
            else:
                still.append((raw, receipt))
        self.refusals_ahead = still
        taken, self.disputed = self.disputed, []
        return taken

    def note_claim(self, chain_seq: int, says: str) -> None:
        """The seat's own unsigned word in its record: a claimed dispute."""
        note = pb.SeatNote(kind="claimed-dispute", chain_seq=chain_seq, says=says)
        self.record.append(RecordEntry(RECORD_NOTE, note.SerializeToString(deterministic=True)))

    def take_called_away(self) -> list[tuple[int, tuple[bytes, ...]]]:
        """The StandIns for this seat since the last call: (chain seq, the envelopes the seat still owed then, oldest
        first; empty: it had answered every step). The client's clock says how long it had them."""
        taken, self.called_away = self.called_away, []
        return taken

    def accepted(self, raw: bytes) -> None:
        """The host accepted this envelope of ours: it becomes our chain head and part of our record.

        Called when the host's answer arrives, or when the chain shows the envelope embedded (the answer may
        have been lost to a dropped line or a host restart); the second call changes nothing.
        """
        self._accept(self.parsed(raw))

    def _accept(self, signed: Signed) -> None:
        if signed.seq <= self.my_seq:
            return
        self.my_seq = signed.seq
        self.my_head = signed.hash
        self.record.append(RecordEntry(RECORD_OWN, signed.raw))
        if signed.raw in self.outbox:
            self.outbox.remove(signed.raw)

    def take_embedded(self, raw: bytes) -> Signed:
        """An envelope inside a host envelope, parsed (once: the caller goes on with what this returns); one of ours
        means the host has accepted it, whatever became of its answer."""
        return self._take_embedded(raw)[0]

    def _take_embedded(self, raw: bytes) -> tuple[Signed, bool]:
        """`take_embedded`, and whether the envelope is already proven its sender's: bytes this seat made itself
        (byte-identity with what it signed is a stronger check than a signature), or an own envelope whose signature
        was checked here just now. Anything else still needs its signature checked by the caller, if it must be."""
        made = self.own_parsed.pop(raw, None)  # (an echo is the last use of our own)
        if made is not None:
            if made.seq == self.my_seq + 1 and made.envelope.prev_hash == self.my_head:
                self._accept(made)
            return made, True
        inner = self.parsed(raw)
        if inner.sender == self.seat and inner.seq == self.my_seq + 1 and inner.envelope.prev_hash == self.my_head:
            # Any "own" envelope not held as made (a resumed seat's from the chain, or one no longer kept as made)
            # must carry its signature: else the host would slip the seat an envelope it never signed, into its
            # record and under its next envelope's prev_hash.
            if not self.check_seat_signature(inner):
                raise self.fault(Reason.BAD_SIGNATURE, f"the host shows an envelope of this seat ({inner.type}) that "
                                 "this seat did not sign")
            self._accept(inner)
            return inner, True
        return inner, False

    def next_automatic(self) -> bytes | None:
        """The oldest protocol envelope still to send, rebuilt on our current chain head."""
        if not self.outbox:
            return None
        raw = self.outbox[0]
        signed = self.parsed(raw)
        if signed.seq == self.my_seq + 1 and signed.envelope.prev_hash == self.my_head:
            return raw
        # Our chain moved (an action was accepted in between): sign the same payload again on the new head.
        self.own_parsed.pop(raw, None)
        fresh = self._made(signed.payload)
        self.outbox[0] = fresh.raw
        self.sent_at[fresh.hash] = self.sent_at.get(signed.hash, self.chain_seq)
        return fresh.raw

    def action(self, text: str) -> bytes:
        """A signed ActionRequest for `text` on the current chain head (not queued: the caller submits it).

        In a trustless game a played card gets its opening (this seat's decryption share) attached, and only
        when the play is legal: raises ProtocolError(Code.PRECONDITION, Reason.CARD_NOT_IN_HAND) otherwise."""
        if self.trustless is not None:
            request = self.trustless.action(text)
        else:
            request = pb.ActionRequest(action=text, chain_seq=self.chain_seq, chain_head=self.chain_head)
        return self._made(request).raw

    def legal_actions(self) -> list[str]:
        """Trustless games: the actions this seat may take now, cards included (the host's engine knows no card,
        so it cannot list them). Level 1 seats get theirs from the host's view; this returns []."""
        return self.trustless.legal_actions() if self.trustless is not None else []

    def seen_card(self) -> str | None:
        """Trustless games: the card shown to this seat at Schlecken now (None when none is)."""
        t = self.trustless
        if t is None or t.seeing is None or t.seeing[0] != self.seat:
            return None
        return t.known.get(t.seeing[1])

    def check_seat_signature(self, signed: Signed) -> bool:
        seat = signed.sender
        return 0 <= seat < len(self.roster_keys) and check_signature(signed, self.roster_keys[seat])

    # ------------------------------------------------------------------ protocol steps
    def _on_GameHeader(self, signed: Signed) -> None:
        h = signed.payload
        self.header = h
        self.header_hash = header_hash(signed.raw)
        self.game_id = bytes(h.game_id)
        self.fingerprint = game_fingerprint(signed.raw)
        self.rules = self._header_rules(h)
        self._check_terms(h, self.rules)
        self._check_series(h, self.rules)
        self.roster_keys = [bytes(r.public_key) for r in h.roster]
        if self.seat >= len(self.roster_keys) or (
                not self.observer and self.roster_keys[self.seat] != public_key_bytes(self.key)):
            raise self.fault(Reason.NOT_IN_ROSTER, "the game header does not seat this client's key at its seat")
        if signed.envelope.game_id != self.game_id or len(h.join_nonces) != len(self.roster_keys) or (
                self.game_id != _game_id_of(h)):
            raise self.fault(Reason.WRONG_GAME, "the header's game id does not follow from its nonces (or its envelope "
                             "names another game)")
        if h.protocol_version != PROTOCOL_VERSION:
            raise self.fault(Reason.PROTOCOL_VERSION,
                             f"the host speaks protocol version {h.protocol_version}, this client "
                             f"{PROTOCOL_VERSION}")
        if self.tls_fingerprint is not None and bytes(h.host_tls_fingerprint) != self.tls_fingerprint:
            raise self.fault(Reason.WRONG_CERTIFICATE, "the header names another TLS certificate than the one on this "
                             "seat's connection: a second host may be relaying this game")
        if (problem := roster_problem([r.bot for r in h.roster], [r.host_run for r in h.roster])) is not None:
            raise self.fault(Reason.BOT_NOT_HOST_RUN, f"the header's roster is not one to sign: {problem}")
        problem = step_timeout_problem(header_step_timeout(h), self.step_timeout_floor)
        if problem is not None and not self.observer:  # (watten-verify: the floor was the signing seat's decision)
            raise self.fault(Reason.SHORT_STEP_TIMEOUT, f"the header's step timeout is too short to sign: {problem}, "
                             "so the host could call an honest seat away before its client can answer")
        self._sign_header_once()
        if h.settings.deal == "trustless":
            self.trustless = TrustlessSeat(self)
        else:
            self.verified = VerifiedSeat(self)
            self.verified.start(h)
        self.send(pb.HeaderSignature(seat=self.seat, header_hash=self.header_hash))

    def _header_rules(self, h: Any) -> Rules:
        """The header's rules and settings, if this client knows them all (a seat's checks assume a deal, a reveal and
        an order of the next deal it knows, and watten-verify fails any other header): else refused, nothing signed,
        as another protocol version is. The words quoted are the host's: bounded here, made printable where shown."""
        deal, reveal = h.settings.deal or "verified", h.settings.reveal or "match-end"
        if deal not in DEAL_MODES or reveal not in REVEAL_MODES:
            raise self.fault(Reason.PROTOCOL_VERSION, f"the header asks for a deal ({deal[:40]!r}) or a reveal "
                             f"({reveal[:40]!r}) this client does not know")
        if h.next_deal not in NEXT_DEAL_MODES or (deal == "trustless" and h.next_deal):
            raise self.fault(Reason.PROTOCOL_VERSION, f"the header asks for an order of the next deal this client does "
                             f"not know ({h.next_deal[:40]!r} in a {deal} game)")
        try:
            return Rules.from_json(h.rules_json)
        except (ValueError, TypeError) as err:
            raise self.fault(Reason.PROTOCOL_VERSION, f"the header's rules are not rules this client can play: "
                             f"{str(err)[:120]}") from None

    def _check_terms(self, h: Any, rules: Rules) -> None:
        """The header's rules and deal settings are those of the table the person chose (`agreed_terms`): a host that
        showed one game and had the seats sign another (another target, Bessere as a redeal that lets its side pick
        between decks it knows, another deal mode) is refused, nothing signed."""
        shown = self.agreed_terms
        if shown is None or not shown.rules_json:
            return
        try:
            table_rules: Rules | None = Rules.from_json(shown.rules_json)
        except (ValueError, TypeError):
            table_rules = None  # (the table showed rules this client cannot read: nothing it agreed to either)
        terms = (h.settings.deal or "verified", h.settings.reveal or "match-end")
        if table_rules != rules or terms != (shown.settings.deal or "verified", shown.settings.reveal or "match-end"):
            raise self.fault(Reason.OTHER_TERMS, "the header's rules or deal settings are not those of the table this "
                             "seat joined: the host would have it sign another game than the one it shows")

    def _check_series(self, h: Any, rules: Rules) -> None:
        """The header's previous game and Bummerl carried: well-formed always; and, for a seat that played the
        previous match at this table, exactly what that match left (its id, its header's Bummerl plus its
        MatchEnd's): else the host would carry another score into the series than the one played."""
        said = Series(bytes(h.previous_game_id), tuple(int(b) for b in h.bummerl_carried[:8]))
        problem = series_problem(rules, said) if len(h.bummerl_carried) <= 8 else "Bummerl carried for too many sides"
        if problem is not None:
            raise self.fault(Reason.WRONG_SERIES, f"the header's series is malformed: {problem}")
        if self.follows is not None and said != self.follows:
            raise self.fault(Reason.WRONG_SERIES, f"the header says this match comes {said.describe()}; this seat "
                             f"played the previous match here, which leaves: {self.follows.describe()}")

    def next_series(self) -> Series | None:
        """What the header of the table's next match must say of its series, once this match is over (None: not
        over, so a next match cannot follow it)."""
        if not self.finished or self.rules is None or self.header is None:
            return None
        this = Series(bytes(self.header.previous_game_id), tuple(self.header.bummerl_carried))
        return next_series(self.game_id, this, self.match_bummerl, self.rules.bummerl_limit)

    def _sign_header_once(self) -> None:
        """A seat signs one header per game id, ever (docs/protocol.md 5.1, step 1): a host that restarts a game under
        a new header (to deal it again) is refused. Kept beside the seat's secrets, before the signature leaves."""
        if self.secrets_dir is None:
            return
        path = self.secrets_dir / "headers" / f"{self.game_id.hex()}-seat{self.seat}"
        if path.exists():
            if path.read_text().strip() != self.header_hash.hex():
                raise self.fault(Reason.SECOND_HEADER, "this seat has signed another header for this game id: the host "
                                 "may be dealing the game again")
            return
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(self.header_hash.hex())
            out.flush()
            os.fsync(out.fileno())

    def _on_KeySet(self, signed: Signed) -> None:
        if self.verified is None:
            raise self.fault(Reason.UNEXPECTED_MESSAGE, "a KeySet in a game whose header says trustless")
        self.verified.on_key_set(signed)

    def _on_HandOpen(self, signed: Signed) -> None:
        p = signed.payload
        if self.verified is None or len(self.verified.keys) != len(self.roster_keys):
            raise self.fault(Reason.UNEXPECTED_MESSAGE, "a deal opened before every game key was revealed")
        self.verified.on_hand_open(int(p.hand), int(p.attempt))
        self.hand = (int(p.hand), int(p.attempt))
        self.card_commitments = []
        self.my_positions = set()
        self.played_positions = set()
        self.cards = {}

    # -- the seat's seeds survive a restart of its process (kept before the commitment leaves)
    def _secrets_file(self) -> Path | None:
        if self.secrets_dir is None or not self.game_id:
            return None
        return self.secrets_dir / f"{self.game_id.hex()[:24]}-seat{self.seat}.json"

    @staticmethod
    def _secret_key(hand: tuple[int, int] | str) -> str:
        """Level 1 keeps its game key ("game-key"); Level 2 a deal secret per deck ("deck:d")."""
        return hand if isinstance(hand, str) else f"{hand[0]}:{hand[1]}"

    def kept_secret(self, hand: tuple[int, int] | str) -> tuple[bytes, bytes] | None:
        path = self._secrets_file()
        if path is None or not path.exists():
            return None
        try:
            kept = json.loads(path.read_text()).get(self._secret_key(hand))
        except (OSError, ValueError):
            return None
        return (bytes.fromhex(kept[0]), bytes.fromhex(kept[1])) if kept else None

    def keep_secret(self, hand: tuple[int, int] | str, seed: bytes, extra: bytes) -> None:
        path = self._secrets_file()
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            kept = json.loads(path.read_text()) if path.exists() else {}
        except (OSError, ValueError):
            kept = {}
        kept[self._secret_key(hand)] = [seed.hex(), extra.hex()]
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(kept, out)
            out.flush()
            os.fsync(out.fileno())
        tmp.replace(path)

    def keep_only(self, owed: str | None) -> None:
        """After catching up from a snapshot: keep only the protocol message the host still waits for, and (trustless)
        whatever the seat's own replay says is still owed (`TrustlessSeat.still_owed`): a deck prepared ahead waits
        for its key shares and shuffles whatever the current step is, and several ShareRequests (one per recipient) may
        wait for this seat's shares at once, which the host's one step cannot name."""
        kept: dict[str, bytes] = {}
        trustless: list[bytes] = []
        for raw in self.outbox:
            signed = self.parsed(raw)
            if self.trustless is not None and self.trustless.still_owed(signed):
                trustless.append(raw)
            elif signed.type == owed or self._sealed_with_checkpoint(signed, owed):
                kept[signed.type] = raw  # the latest one: it answers the current step
        self.outbox = trustless + list(kept.values())

    def _sealed_with_checkpoint(self, signed: Signed, owed: str | None) -> bool:
        """With next_deal = with-checkpoint the host names one step while it waits for both co-signatures: the
        checkpoint's and the next deal's DeckSealed (HostGame.waiting_for)."""
        return (owed == "CheckpointSignature" and signed.type == "DeckSealedSignature" and self.header is not None
                and self.header.next_deal == "with-checkpoint"
                and (int(signed.payload.hand), int(signed.payload.attempt)) == self.hand)

    def _preparing(self, signed: Signed) -> bool:
        return (self.trustless is not None and signed.type in ("KeyShare", "Shuffle")
                and self.trustless.live_deck(signed.payload))

    def _on_Relay(self, signed: Signed) -> None:
        inner, proven = self._take_embedded(bytes(signed.payload.envelope))
        seat = inner.sender
        if seat != signed.payload.seat or not 0 <= seat < len(self.roster_keys):
            raise self.fault(Reason.BAD_RELAY, "a relayed envelope names another seat")
        # (the echo of this seat's own co-signature, byte for byte as it made it, or one checked just now: proven)
        if not proven and not check_signature(inner, self.roster_keys[seat]):
            raise self.fault(Reason.BAD_SIGNATURE, f"a relayed envelope of seat {seat} has a bad signature")
        self._check_cosignature(inner, seat)
        if self.trustless is not None:
            self.trustless.on_relay(inner, seat)
        if self.verified is not None:
            self.verified.on_relay(inner, seat)

    def _check_cosignature(self, inner: Signed, seat: int) -> None:
        """A relayed co-signature must be over what this seat holds (docs/protocol.md §4): another seat's signature over
        another header, DeckSealed or chain head means the host showed the seats different chains (a fork)."""
        p = inner.payload
        if inner.type == "HeaderSignature":
            signed_else = p.header_hash != self.header_hash
        elif inner.type == "DeckSealedSignature":
            signed_else = (int(p.hand), int(p.attempt)) != self.hand or p.deck_sealed_hash != self.deck_sealed_hash
        elif inner.type == "CheckpointSignature":
            signed_else = (int(p.hand), int(p.chain_seq), bytes(p.chain_head)) != self.checkpoint
        else:
            return
        if signed_else:
            raise self.fault(Reason.FORK,
                             f"seat {seat}'s {inner.type} is over something else than this seat holds: the "
                             "host shows the seats different chains")

    def _on_DeckSealed(self, signed: Signed) -> None:
        p = signed.payload
        assert self.rules is not None
        if (p.hand, p.attempt) != self.hand or len(p.card_commitments) != self.rules.deck:
            raise self.fault(Reason.BAD_DECK_SEALED, "the DeckSealed list is not for this hand or has the wrong size")
        self.card_commitments = [bytes(c) for c in p.card_commitments]
        self.deck_sealed_hash = signed.hash
        assert self.verified is not None
        self.verified.on_deck_sealed(self.hand, self.card_commitments)
        if self.seat in self.stood_in:
            return  # a stand-in plays this seat now: the host does not wait for its signature
        self.send(pb.DeckSealedSignature(hand=p.hand, attempt=p.attempt, seat=self.seat,
                                          deck_sealed_hash=signed.hash))

    def _check_opening(self, k: int, card: str, salt: bytes) -> None:
        h, a = self.hand
        if not 0 <= k < len(self.card_commitments) or not card_matches(
            self.card_commitments[k], self.game_id, h, a, k, card, salt
        ):
            raise self.fault(Reason.CARD_COMMIT_MISMATCH, f"card {card} at position {k} does not open its commitment")

    def _on_CardDelivery(self, signed: Signed) -> None:
        p = signed.payload
        if p.seat != self.seat or (p.hand, p.attempt) != self.hand:
            raise self.fault(Reason.BAD_DELIVERY, "a card delivery for another seat or hand reached this seat")
        if self.verified is not None:
            self.verified.check_checkpoint_complete("a card delivery")
        for opening in p.cards:
            self._check_opening(opening.position, opening.card, opening.salt)
            self.my_positions.add(int(opening.position))
            self.cards[int(opening.position)] = str(opening.card)

    def _on_PrivateEvent(self, signed: Signed) -> None:
        from .protocol import event_from_pb

        for event in signed.payload.events:
            kind, _, data = event_from_pb(event)
            if kind == EventKind.SEE:
                self._check_opening(int(data["position"]), str(data["card"]), bytes.fromhex(str(data["salt"])))

    def _on_ActionAccepted(self, signed: Signed) -> None:
        p = signed.payload
        inner, proven = self._take_embedded(bytes(p.action_envelope)) if p.action_envelope else (None, False)
        if self.trustless is not None:
            self.trustless.on_action_accepted(signed, inner, proven)
            return
        if p.actor == "key" and self.verified is not None:
            self.verified.check_checkpoint_complete("the cut")
        if self.verified is not None:
            self.verified.on_action(str(p.action))
        for opening in p.openings:
            k = int(opening.position)
            self._check_opening(k, opening.card, opening.salt)
            if k in self.played_positions:
                raise self.fault(Reason.PLAYED_TWICE, f"the card at position {k} was played twice")
            if k in self.my_positions and p.seat != self.seat:
                raise self.fault(Reason.NOT_THEIR_CARD, f"seat {p.seat} played {opening.card}, a card of this seat")
            self.played_positions.add(k)
            self.cards.pop(k, None)

    def _on_Checkpoint(self, signed: Signed) -> None:
        p = signed.payload
        if p.chain_seq != self.chain_seq - 1 or not self._head_before(signed):
            raise self.fault(Reason.BAD_CHECKPOINT, "the checkpoint does not name the chain head this seat holds")
        self.checkpoint = (int(p.hand), int(p.chain_seq), bytes(p.chain_head))
        if self.verified is not None:
            self.verified.on_checkpoint()
        self.send(pb.CheckpointSignature(hand=p.hand, seat=self.seat, chain_seq=p.chain_seq,
                                          chain_head=p.chain_head))

    def _head_before(self, signed: Signed) -> bool:
        return bool(signed.envelope.prev_hash == signed.payload.chain_head)

    def _on_HostSeedReveal(self, signed: Signed) -> None:
        if self.verified is None:
            raise self.fault(Reason.UNEXPECTED_MESSAGE, "a seed reveal in a game whose header says trustless")
        self.verified.on_hand_seed(signed)

    def _on_HostKeyReveal(self, signed: Signed) -> None:
        if self.verified is None:
            raise self.fault(Reason.UNEXPECTED_MESSAGE, "a host key in a game whose header says trustless")
        self.verified.on_host_key(signed)

    def _on_MatchEnd(self, signed: Signed) -> None:
        self.finished = True
        self.end_reason = str(signed.payload.reason)
        self.match_bummerl = tuple(signed.payload.bummerl)
        if self.trustless is not None:
            self.trustless.on_match_end()  # the deck prepared ahead is abandoned
            self._drop_owed("KeyShare", "Shuffle")
        for raw in signed.payload.unanswered:  # our key commitment, if the host accepted it before it stopped
            self.take_embedded(bytes(raw))

    def _on_StandIn(self, signed: Signed) -> None:
        p = signed.payload
        if p.active and int(p.seat) == self.seat:
            self.called_away.append((self.chain_seq, tuple(self.outbox)))
        if p.active:
            self.stood_in.add(int(p.seat))
            if self.verified is not None:
                self.verified.on_stand_in()  # (the host no longer waits for that seat's signatures)
        else:
            self.stood_in.discard(int(p.seat))
        if self.trustless is not None:
            self.trustless.on_stand_in()

    # -- trustless games (Level 2): see level2_seat.py
    def _on_DeckPrepare(self, signed: Signed) -> None:
        if self.trustless is None:
            raise self.fault(Reason.UNEXPECTED_MESSAGE, "a trustless deck in a game whose header says otherwise")
        self.trustless.on_deck_prepare(signed)

    def _on_TrustlessDealOpen(self, signed: Signed) -> None:
        if self.trustless is None:
            raise self.fault(Reason.UNEXPECTED_MESSAGE, "a trustless deal in a game whose header says otherwise")
        self.trustless.on_deal_open(signed)

    def _on_ShareRequest(self, signed: Signed) -> None:
        if self.trustless is None:
            raise self.fault(Reason.UNEXPECTED_MESSAGE, "a share request in a game whose header says otherwise")
        self.trustless.on_share_request(signed)

    def _on_HandEnd(self, signed: Signed) -> None:
        if self.verified is not None:
            self.verified.on_hand_end()
        if self.trustless is not None:
            self.trustless.on_hand_end(signed)
            # The attempt is over: whatever this seat still owed for it is void (not what it owes the next deck).
            self._drop_owed("DecryptionShares", "ActionRequest")
            self._drop_dead_decks()

    def _on_AttemptAborted(self, signed: Signed) -> None:
        # A forfeited or redealt attempt: whatever we still owed for it is void.
        self._drop_owed("DeckSealedSignature")
        if self.verified is not None:
            self.verified.on_attempt_aborted(signed.payload)
        if self.trustless is not None:
            self.trustless.on_attempt_aborted(signed)
            self._drop_owed("DecryptionShares", "ActionRequest")
            self._drop_dead_decks()

    def _drop_owed(self, *types: str) -> None:
        self.outbox = [raw for raw in self.outbox if self.parsed(raw).type not in types]

    def _drop_dead_decks(self) -> None:
        """Key shares and shuffles of a deck given up with its attempt (never sealed) are void."""
        self.outbox = [raw for raw in self.outbox if (signed := self.parsed(raw)).type not in (
            "KeyShare", "Shuffle") or self._preparing(signed)]

    def _on_Disclosure(self, signed: Signed) -> None:
        """Nothing to do: it discloses envelopes withheld from other seats, which only an audit (verify) checks."""

    # Every host envelope type (protocol.HOST_TYPES) to what the seat does with it.
    HANDLERS: ClassVar[dict[str, Callable[[SeatGame, Signed], None]]] = {
        "GameHeader": _on_GameHeader, "KeySet": _on_KeySet, "HandOpen": _on_HandOpen, "Relay": _on_Relay,
        "DeckSealed": _on_DeckSealed, "CardDelivery": _on_CardDelivery, "PrivateEvent": _on_PrivateEvent,
        "ActionAccepted": _on_ActionAccepted, "Checkpoint": _on_Checkpoint, "HostSeedReveal": _on_HostSeedReveal,
        "HostKeyReveal": _on_HostKeyReveal, "MatchEnd": _on_MatchEnd, "StandIn": _on_StandIn,
        "DeckPrepare": _on_DeckPrepare, "TrustlessDealOpen": _on_TrustlessDealOpen, "ShareRequest": _on_ShareRequest,
        "HandEnd": _on_HandEnd, "AttemptAborted": _on_AttemptAborted, "Disclosure": _on_Disclosure,
    }
