"""Hostile input for a live host: hypothesis strategies over the watten_net.v1 requests and envelopes, and the
harness that fires them at a real host process in concurrent batches while two real seats play a match.

A strategy draws a *recipe*: a small frozen description of one request (`Call`, `Submit`, `Raw`, `Oversized`)
whose live parts (tokens, the game id, chain heads, a seat's next envelope seq, the message a seat owes) are
`Ref`s, resolved only when the request is sent, against the table as it is at that moment. So hypothesis draws
few bytes per request, and the same drawing means the same kind of request in any hand of the match.

The harness keeps the match still while it fires: seat A (`hold=True`) answers the deal protocol only when told,
so at every *point* the table waits for seat A alone (a protocol message A owes, or A's turn to act). Each batch
of bad requests is framed by two snapshots of everything A and B can see (a fresh Subscribe each, with the whole
chain, and GetTable); they must be equal. Then A takes its step and the match moves on to the next point.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf.descriptor import FieldDescriptor
from grpc import StatusCode as SC
from hypothesis import strategies as st

from client.connection import STALE_STEP, Connection, Refused
from client.errors import refusal_from_error
from watten_net.deal.envelope import sign_envelope
from watten_net.deal.identity import public_key_bytes
from watten_net.deal.protocol import (
    CLIENT_TYPES,
    HOST_TYPES,
    ProtocolError,
    check_signature,
    parse_envelope,
    signing_seat,
)
from watten_net.engine.match import normalise_action
from watten_net.record import KIND_HOST, KIND_OWN, KIND_WITHHELD
from watten_net.refusal import Reason
from watten_net.v1 import watten_pb2 as pb

SERVICE = pb.DESCRIPTOR.services_by_name["WattenTable"]
PATH = f"/{SERVICE.full_name}/"
METHODS: dict[str, tuple[Any, Any, bool]] = {
    m.name: (getattr(pb, m.input_type.name), getattr(pb, m.output_type.name), m.server_streaming)
    for m in SERVICE.methods
}
MAX_MESSAGE = 64 << 10  # host/limits.py MAX_REQUEST: the largest request the host reads
FINISHED = (pb.TABLE_PHASE_MATCH_OVER, pb.TABLE_PHASE_ABANDONED)
# The protocol step a point is at, named by the message seat A owes there. (The host's DealStatus.step says
# "deal" for every step of the deal itself, so the view alone does not tell them apart.)
STEP_OF_MESSAGE = {"HeaderSignature": "header", "KeyCommit": "key-commit", "KeySetSignature": "key-set",
                   "KeyReveal": "key-reveal", "DeckSealedSignature": "sealed", "CheckpointSignature": "checkpoint"}

# --------------------------------------------------------------------------------------------------------------
# What an answer may be (proto/watten_net/v1/watten.proto, header)
# --------------------------------------------------------------------------------------------------------------

ALLOWED = {
    SC.INVALID_ARGUMENT, SC.FAILED_PRECONDITION, SC.PERMISSION_DENIED, SC.UNAUTHENTICATED, SC.ABORTED,
    # RESOURCE_EXHAUSTED: a request over the 64 KiB limit (refused by gRPC itself before the host reads it, so it
    # carries no ErrorDetail: its reason is the code's, `resource-exhausted`), one over its method's own limit
    # (`request-too-large`), and the per-connection rate limit (`rate-limited`). All are documented answers to a
    # client that sends too much.
    SC.RESOURCE_EXHAUSTED,
}
DOCUMENTED: dict[SC, set[str]] = {
    SC.INVALID_ARGUMENT: {"bad-envelope", "bad-payload", "unknown-type", "bad-action", "bad-card", "bad-signature",
                          "bad-public-key", "bad-nonce", "bad-fingerprint", "bad-name", "bad-seat", "bad-request",
                          "bad-chain-head", "bad-chat"},
    SC.FAILED_PRECONDITION: {"seat-taken", "table-full", "game-started", "not-all-ready", "not-enough-players",
                             "protocol-version", "wrong-game", "unexpected-message", "commitment-mismatch",
                             "wrong-hash", "not-supported", "no-spectators", "game-not-started", "wrong-hand",
                             "stood-in", "unknown-table", "too-many-joins"},
    SC.PERMISSION_DENIED: {"wrong-seat", "not-a-player", "host-only", "bad-key-proof", "proof-required",
                           "wrong-certificate", "insecure-proof", "nonce-used", "spectator"},
    SC.UNAUTHENTICATED: {"no-token", "bad-token"},
    SC.ABORTED: {"stale-chain-head", "stale-envelope-seq", "subscriber-lagging", "stream-replaced"},
    SC.RESOURCE_EXHAUSTED: {"rate-limited", "request-too-large", "too-many-connections", "too-many-streams",
                            "too-many-seats", "join-rate-limited", "chat-rate-limited"},
}
_ENGINE_DIR = Path(__file__).resolve().parents[1] / "watten_net" / "engine"
ENGINE_REASONS = {  # every Reason the engine's modules name (they name only the reasons they refuse with)
    Reason[name].value for path in _ENGINE_DIR.glob("*.py")
    for name in re.findall(r"\bReason\.([A-Z_]+)", path.read_text(encoding="utf-8"))
}
KEBAB = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def reason_is_documented(code: SC, reason: str) -> bool:
    if reason in DOCUMENTED.get(code, set()):
        return True
    # The engine's RuleViolation reasons, verbatim: FAILED_PRECONDITION (INVALID_ARGUMENT for `malformed`).
    return code in (SC.FAILED_PRECONDITION, SC.INVALID_ARGUMENT) and reason in ENGINE_REASONS


# --------------------------------------------------------------------------------------------------------------
# Recipes
# --------------------------------------------------------------------------------------------------------------


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()  # the field is not set


@dataclass(frozen=True)
class Ref:
    """A live value, looked up when the request is sent; `tweak` != 0 alters it (an int: +tweak; bytes and text:
    one character changed, or cut, or extended)."""

    name: str
    tweak: int = 0


@dataclass(frozen=True)
class Call:
    """A request of `method`'s own message type, field by field (values may be Refs)."""

    method: str
    fields: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Built:
    """An envelope built field by field, claiming to continue seat `who`'s chain."""

    who: str  # "A" or "B"
    game: str  # real | other | short
    seq: int  # offset from the sender's next seq (0 = exactly the next one)
    prev: str  # head | zeros | random | short
    sender: Any  # self | other | bot | host | an int
    type: str
    payload: Any  # bytes, or a tuple of (field, value) for the message named by `type`
    key: str  # own | other | stranger
    signature: str  # sign | random | short | flip
    encoding: str  # canonical | unknown-field | reordered | padded


@dataclass(frozen=True)
class Mutated:
    """Real envelope bytes (`source`: own/other seat's accepted, a host envelope, the message A owes), cut short
    and/or with bytes flipped or inserted."""

    source: Ref
    cut: int | None
    flips: tuple[tuple[int, int], ...]
    insert: tuple[int, bytes] | None


@dataclass(frozen=True)
class Replay:
    """An envelope seat `who` already had accepted, sent again with `token`."""

    who: str
    index: int


@dataclass(frozen=True)
class Submit:
    token: Any
    envelope: Any  # bytes | Built | Mutated | Replay


@dataclass(frozen=True)
class BadUtf8:
    """A length-delimited field `number` holding bytes that are not UTF-8 (protobuf refuses them in a string)."""

    number: int
    junk: bytes


@dataclass(frozen=True)
class Raw:
    """Bytes sent to `method` without its message type: random bytes, another method's request, an envelope."""

    method: str
    body: Any  # bytes | Call | BadUtf8 | Built


@dataclass(frozen=True)
class Oversized:
    method: str
    extra: int  # bytes over the limit


# --------------------------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------------------------

def weighted(*choices: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of the strategies, each `weight` times as likely. (Not one_of with repeats: it drops duplicates.)"""
    return st.sampled_from([strategy for weight, strategy in choices for _ in range(weight)]).flatmap(_same)


def _same(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return strategy


INT32 = st.one_of(st.integers(-3, 8), st.integers(-(2**31), 2**31 - 1))
UINT32 = st.one_of(st.integers(0, 8), st.integers(0, 2**32 - 1))
INT64 = st.one_of(st.integers(-3, 8), st.integers(-(2**63), 2**63 - 1))
UINT64 = st.one_of(st.integers(0, 300), st.integers(0, 2**64 - 1))
TWEAK = st.sampled_from([0, 0, 0, 1, -1, 2, 7, 1000])
TEXT = st.text(st.characters(codec="utf-8"), max_size=24)

# Names that a screen must survive: control characters, bidi overrides, joiners, combining marks, separators.
NASTY_NAMES = (
    "\x00", "\x07\x1b[31mred\x1b[0m", "line\nbreak", "tab\there", "\u202eevil\u202c", "\u2066isolate\u2069",
    "👨\u200d👩\u200d👧 family", "Zoe\u0301", "Z\u0351\u0352\u0353\u0354algo", "\u200b", "\ufeffBOM", "\u3000\u3000",
    "a\u2028b\u2029c", "שלום", "مرحبا", "𝔉𝔯𝔞𝔨𝔱𝔲𝔯", "\U0001f600" * 40, "\ue000private", " padded ", "",
)


def names() -> st.SearchStrategy[Any]:
    return st.one_of(
        TEXT,
        st.text(st.characters(codec="utf-8", categories=["Cc", "Cf", "Zl", "Zp", "Zs", "Mn", "Me", "Co"]),
                max_size=40),
        st.sampled_from(NASTY_NAMES),
        st.tuples(st.sampled_from(["x", "é", "\u202e", "👍", "\u0301", "\x00", "ab "]),
                  st.integers(33, 10_000)).map(lambda t: t[0] * t[1]),
    )


def tokens(legit: bool) -> st.SearchStrategy[Any]:
    """Seat tokens: empty, any text (non-ASCII too), token-shaped, a real one altered, very long; `legit` adds the
    real tokens of A and B."""
    bad = st.one_of(
        st.just(""),
        TEXT,
        st.binary(min_size=24, max_size=24).map(lambda b: base64.urlsafe_b64encode(b).decode()),
        st.builds(Ref, st.sampled_from(["token.A", "token.B"]), st.integers(1, 64)),
        st.integers(100, 20_000).map(lambda n: "t" * n),
    )
    if not legit:
        return bad
    return st.one_of(bad, st.builds(Ref, st.sampled_from(["token.A", "token.B"])))


ACTION_WORDS = (
    "play HK", "play S7", "play E10", "play XX", "raise", "accept", "fold", "concede", "take", "keep", "cut 3",
    "cut 12", "cut 99", "cut -1", "cut 1e9", "cut \u0663", "schlag O", "schlag 7", "schlag Z", "trump H",
    "trump X", "swap? yes", "swap no", "bessere? yes", "schadet?", "signal trump", "signal ???", "", " ",
    "PLAY hk", "play", "play HK HK", "\x00play HK", "play\u00a0HK", "Raise", "RAISE " * 50,
)


def actions() -> st.SearchStrategy[Any]:
    """Action texts: the engine's vocabulary right and wrong, one of the seat's legal actions now, any text."""
    return weighted((3, st.sampled_from(ACTION_WORDS)), (2, st.builds(Ref, st.just("legal"), st.integers(0, 20))),
                    (1, TEXT))


EXACT = st.just(Ref("expect"))  # the value a correct message would carry here
NEAR = st.builds(Ref, st.just("expect"), st.sampled_from([1, -1, 2, 7, 1000]))  # that value, a little off


def _expect_or(other: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the right value (so that the next check is reached), sometimes nearly, sometimes anything."""
    return weighted((6, EXACT), (2, NEAR), (2, other))


def hashes() -> st.SearchStrategy[Any]:
    return _expect_or(st.one_of(
        st.builds(Ref, st.sampled_from(["hash.header", "hash.head", "hash.recent"]), st.integers(0, 6)),
        st.binary(max_size=40),
        st.binary(min_size=32, max_size=32),
    ))


PAYLOAD_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "seat": _expect_or(st.one_of(st.builds(Ref, st.sampled_from(["seat.other", "seat.bot"])), INT32)),
    "hand": _expect_or(UINT32),
    "attempt": _expect_or(UINT32),
    "chain_seq": _expect_or(UINT64),
    "header_hash": hashes(), "key_set_hash": hashes(), "deck_sealed_hash": hashes(),
    "chain_head": hashes(),
    "commitment": _expect_or(st.binary(max_size=40)),  # KeyCommit's K_i
    "key": _expect_or(st.binary(max_size=40)),  # KeyReveal's k_i

    "action": actions(),
}


def _scalar(f: Any, depth: int) -> st.SearchStrategy[Any]:
    t = f.type
    if t == FieldDescriptor.TYPE_STRING:
        s: st.SearchStrategy[Any] = TEXT
    elif t == FieldDescriptor.TYPE_BYTES:
        s = st.binary(max_size=48)
    elif t == FieldDescriptor.TYPE_BOOL:
        s = st.booleans()
    elif t in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32):
        s = INT32
    elif t in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32):
        s = UINT32
    elif t in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED64):
        s = INT64
    elif t in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
        s = UINT64
    elif t == FieldDescriptor.TYPE_ENUM:
        s = st.integers(0, 9)
    elif t == FieldDescriptor.TYPE_MESSAGE and depth < 2:
        s = fields_of(f.message_type, {}, depth + 1)
    else:
        s = st.just(ABSENT)
    if f.is_repeated:
        return st.lists(s, max_size=3).map(tuple)
    return s


def fields_of(descriptor: Any, overrides: dict[str, st.SearchStrategy[Any]],
              depth: int = 0) -> st.SearchStrategy[tuple[tuple[str, Any], ...]]:
    """Any message of `descriptor`'s type: every field absent or drawn (`overrides` by field name first)."""
    parts = []
    for f in descriptor.fields:
        value = overrides[f.name] if f.name in overrides else _scalar(f, depth)
        parts.append(st.tuples(st.just(f.name), weighted((4, value), (1, st.just(ABSENT)))))
    return st.tuples(*parts)


def calls(method: str, legit_tokens: bool) -> st.SearchStrategy[Call]:
    request = METHODS[method][0]
    overrides: dict[str, st.SearchStrategy[Any]] = {
        "token": tokens(legit_tokens),
        "name": names(),
        "public_key": st.one_of(st.builds(Ref, st.sampled_from(["key.A", "key.B", "key.bot", "key.stranger"])),
                                st.binary(min_size=32, max_size=32), st.binary(max_size=40)),
        "join_nonce": st.one_of(st.binary(min_size=32, max_size=32), st.binary(max_size=40)),
        "protocol_version": st.one_of(st.sampled_from([0, 1, 1, 1, 2]), UINT32),
        "seat": st.one_of(st.builds(Ref, st.sampled_from(["seat.self", "seat.other", "seat.bot"])), INT32),
        "from_seq": st.one_of(st.builds(Ref, st.just("log_seq"), TWEAK), UINT64),
        "known_chain_seq": st.one_of(st.builds(Ref, st.just("chain_seq"), TWEAK), UINT64),
        "envelope": st.binary(max_size=64),
    }
    return st.builds(Call, st.just(method), fields_of(request.DESCRIPTOR, overrides))


def payloads(type_name: str) -> st.SearchStrategy[Any]:
    kind: Any = CLIENT_TYPES.get(type_name) or HOST_TYPES.get(type_name)
    if kind is None:
        return st.binary(max_size=64)
    return weighted((6, fields_of(kind.DESCRIPTOR, PAYLOAD_FIELDS)), (1, st.binary(max_size=64)))


HEADER_RIGHT = {"game": "real", "seq": 0, "prev": "head", "sender": "self", "key": "own", "signature": "sign",
                "encoding": "canonical"}
HEADER_WRONG: dict[str, list[Any]] = {
    "game": ["other", "short"], "seq": [-1, 1, 2, -5, 2**40], "prev": ["zeros", "random", "short"],
    "sender": ["other", "bot", "host", 7, -2, 2**31 - 1], "key": ["other", "stranger"],
    "signature": ["random", "short", "flip"], "encoding": ["unknown-field", "reordered", "padded"],
}


@st.composite
def _header(draw: Any) -> dict[str, Any]:
    """An envelope header: all right (half the time, so the payload is looked at), one thing wrong, or anything."""
    mode = draw(st.sampled_from(["right"] * 5 + ["one-wrong"] * 3 + ["any"] * 2))
    header = dict(HEADER_RIGHT)
    if mode == "one-wrong":
        name = draw(st.sampled_from(sorted(HEADER_WRONG)))
        header[name] = draw(st.sampled_from(HEADER_WRONG[name]))
    elif mode == "any":
        for name, wrong in HEADER_WRONG.items():
            header[name] = draw(st.sampled_from([HEADER_RIGHT[name], *wrong]))
    return header


def _make_built(who: str, type_name: str, payload: Any, header: dict[str, Any]) -> Built:
    return Built(who=who, type=type_name, payload=payload, **header)


def _built(type_name: st.SearchStrategy[str], payload: st.SearchStrategy[Any]) -> st.SearchStrategy[Built]:
    return st.builds(_make_built, st.sampled_from(["A", "A", "A", "B"]), type_name, payload, _header())


def built() -> st.SearchStrategy[Built]:
    """Envelopes of every client type (and, less often, host types and made-up ones), nearly right more often
    than not: each header field is usually the real one, so that the payload reaches the protocol and the engine;
    signed with the seat's key or another. (Strategies are built once per type: drawing must be cheap.)"""
    client = [(3 if t == "ActionRequest" else 1, _built(st.just(t), payloads(t))) for t in sorted(CLIENT_TYPES)]
    host = [_built(st.just(t), payloads(t)) for t in sorted(HOST_TYPES)]
    return weighted((8, weighted(*client)), (1, st.one_of(host)), (1, _built(TEXT, st.binary(max_size=64))))


def mutated() -> st.SearchStrategy[Mutated]:
    sources = st.builds(Ref, st.sampled_from(["env.own", "env.other", "env.host", "env.pending"]),
                        st.integers(0, 50))
    flips = st.lists(st.tuples(st.integers(0, 4000), st.integers(1, 255)), max_size=3).map(tuple)
    insert = st.one_of(st.none(), st.tuples(st.integers(0, 4000), st.binary(min_size=1, max_size=8)))
    return st.builds(Mutated, sources, st.one_of(st.none(), st.integers(0, 4000)), flips, insert)


def engine_probes() -> st.SearchStrategy[Built]:
    """A well-made ActionRequest on the current chain head with an action that is not legal now: the engine's
    own refusals (not your turn, no such card, not now, malformed...)."""
    payload = st.tuples(st.tuples(st.just("action"), actions()), st.just(("chain_seq", Ref("expect"))),
                        st.just(("chain_head", Ref("expect"))))
    return st.builds(_make_built, st.sampled_from(["A", "A", "B"]), st.just("ActionRequest"), payload,
                     st.just(HEADER_RIGHT))


def submits() -> st.SearchStrategy[Submit]:
    envelope = weighted(
        (1, st.binary(max_size=300)),  # random bytes
        (2, mutated()),  # truncated and mutated real envelopes
        (8, built()),  # every client type, random fields, right and wrong keys, other games and hands
        (2, engine_probes()),
        (1, st.builds(Replay, st.sampled_from(["A", "B"]), st.integers(0, 100))),  # already accepted
    )
    token = weighted((5, st.builds(Ref, st.just("token.who"))), (1, tokens(True)))
    return st.builds(Submit, token, envelope)


def raws() -> st.SearchStrategy[Raw]:
    body = st.one_of(
        st.binary(max_size=200),
        st.one_of([calls(m, legit_tokens=False) for m in sorted(METHODS)]),  # another message type
        st.builds(BadUtf8, st.integers(1, 7), st.binary(min_size=1, max_size=16).map(lambda b: b"\xff" + b)),
        built(),
    )
    return st.builds(Raw, st.sampled_from(sorted(METHODS)), body)


def fuzz_cases() -> st.SearchStrategy[Any]:
    """One request: mostly envelopes, then every other call, bytes of the wrong type, now and then one too big."""
    unary = sorted(m for m in METHODS if m not in ("SubmitEnvelope", "Leave", "Say"))
    return weighted(
        (60, submits()),
        (20, st.one_of([calls(m, legit_tokens=True) for m in unary])),
        (3, calls("Leave", legit_tokens=False)),  # a real token would really leave
        (1, calls("Say", legit_tokens=False)),  # a real token's line would really be said (tests/test_chat.py)
        (16, raws()),
        (1, st.builds(Oversized, st.sampled_from(["SubmitEnvelope", "Join", "GetTable", "Subscribe"]),
                      st.integers(1, 1 << 20))),
    )


# --------------------------------------------------------------------------------------------------------------
# The two seats
# --------------------------------------------------------------------------------------------------------------


class FuzzSeat(Connection):
    """A seat driven by the harness. With `hold`, the deal protocol's messages wait until `release()`; every
    SubmitEnvelope answer is kept by envelope hash (to check that a retry gets the original answer)."""

    def __init__(self, channel: grpc.aio.Channel, record_dir: Path, turn: asyncio.Lock, moved: asyncio.Event,
                 hold: bool) -> None:
        super().__init__(channel, record_dir=record_dir)
        self.turn = turn
        self.moved = moved
        self.hold = hold
        self.answers: dict[bytes, Any] = {}
        self.refusals: list[Refused] = []
        self.done = False

    async def _call(self, method: Any, request: Any, timeout: float) -> Any:
        response = await super()._call(method, request, timeout)
        if isinstance(response, pb.SubmitEnvelopeResponse):
            # A call of several envelopes: each one's original answer is its own, as a retry of it alone gets.
            for answer in response.answers:
                self.answers[bytes(answer.envelope_hash)] = pb.SubmitEnvelopeResponse(
                    seq=answer.seq, chain_seq=answer.chain_seq, envelope_hash=answer.envelope_hash)
            if not response.answers:
                self.answers[bytes(response.envelope_hash)] = response
        return response

    async def send_automatic(self) -> None:
        if self.hold:
            return
        async with self.turn:
            await super().send_automatic()

    async def release(self) -> None:
        """Send the protocol messages this seat owes now (the caller holds the turn). One queued meanwhile, caused by
        these (a KeyCommit once this seat's own HeaderSignature comes back relayed: the last header signature), is
        the next step and waits for its own point, however fast the stream delivers the relay."""
        assert self.game is not None
        async with self._send_lock:
            for _ in range(len(self.game.outbox)):
                raw = self.game.next_automatic()
                if raw is None:
                    return
                try:
                    await self._submit([raw])
                except Refused as err:  # as Connection's own flush: a step the table is past is dropped
                    if err.code != grpc.StatusCode.FAILED_PRECONDITION or err.reason not in STALE_STEP:
                        raise
                    if raw in self.game.outbox:
                        self.game.outbox.remove(raw)

    async def follow_and_play(self, rng: random.Random, autoplay: bool) -> None:
        try:
            while not await self._follow_once(rng, autoplay):
                pass
        finally:
            self.done = True
            self.moved.set()

    async def _follow_once(self, rng: random.Random, autoplay: bool) -> bool:
        """Follow the seat's stream until the match is over (True), or until another Subscribe with the seat's token
        replaced it (False: one stream per token, and the harness's snapshots and fuzzed Subscribes are such)."""
        try:
            async for view in self.updates():
                self.moved.set()
                if view is None:
                    continue
                if view.table.phase in FINISHED:
                    return True
                if autoplay and self.seat in view.to_act and view.legal_actions:
                    async with self.turn:
                        if self.view is not view:
                            continue  # the table moved on: act on the newer view
                        try:
                            await self.act(rng.choice(list(view.legal_actions)))
                        except Refused as err:
                            self.refusals.append(err)
        except Refused as err:
            if err.reason != "stream-replaced":
                raise
            return False
        return True

    def accepted_envelopes(self) -> list[bytes]:
        assert self.game is not None
        return [e.data for e in self.game.record if e.kind == KIND_OWN]


# --------------------------------------------------------------------------------------------------------------
# Resolving recipes against the live table
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Live:
    """Everything a recipe may refer to, read at one point of the match (under the turn lock)."""

    seats: dict[str, FuzzSeat]
    bots: list[int]
    stranger: Ed25519PrivateKey
    other_game: bytes
    log_seq: int
    step: str
    legal: dict[str, list[str]]
    chain_hashes: list[bytes]
    host_envelopes: list[bytes]
    pending: dict[str, Any] = field(default_factory=dict)  # who -> Signed envelope it owes (held back)
    accepted: dict[str, list[bytes]] = field(default_factory=dict)

    @property
    def game_id(self) -> bytes:
        game = self.seats["A"].game
        assert game is not None
        return game.game_id

    def seat(self, who: str) -> int:
        return self.seats[who].seat

    def token(self, who: str) -> str:
        return self.seats[who].token

    def other(self, who: str) -> str:
        return "B" if who == "A" else "A"


def live_context(seats: dict[str, FuzzSeat], bots: list[int], stranger: Ed25519PrivateKey, other_game: bytes,
                 log_seq: int, step: str, views: dict[str, Any]) -> Live:
    game = seats["A"].game
    assert game is not None
    chain_hashes: list[bytes] = []
    host_envelopes: list[bytes] = []
    for entry in game.record:
        if entry.kind == KIND_HOST:
            chain_hashes.append(hashlib.sha256(entry.data).digest())
            host_envelopes.append(entry.data)
        elif entry.kind == KIND_WITHHELD:
            chain_hashes.append(bytes(pb.Withheld.FromString(entry.data).envelope_hash))
    live = Live(seats, bots, stranger, other_game, log_seq, step,
                {who: list(views[who].legal_actions) for who in seats}, chain_hashes, host_envelopes[-60:])
    for who, seat in seats.items():
        assert seat.game is not None
        live.accepted[who] = seat.accepted_envelopes()
        if seat.game.outbox:
            raw = seat.game.next_automatic()
            assert raw is not None
            live.pending[who] = parse_envelope(raw, host=False)
    return live


def _tweak_bytes(value: bytes, tweak: int) -> bytes:
    if not tweak:
        return value
    if not value:
        return bytes([tweak & 0xFF or 1])
    if tweak < 0:
        return value[:tweak]
    i = tweak % len(value)
    return value[:i] + bytes([value[i] ^ 0x5A]) + value[i + 1:]


def _tweak_text(value: str, tweak: int) -> str:
    if not tweak:
        return value
    if tweak > 32:
        return value + "x" * (tweak - 32)
    i = tweak % max(1, len(value))
    changed = "A" if value[i:i + 1] != "A" else "B"
    return value[:i] + changed + value[i + 1:]


def _tweak(value: Any, tweak: int) -> Any:
    if isinstance(value, bytes):
        return _tweak_bytes(value, tweak)
    if isinstance(value, str):
        return _tweak_text(value, tweak)
    if isinstance(value, int):
        return value + tweak
    return value


class Resolver:
    """Turns recipes into request bytes for one point of the match."""

    def __init__(self, live: Live) -> None:
        self.live = live

    # -- values
    def value(self, v: Any, who: str, field_name: str = "", type_name: str = "") -> Any:
        if isinstance(v, Ref):
            return _tweak(self.ref(v, who, field_name, type_name), v.tweak)
        if isinstance(v, tuple) and v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
            return v  # a nested message's fields: built by `message`
        return v

    def ref(self, r: Ref, who: str, field_name: str, type_name: str) -> Any:
        live = self.live
        name = r.name
        seat_game = live.seats[who].game
        assert seat_game is not None
        if name == "token.who":
            return live.token(who)
        if name.startswith("token."):
            return live.token(name[6:])
        if name.startswith("key."):
            which = name[4:]
            if which in live.seats:
                return public_key_bytes(live.seats[which].key)
            if which == "bot":
                return seat_game.roster_keys[live.bots[0]] if seat_game.roster_keys else bytes(32)
            return public_key_bytes(live.stranger)
        if name == "seat.self":
            return live.seat(who)
        if name == "seat.other":
            return live.seat(live.other(who))
        if name == "seat.bot":
            return live.bots[0]
        if name == "log_seq":
            return max(0, live.log_seq)
        if name == "chain_seq":
            return len(live.chain_hashes)
        if name == "hash.header":
            return live.chain_hashes[0] if live.chain_hashes else bytes(32)
        if name == "hash.head":
            return live.chain_hashes[-1] if live.chain_hashes else bytes(32)
        if name == "hash.recent":
            back = min(len(live.chain_hashes), 1 + r.tweak)
            return live.chain_hashes[-back] if back else bytes(32)
        if name == "legal":
            options = live.legal[who]
            return options[r.tweak % len(options)] if options else "raise"
        if name == "expect":
            return self.expected(who, field_name, type_name)
        raise AssertionError(f"unknown reference {name}")

    def expected(self, who: str, field_name: str, type_name: str) -> Any:
        """The value a correct message of `type_name` from `who` would carry in `field_name` now."""
        pending = self.live.pending.get(who)
        if pending is not None and pending.type == type_name and hasattr(pending.payload, field_name):
            return getattr(pending.payload, field_name)
        game = self.live.seats[who].game
        assert game is not None
        defaults = {
            "seat": self.live.seat(who), "hand": game.hand[0], "attempt": game.hand[1],
            "chain_seq": game.chain_seq, "chain_head": game.chain_head, "header_hash": game.header_hash,
            "key_set_hash": game.verified.key_set if game.verified is not None else bytes(32),
            "deck_sealed_hash": game.chain_head, "commitment": bytes(32), "key": bytes(32),
        }
        value = defaults.get(field_name, 0)
        return max(0, value) if isinstance(value, int) else value

    def message(self, cls: Any, fields: tuple[tuple[str, Any], ...], who: str) -> Any:
        msg = cls()
        type_name = cls.DESCRIPTOR.name
        for name, raw_value in fields:
            if raw_value is ABSENT:
                continue
            f = cls.DESCRIPTOR.fields_by_name[name]
            if f.is_repeated:
                values = [self.value(x, who, name, type_name) for x in raw_value]
                if f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type.GetOptions().map_entry:
                    for x in values:
                        entry = dict(x) if isinstance(x, tuple) else {}
                        key, item_value = entry.get("key", ABSENT), entry.get("value", ABSENT)
                        if isinstance(key, str) and isinstance(item_value, str):
                            getattr(msg, name)[key] = item_value
                elif f.type == FieldDescriptor.TYPE_MESSAGE:
                    for x in values:
                        if isinstance(x, tuple):
                            item = getattr(msg, name).add()
                            item.CopyFrom(self.message(type(item), x, who))
                else:
                    getattr(msg, name).extend(_fit(f, x) for x in values if x is not ABSENT)
                continue
            value = self.value(raw_value, who, name, type_name)
            if f.type == FieldDescriptor.TYPE_MESSAGE:
                if isinstance(value, tuple):
                    getattr(msg, name).CopyFrom(self.message(type(getattr(msg, name)), value, who))
                continue
            setattr(msg, name, _fit(f, value))
        return msg

    # -- envelopes
    def envelope(self, recipe: Any, who: str) -> bytes:
        if isinstance(recipe, bytes):
            return recipe
        if isinstance(recipe, Replay):
            accepted = self.live.accepted[recipe.who]
            return accepted[recipe.index % len(accepted)] if accepted else b"\x0a\x00"
        if isinstance(recipe, Mutated):
            return self.mutated(recipe, who)
        assert isinstance(recipe, Built)
        return self.built(recipe)

    def mutated(self, recipe: Mutated, who: str) -> bytes:
        live = self.live
        kind, index = recipe.source.name, recipe.source.tweak
        pool = {
            "env.own": live.accepted[who], "env.other": live.accepted[live.other(who)],
            "env.host": live.host_envelopes,
            "env.pending": [p.raw for p in live.pending.values()],
        }[kind]
        raw = bytearray(pool[index % len(pool)] if pool else b"\x0a\x20" + bytes(32))
        for pos, mask in recipe.flips:
            if raw:
                raw[pos % len(raw)] ^= mask
        if recipe.insert is not None:
            pos, data = recipe.insert
            at = pos % (len(raw) + 1)
            raw[at:at] = data
        if recipe.cut is not None and raw:
            del raw[recipe.cut % len(raw):]
        return bytes(raw)

    def built(self, b: Built) -> bytes:
        live = self.live
        seat = live.seats[b.who]
        game = seat.game
        assert game is not None
        game_id = {"real": live.game_id, "other": live.other_game, "short": live.game_id[:31]}[b.game]
        seq = (game.my_seq + 1 + b.seq) % (2**64)
        prev = {"head": game.my_head, "zeros": bytes(32), "random": hashlib.sha256(repr(b).encode()).digest(),
                "short": game.my_head[:16]}[b.prev]
        if isinstance(b.sender, int):
            sender = b.sender
        else:
            sender = {"self": seat.seat, "other": live.seat(live.other(b.who)), "bot": live.bots[0],
                      "host": -1}[b.sender]
        if isinstance(b.payload, bytes):
            payload = b.payload
        else:
            kind = CLIENT_TYPES.get(b.type) or HOST_TYPES[b.type]
            payload = self.message(kind, b.payload, b.who).SerializeToString(deterministic=True)
        key = {"own": seat.key, "other": live.seats[live.other(b.who)].key, "stranger": live.stranger}[b.key]
        return assemble(game_id, seq, prev, sender, b.type, payload, key, b.signature, b.encoding)

    # -- requests
    def request(self, recipe: Any) -> tuple[str, bytes]:
        """(method, serialised request) for a recipe; SubmitEnvelope requests are made safe (see `make_safe`)."""
        if isinstance(recipe, Call):
            cls = METHODS[recipe.method][0]
            return recipe.method, self.message(cls, recipe.fields, "A").SerializeToString()
        if isinstance(recipe, Submit):
            who = self.submitter(recipe)
            raw = make_safe(self.envelope(recipe.envelope, who), self.live)
            token = self.value(recipe.token, who, "token")
            return "SubmitEnvelope", pb.SubmitEnvelopeRequest(token=token, envelope=raw).SerializeToString()
        if isinstance(recipe, Raw):
            body = recipe.body
            if isinstance(body, Call):
                _, data = self.request(body)
            elif isinstance(body, BadUtf8):
                data = bytes([body.number << 3 | 2, len(body.junk)]) + body.junk
            elif isinstance(body, Built):
                data = make_safe(self.built(body), self.live)
            else:
                data = body
            return recipe.method, data
        assert isinstance(recipe, Oversized)
        big = MAX_MESSAGE + recipe.extra
        field_for = {"SubmitEnvelope": 2, "Join": 2, "GetTable": 2, "Subscribe": 1}
        number = field_for[recipe.method]
        return recipe.method, _length_delimited(number, b"x" * big)

    def submitter(self, recipe: Submit) -> str:
        """Whose envelope this is meant to be (whose chain a Built continues, whose token a Ref names)."""
        if isinstance(recipe.envelope, (Built, Replay)):
            return recipe.envelope.who
        if isinstance(recipe.token, Ref) and recipe.token.name == "token.B":
            return "B"
        return "A"


def _fit(f: Any, value: Any) -> Any:
    """Keep a drawn value inside its field's range (a Ref tweak may push an int out of it)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    bits = {FieldDescriptor.TYPE_INT32: 32, FieldDescriptor.TYPE_UINT32: 32, FieldDescriptor.TYPE_ENUM: 32,
            FieldDescriptor.TYPE_INT64: 64, FieldDescriptor.TYPE_UINT64: 64}.get(f.type, 64)
    signed = f.type in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_ENUM)
    value %= 2**bits
    if signed and value >= 2 ** (bits - 1):
        value -= 2**bits
    return value


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _length_delimited(number: int, data: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def assemble(game_id: bytes, seq: int, prev: bytes, sender: int, type_name: str, payload: bytes,
             key: Ed25519PrivateKey, signature: str, encoding: str) -> bytes:
    """Envelope bytes from its parts, signed (or not) and encoded (canonically or not) as told."""
    try:
        sig = sign_envelope(key, game_id, seq, prev, signing_seat(sender), type_name, payload)
    except (ValueError, TypeError, OverflowError):
        sig = hashlib.sha512(payload + game_id).digest()  # unsignable header: a signature-shaped stand-in
    if signature == "random":
        sig = hashlib.sha512(sig).digest()
    elif signature == "short":
        sig = sig[:63]
    elif signature == "flip":
        sig = sig[:10] + bytes([sig[10] ^ 1]) + sig[11:]
    env = pb.Envelope(game_id=game_id, seq=seq, prev_hash=prev, sender_seat=sender, type=type_name, payload=payload,
                      signature=sig)
    raw = env.SerializeToString(deterministic=True)
    if encoding == "unknown-field":
        return raw + _varint(99 << 3) + b"\x01"
    if encoding == "reordered":
        tail = pb.Envelope(signature=sig).SerializeToString()
        head = pb.Envelope(game_id=game_id, seq=seq, prev_hash=prev, sender_seat=sender, type=type_name,
                           payload=payload).SerializeToString(deterministic=True)
        return tail + head
    if encoding == "padded":
        return raw + _length_delimited(5, type_name.encode())  # the type field twice (the last one wins)
    return raw


# --------------------------------------------------------------------------------------------------------------
# Keeping the fuzz from making a legal move
# --------------------------------------------------------------------------------------------------------------

# The payload fields the host checks for each type (a KeyCommit's commitment may be any 32 bytes; a KeyReveal may
# name any chain head after the signatures it waits for, so only its key is compared, conservatively).
CHECKED = {
    "HeaderSignature": ("seat", "header_hash"),
    "KeyCommit": ("seat", "header_hash"),
    "KeySetSignature": ("seat", "key_set_hash"),
    "KeyReveal": ("seat", "key"),
    "DeckSealedSignature": ("hand", "attempt", "seat", "deck_sealed_hash"),
    "CheckpointSignature": ("hand", "seat", "chain_seq", "chain_head"),
}


def envelope_valid_for(raw: bytes, live: Live) -> tuple[str, Any] | None:
    """(who, parsed) when the host would take these bytes as a new envelope of seat A or B at the envelope layer:
    canonical, that seat's signature, this game, the next seq and link of that seat's chain."""
    try:
        signed = parse_envelope(raw, host=False)
    except ProtocolError:
        return None
    for who, seat in live.seats.items():
        game = seat.game
        assert game is not None
        if signed.sender != seat.seat or signed.envelope.game_id != live.game_id:
            continue
        if not check_signature(signed, public_key_bytes(seat.key)):
            continue
        if raw in live.accepted[who]:
            return None  # a retry: answered with the original answer, changes nothing
        if signed.seq == game.my_seq + 1 and signed.envelope.prev_hash == game.my_head:
            return who, signed
    return None


def could_be_accepted(who: str, signed: Any, live: Live) -> bool:
    """Whether the payload might be a legal move now (conservative: when in doubt, yes)."""
    p = signed.payload
    if signed.type == "ActionRequest":
        seq = int(p.chain_seq)
        ref_ok = 1 <= seq <= len(live.chain_hashes) and live.chain_hashes[seq - 1] == bytes(p.chain_head)
        legal = live.legal[who]
        return ref_ok and (p.action in legal or normalise_action(p.action) in legal)
    pending = live.pending.get(who)
    if pending is None or pending.type != signed.type:
        return False  # the game waits for no such message from this seat now
    if signed.type == "KeyCommit" and len(p.commitment) != 32:
        return False
    return all(getattr(p, name) == getattr(pending.payload, name) for name in CHECKED.get(signed.type, ()))


def make_safe(raw: bytes, live: Live) -> bytes:
    """The fuzz sends bad requests only: bytes that the host could take as a legal move are spoiled (the action
    made unknown, the seat field pointed elsewhere) and signed again, so the match never moves under the fuzz.
    The check runs on the final bytes with the host's own parsing and signature code."""
    valid = envelope_valid_for(raw, live)
    if valid is None:
        return raw
    who, signed = valid
    if not could_be_accepted(who, signed, live):
        return raw
    payload = type(signed.payload)()
    payload.CopyFrom(signed.payload)
    if signed.type == "ActionRequest":
        payload.action = "x" + payload.action
    else:
        payload.seat = payload.seat + 1
    env = signed.envelope
    body = payload.SerializeToString(deterministic=True)
    spoiled = assemble(bytes(env.game_id), int(env.seq), bytes(env.prev_hash), int(env.sender_seat), signed.type,
                       body, live.seats[who].key, "sign", "canonical")
    valid = envelope_valid_for(spoiled, live)
    assert valid is None or not could_be_accepted(*valid, live), "could not spoil a legal move"
    return spoiled


# --------------------------------------------------------------------------------------------------------------
# What the host should answer at the envelope layer
# --------------------------------------------------------------------------------------------------------------

_KIND_CODES = {"invalid": SC.INVALID_ARGUMENT, "precondition": SC.FAILED_PRECONDITION,
               "permission": SC.PERMISSION_DENIED, "unauthenticated": SC.UNAUTHENTICATED, "aborted": SC.ABORTED}


def predict_submit(token: str, raw: bytes, live: Live) -> tuple[SC, str] | None:
    """The host's answer to a SubmitEnvelope where it is decided before the protocol and the engine look at the
    payload (token, parsing, seat, game, signature, retry, sequence), in the host's order; None beyond that."""
    if not token:
        return SC.UNAUTHENTICATED, "no-token"
    who = next((w for w in live.seats if live.token(w) == token), None)
    if who is None:
        return SC.UNAUTHENTICATED, "bad-token"
    try:
        signed = parse_envelope(raw, host=False)
    except ProtocolError as err:
        return _KIND_CODES[err.code], err.reason
    seat = live.seats[who]
    game = seat.game
    assert game is not None
    if signed.sender != seat.seat:
        return SC.PERMISSION_DENIED, "wrong-seat"
    if signed.envelope.game_id != live.game_id:
        return SC.FAILED_PRECONDITION, "wrong-game"
    if not check_signature(signed, public_key_bytes(seat.key)):
        return SC.INVALID_ARGUMENT, "bad-signature"
    if raw in live.accepted[who]:
        return SC.OK, ""
    if signed.seq != game.my_seq + 1 or signed.envelope.prev_hash != game.my_head:
        return SC.ABORTED, "stale-envelope-seq"
    return None


# --------------------------------------------------------------------------------------------------------------
# Sending
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Answer:
    code: SC
    reason: str
    message: str
    response: bytes = b""


async def send(channel: grpc.aio.Channel, method: str, data: bytes, timeout: float = 20.0) -> Answer:
    """Send request bytes to a method as they are; a stream is read to its first message, then cancelled."""
    streaming = METHODS[method][2] if method in METHODS else False
    try:
        if streaming:
            call = channel.unary_stream(PATH + method, request_serializer=None, response_deserializer=None)(
                data, timeout=timeout)
            try:
                first = await call.read()
            finally:
                call.cancel()
            return Answer(SC.OK, "", "", b"" if first is grpc.aio.EOF else bytes(first))
        response = await channel.unary_unary(PATH + method, request_serializer=None, response_deserializer=None)(
            data, timeout=timeout)
        return Answer(SC.OK, "", "", bytes(response))
    except grpc.aio.AioRpcError as err:
        info = refusal_from_error(err)
        return Answer(info.code, info.reason, info.message)


def fuzz_channels(port: int, count: int) -> list[grpc.aio.Channel]:
    """`count` channels on separate TCP connections (a local subchannel pool each), so that the fuzz, like a
    room full of clients, spreads over connections: the per-connection rate limit sees each one apart."""
    return [grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.use_local_subchannel_pool", 1),
                                                                    ("grpc.max_receive_message_length", 16 << 20)])
            for _ in range(count)]


async def close_channels(channels: Sequence[grpc.aio.Channel]) -> None:
    for channel in channels:
        with contextlib.suppress(Exception):
            await channel.close()


# --------------------------------------------------------------------------------------------------------------
# The harness
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Tally:
    sent: int = 0
    batches: int = 0
    points: int = 0
    steps: set[str] = field(default_factory=set)
    codes: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)
    rate_limited: int = 0
    failure: str = ""


class Harness:
    """Two seats (A held, B playing by itself) at a 4-seat table with 2 host bots, and the fuzz channels."""

    def __init__(self, port: int, records: Path, *, total: int, per_point: int, batch: int, seed: int = 5,
                 connections: int = 16) -> None:
        self.port = port
        self.records = records
        self.total = total
        self.per_point = per_point
        self.batch = batch
        self.connections = connections
        self.rng = random.Random(seed)
        self.tally = Tally()
        self.stranger = Ed25519PrivateKey.generate()
        self.other_game = hashlib.sha256(b"another game").digest()
        self.step: str | None = None
        self.used = 0
        self.point_view: Any = None

    async def start(self) -> None:
        from client.connection import open_channel

        self.turn = asyncio.Lock()
        self.moved = asyncio.Event()
        self.a = FuzzSeat(await open_channel("127.0.0.1", self.port, insecure=True), self.records, self.turn,
                          self.moved, hold=True)
        self.b = FuzzSeat(await open_channel("127.0.0.1", self.port, insecure=True), self.records, self.turn,
                          self.moved, hold=False)
        await self.a.join("fuzz A")
        await self.b.join("fuzz B")
        self.seats = {"A": self.a, "B": self.b}
        self.bots = [s for s in range(4) if s not in (self.a.seat, self.b.seat)]
        self.tasks = [asyncio.ensure_future(self.a.follow_and_play(self.rng, autoplay=False)),
                      asyncio.ensure_future(self.b.follow_and_play(random.Random(11), autoplay=True))]
        self.channels = fuzz_channels(self.port, self.connections)

    async def close(self) -> None:
        for task in self.tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await close_channels(self.channels)
        for seat in (self.a, self.b):
            await seat.close()

    # -- the points where the table waits for A alone
    def only_a(self, view: Any) -> str | None:
        if view.table.phase not in (pb.TABLE_PHASE_STARTING, pb.TABLE_PHASE_PLAYING):
            return None
        if view.deal.step == "dealt":
            # (a host bot of A's side asked a raise too is not named: it leaves the answer to A, table_waits.py)
            return "play" if list(view.to_act) == [self.a.seat] and view.legal_actions else None
        if list(view.deal.waiting_for) == [self.a.seat]:
            game = self.a.game
            assert game is not None
            owed = parse_envelope(game.outbox[0], host=False).type if game.outbox else ""
            return STEP_OF_MESSAGE.get(owed, "protocol")
        return None

    async def snapshot(self, seat: FuzzSeat) -> Any:
        call = seat.stub.Subscribe(pb.SubscribeRequest(token=seat.token), timeout=20)
        try:
            first = await call.read()
        finally:
            call.cancel()
        assert first is not grpc.aio.EOF and first.HasField("snapshot"), first
        return first.snapshot

    async def wait_point(self) -> str | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 90
        polls = 0
        while loop.time() < deadline:
            self.moved.clear()
            view = self.a.view
            if self.a.done or (view is not None and view.table.phase in FINISHED):
                return None
            polls += 1
            if view is not None and (self.only_a(view) or polls % 10 == 0):  # the view, or a fresh look now and then
                async with self.turn:
                    snap = await self.snapshot(self.a)
                    step = self.only_a(snap.view)
                    game = self.a.game
                    assert game is not None
                    if step and self.a.last_seq >= snap.seq and (step == "play" or game.outbox):
                        self.step, self.point_view = step, snap.view
                        self.tally.points += 1
                        self.tally.steps.add(step)
                        return step
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.moved.wait(), 0.2)
        raise AssertionError(f"the match stood still for 90 s: A sees {_brief(self.a.view)}, B sees "
                             f"{_brief(self.b.view)}; the seats' loops: "
                             f"{[t.exception() if t.done() else 'running' for t in self.tasks]}")

    async def advance(self) -> None:
        """A takes its step: the protocol message it owes, or a random legal action."""
        async with self.turn:
            if self.step == "play":
                await self.a.act(self.rng.choice(list(self.point_view.legal_actions)))
            else:
                await self.a.release()
        self.step = None

    async def state(self) -> tuple[tuple[bytes, ...], dict[str, Any]]:
        """Everything A and B can see: a fresh snapshot each (view, whole chain, own envelope seq) and GetTable."""
        snaps = {who: await self.snapshot(seat) for who, seat in self.seats.items()}
        info = await self.a.table()
        key = tuple(s.SerializeToString(deterministic=True) for s in snaps.values())
        return (*key, info.SerializeToString(deterministic=True)), snaps

    async def finish(self) -> None:
        """The fuzz is over: A plays on (random legal actions, every protocol step) until the match ends."""
        if self.step is not None:
            await self.advance()
        while await self.wait_point() is not None:
            await self.advance()
        await asyncio.wait_for(asyncio.gather(*self.tasks), 120)

    # -- one batch
    async def run_batch(self, cases: list[Any]) -> None:
        if self.tally.failure:
            return
        try:
            await self._run_batch(cases)
        except AssertionError as err:
            self.tally.failure = f"after {self.tally.sent} requests, at step {self.step}: {err}"

    async def _run_batch(self, cases: list[Any]) -> None:
        if self.step is None or self.used >= self.per_point:
            if self.step is not None:
                await self.advance()
            if await self.wait_point() is None:
                raise AssertionError(f"the match ended after {self.tally.sent} fuzz requests, before {self.total}")
            self.used = 0
        async with self.turn:
            before, snaps = await self.state()
            assert self.step is not None
            live = live_context(self.seats, self.bots, self.stranger, self.other_game, int(snaps["A"].seq),
                                self.step, {who: snap.view for who, snap in snaps.items()})
            resolver = Resolver(live)
            prepared = [resolver.request(case) for case in cases]
            channels = self.channels
            answers = await asyncio.gather(*(send(channels[i % len(channels)], method, data)
                                             for i, (method, data) in enumerate(prepared)))
            after, _ = await self.state()
        for case, (method, data), answer in zip(cases, prepared, answers, strict=True):
            self.check(case, method, data, answer, live)
        if before != after:
            raise AssertionError(f"the batch changed the table: {describe_change(before, after)}; "
                                 f"the batch: {cases!r}")
        self.used += len(cases)
        self.tally.sent += len(cases)
        self.tally.batches += 1

    def check(self, case: Any, method: str, data: bytes, answer: Answer, live: Live) -> None:
        where = f"{type(case).__name__} to {method}: {case!r}\n  answered {answer.code.name} {answer.reason!r} " \
                f"{answer.message!r}"
        code = answer.code
        self.tally.codes[code.name] = self.tally.codes.get(code.name, 0) + 1
        if code != SC.OK:
            self.tally.reasons[answer.reason] = self.tally.reasons.get(answer.reason, 0) + 1
            assert code in ALLOWED, f"undocumented status: {where}"
            assert answer.reason and answer.message, f"no reason or message: {where}"
            if isinstance(case, Oversized):
                assert code == SC.RESOURCE_EXHAUSTED, where
                return
            assert KEBAB.fullmatch(answer.reason), f"reason not kebab-case: {where}"
            assert reason_is_documented(code, answer.reason), f"undocumented reason: {where}"
            if code == SC.RESOURCE_EXHAUSTED:
                assert answer.reason in ("rate-limited", "request-too-large"), where
                self.tally.rate_limited += answer.reason == "rate-limited"
                return
        assert not isinstance(case, Oversized), f"an oversized request was served: {where}"
        if isinstance(case, Call) and case.method == "GetTable":
            # Always answered, unless it names a table: this host runs one, and no drawn text is its id.
            if pb.GetTableRequest.FromString(data).table_id:
                assert (code, answer.reason) == (SC.FAILED_PRECONDITION, "unknown-table"), where
            else:
                assert code == SC.OK, where
        if isinstance(case, Call) and case.method == "Leave":
            assert code == SC.UNAUTHENTICATED, where  # only bad tokens are sent to Leave
        if method != "SubmitEnvelope" or isinstance(case, Raw):
            return
        request = pb.SubmitEnvelopeRequest.FromString(data)
        raw = bytes(request.envelope)
        predicted = predict_submit(request.token, raw, live) if isinstance(case, Submit) else None
        if predicted is not None:
            assert (code, answer.reason) == predicted, f"expected {predicted[0].name} {predicted[1]!r}: {where}"
        if isinstance(case, Submit) and isinstance(case.envelope, Replay) and request.token == live.token(
                case.envelope.who) and live.accepted[case.envelope.who]:
            assert code == SC.OK, f"a retry of an accepted envelope was refused: {where}"
        if code == SC.OK:
            response = pb.SubmitEnvelopeResponse.FromString(answer.response)
            digest = hashlib.sha256(raw).digest()
            assert response.envelope_hash == digest, where
            who = next(w for w in live.seats if live.token(w) == request.token)
            assert raw in live.accepted[who], f"the fuzz made a move: {where}"
            original = live.seats[who].answers.get(digest)
            if original is not None:
                assert response == original, f"a retry got {response} instead of the original {original}: {where}"


def _brief(view: Any) -> str:
    if view is None:
        return "nothing"
    return (f"phase {view.table.phase} step {view.deal.step!r} waiting {list(view.deal.waiting_for)} "
            f"to act {list(view.to_act)} legal {list(view.legal_actions)[:4]} chain {view.chain_seq}")


def describe_change(before: tuple[bytes, ...], after: tuple[bytes, ...]) -> str:
    names = ("A's snapshot", "B's snapshot", "GetTable")
    parts = []
    for name, x, y in zip(names, before, after, strict=True):
        if x != y:
            if name == "GetTable":
                parts.append(f"{name}: {pb.TableInfo.FromString(x)} -> {pb.TableInfo.FromString(y)}")
            else:
                a, b = pb.Snapshot.FromString(x), pb.Snapshot.FromString(y)
                parts.append(f"{name}: seq {a.seq} -> {b.seq}, chain {len(a.chain)} -> {len(b.chain)}, "
                             f"own envelope seq {a.your_envelope_seq} -> {b.your_envelope_seq}")
    return "; ".join(parts)


def drive(harness: Harness, loop: asyncio.AbstractEventLoop) -> None:
    """Hypothesis draws the requests (one example = one request) in this thread; every `batch` of them is sent
    at once on the harness's event loop."""
    from hypothesis import HealthCheck, Phase, given, settings

    pending: list[Any] = []

    def flush() -> None:
        cases = list(pending)
        pending.clear()
        asyncio.run_coroutine_threadsafe(harness.run_batch(cases), loop).result(timeout=600)

    while harness.tally.sent + len(pending) < harness.total and not harness.tally.failure:
        @settings(max_examples=harness.total - harness.tally.sent - len(pending), database=None, deadline=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(fuzz_cases())
        def one(case: Any) -> None:
            if harness.tally.failure or harness.tally.sent + len(pending) >= harness.total:
                return
            pending.append(case)
            if len(pending) >= harness.batch:
                flush()

        one()
    if pending and not harness.tally.failure:
        flush()
