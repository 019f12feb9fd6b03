"""The engine's optional compiled core (setup.py, watten_net/engine/compiled.py): when it is used, and that a copy
of a state is whole whichever engine runs.

The rest of the suite runs on whichever engine this checkout has: compiled after the README's `pip install -e`
where a C compiler is present, plain Python in a source checkout or with WATTEN_PURE_ENGINE=1.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from pathlib import Path

import pytest

from watten_net.engine import Match, Rules, RuleViolation, canonical_deck
from watten_net.engine import compiled as choice
from watten_net.engine.public.match import PublicMatch
from watten_net.engine.state import all_slots
from watten_net.refusal import Reason

ENGINE = Path(choice.__file__).resolve().parent


def test_a_clone_copies_every_slot_of_both_engines() -> None:
    # The copy is written out slot by slot (mypyc compiles nothing generated at run time): a slot added to the
    # state but not to _clone would be missing from every later state, and reading it would fail.
    rules = Rules.preset("bavarian", 4)
    rng = random.Random(4)
    deck = list(canonical_deck(rules.deck))
    rng.shuffle(deck)
    match = Match.new(rules).apply_deck(deck)
    public = PublicMatch.new(rules)
    for state in (match, public):
        copy = state._clone()
        assert type(copy) is type(state)
        slots = [name for name in all_slots(type(state)) if name != "_legal"]
        assert len(slots) > 50
        for name in slots:
            assert getattr(copy, name) == getattr(state, name), name  # compiled: a tuple slot reads as a new tuple
        assert copy._legal is None


def _fake_build(tmp_path: Path, settled: bool = True) -> Path:
    """A copy of the engine's sources with stand-ins for a complete compiled build of them. `settled`: its manifest
    recorded as if RACY_NS after the copy (every source's file status in it); else right after the copy (every
    source then so fresh that only its hash counts)."""
    engine = tmp_path / "watten_net" / "engine"
    shutil.copytree(ENGINE, engine, ignore=shutil.ignore_patterns("*.so", "__pycache__", choice.MANIFEST))
    shutil.copy(ENGINE.parent / "refusal.py", engine.parent / "refusal.py")
    for path in choice.built_files(engine):
        path.write_bytes(b"")
    later = None
    if settled:  # (a change time cannot be set back: the record is made as if later instead)
        an_hour_ago = time.time_ns() - 3600 * 10**9
        for path in choice.hashed_sources(engine):
            os.utime(path, ns=(an_hour_ago, an_hour_ago))
        later = time.time_ns() + 2 * choice.RACY_NS
    manifest = choice.record(engine, choice.source_hashes(engine), later)
    assert manifest is not None
    assert len(manifest["statuses"]) == (len(manifest["hashes"]) if settled else 0)
    (engine / choice.MANIFEST).write_text(json.dumps(manifest))
    return engine


@pytest.mark.parametrize("settled", [True, False])
def test_a_complete_build_of_these_sources_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   settled: bool) -> None:
    monkeypatch.delenv(choice.PURE_ENV, raising=False)
    assert choice.compiled_usable(_fake_build(tmp_path, settled)) is True


def test_sources_unwritten_since_the_build_was_recorded_are_not_read_at_import(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every process imports the engine: its start-up reads no source and imports no hashlib while every source's
    file status is the one recorded."""
    monkeypatch.delenv(choice.PURE_ENV, raising=False)
    engine = _fake_build(tmp_path)

    def read(_engine: Path) -> dict[str, str]:
        raise AssertionError("a source was read")

    monkeypatch.setattr(choice, "source_hashes", read)
    assert choice.compiled_usable(engine) is True


def test_a_build_whose_sources_changed_while_it_was_compiled_gets_no_manifest(tmp_path: Path) -> None:
    engine = _fake_build(tmp_path)
    hashes = choice.source_hashes(engine)
    with (engine / "core.py").open("a") as source:
        source.write("# edited during the build\n")
    assert choice.record(engine, hashes) is None


@pytest.mark.parametrize("settled", [True, False])
def test_a_source_rewritten_at_the_same_size_right_after_the_record_is_still_seen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settled: bool) -> None:
    """A mutant of the same length written in place (same inode, perhaps within the same tick of the file system's
    clock as the record when the record was made right after the copy: then only the hash can tell)."""
    monkeypatch.delenv(choice.PURE_ENV, raising=False)
    engine = _fake_build(tmp_path, settled)
    source = engine / "ranking.py"
    text = source.read_bytes()
    at = text.index(b"return")
    with source.open("r+b") as file:
        file.seek(at)
        file.write(b"RETURN")
    assert source.read_bytes() != text and len(source.read_bytes()) == len(text)
    assert choice.compiled_usable(engine) is False


def test_no_build_at_all_is_a_plain_python_engine(tmp_path: Path) -> None:
    engine = _fake_build(tmp_path)
    for path in choice.built_files(engine):
        path.unlink()
    assert choice.compiled_usable(engine) is None


@pytest.mark.parametrize("settled", [True, False])
@pytest.mark.parametrize("change", ["edited engine source", "edited refusal reasons", "new engine module",
                                    "module missing", "no manifest", "turned off"])
def test_a_stale_incomplete_or_refused_build_is_stepped_around(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str, settled: bool
) -> None:
    monkeypatch.delenv(choice.PURE_ENV, raising=False)
    engine = _fake_build(tmp_path, settled)
    if change == "edited engine source":
        with (engine / "notation.py").open("a") as source:
            source.write("# a mutant\n")
    elif change == "new engine module":
        (engine / "extra.py").write_text("TRUMP = 'none'\n")  # (mypyc may have inlined from any engine module)
    elif change == "edited refusal reasons":
        with (engine.parent / "refusal.py").open("a") as source:
            source.write("# a mutant\n")
    elif change == "module missing":
        choice.built_files(engine)[0].unlink()
    elif change == "no manifest":
        (engine / choice.MANIFEST).unlink()
    else:
        monkeypatch.setenv(choice.PURE_ENV, "1")
    assert choice.compiled_usable(engine) is False


def test_the_engine_imported_is_the_one_chosen() -> None:
    assert choice.running_compiled() is choice.COMPILED
    assert choice.COMPILED is bool(choice.compiled_usable())


def test_a_wrongly_typed_seat_or_action_gets_the_engines_own_refusal() -> None:
    # Compiled, a parameter typed `int` would refuse a string with a bare TypeError before the engine's check: the
    # entry points take `object` and check it themselves, so either engine refuses alike.
    rules = Rules.preset("bavarian", 4)
    match = Match.new(rules).apply_deck(canonical_deck(rules.deck))
    public = PublicMatch.new(rules)
    refusals = [
        (lambda: match.apply("3", "cut 10"), Reason.NO_SUCH_SEAT),
        (lambda: match.apply(3.0, "cut 10"), Reason.NO_SUCH_SEAT),
        (lambda: match.apply(3, 10), Reason.MALFORMED),
        (lambda: match.forfeit("0"), Reason.NO_SUCH_SEAT),
        (lambda: public.apply("1", "cut 5"), Reason.NO_SUCH_SEAT),
        (lambda: public.apply(1, 5), Reason.MALFORMED),
        (lambda: public.no_opening("x"), Reason.NO_SUCH_SEAT),
        (lambda: public.observe("x"), Reason.NO_SUCH_SEAT),
    ]
    for call, reason in refusals:
        with pytest.raises(RuleViolation) as refused:
            call()
        assert refused.value.reason == reason
    with pytest.raises(ValueError, match="first_dealer must be a seat"):
        Match.new(rules, first_dealer="0")
