"""The one spelling of a game's steps: the words DealStatus.step carries (see the proto) and the envelope a seat owes
at each, read back by a client; and the named states keep the very strings records and the wire have always had."""

from __future__ import annotations

import json

from watten_net.deal.steps import DealStep, Stage
from watten_net.engine.events import EventKind
from watten_net.engine.notation import AnnounceStep, Phase, Verb


def test_the_wire_words_of_the_steps() -> None:
    wire = {step.value: step.wire for step in DealStep}
    assert wire == {
        "HeaderSignature": "header", "key-commit": "key-commit", "key-sign": "key-set", "key-reveal": "key-reveal",
        "seal-sign": "sealed", "dealt": "dealt", "keys": "keys", "shuffle": "shuffle", "shares": "shares",
        "open": "open", "": "", "play": "dealt", "checkpoint": "checkpoint", "new": "new", "over": "revealed",
    }


def test_a_client_reads_back_the_envelope_it_owes() -> None:
    owed = {word: step.owed for word in ("header", "key-commit", "key-set", "key-reveal", "sealed", "checkpoint",
                                         "dealt", "revealed", "keys", "shares", "")
            if (step := DealStep.from_wire(word)) is not None}
    assert owed == {
        "header": "HeaderSignature", "key-commit": "KeyCommit", "key-set": "KeySetSignature",
        "key-reveal": "KeyReveal", "sealed": "DeckSealedSignature", "checkpoint": "CheckpointSignature",
        "dealt": None, "revealed": None, "keys": None, "shares": None, "": None,
    }
    assert DealStep.from_wire("no-such-step") is None


def test_named_states_are_their_strings() -> None:
    for enum in (Phase, AnnounceStep, Verb, EventKind, Stage, DealStep):
        for member in enum:
            assert member == member.value and hash(member) == hash(member.value)
            assert f"{member}" == str(member) == member.value
            assert json.dumps({"k": member}) == json.dumps({"k": member.value})
    assert [p.value for p in Phase] == ["deal", "cut", "schlecken", "announce", "play", "settle", "over"]
