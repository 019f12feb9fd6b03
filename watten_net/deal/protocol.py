"""Level 1 envelopes over the wire contract: building, parsing and checking signed envelopes.

Shared by the host, the seats and the verifier, so all three read and write the same bytes. An
envelope is kept as the bytes its sender made (protobuf serialisation is not canonical): we parse
to read, but hash and verify the original bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf.message import DecodeError, Message

from watten_net.refusal import Code, Reason, Refusal
from watten_net.v1 import watten_pb2 as pb

from .envelope import GENESIS_PREV_HASH, HOST_SENDER, envelope_hash, sign_envelope, verify_envelope

PROTOCOL_VERSION = 2  # Level 1 version 2 (docs/protocol.md); a header of another version is refused
REVEAL_MODES = ("match-end", "hand-end")  # GameSettings.reveal ("" in a header: match-end)
DEAL_MODES = ("verified", "trustless")  # GameSettings.deal ("" in a header: verified)
# GameHeader.next_deal (docs/protocol.md 5.5 item 6): "" = the next hand's HandOpen and DeckSealed once every seat
# present signed the checkpoint; "with-checkpoint" = posted with the checkpoint, its cut and cards still only once the
# checkpoint is complete. The host writes one of these, and a seat signs no header that asks for another order.
WITH_CHECKPOINT = "with-checkpoint"
NEXT_DEAL_MODES = ("", WITH_CHECKPOINT)
# GameHeader.step_timeout_ms (docs/protocol.md "The step timeout"): how long a seat online may owe a protocol step
# before the host may stand in for it, signed by every seat; 0: no time limit. A seat signs no header with a step
# timeout above 0 and below its floor (`SeatGame.step_timeout_floor`, by default this one): the steps are answered by
# the client software, not by the person, and an honest table on a LAN answers each well within 5 s even on a loaded
# machine (docs/protocol-decisions.md "The step timeout is signed"); a host with less could call any seat away.
STEP_TIMEOUT_FLOOR = 5.0  # seconds


def header_step_timeout(header: Any) -> float:
    """The header's step timeout in seconds (0.0: no time limit, which every header made before the field says)."""
    return int(getattr(header, "step_timeout_ms", 0)) / 1000.0


def seconds_text(seconds: float) -> str:
    """A step timeout as a person reads it: "30", "0.05", "4294967.295" (`:g` wrote the largest "4.29497e+06")."""
    return f"{seconds:.3f}".rstrip("0").rstrip(".")


def step_timeout_problem(seconds: float, floor: float = STEP_TIMEOUT_FLOOR) -> str | None:
    """Why a step timeout of `seconds` is not one to sign (or to host), None when it is: 0 (no limit) or the floor
    and above."""
    if seconds == 0 or seconds >= floor:
        return None
    return (f"a step timeout of {seconds_text(seconds)} s is below the {seconds_text(floor)} s any honest seat on a "
            "LAN can always meet")


def roster_problem(bots: Sequence[bool], host_run: Sequence[bool]) -> str | None:
    """Why a roster is not one to sign (or to host), None when it is: each of the host's bots must be host-run. A
    person reveals its game key only after every host-run seat's (PROTOCOL.md Level 1 step 4), so that a host
    withholding one of its keys does so blind; a bot left unmarked would reveal after the people, and the host, which
    knows k_H and its bots' keys, would see every deal of the match before it chose to reveal or withhold it. (The
    person the host process seats itself is host-run too, but no seat can tell that person from another.)"""
    for seat, (bot, run) in enumerate(zip(bots, host_run, strict=True)):
        if bot and not run:
            return (f"seat {seat} is the host's bot but not marked host-run: its game key would come after the "
                    "people's, and the host would see every deal before it chose to reveal or withhold it")
    return None


HOST_SEAT = -1  # Envelope.sender_seat of the host on the wire; signed as HOST_SENDER (255)

HOST_TYPES = {
    "GameHeader": pb.GameHeader, "Relay": pb.Relay, "KeySet": pb.KeySet, "HandOpen": pb.HandOpen,
    "DeckSealed": pb.DeckSealed, "HostKeyReveal": pb.HostKeyReveal, "CardDelivery": pb.CardDelivery,
    "ActionAccepted": pb.ActionAccepted,
    "PrivateEvent": pb.PrivateEvent, "HandEnd": pb.HandEnd, "Checkpoint": pb.Checkpoint,
    "HostSeedReveal": pb.HostSeedReveal, "AttemptAborted": pb.AttemptAborted, "Disclosure": pb.Disclosure,
    "MatchEnd": pb.MatchEnd, "StandIn": pb.StandIn,
    # Level 2 (trustless deals)
    "DeckPrepare": pb.DeckPrepare, "TrustlessDealOpen": pb.TrustlessDealOpen, "ShareRequest": pb.ShareRequest,
}
CLIENT_TYPES = {
    "HeaderSignature": pb.HeaderSignature, "KeyCommit": pb.KeyCommit,
    "KeySetSignature": pb.KeySetSignature, "KeyReveal": pb.KeyReveal,
    "DeckSealedSignature": pb.DeckSealedSignature, "ActionRequest": pb.ActionRequest,
    "CheckpointSignature": pb.CheckpointSignature,
    # Level 2 (trustless deals)
    "KeyShare": pb.KeyShare, "Shuffle": pb.Shuffle, "DecryptionShares": pb.DecryptionShares,
}


ProtocolError = Refusal
"""A message that breaks the protocol: the one Refusal (watten_net/refusal.py), under the name this layer has always
used. Its `code` says how the host answers it, its `seat` names the seat that cheated when the refusal proves one
did (a proof that does not verify, a card opened from another seat's position)."""


def signing_seat(sender_seat: int) -> int:
    return HOST_SENDER if sender_seat == HOST_SEAT else sender_seat


@dataclass(frozen=True)
class Signed:
    """A parsed envelope together with the exact bytes it came in and their hash."""

    raw: bytes
    envelope: Any  # pb.Envelope
    payload: Any  # the inner message named by envelope.type
    hash: bytes

    @property
    def type(self) -> str:
        return str(self.envelope.type)

    @property
    def seq(self) -> int:
        return int(self.envelope.seq)

    @property
    def sender(self) -> int:
        return int(self.envelope.sender_seat)


def make_envelope(
    key: Ed25519PrivateKey, game_id: bytes, seq: int, prev_hash: bytes, sender_seat: int, payload: Message
) -> bytes:
    return make_signed(key, game_id, seq, prev_hash, sender_seat, payload).raw


def make_signed(
    key: Ed25519PrivateKey, game_id: bytes, seq: int, prev_hash: bytes, sender_seat: int, payload: Message
) -> Signed:
    """`make_envelope`, with the envelope and payload it was built from: what `parse_envelope` of its bytes would give,
    without parsing them again (the payload is `payload` itself: not to be changed after)."""
    type_name = payload.DESCRIPTOR.name
    body = payload.SerializeToString(deterministic=True)
    signature = sign_envelope(key, game_id, seq, prev_hash, signing_seat(sender_seat), type_name, body)
    env = pb.Envelope(
        game_id=game_id, seq=seq, prev_hash=prev_hash, sender_seat=sender_seat, type=type_name, payload=body,
        signature=signature,
    )
    raw = bytes(env.SerializeToString(deterministic=True))
    return Signed(raw, env, payload, envelope_hash(raw))


def parse_envelope(raw: bytes, *, host: bool) -> Signed:
    """Parse envelope bytes and their payload; raises ProtocolError(Code.INVALID, ...) when malformed."""
    if not isinstance(raw, bytes | bytearray) or not raw:
        raise ProtocolError(Code.INVALID, Reason.BAD_ENVELOPE, "an envelope must be non-empty bytes")
    raw = bytes(raw)
    env = pb.Envelope()
    try:
        env.ParseFromString(raw)
    except DecodeError:
        raise ProtocolError(Code.INVALID, Reason.BAD_ENVELOPE, "the envelope bytes do not parse") from None
    # One message, one encoding: the hash chain links bytes, so bytes that parse to the same envelope but
    # differ (an unknown field added, fields reordered) would be a second valid record of the same game. The
    # envelope without what it does not know, written again, is that one encoding (the same bytes as a new Envelope
    # of its seven fields, without copying each field into one).
    env.DiscardUnknownFields()
    if env.SerializeToString(deterministic=True) != raw:
        raise ProtocolError(Code.INVALID, Reason.BAD_ENVELOPE, "the envelope is not in its canonical encoding")
    types = HOST_TYPES if host else CLIENT_TYPES
    kind = types.get(env.type)
    if kind is None:
        raise ProtocolError(Code.INVALID, Reason.UNKNOWN_TYPE, f"unknown or wrong-direction envelope type {env.type!r}")
    if len(env.game_id) != 32 or len(env.prev_hash) != 32 or len(env.signature) != 64:
        raise ProtocolError(Code.INVALID, Reason.BAD_ENVELOPE, "game id, prev_hash and signature have fixed lengths")
    payload = kind()
    try:
        payload.ParseFromString(env.payload)
    except DecodeError:
        raise ProtocolError(Code.INVALID, Reason.BAD_PAYLOAD, f"the {env.type} payload does not parse") from None
    return Signed(raw, env, payload, envelope_hash(raw))


def header_hash(header_envelope: bytes) -> bytes:
    """``header_hash`` (docs/protocol.md §3): SHA-256 of the GameHeader's payload bytes, exactly as the host signed them
    (what every seat signs in its HeaderSignature, and what K_i and Hks bind)."""
    env = pb.Envelope()
    env.ParseFromString(header_envelope)
    return hashlib.sha256(env.payload).digest()


def check_signature(signed: Signed, public_key: bytes) -> bool:
    env = signed.envelope
    sender = int(env.sender_seat)
    if sender != HOST_SEAT and not 0 <= sender < 255:
        return False
    return verify_envelope(
        public_key, env.signature, env.game_id, env.seq, env.prev_hash, signing_seat(sender), env.type, env.payload
    )


@dataclass
class SenderChain:
    """One sender's own chain of envelopes: seq counts up from 1, prev_hash links to the last one."""

    seq: int = 0
    head: bytes = GENESIS_PREV_HASH
    accepted: dict[bytes, int] = field(default_factory=dict)  # envelope hash -> seq, for idempotent retries

    def check_next(self, signed: Signed) -> None:
        if signed.seq != self.seq + 1 or signed.envelope.prev_hash != self.head:
            raise ProtocolError(
                Code.ABORTED, Reason.STALE_ENVELOPE_SEQ,
                f"expected envelope seq {self.seq + 1} linked to your previous envelope; refresh and resend",
            )

    def advance(self, signed: Signed) -> None:
        self.seq = signed.seq
        self.head = signed.hash
        self.accepted[signed.hash] = signed.seq


def event_to_pb(kind: str, seat: int, data: dict[str, Any]) -> Any:
    """An engine event as a GameEvent: every field value is compact JSON (so "7" and 7 stay distinct)."""
    return pb.GameEvent(kind=kind, seat=seat, fields={k: compact_json(v) for k, v in data.items()})


def compact_json(value: Any) -> str:
    """``json.dumps(value, separators=(",", ":"), sort_keys=True)``, with the two commonest kinds of field written
    straight away (the same text: json writes an int as ``str`` does and a string with `encode_basestring_ascii`);
    the host writes some 50 event fields a hand, and they are signed, so the text must not change."""
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is str:
        return encode_basestring_ascii(value)
    return _COMPACT.encode(value)


# `json.dumps` with these arguments builds this very encoder on every call; made once, it writes the same text.
_COMPACT = json.JSONEncoder(separators=(",", ":"), sort_keys=True)


def event_from_pb(event: Any) -> tuple[str, int, dict[str, Any]]:
    data: dict[str, Any] = {}
    for key, value in event.fields.items():
        try:
            data[key] = json.loads(value)
        except ValueError:
            raise ProtocolError(Code.INVALID, Reason.BAD_PAYLOAD, f"event field {key!r} is not JSON") from None
    return str(event.kind), int(event.seat), data
