"""Game records (`*.wrec`): every signed envelope a party sent and received, in order.

Format (version 1), simple enough to re-implement:

    magic   b"WATTEN-RECORD/1\\n"
    entries u8 kind, u32 big-endian length, that many bytes; repeated to the end of the file

kind 0 is metadata (UTF-8 JSON: who wrote the record, for which seat, when); 1 a host envelope as
received; 2 the stub (`Withheld`) of a host envelope this party was not shown; 3 an envelope this
party sent and the host accepted; 4 an envelope of this party's that the host refused, with the host's signed
receipt (`RefusalEvidence`); 5 this party's own unsigned note, e.g. a claimed dispute (`SeatNote`). Entries are
appended and flushed as the game goes, so a record is useful even if its writer dies. A record is private
(mode 0600, its folder 0700 when this code makes it): the host's holds every seat's cards while the game runs.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from watten_net.paths import ensure_private_dir, open_private

MAGIC = b"WATTEN-RECORD/1\n"
KIND_META = 0
KIND_HOST = 1
KIND_WITHHELD = 2
KIND_OWN = 3
KIND_REFUSED = 4  # a pb.RefusalEvidence: an envelope of the owner's the host refused, and the host's receipt
KIND_NOTE = 5  # a pb.SeatNote: the owner's own unsigned word (a claimed dispute)
KINDS = (KIND_META, KIND_HOST, KIND_WITHHELD, KIND_OWN, KIND_REFUSED, KIND_NOTE)
MAX_ENTRY = 16 * 1024 * 1024
_ENTRY_HEADER = struct.Struct(">BI")  # an entry's kind and length


class RecordError(ValueError):
    """The file is not a readable game record (the message says where and why)."""


@dataclass(frozen=True)
class Entry:
    """One entry of a game record: its kind (KIND_META, KIND_HOST, ...: see this module's docstring) and its bytes."""

    kind: int
    data: bytes


class RecordWriter:
    """Writes a game record (docs/protocol.md, record format) entry by entry to a private file, meta data first."""

    def __init__(self, path: str | os.PathLike[str], meta: dict[str, Any]) -> None:
        self.path = Path(path)
        ensure_private_dir(self.path.parent)
        self._file: BinaryIO | None = open_private(self.path)  # kept open for the whole game
        self._file.write(MAGIC)
        full = {"created": datetime.now(UTC).isoformat(timespec="seconds"), **meta}
        self.append(KIND_META, json.dumps(full, sort_keys=True).encode())

    def append(self, kind: int, data: bytes) -> None:
        self.extend(((kind, data),))

    def extend(self, entries: Iterable[tuple[int, bytes]]) -> None:
        """Append entries (kind, bytes) with one write and one flush: a seat writes what one stream event brought at
        once. Flushed, not synced: what was appended survives the writer's crash (the OS holds it); `close` syncs."""
        if self._file is None:
            raise RecordError(f"record {self.path} is closed")
        parts: list[bytes] = []
        for kind, body in entries:  # (each header and body as they are: joined once, not each body copied first)
            parts += (_ENTRY_HEADER.pack(kind, len(body)), body)
        data = b"".join(parts)
        if data:
            self._file.write(data)
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None


def read_record(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[Entry]]:
    data = Path(path).read_bytes()
    return parse_record(data, str(path))


def parse_record(data: bytes, name: str = "record") -> tuple[dict[str, Any], list[Entry]]:
    if not data.startswith(MAGIC):
        raise RecordError(f"{name} is not a watten-net game record (its first line is not {MAGIC.decode().strip()})")
    entries: list[Entry] = []
    offset = len(MAGIC)
    while offset < len(data):
        if offset + 5 > len(data):
            raise RecordError(f"{name} is cut off inside entry {len(entries) + 1} (byte {offset})")
        kind, length = struct.unpack_from(">BI", data, offset)
        offset += 5
        if kind not in KINDS:
            raise RecordError(f"{name}: entry {len(entries) + 1} has unknown kind {kind} (byte {offset - 5})")
        if length > MAX_ENTRY or offset + length > len(data):
            raise RecordError(f"{name} is cut off inside entry {len(entries) + 1} (byte {offset - 5})")
        entries.append(Entry(kind, data[offset: offset + length]))
        offset += length
    meta: dict[str, Any] = {}
    if entries and entries[0].kind == KIND_META:
        try:
            loaded = json.loads(entries[0].data.decode())
        except (UnicodeDecodeError, ValueError):
            raise RecordError(f"{name}: the metadata entry is not JSON") from None
        if isinstance(loaded, dict):
            meta = loaded
    return meta, [e for e in entries if e.kind != KIND_META]


def encode_entries(meta: dict[str, Any], entries: list[Entry]) -> bytes:
    """A whole record as bytes (for tests that alter records)."""
    out = [MAGIC]
    for entry in [Entry(KIND_META, json.dumps(meta, sort_keys=True).encode()), *entries]:
        out.append(struct.pack(">BI", entry.kind, len(entry.data)) + entry.data)
    return b"".join(out)
