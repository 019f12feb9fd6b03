"""docs/rules.md, the project's own rules document, held against the engine that implements it.

Its notation (the action grammar's verbs), its signals and its presets must be the engine's: a reader who builds a
client or a bot from the document alone meets the same words on the wire.
"""

from __future__ import annotations

import re
from pathlib import Path

from watten_net.engine import Rules
from watten_net.engine.notation import Verb
from watten_net.engine.rules import SIGNAL_NAMES

DOC = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text()
TRUSTLESS_ONLY = {Verb.MASCHINE, Verb.OPEN}
"""Verbs of the trustless table's own steps (docs/protocol.md), not of the rules' grammar."""


def section(number: int) -> str:
    start = DOC.index(f"## {number}. ")
    end = DOC.find("\n## ", start + 1)
    return DOC[start:end if end >= 0 else len(DOC)]


def test_the_action_grammar_is_the_engines() -> None:
    grammar = section(1)[section(1).index("**Actions**"):]
    documented = {word.split()[0] for word in re.findall(r"`([^`]+)`", grammar)}
    assert documented == {verb.value for verb in Verb} - TRUSTLESS_ONLY


def test_the_signals_are_the_engines() -> None:
    names = re.search(r"NAME one of\s+`([^`]+)`", section(9))
    assert names is not None
    assert tuple(names.group(1).split()) == SIGNAL_NAMES


def test_every_preset_is_documented_and_builds() -> None:
    documented = re.findall(r"^\| `([a-z0-9-]+)`", section(10), flags=re.MULTILINE)
    assert documented and set(documented) == set(Rules.PRESET_NAMES)
    for name in documented:
        assert Rules.preset(name).preset_name() == name


def test_the_document_links_only_within_the_repository() -> None:
    links = re.findall(r"\]\(([^)]+)\)", DOC)
    assert links and all(not link.startswith(("http", "/", "..")) for link in links)
    assert "RULES.md" not in DOC and "PROTOCOL.md" not in DOC
