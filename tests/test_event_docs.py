"""docs/protocol.md section 8 (the game events a client receives) held against the code's own declarations.

A client written from the documents alone reads every event kind by that table: it must list exactly the kinds the
engines emit (`EventKind`), and for each kind exactly the fields its TypedDict in `engine/event_data.py` declares
(`salt` is the one field the dealing layer adds: Level 1's PrivateEvent carries the card's salt with it).
"""

from __future__ import annotations

import re
import typing
from pathlib import Path

from watten_net.engine.event_data import DATA_TYPES
from watten_net.engine.events import EventKind

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
ADDED_BY_THE_DEALING_LAYER = {EventKind.SEE: {"salt"}}
OBJECT_KINDS = {EventKind.OBLIGATION, EventKind.VIOLATION}
"""Kinds whose fields are an object's `to_dict()` (an obligation, a violation), documented field by field too."""


def documented() -> dict[str, set[str]]:
    text = DOC.read_text()
    section = text[text.index("## 8. Game events"):text.index("## 9.")]
    rows: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        fields = set(re.findall(r"`([a-z_]+)`\s+(?:int|string|bool|array|object)", cells[2]))
        for kind in re.findall(r"`([^`]+)`", cells[0]):
            rows[kind] = fields
    return rows


def test_every_kind_the_engines_emit_is_documented_and_no_other() -> None:
    assert set(documented()) == {kind.value for kind in EventKind}


def test_every_kind_is_documented_with_exactly_its_fields() -> None:
    docs = documented()
    for kind in EventKind:
        if kind in OBJECT_KINDS:
            continue
        data = DATA_TYPES.get(kind)
        declared = set(data.__annotations__) if data is not None else set()
        assert docs[kind.value] == declared | ADDED_BY_THE_DEALING_LAYER.get(kind, set()), kind


def test_the_reader_sees_what_it_checks() -> None:
    """The table parser finds the rows it is meant to: a parser that found nothing would prove nothing."""
    docs = documented()
    assert docs["play"] == {"card", "position"} and docs["take"] == set() and docs["keep"] == set()
    assert {"hand", "attempt", "gespannt"} <= docs["hand-start"]


def json_type(annotation: object) -> str:
    """The JSON type a field's Python annotation is sent as (every value travels JSON-encoded, section 8)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.NotRequired, typing.Required):
        return json_type(typing.get_args(annotation)[0])
    base = origin or annotation
    names = {int: "int", str: "string", bool: "bool", list: "array", tuple: "array", dict: "object"}
    assert base in names, f"no JSON type for {annotation!r}"
    return names[base]  # type: ignore[index]


def documented_types() -> dict[str, dict[str, str]]:
    text = DOC.read_text()
    section = text[text.index("## 8. Game events"):text.index("## 9.")]
    rows: dict[str, dict[str, str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        types = dict(re.findall(r"`([a-z_]+)`\s+(int|string|bool|array|object)", cells[2]))
        for kind in re.findall(r"`([^`]+)`", cells[0]):
            rows[kind] = types
    return rows


def test_every_field_is_documented_with_its_json_type() -> None:
    docs = documented_types()
    checked = 0
    for kind in EventKind:
        data = DATA_TYPES.get(kind)
        if kind in OBJECT_KINDS or data is None:
            continue
        for name, annotation in typing.get_type_hints(data, include_extras=True).items():
            assert docs[kind.value][name] == json_type(annotation), (kind, name)
            checked += 1
    assert checked >= 40
