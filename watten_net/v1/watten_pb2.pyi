from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TablePhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TABLE_PHASE_UNSPECIFIED: _ClassVar[TablePhase]
    TABLE_PHASE_LOBBY: _ClassVar[TablePhase]
    TABLE_PHASE_STARTING: _ClassVar[TablePhase]
    TABLE_PHASE_PLAYING: _ClassVar[TablePhase]
    TABLE_PHASE_MATCH_OVER: _ClassVar[TablePhase]
    TABLE_PHASE_ABANDONED: _ClassVar[TablePhase]
TABLE_PHASE_UNSPECIFIED: TablePhase
TABLE_PHASE_LOBBY: TablePhase
TABLE_PHASE_STARTING: TablePhase
TABLE_PHASE_PLAYING: TablePhase
TABLE_PHASE_MATCH_OVER: TablePhase
TABLE_PHASE_ABANDONED: TablePhase

class ErrorDetail(_message.Message):
    __slots__ = ("reason", "message", "receipt", "envelope_index", "applied")
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_FIELD_NUMBER: _ClassVar[int]
    ENVELOPE_INDEX_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    reason: str
    message: str
    receipt: RefusalReceipt
    envelope_index: int
    applied: _containers.RepeatedCompositeFieldContainer[EnvelopeAnswer]
    def __init__(self, reason: _Optional[str] = ..., message: _Optional[str] = ..., receipt: _Optional[_Union[RefusalReceipt, _Mapping]] = ..., envelope_index: _Optional[int] = ..., applied: _Optional[_Iterable[_Union[EnvelopeAnswer, _Mapping]]] = ...) -> None: ...

class RefusalReceipt(_message.Message):
    __slots__ = ("game_id", "envelope_hash", "reason", "chain_seq", "chain_head", "signature")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ENVELOPE_HASH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CHAIN_SEQ_FIELD_NUMBER: _ClassVar[int]
    CHAIN_HEAD_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    game_id: bytes
    envelope_hash: bytes
    reason: str
    chain_seq: int
    chain_head: bytes
    signature: bytes
    def __init__(self, game_id: _Optional[bytes] = ..., envelope_hash: _Optional[bytes] = ..., reason: _Optional[str] = ..., chain_seq: _Optional[int] = ..., chain_head: _Optional[bytes] = ..., signature: _Optional[bytes] = ...) -> None: ...

class RefusalEvidence(_message.Message):
    __slots__ = ("envelope", "receipt")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_FIELD_NUMBER: _ClassVar[int]
    envelope: bytes
    receipt: RefusalReceipt
    def __init__(self, envelope: _Optional[bytes] = ..., receipt: _Optional[_Union[RefusalReceipt, _Mapping]] = ...) -> None: ...

class SeatNote(_message.Message):
    __slots__ = ("kind", "chain_seq", "says")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CHAIN_SEQ_FIELD_NUMBER: _ClassVar[int]
    SAYS_FIELD_NUMBER: _ClassVar[int]
    kind: str
    chain_seq: int
    says: str
    def __init__(self, kind: _Optional[str] = ..., chain_seq: _Optional[int] = ..., says: _Optional[str] = ...) -> None: ...

class TableSettings(_message.Message):
    __slots__ = ("deal", "reveal")
    DEAL_FIELD_NUMBER: _ClassVar[int]
    REVEAL_FIELD_NUMBER: _ClassVar[int]
    deal: str
    reveal: str
    def __init__(self, deal: _Optional[str] = ..., reveal: _Optional[str] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "occupied", "name", "side", "ready", "online", "bot", "public_key", "stand_in")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OCCUPIED_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    ONLINE_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    STAND_IN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    occupied: bool
    name: str
    side: int
    ready: bool
    online: bool
    bot: bool
    public_key: bytes
    stand_in: bool
    def __init__(self, seat: _Optional[int] = ..., occupied: _Optional[bool] = ..., name: _Optional[str] = ..., side: _Optional[int] = ..., ready: _Optional[bool] = ..., online: _Optional[bool] = ..., bot: _Optional[bool] = ..., public_key: _Optional[bytes] = ..., stand_in: _Optional[bool] = ...) -> None: ...

class TableInfo(_message.Message):
    __slots__ = ("protocol_version", "table_id", "host_name", "preset", "rules_json", "settings", "player_count", "seats", "phase", "seq", "watching", "host_tls_fingerprint", "host_public_key", "game_id", "game_fingerprint", "step_timeout")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    HOST_NAME_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_COUNT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    WATCHING_FIELD_NUMBER: _ClassVar[int]
    HOST_TLS_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    HOST_PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    STEP_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    table_id: str
    host_name: str
    preset: str
    rules_json: str
    settings: TableSettings
    player_count: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    phase: TablePhase
    seq: int
    watching: int
    host_tls_fingerprint: bytes
    host_public_key: bytes
    game_id: bytes
    game_fingerprint: str
    step_timeout: float
    def __init__(self, protocol_version: _Optional[int] = ..., table_id: _Optional[str] = ..., host_name: _Optional[str] = ..., preset: _Optional[str] = ..., rules_json: _Optional[str] = ..., settings: _Optional[_Union[TableSettings, _Mapping]] = ..., player_count: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., phase: _Optional[_Union[TablePhase, str]] = ..., seq: _Optional[int] = ..., watching: _Optional[int] = ..., host_tls_fingerprint: _Optional[bytes] = ..., host_public_key: _Optional[bytes] = ..., game_id: _Optional[bytes] = ..., game_fingerprint: _Optional[str] = ..., step_timeout: _Optional[float] = ...) -> None: ...

class GetTableRequest(_message.Message):
    __slots__ = ("protocol_version", "client", "table_id")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    client: str
    table_id: str
    def __init__(self, protocol_version: _Optional[int] = ..., client: _Optional[str] = ..., table_id: _Optional[str] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ("protocol_version", "client")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    client: str
    def __init__(self, protocol_version: _Optional[int] = ..., client: _Optional[str] = ...) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("tables",)
    TABLES_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[TableInfo]
    def __init__(self, tables: _Optional[_Iterable[_Union[TableInfo, _Mapping]]] = ...) -> None: ...

class JoinRequest(_message.Message):
    __slots__ = ("protocol_version", "name", "public_key", "join_nonce", "seat", "key_proof", "spectate", "table_id", "tls_fingerprint")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    JOIN_NONCE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KEY_PROOF_FIELD_NUMBER: _ClassVar[int]
    SPECTATE_FIELD_NUMBER: _ClassVar[int]
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    TLS_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    name: str
    public_key: bytes
    join_nonce: bytes
    seat: int
    key_proof: bytes
    spectate: bool
    table_id: str
    tls_fingerprint: bytes
    def __init__(self, protocol_version: _Optional[int] = ..., name: _Optional[str] = ..., public_key: _Optional[bytes] = ..., join_nonce: _Optional[bytes] = ..., seat: _Optional[int] = ..., key_proof: _Optional[bytes] = ..., spectate: _Optional[bool] = ..., table_id: _Optional[str] = ..., tls_fingerprint: _Optional[bytes] = ...) -> None: ...

class JoinResponse(_message.Message):
    __slots__ = ("seat", "token", "table")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    token: str
    table: TableInfo
    def __init__(self, seat: _Optional[int] = ..., token: _Optional[str] = ..., table: _Optional[_Union[TableInfo, _Mapping]] = ...) -> None: ...

class ChooseSeatRequest(_message.Message):
    __slots__ = ("token", "seat")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    token: str
    seat: int
    def __init__(self, token: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class SetNameRequest(_message.Message):
    __slots__ = ("token", "name")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    token: str
    name: str
    def __init__(self, token: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class ReadyRequest(_message.Message):
    __slots__ = ("token", "ready")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    token: str
    ready: bool
    def __init__(self, token: _Optional[str] = ..., ready: _Optional[bool] = ...) -> None: ...

class StartRequest(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class LeaveRequest(_message.Message):
    __slots__ = ("token", "nonce", "leave_proof")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NONCE_FIELD_NUMBER: _ClassVar[int]
    LEAVE_PROOF_FIELD_NUMBER: _ClassVar[int]
    token: str
    nonce: bytes
    leave_proof: bytes
    def __init__(self, token: _Optional[str] = ..., nonce: _Optional[bytes] = ..., leave_proof: _Optional[bytes] = ...) -> None: ...

class SayRequest(_message.Message):
    __slots__ = ("token", "text")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    token: str
    text: str
    def __init__(self, token: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class Ack(_message.Message):
    __slots__ = ("seq", "seat")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seq: int
    seat: int
    def __init__(self, seq: _Optional[int] = ..., seat: _Optional[int] = ...) -> None: ...

class Envelope(_message.Message):
    __slots__ = ("game_id", "seq", "prev_hash", "sender_seat", "type", "payload", "signature")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    PREV_HASH_FIELD_NUMBER: _ClassVar[int]
    SENDER_SEAT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    game_id: bytes
    seq: int
    prev_hash: bytes
    sender_seat: int
    type: str
    payload: bytes
    signature: bytes
    def __init__(self, game_id: _Optional[bytes] = ..., seq: _Optional[int] = ..., prev_hash: _Optional[bytes] = ..., sender_seat: _Optional[int] = ..., type: _Optional[str] = ..., payload: _Optional[bytes] = ..., signature: _Optional[bytes] = ...) -> None: ...

class SubmitEnvelopeRequest(_message.Message):
    __slots__ = ("token", "envelope", "more_envelopes")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    MORE_ENVELOPES_FIELD_NUMBER: _ClassVar[int]
    token: str
    envelope: bytes
    more_envelopes: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, token: _Optional[str] = ..., envelope: _Optional[bytes] = ..., more_envelopes: _Optional[_Iterable[bytes]] = ...) -> None: ...

class SubmitEnvelopeResponse(_message.Message):
    __slots__ = ("seq", "chain_seq", "envelope_hash", "answers")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    CHAIN_SEQ_FIELD_NUMBER: _ClassVar[int]
    ENVELOPE_HASH_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    seq: int
    chain_seq: int
    envelope_hash: bytes
    answers: _containers.RepeatedCompositeFieldContainer[EnvelopeAnswer]
    def __init__(self, seq: _Optional[int] = ..., chain_seq: _Optional[int] = ..., envelope_hash: _Optional[bytes] = ..., answers: _Optional[_Iterable[_Union[EnvelopeAnswer, _Mapping]]] = ...) -> None: ...

class EnvelopeAnswer(_message.Message):
    __slots__ = ("seq", "chain_seq", "envelope_hash")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    CHAIN_SEQ_FIELD_NUMBER: _ClassVar[int]
    ENVELOPE_HASH_FIELD_NUMBER: _ClassVar[int]
    seq: int
    chain_seq: int
    envelope_hash: bytes
    def __init__(self, seq: _Optional[int] = ..., chain_seq: _Optional[int] = ..., envelope_hash: _Optional[bytes] = ...) -> None: ...

class RosterEntry(_message.Message):
    __slots__ = ("seat", "public_key", "name", "bot", "host_run")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    HOST_RUN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    public_key: bytes
    name: str
    bot: bool
    host_run: bool
    def __init__(self, seat: _Optional[int] = ..., public_key: _Optional[bytes] = ..., name: _Optional[str] = ..., bot: _Optional[bool] = ..., host_run: _Optional[bool] = ...) -> None: ...

class GameHeader(_message.Message):
    __slots__ = ("protocol_version", "deck_version", "rules_json", "preset", "settings", "roster", "first_dealer_rule", "stand_in", "host_tls_fingerprint", "host_public_key", "host_nonce", "join_nonces", "game_id", "host_key_commitment", "next_deal", "previous_game_id", "bummerl_carried", "step_timeout_ms")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    DECK_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_JSON_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    ROSTER_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_RULE_FIELD_NUMBER: _ClassVar[int]
    STAND_IN_FIELD_NUMBER: _ClassVar[int]
    HOST_TLS_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    HOST_PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    HOST_NONCE_FIELD_NUMBER: _ClassVar[int]
    JOIN_NONCES_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    HOST_KEY_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    NEXT_DEAL_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_GAME_ID_FIELD_NUMBER: _ClassVar[int]
    BUMMERL_CARRIED_FIELD_NUMBER: _ClassVar[int]
    STEP_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    deck_version: str
    rules_json: str
    preset: str
    settings: TableSettings
    roster: _containers.RepeatedCompositeFieldContainer[RosterEntry]
    first_dealer_rule: str
    stand_in: str
    host_tls_fingerprint: bytes
    host_public_key: bytes
    host_nonce: bytes
    join_nonces: _containers.RepeatedScalarFieldContainer[bytes]
    game_id: bytes
    host_key_commitment: bytes
    next_deal: str
    previous_game_id: bytes
    bummerl_carried: _containers.RepeatedScalarFieldContainer[int]
    step_timeout_ms: int
    def __init__(self, protocol_version: _Optional[int] = ..., deck_version: _Optional[str] = ..., rules_json: _Optional[str] = ..., preset: _Optional[str] = ..., settings: _Optional[_Union[TableSettings, _Mapping]] = ..., roster: _Optional[_Iterable[_Union[RosterEntry, _Mapping]]] = ..., first_dealer_rule: _Optional[str] = ..., stand_in: _Optional[str] = ..., host_tls_fingerprint: _Optional[bytes] = ..., host_public_key: _Optional[bytes] = ..., host_nonce: _Optional[bytes] = ..., join_nonces: _Optional[_Iterable[bytes]] = ..., game_id: _Optional[bytes] = ..., host_key_commitment: _Optional[bytes] = ..., next_deal: _Optional[str] = ..., previous_game_id: _Optional[bytes] = ..., bummerl_carried: _Optional[_Iterable[int]] = ..., step_timeout_ms: _Optional[int] = ...) -> None: ...

class KeyCommit(_message.Message):
    __slots__ = ("seat", "header_hash", "commitment")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HEADER_HASH_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    header_hash: bytes
    commitment: bytes
    def __init__(self, seat: _Optional[int] = ..., header_hash: _Optional[bytes] = ..., commitment: _Optional[bytes] = ...) -> None: ...

class KeyCommitEntry(_message.Message):
    __slots__ = ("seat", "envelope")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    envelope: bytes
    def __init__(self, seat: _Optional[int] = ..., envelope: _Optional[bytes] = ...) -> None: ...

class KeySet(_message.Message):
    __slots__ = ("commits",)
    COMMITS_FIELD_NUMBER: _ClassVar[int]
    commits: _containers.RepeatedCompositeFieldContainer[KeyCommitEntry]
    def __init__(self, commits: _Optional[_Iterable[_Union[KeyCommitEntry, _Mapping]]] = ...) -> None: ...

class KeySetSignature(_message.Message):
    __slots__ = ("seat", "key_set_hash")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KEY_SET_HASH_FIELD_NUMBER: _ClassVar[int]
    seat: int
    key_set_hash: bytes
    def __init__(self, seat: _Optional[int] = ..., key_set_hash: _Optional[bytes] = ...) -> None: ...

class KeyReveal(_message.Message):
    __slots__ = ("seat", "key", "chain_seq", "chain_head")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    CHAIN_SEQ_FIELD_NUMBER: _ClassVar[int]
    CHAIN_HEAD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    key: bytes
    chain_seq: int
    chain_head: bytes
    def __init__(self, seat: _Optional[int] = ..., key: _Optional[bytes] = ..., chain_seq: _Optional[int] = ..., chain_head: _Optional[bytes] = ...) -> None: ...

class HostKeyReveal(_message.Message):
    __slots__ = ("key",)
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: bytes
    def __init__(self, key: _Optional[bytes] = ...) -> None: ...

class HeaderSignature(_message.Message):
    __slots__ = ("seat", "header_hash")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HEADER_HASH_FIELD_NUMBER: _ClassVar[int]
    seat: int
    header_hash: bytes
    def __init__(self, seat: _Optional[int] = ..., header_hash: _Optional[bytes] = ...) -> None: ...

class Relay(_message.Message):
    __slots__ = ("seat", "envelope")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    envelope: bytes
    def __init__(self, seat: _Optional[int] = ..., envelope: _Optional[bytes] = ...) -> None: ...

class HandOpen(_message.Message):
    __slots__ = ("hand", "attempt", "dealer")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    dealer: int
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., dealer: _Optional[int] = ...) -> None: ...

class DeckSealed(_message.Message):
    __slots__ = ("hand", "attempt", "card_commitments")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    CARD_COMMITMENTS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    card_commitments: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., card_commitments: _Optional[_Iterable[bytes]] = ...) -> None: ...

class DeckSealedSignature(_message.Message):
    __slots__ = ("hand", "attempt", "seat", "deck_sealed_hash")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DECK_SEALED_HASH_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    seat: int
    deck_sealed_hash: bytes
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., seat: _Optional[int] = ..., deck_sealed_hash: _Optional[bytes] = ...) -> None: ...

class CardOpening(_message.Message):
    __slots__ = ("position", "card", "salt")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    SALT_FIELD_NUMBER: _ClassVar[int]
    position: int
    card: str
    salt: bytes
    def __init__(self, position: _Optional[int] = ..., card: _Optional[str] = ..., salt: _Optional[bytes] = ...) -> None: ...

class CardDelivery(_message.Message):
    __slots__ = ("hand", "attempt", "seat", "packet", "cards")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PACKET_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    seat: int
    packet: int
    cards: _containers.RepeatedCompositeFieldContainer[CardOpening]
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., seat: _Optional[int] = ..., packet: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[CardOpening, _Mapping]]] = ...) -> None: ...

class ActionRequest(_message.Message):
    __slots__ = ("action", "chain_seq", "chain_head", "openings")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    CHAIN_SEQ_FIELD_NUMBER: _ClassVar[int]
    CHAIN_HEAD_FIELD_NUMBER: _ClassVar[int]
    OPENINGS_FIELD_NUMBER: _ClassVar[int]
    action: str
    chain_seq: int
    chain_head: bytes
    openings: _containers.RepeatedCompositeFieldContainer[TrustlessOpening]
    def __init__(self, action: _Optional[str] = ..., chain_seq: _Optional[int] = ..., chain_head: _Optional[bytes] = ..., openings: _Optional[_Iterable[_Union[TrustlessOpening, _Mapping]]] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("kind", "seat", "fields")
    class FieldsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    kind: str
    seat: int
    fields: _containers.ScalarMap[str, str]
    def __init__(self, kind: _Optional[str] = ..., seat: _Optional[int] = ..., fields: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ActionAccepted(_message.Message):
    __slots__ = ("hand", "attempt", "seat", "action", "action_envelope_hash", "action_envelope", "actor", "openings", "events")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ACTION_ENVELOPE_HASH_FIELD_NUMBER: _ClassVar[int]
    ACTION_ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    OPENINGS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    seat: int
    action: str
    action_envelope_hash: bytes
    action_envelope: bytes
    actor: str
    openings: _containers.RepeatedCompositeFieldContainer[CardOpening]
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., seat: _Optional[int] = ..., action: _Optional[str] = ..., action_envelope_hash: _Optional[bytes] = ..., action_envelope: _Optional[bytes] = ..., actor: _Optional[str] = ..., openings: _Optional[_Iterable[_Union[CardOpening, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class PrivateEvent(_message.Message):
    __slots__ = ("hand", "attempt", "seat", "events")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    seat: int
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., seat: _Optional[int] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class AttemptAborted(_message.Message):
    __slots__ = ("hand", "attempt", "reason", "seat")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    reason: str
    seat: int
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., reason: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class DeckPrepare(_message.Message):
    __slots__ = ("deck", "deck_size", "shuffle_order")
    DECK_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    SHUFFLE_ORDER_FIELD_NUMBER: _ClassVar[int]
    deck: int
    deck_size: int
    shuffle_order: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, deck: _Optional[int] = ..., deck_size: _Optional[int] = ..., shuffle_order: _Optional[_Iterable[int]] = ...) -> None: ...

class TrustlessDealOpen(_message.Message):
    __slots__ = ("hand", "attempt", "dealer", "deck_size", "deck")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    dealer: int
    deck_size: int
    deck: int
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., dealer: _Optional[int] = ..., deck_size: _Optional[int] = ..., deck: _Optional[int] = ...) -> None: ...

class KeyShare(_message.Message):
    __slots__ = ("seat", "message", "deck")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    message: bytes
    deck: int
    def __init__(self, seat: _Optional[int] = ..., message: _Optional[bytes] = ..., deck: _Optional[int] = ...) -> None: ...

class Shuffle(_message.Message):
    __slots__ = ("seat", "message", "deck")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    message: bytes
    deck: int
    def __init__(self, seat: _Optional[int] = ..., message: _Optional[bytes] = ..., deck: _Optional[int] = ...) -> None: ...

class SealedShare(_message.Message):
    __slots__ = ("position", "recipient", "box")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    RECIPIENT_FIELD_NUMBER: _ClassVar[int]
    BOX_FIELD_NUMBER: _ClassVar[int]
    position: int
    recipient: int
    box: bytes
    def __init__(self, position: _Optional[int] = ..., recipient: _Optional[int] = ..., box: _Optional[bytes] = ...) -> None: ...

class ShareRequest(_message.Message):
    __slots__ = ("hand", "attempt", "recipient", "positions", "why")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    RECIPIENT_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    recipient: int
    positions: _containers.RepeatedScalarFieldContainer[int]
    why: str
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., recipient: _Optional[int] = ..., positions: _Optional[_Iterable[int]] = ..., why: _Optional[str] = ...) -> None: ...

class DecryptionShares(_message.Message):
    __slots__ = ("hand", "attempt", "seat", "request_hash", "shares", "sealed")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_HASH_FIELD_NUMBER: _ClassVar[int]
    SHARES_FIELD_NUMBER: _ClassVar[int]
    SEALED_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    seat: int
    request_hash: bytes
    shares: _containers.RepeatedScalarFieldContainer[bytes]
    sealed: _containers.RepeatedCompositeFieldContainer[SealedShare]
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., seat: _Optional[int] = ..., request_hash: _Optional[bytes] = ..., shares: _Optional[_Iterable[bytes]] = ..., sealed: _Optional[_Iterable[_Union[SealedShare, _Mapping]]] = ...) -> None: ...

class TrustlessOpening(_message.Message):
    __slots__ = ("position", "card", "shares")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    SHARES_FIELD_NUMBER: _ClassVar[int]
    position: int
    card: str
    shares: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, position: _Optional[int] = ..., card: _Optional[str] = ..., shares: _Optional[_Iterable[bytes]] = ...) -> None: ...

class StandIn(_message.Message):
    __slots__ = ("seat", "active")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    active: bool
    def __init__(self, seat: _Optional[int] = ..., active: _Optional[bool] = ...) -> None: ...

class HandEnd(_message.Message):
    __slots__ = ("hand", "attempt", "winner_side", "points", "reason", "scores", "bummerl", "events")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    WINNER_SIDE_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    BUMMERL_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    winner_side: int
    points: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    scores: _containers.RepeatedScalarFieldContainer[int]
    bummerl: _containers.RepeatedScalarFieldContainer[int]
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., winner_side: _Optional[int] = ..., points: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., scores: _Optional[_Iterable[int]] = ..., bummerl: _Optional[_Iterable[int]] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class Checkpoint(_message.Message):
    __slots__ = ("hand", "chain_seq", "chain_head")
    HAND_FIELD_NUMBER: _ClassVar[int]
    CHAIN_SEQ_FIELD_NUMBER: _ClassVar[int]
    CHAIN_HEAD_FIELD_NUMBER: _ClassVar[int]
    hand: int
    chain_seq: int
    chain_head: bytes
    def __init__(self, hand: _Optional[int] = ..., chain_seq: _Optional[int] = ..., chain_head: _Optional[bytes] = ...) -> None: ...

class CheckpointSignature(_message.Message):
    __slots__ = ("hand", "seat", "chain_seq", "chain_head")
    HAND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CHAIN_SEQ_FIELD_NUMBER: _ClassVar[int]
    CHAIN_HEAD_FIELD_NUMBER: _ClassVar[int]
    hand: int
    seat: int
    chain_seq: int
    chain_head: bytes
    def __init__(self, hand: _Optional[int] = ..., seat: _Optional[int] = ..., chain_seq: _Optional[int] = ..., chain_head: _Optional[bytes] = ...) -> None: ...

class HostSeedReveal(_message.Message):
    __slots__ = ("hand", "attempt", "dealer", "seed")
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    hand: int
    attempt: int
    dealer: int
    seed: bytes
    def __init__(self, hand: _Optional[int] = ..., attempt: _Optional[int] = ..., dealer: _Optional[int] = ..., seed: _Optional[bytes] = ...) -> None: ...

class Disclosure(_message.Message):
    __slots__ = ("envelopes",)
    ENVELOPES_FIELD_NUMBER: _ClassVar[int]
    envelopes: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, envelopes: _Optional[_Iterable[bytes]] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("scores", "bummerl", "winner_side", "reason", "unanswered", "hand", "missing_keys")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    BUMMERL_FIELD_NUMBER: _ClassVar[int]
    WINNER_SIDE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    UNANSWERED_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    MISSING_KEYS_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    bummerl: _containers.RepeatedScalarFieldContainer[int]
    winner_side: int
    reason: str
    unanswered: _containers.RepeatedScalarFieldContainer[bytes]
    hand: int
    missing_keys: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, scores: _Optional[_Iterable[int]] = ..., bummerl: _Optional[_Iterable[int]] = ..., winner_side: _Optional[int] = ..., reason: _Optional[str] = ..., unanswered: _Optional[_Iterable[bytes]] = ..., hand: _Optional[int] = ..., missing_keys: _Optional[_Iterable[int]] = ...) -> None: ...

class SubscribeRequest(_message.Message):
    __slots__ = ("token", "from_seq", "known_chain_seq", "known_game_id")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    FROM_SEQ_FIELD_NUMBER: _ClassVar[int]
    KNOWN_CHAIN_SEQ_FIELD_NUMBER: _ClassVar[int]
    KNOWN_GAME_ID_FIELD_NUMBER: _ClassVar[int]
    token: str
    from_seq: int
    known_chain_seq: int
    known_game_id: bytes
    def __init__(self, token: _Optional[str] = ..., from_seq: _Optional[int] = ..., known_chain_seq: _Optional[int] = ..., known_game_id: _Optional[bytes] = ...) -> None: ...

class TableUpdate(_message.Message):
    __slots__ = ("snapshot", "event")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    snapshot: Snapshot
    event: Event
    def __init__(self, snapshot: _Optional[_Union[Snapshot, _Mapping]] = ..., event: _Optional[_Union[Event, _Mapping]] = ...) -> None: ...

class ChainEntry(_message.Message):
    __slots__ = ("chain_seq", "envelope", "withheld")
    CHAIN_SEQ_FIELD_NUMBER: _ClassVar[int]
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    WITHHELD_FIELD_NUMBER: _ClassVar[int]
    chain_seq: int
    envelope: bytes
    withheld: Withheld
    def __init__(self, chain_seq: _Optional[int] = ..., envelope: _Optional[bytes] = ..., withheld: _Optional[_Union[Withheld, _Mapping]] = ...) -> None: ...

class Withheld(_message.Message):
    __slots__ = ("envelope_hash", "type", "visible_to")
    ENVELOPE_HASH_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_TO_FIELD_NUMBER: _ClassVar[int]
    envelope_hash: bytes
    type: str
    visible_to: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, envelope_hash: _Optional[bytes] = ..., type: _Optional[str] = ..., visible_to: _Optional[_Iterable[int]] = ...) -> None: ...

class Snapshot(_message.Message):
    __slots__ = ("seq", "resumed", "view", "chain", "your_envelope_seq", "your_envelope_hash", "recent_events")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    CHAIN_FIELD_NUMBER: _ClassVar[int]
    YOUR_ENVELOPE_SEQ_FIELD_NUMBER: _ClassVar[int]
    YOUR_ENVELOPE_HASH_FIELD_NUMBER: _ClassVar[int]
    RECENT_EVENTS_FIELD_NUMBER: _ClassVar[int]
    seq: int
    resumed: bool
    view: TableView
    chain: _containers.RepeatedCompositeFieldContainer[ChainEntry]
    your_envelope_seq: int
    your_envelope_hash: bytes
    recent_events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, seq: _Optional[int] = ..., resumed: _Optional[bool] = ..., view: _Optional[_Union[TableView, _Mapping]] = ..., chain: _Optional[_Iterable[_Union[ChainEntry, _Mapping]]] = ..., your_envelope_seq: _Optional[int] = ..., your_envelope_hash: _Optional[bytes] = ..., recent_events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seq", "events", "chain", "view")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    CHAIN_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    seq: int
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    chain: _containers.RepeatedCompositeFieldContainer[ChainEntry]
    view: TableView
    def __init__(self, seq: _Optional[int] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ..., chain: _Optional[_Iterable[_Union[ChainEntry, _Mapping]]] = ..., view: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class TrickCard(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "cards", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    cards: _containers.RepeatedCompositeFieldContainer[TrickCard]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[TrickCard, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class PendingRaise(_message.Message):
    __slots__ = ("seat", "side", "proposed_value")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    PROPOSED_VALUE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    side: int
    proposed_value: int
    def __init__(self, seat: _Optional[int] = ..., side: _Optional[int] = ..., proposed_value: _Optional[int] = ...) -> None: ...

class SignalSeen(_message.Message):
    __slots__ = ("seat", "name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("seat", "name", "side", "online", "bot", "ready", "hand_size", "you", "taken", "stand_in")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    ONLINE_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    YOU_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    STAND_IN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    side: int
    online: bool
    bot: bool
    ready: bool
    hand_size: int
    you: bool
    taken: int
    stand_in: bool
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., side: _Optional[int] = ..., online: _Optional[bool] = ..., bot: _Optional[bool] = ..., ready: _Optional[bool] = ..., hand_size: _Optional[int] = ..., you: _Optional[bool] = ..., taken: _Optional[int] = ..., stand_in: _Optional[bool] = ...) -> None: ...

class SideView(_message.Message):
    __slots__ = ("side", "seats", "score", "bummerl")
    SIDE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    BUMMERL_FIELD_NUMBER: _ClassVar[int]
    side: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    score: int
    bummerl: int
    def __init__(self, side: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., score: _Optional[int] = ..., bummerl: _Optional[int] = ...) -> None: ...

class DealStatus(_message.Message):
    __slots__ = ("mode", "step", "waiting_for", "note")
    MODE_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    mode: str
    step: str
    waiting_for: _containers.RepeatedScalarFieldContainer[int]
    note: str
    def __init__(self, mode: _Optional[str] = ..., step: _Optional[str] = ..., waiting_for: _Optional[_Iterable[int]] = ..., note: _Optional[str] = ...) -> None: ...

class TableView(_message.Message):
    __slots__ = ("table", "your_seat", "hand_phase", "announce_step", "seats", "sides", "target", "match_number", "winners", "series_over", "hand", "attempt", "announcers", "partners", "signals", "dealer", "forehand", "cutter", "to_act", "your_hand", "legal_actions", "current_trick", "tricks", "stake", "pending_raise", "schlag", "trump", "announcement_hidden", "tricks_per_side", "tight_per_side", "last_raise_side", "game_fingerprint", "deal", "chain_seq", "chain_head", "extra")
    class ExtraEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TABLE_FIELD_NUMBER: _ClassVar[int]
    YOUR_SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_PHASE_FIELD_NUMBER: _ClassVar[int]
    ANNOUNCE_STEP_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    MATCH_NUMBER_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    SERIES_OVER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    ANNOUNCERS_FIELD_NUMBER: _ClassVar[int]
    PARTNERS_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    FOREHAND_FIELD_NUMBER: _ClassVar[int]
    CUTTER_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    YOUR_HAND_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    PENDING_RAISE_FIELD_NUMBER: _ClassVar[int]
    SCHLAG_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    ANNOUNCEMENT_HIDDEN_FIELD_NUMBER: _ClassVar[int]
    TRICKS_PER_SIDE_FIELD_NUMBER: _ClassVar[int]
    TIGHT_PER_SIDE_FIELD_NUMBER: _ClassVar[int]
    LAST_RAISE_SIDE_FIELD_NUMBER: _ClassVar[int]
    GAME_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    CHAIN_SEQ_FIELD_NUMBER: _ClassVar[int]
    CHAIN_HEAD_FIELD_NUMBER: _ClassVar[int]
    EXTRA_FIELD_NUMBER: _ClassVar[int]
    table: TableInfo
    your_seat: int
    hand_phase: str
    announce_step: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatView]
    sides: _containers.RepeatedCompositeFieldContainer[SideView]
    target: int
    match_number: int
    winners: _containers.RepeatedScalarFieldContainer[int]
    series_over: bool
    hand: int
    attempt: int
    announcers: _containers.RepeatedScalarFieldContainer[int]
    partners: _containers.RepeatedScalarFieldContainer[int]
    signals: _containers.RepeatedCompositeFieldContainer[SignalSeen]
    dealer: int
    forehand: int
    cutter: int
    to_act: _containers.RepeatedScalarFieldContainer[int]
    your_hand: _containers.RepeatedScalarFieldContainer[str]
    legal_actions: _containers.RepeatedScalarFieldContainer[str]
    current_trick: Trick
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    stake: int
    pending_raise: PendingRaise
    schlag: str
    trump: str
    announcement_hidden: bool
    tricks_per_side: _containers.RepeatedScalarFieldContainer[int]
    tight_per_side: _containers.RepeatedScalarFieldContainer[bool]
    last_raise_side: int
    game_fingerprint: str
    deal: DealStatus
    chain_seq: int
    chain_head: bytes
    extra: _containers.ScalarMap[str, str]
    def __init__(self, table: _Optional[_Union[TableInfo, _Mapping]] = ..., your_seat: _Optional[int] = ..., hand_phase: _Optional[str] = ..., announce_step: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatView, _Mapping]]] = ..., sides: _Optional[_Iterable[_Union[SideView, _Mapping]]] = ..., target: _Optional[int] = ..., match_number: _Optional[int] = ..., winners: _Optional[_Iterable[int]] = ..., series_over: _Optional[bool] = ..., hand: _Optional[int] = ..., attempt: _Optional[int] = ..., announcers: _Optional[_Iterable[int]] = ..., partners: _Optional[_Iterable[int]] = ..., signals: _Optional[_Iterable[_Union[SignalSeen, _Mapping]]] = ..., dealer: _Optional[int] = ..., forehand: _Optional[int] = ..., cutter: _Optional[int] = ..., to_act: _Optional[_Iterable[int]] = ..., your_hand: _Optional[_Iterable[str]] = ..., legal_actions: _Optional[_Iterable[str]] = ..., current_trick: _Optional[_Union[Trick, _Mapping]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., stake: _Optional[int] = ..., pending_raise: _Optional[_Union[PendingRaise, _Mapping]] = ..., schlag: _Optional[str] = ..., trump: _Optional[str] = ..., announcement_hidden: _Optional[bool] = ..., tricks_per_side: _Optional[_Iterable[int]] = ..., tight_per_side: _Optional[_Iterable[bool]] = ..., last_raise_side: _Optional[int] = ..., game_fingerprint: _Optional[str] = ..., deal: _Optional[_Union[DealStatus, _Mapping]] = ..., chain_seq: _Optional[int] = ..., chain_head: _Optional[bytes] = ..., extra: _Optional[_Mapping[str, str]] = ...) -> None: ...
