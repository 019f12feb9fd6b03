"""Helpers to build real game records and to alter them, for the tamper tests of the verifier.

Records come from `LocalTable` with seeded keys, so a record (and every mutation of it) is the same
on every run. The mutations work on lists of record entries (`watten_net.record.Entry`) or on the
encoded record bytes; `resign_from` plays the dishonest host that rewrites history and then signs
its own chain again so that every host signature and link holds.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from unittest import mock

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from watten_net.deal.envelope import GENESIS_PREV_HASH, envelope_hash
from watten_net.deal.protocol import HOST_SEAT, HOST_TYPES, Signed, make_envelope, parse_envelope
from watten_net.engine import Rules
from watten_net.record import (
    KIND_HOST,
    KIND_META,
    KIND_OWN,
    KIND_WITHHELD,
    MAGIC,
    Entry,
    RecordError,
    encode_entries,
    parse_record,
)
from watten_net.v1 import watten_pb2 as pb
from watten_net.verify import Report, verify_entries

import local_table
from local_table import LocalTable

Record = list[Entry]

# ---------------------------------------------------------------------------------------------- real records


class _SeededKeys:
    """Stands in for `Ed25519PrivateKey` inside `local_table` so that the keys, hence the game, are reproducible."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(f"keys-{seed}")

    def generate(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(self.rng.randbytes(32))


@dataclass(frozen=True)
class Game:
    """One finished game: the host's record, every seat's record and the keys that signed them."""

    name: str
    table: LocalTable

    @property
    def host_key(self) -> Ed25519PrivateKey:
        return self.table.host.host_key

    def seat_key(self, seat: int) -> Ed25519PrivateKey:
        return self.table.seats[seat].key

    @property
    def players(self) -> int:
        return self.table.rules.players

    def host(self) -> Record:
        return self.table.host_entries()

    def seat(self, seat: int) -> Record:
        return self.table.seat_entries(seat)

    def record(self, seat: int | None = None) -> Record:
        return self.host() if seat is None else self.seat(seat)

    def encoded(self, seat: int | None = None) -> bytes:
        return encode(self.record(seat), seat)


def play_game(name: str, rules: Rules, seed: int, reveal: str = "match-end",
              absences: dict[int, tuple[int, int]] | None = None) -> Game:
    """A whole game; `absences` (LocalTable.play's: step -> (seat, steps away)) has the reference stand-in play."""
    with mock.patch.object(local_table, "Ed25519PrivateKey", _SeededKeys(seed)):
        table = LocalTable(rules, seed=seed, reveal=reveal)
    table.play(absences=absences)
    return Game(name, table)


def encode(entries: Sequence[Entry], seat: int | None = None) -> bytes:
    meta: dict[str, Any] = {"writer": "host"} if seat is None else {"writer": "seat", "seat": seat}
    return encode_entries(meta, list(entries))


# ---------------------------------------------------------------------------------------------- outcomes

UNREADABLE = "unreadable"  # parse_record refused the bytes (RecordError): caught before verification
ACCEPTED = "ok"


def verify(record: Sequence[Entry] | bytes) -> Report | None:
    """The verifier's report on a record (entries, or record bytes); None when the bytes are not a record."""
    if isinstance(record, bytes):
        try:
            meta, entries = parse_record(record, "tampered")
        except RecordError:
            return None
        return verify_entries(entries, "tampered", meta)
    return verify_entries(list(record), "tampered")


def outcome(record: Sequence[Entry] | bytes) -> str:
    """The first error's reason, UNREADABLE or ACCEPTED."""
    report = verify(record)
    if report is None:
        return UNREADABLE
    if report.ok:
        return ACCEPTED
    return report.errors[0].reason


# ---------------------------------------------------------------------------------------------- reading entries


def signed(entry: Entry) -> Signed:
    if entry.kind == KIND_OWN:
        return parse_envelope(entry.data, host=False)
    return parse_envelope(entry.data, host=True)


def chain_indices(entries: Sequence[Entry]) -> list[int]:
    """Indices of the entries that are chain slots (host envelopes and withheld stubs), in chain order."""
    return [i for i, e in enumerate(entries) if e.kind in (KIND_HOST, KIND_WITHHELD)]


def host_indices(
    entries: Sequence[Entry], type_: str | None = None, where: Callable[[Any], bool] | None = None
) -> list[int]:
    """Indices of the full host envelopes (of one type; whose payload passes `where`)."""
    out = []
    for i, e in enumerate(entries):
        if e.kind != KIND_HOST:
            continue
        s = signed(e)
        if (type_ is None or s.type == type_) and (where is None or where(s.payload)):
            out.append(i)
    return out


def relay_indices(entries: Sequence[Entry], inner_type: str, seat: int | None = None) -> list[int]:
    """Indices of Relay envelopes that carry a client envelope of `inner_type` (from `seat`)."""
    out = []
    for i in host_indices(entries, "Relay"):
        inner = parse_envelope(signed(entries[i]).payload.envelope, host=False)
        if inner.type == inner_type and (seat is None or inner.sender == seat):
            out.append(i)
    return out


def chain_seq(entries: Sequence[Entry], index: int) -> int:
    """The chain seq of the slot at entries[index]."""
    return chain_indices(entries).index(index) + 1


def pick(indices: Sequence[int], fraction: float) -> int:
    """The element at `fraction` (0..1) of a non-empty list: spreads parametrised cases over a record."""
    assert indices, "nothing to pick from"
    return indices[min(len(indices) - 1, int(fraction * len(indices)))]


# ---------------------------------------------------------------------------------------------- the dishonest host


def disclosed_envelopes(entries: Sequence[Entry]) -> dict[bytes, bytes]:
    """Every envelope a Disclosure in the record carries, by hash (a seat's record holds only stubs before)."""
    out: dict[bytes, bytes] = {}
    for i in host_indices(entries, "Disclosure"):
        for raw in signed(entries[i]).payload.envelopes:
            out[envelope_hash(bytes(raw))] = bytes(raw)
    return out


def resign_from(
    entries: Sequence[Entry], index: int, host_key: Ed25519PrivateKey, renewed: dict[bytes, bytes] | None = None
) -> Record:
    """Rebuild seq, prev_hash and signature of every chain slot from entries[index] on, as the host.

    A host that rewrites history can keep its own chain valid: each host envelope is signed again on
    the new chain head (its game id and payload kept, payloads parsed with `HOST_TYPES`), Checkpoints
    name the new head, withheld stubs get the hash of the re-signed envelope (taken from the record's
    disclosures) and Disclosures carry the re-signed envelopes (and those of `renewed`, old hash -> new
    bytes). Client envelopes (relayed, embedded, or the seat's own) cannot be signed again: they keep
    naming the old hashes, which is what the verifier must notice.
    """
    hidden = disclosed_envelopes(entries)
    renewed = dict(renewed or {})  # old envelope hash -> re-signed envelope bytes
    out: Record = []
    seq = 0
    prev = GENESIS_PREV_HASH
    for i, entry in enumerate(entries):
        if entry.kind not in (KIND_HOST, KIND_WITHHELD):
            out.append(entry)
            continue
        seq += 1
        if i < index:
            out.append(entry)
            prev = envelope_hash(entry.data) if entry.kind == KIND_HOST else _stub(entry).envelope_hash
            continue
        if entry.kind == KIND_WITHHELD:
            stub = _stub(entry)
            old = hidden.get(bytes(stub.envelope_hash))
            assert old is not None, "a withheld envelope that the record never discloses cannot be re-signed"
            raw = _resign_one(old, seq, prev, host_key, renewed)
            renewed[bytes(stub.envelope_hash)] = raw
            stub.envelope_hash = envelope_hash(raw)
            out.append(Entry(KIND_WITHHELD, stub.SerializeToString(deterministic=True)))
        else:
            raw = _resign_one(entry.data, seq, prev, host_key, renewed)
            renewed[envelope_hash(entry.data)] = raw
            out.append(Entry(KIND_HOST, raw))
        prev = envelope_hash(raw)
    return out


def _stub(entry: Entry) -> Any:
    stub = pb.Withheld()
    stub.ParseFromString(entry.data)
    return stub


def _resign_one(raw: bytes, seq: int, prev: bytes, host_key: Ed25519PrivateKey, renewed: dict[bytes, bytes]) -> bytes:
    env = pb.Envelope()
    env.ParseFromString(raw)
    payload = HOST_TYPES[env.type]()
    payload.ParseFromString(env.payload)
    if env.type == "Checkpoint":
        payload.chain_seq = seq - 1
        payload.chain_head = prev
    elif env.type == "Disclosure":
        fresh = [renewed.get(envelope_hash(bytes(r)), bytes(r)) for r in payload.envelopes]
        del payload.envelopes[:]
        payload.envelopes.extend(fresh)
    return make_envelope(host_key, bytes(env.game_id), seq, prev, HOST_SEAT, payload)


def edit_host(
    entries: Sequence[Entry], index: int, change: Callable[[Any], None], host_key: Ed25519PrivateKey,
    *, resign: bool = True,
) -> Record:
    """Change the payload of the host envelope at entries[index] (in place, by `change`) and sign the chain again.

    Without `resign` only that envelope is signed again (its successors then no longer link to it).
    """
    out = list(entries)
    s = signed(out[index])
    payload = HOST_TYPES[s.type]()
    payload.CopyFrom(s.payload)
    change(payload)
    env = s.envelope
    raw = make_envelope(host_key, bytes(env.game_id), int(env.seq), bytes(env.prev_hash), HOST_SEAT, payload)
    out[index] = Entry(KIND_HOST, raw)
    return resign_from(out, index, host_key) if resign else out


def replace_entries(entries: Sequence[Entry], index: int, new: Sequence[Entry]) -> Record:
    return [*entries[:index], *new, *entries[index + 1:]]


def drop(entries: Sequence[Entry], index: int) -> Record:
    return replace_entries(entries, index, [])


def duplicate(entries: Sequence[Entry], index: int) -> Record:
    return replace_entries(entries, index, [entries[index], entries[index]])


def swap(entries: Sequence[Entry], i: int, j: int) -> Record:
    out = list(entries)
    out[i], out[j] = out[j], out[i]
    return out


def client_envelope(key: Ed25519PrivateKey, raw: bytes, change: Callable[[Any], None] | None = None) -> bytes:
    """A client envelope signed again by `key` (the seat's own or a stranger's) after `change` to its payload."""
    s = parse_envelope(raw, host=False)
    env = s.envelope
    payload = type(s.payload)()
    payload.CopyFrom(s.payload)
    if change is not None:
        change(payload)
    return make_envelope(key, bytes(env.game_id), int(env.seq), bytes(env.prev_hash), int(env.sender_seat), payload)


def with_payload(raw: bytes, change: Callable[[Any], None]) -> bytes:
    """Envelope bytes with a changed payload and the old signature (a forgery that does not re-sign)."""
    s = parse_envelope(raw, host=False)
    payload = type(s.payload)()
    payload.CopyFrom(s.payload)
    change(payload)
    env = pb.Envelope()
    env.CopyFrom(s.envelope)
    env.payload = payload.SerializeToString(deterministic=True)
    return bytes(env.SerializeToString(deterministic=True))


# ---------------------------------------------------------------------------------------------- bytes


@dataclass(frozen=True)
class Span:
    start: int  # offset of the entry's kind byte
    body: int  # offset of its data
    end: int
    kind: int


def spans(data: bytes) -> list[Span]:
    """Where each entry of well-formed record bytes lies."""
    out = []
    offset = len(MAGIC)
    while offset < len(data):
        kind = data[offset]
        length = int.from_bytes(data[offset + 1: offset + 5], "big")
        out.append(Span(offset, offset + 5, offset + 5 + length, kind))
        offset += 5 + length
    return out


def unsigned_region(data: bytes, position: int) -> Span | None:
    """The entry whose data holds `position` when nothing binds those bytes: the metadata entry and withheld stubs.

    The metadata is unsigned by design, and of a stub only the envelope hash is bound to the chain (the stub's
    type and visible_to are the seat's own notes, and the disclosed envelope replaces the stub).
    """
    for span in spans(data):
        if not span.body <= position < span.end:
            continue
        if span.kind == KIND_META:
            return span
        if span.kind == KIND_WITHHELD:
            digest = bytes(_stub(Entry(KIND_WITHHELD, data[span.body: span.end])).envelope_hash)
            bound_end = data.find(digest, span.body, span.end) + len(digest)
            return span if position >= bound_end else None
    return None


def bound_position(data: bytes, position: int) -> int:
    """`position`, or the next byte after it that is bound to the game (see `unsigned_region`)."""
    while (span := unsigned_region(data, position)) is not None:
        position = span.end
    return position


def flip(data: bytes, position: int, mask: int) -> bytes:
    assert 0 < mask < 256
    out = bytearray(data)
    out[position] ^= mask
    return bytes(out)
