"""The one error model: why something was refused (`Reason`), how (`Code`), and the refusal itself (`Refusal`).

Below everything (engine, deal, trustless, host, client import it) and free of any transport: the host alone turns
a `Code` into a gRPC status (host/errors.py). A reason's string value is on the wire (`ErrorDetail.reason`), in
records (`RefusalReceipt.reason`, the verifier's verdicts) and in the client's word tables, so a value never changes;
tests/test_reasons.py holds this enum against the proto's documented list and the client's words.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Code(StrEnum):
    """How a refusal is answered, transport-free (host/errors.py maps each to its gRPC status code).

    The values are the `kind` strings the protocol layer used before there was one type."""

    INVALID = "invalid"  # malformed whatever the state (INVALID_ARGUMENT)
    PRECONDITION = "precondition"  # well-formed but against the rules or the table's state (FAILED_PRECONDITION)
    PERMISSION = "permission"  # an identified caller who may not do this (PERMISSION_DENIED)
    UNAUTHENTICATED = "unauthenticated"  # a caller who could not be identified (UNAUTHENTICATED)
    ABORTED = "aborted"  # a stale sequence: refresh, then act again (ABORTED)
    RESOURCE_EXHAUSTED = "resource-exhausted"  # a limit of the host's (RESOURCE_EXHAUSTED)
    UNAVAILABLE = "unavailable"  # the host is going away: try again later (UNAVAILABLE)


class Reason(StrEnum):
    """Every reason the code refuses with or blames the host for. Grouped by who raises it; a value may be raised
    by several layers (e.g. `bad-signature`: the host refusing a seat, and a seat catching the host)."""

    # -- the engine's rules (RuleViolation): FAILED_PRECONDITION, INVALID_ARGUMENT for what is no action at all
    MALFORMED = "malformed"
    """Not an action, or a message that does not decode: wrong length, kind, count or trailing bytes."""
    BAD_ACTION = "bad-action"  # a verb outside the action grammar (`dance`)
    BAD_CARD = "bad-card"  # a string that is no card where a card belongs (`play XX`, a trustless opening's card)
    BAD_CUT = "bad-cut"
    BAD_SCHLAG = "bad-schlag"
    BAD_TRUMP = "bad-trump"
    UNKNOWN_SIGNAL = "unknown-signal"  # a NAME that is no signal of docs/rules.md 9 (the message lists them)
    BLIND_NOT_TRUSTLESS = "blind-not-trustless"
    CARD_NOT_IN_HAND = "card-not-in-hand"
    CARD_SEEN_TWICE = "card-seen-twice"
    GESPANNT = "gespannt"
    MATCH_NOT_OVER = "match-not-over"
    MATCH_OVER = "match-over"
    MUST_PLAY_TRUMP = "must-play-trump"
    NO_CONCEDE = "no-concede"
    NO_DECK = "no-deck"
    NO_DECK_NEEDED = "no-deck-needed"
    NO_MASCHINE = "no-maschine"
    NO_PARTNER = "no-partner"
    NO_POSITION = "no-position"
    NO_RAISE = "no-raise"
    NO_SIGNALS = "no-signals"
    NO_SUCH_SEAT = "no-such-seat"
    NOT_A_MASCHINE = "not-a-maschine"
    NOT_GESPANNT = "not-gespannt"
    NOT_IN_DECK = "not-in-deck"
    NOT_NOW = "not-now"
    NOT_YOUR_POSITION = "not-your-position"
    NOT_YOUR_TURN = "not-your-turn"
    NOTHING_TO_OPEN = "nothing-to-open"
    OPENING_MISMATCH = "opening-mismatch"
    OWN_RAISE = "own-raise"
    POSITION_ASIDE = "position-aside"
    POSITION_PLAYED = "position-played"
    RAISE_CAP = "raise-cap"
    RAISE_PENDING = "raise-pending"
    RAISE_TWICE = "raise-twice"
    SCHADET_PENDING = "schadet-pending"
    SERIES_OVER = "series-over"
    SETTLING = "settling"
    WRONG_POSITIONS = "wrong-positions"

    # -- the protocol (envelopes, Level 1 and Level 2 deals), as the host refuses a seat's message
    BAD_CHAIN_HEAD = "bad-chain-head"
    BAD_ENVELOPE = "bad-envelope"
    BAD_OPENING = "bad-opening"
    BAD_PAYLOAD = "bad-payload"
    BAD_SEAT = "bad-seat"
    BAD_SIGNATURE = "bad-signature"
    COMMITMENT_MISMATCH = "commitment-mismatch"
    DEALING = "dealing"
    GAME_STARTED = "game-started"
    INCOMPLETE_OPENING = "incomplete-opening"
    MUST_SEAL = "must-seal"
    NO_OPENING = "no-opening"
    NOT_ASKED = "not-asked"
    NOT_AWAY = "not-away"
    NOT_TRUSTLESS = "not-trustless"
    OWN_CARD = "own-card"
    STALE_ENVELOPE_SEQ = "stale-envelope-seq"
    STAND_IN_MISMATCH = "stand-in-mismatch"
    STOOD_IN = "stood-in"
    UNEXPECTED_MESSAGE = "unexpected-message"
    UNKNOWN_TYPE = "unknown-type"
    WRONG_GAME = "wrong-game"
    WRONG_HAND = "wrong-hand"
    WRONG_HASH = "wrong-hash"
    WRONG_SEAT = "wrong-seat"

    # -- the trustless deal's maths (TrustlessError); MALFORMED above is one of them too
    INVALID_POINT = "invalid-point"
    """Not a canonical encoding of a point of the prime-order subgroup (identity and small order included)."""
    NON_CANONICAL_SCALAR = "non-canonical-scalar"
    """A scalar encoding that is not reduced modulo the group order L."""
    WRONG_CONTEXT = "wrong-context"
    """The message names another game, hand, attempt, seat or position than the one expected."""
    OUT_OF_TURN = "out-of-turn"
    """A message that does not belong in the deal's current phase, or from a seat whose turn it is not."""
    CONFLICTING_MESSAGE = "conflicting-message"
    """A second, different key share from a seat that already published one."""
    BAD_KEY_PROOF = "bad-key-proof"  # (also a Join's or Leave's proof of key that does not verify)
    BAD_SHUFFLE_PROOF = "bad-shuffle-proof"
    BAD_DECRYPTION_PROOF = "bad-decryption-proof"
    DEGENERATE_KEY = "degenerate-key"
    """The joint key is the identity: it would encrypt nothing (impossible with honest key proofs)."""
    NOT_A_CARD = "not-a-card"
    """A fully decrypted point is no card of the deck (impossible once every proof has verified)."""

    # -- the table and its lobby
    BAD_FINGERPRINT = "bad-fingerprint"
    BAD_NAME = "bad-name"
    BAD_NONCE = "bad-nonce"
    BAD_PUBLIC_KEY = "bad-public-key"
    BAD_REQUEST = "bad-request"
    BAD_SETTING = "bad-setting"
    BAD_TOKEN = "bad-token"
    GAME_NOT_STARTED = "game-not-started"
    INSECURE_PROOF = "insecure-proof"
    NO_SPECTATORS = "no-spectators"
    NO_TOKEN = "no-token"
    NONCE_USED = "nonce-used"
    NOT_ALL_READY = "not-all-ready"
    NOT_ENOUGH_PLAYERS = "not-enough-players"
    NOT_SUPPORTED = "not-supported"
    PROOF_REQUIRED = "proof-required"
    PROTOCOL_VERSION = "protocol-version"
    SEAT_TAKEN = "seat-taken"
    PERSON_SEATED = "person-seated"
    STREAM_REPLACED = "stream-replaced"
    HOST_LEFT = "host-left"
    """(UNAVAILABLE) The host process is ending: every open stream ends with it, so a client says "the host has left"
    (not "reconnecting") and keeps trying quietly until the host is back."""
    SUBSCRIBER_LAGGING = "subscriber-lagging"
    TABLE_FULL = "table-full"
    TOO_MANY_JOINS = "too-many-joins"
    UNKNOWN_TABLE = "unknown-table"
    WRONG_CERTIFICATE = "wrong-certificate"
    # spectators and table chat (issue 13)
    BAD_CHAT = "bad-chat"
    SPECTATOR = "spectator"

    # -- the host's limits (RESOURCE_EXHAUSTED)
    JOIN_RATE_LIMITED = "join-rate-limited"
    CHAT_RATE_LIMITED = "chat-rate-limited"
    RATE_LIMITED = "rate-limited"
    REQUEST_TOO_LARGE = "request-too-large"
    TOO_MANY_CONNECTIONS = "too-many-connections"
    TOO_MANY_SEATS = "too-many-seats"
    TOO_MANY_STREAMS = "too-many-streams"

    # -- no refusal: a host bug (INTERNAL) and a call the host does not offer (UNIMPLEMENTED)
    INTERNAL_ERROR = "internal-error"
    UNIMPLEMENTED = "unimplemented"

    # -- a seat catching the host breaking the protocol (HostBrokeProtocol), besides shared ones above
    BAD_ABORT = "bad-abort"
    BAD_CHECKPOINT = "bad-checkpoint"
    BAD_DEAL_OPEN = "bad-deal-open"
    BAD_DECK_PREPARE = "bad-deck-prepare"
    BAD_DECK_SEALED = "bad-deck-sealed"
    BAD_DELIVERY = "bad-delivery"
    BAD_KEY_REVEAL = "bad-key-reveal"
    BAD_KEY_SET = "bad-key-set"
    BAD_RELAY = "bad-relay"
    BAD_REVEAL = "bad-reveal"
    BAD_SEALED_SHARE = "bad-sealed-share"
    BAD_SHARE_REQUEST = "bad-share-request"
    CARD_COMMIT_MISMATCH = "card-commit-mismatch"
    CHAIN_GAP = "chain-gap"
    CHAIN_LINK = "chain-link"
    DEAL_MISMATCH = "deal-mismatch"
    FORK = "fork"
    HOST_KEY_MISMATCH = "host-key-mismatch"
    NOT_IN_ROSTER = "not-in-roster"
    NOT_THEIR_CARD = "not-their-card"
    PLAYED_TWICE = "played-twice"
    REPLAY_MISMATCH = "replay-mismatch"
    SCORE_MISMATCH = "score-mismatch"
    SECOND_HEADER = "second-header"
    SEED_MISMATCH = "seed-mismatch"
    SHARE_NOT_DUE = "share-not-due"
    SHORT_STEP_TIMEOUT = "short-step-timeout"
    WRONG_SERIES = "wrong-series"
    BOT_NOT_HOST_RUN = "bot-not-host-run"
    OTHER_TERMS = "other-terms"


def known_reason(text: str) -> Reason | None:
    """`text` as a Reason, or None for a string this version does not know (a newer or a hostile host's)."""
    try:
        return Reason(text)
    except ValueError:
        return None


class Refusal(Exception):
    """A request or message refused for a reason its sender caused.

    `code` says how it is answered, `reason` why (for programs), `message` what to do (for people). `seat` names
    the seat that cheated when the refusal proves one did (a proof that does not verify, a card opened from
    another seat's position); `receipt` is the host's signed RefusalReceipt of a refused game envelope."""

    def __init__(self, code: Code, reason: Reason, message: str, seat: int | None = None,
                 receipt: Any = None) -> None:
        super().__init__(message)
        self.code = Code(code)
        self.reason = Reason(reason)
        self.message = message
        self.seat = seat
        self.receipt = receipt

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code.value!r}, {self.reason.value!r}, {self.message!r})"


class HostBrokeProtocol(Exception):
    """A seat caught the host sending what a correct host never sends (a bad signature, a broken chain link, a
    card that does not open its commitment): no refusal of a request, but evidence against the host."""

    def __init__(self, reason: Reason, message: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.reason = Reason(reason)
        self.message = message
        self.seat = seat  # a seat whose bad message the host relayed instead of refusing it (None: the host's own)

    def __repr__(self) -> str:
        return f"HostBrokeProtocol({self.reason.value!r}, {self.message!r})"
