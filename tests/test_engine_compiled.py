"""The engine's optional compiled core (setup.py, watten_net/engine/compiled.py): when it is used, and that a copy
of a state is whole whichever engine runs.

The rest of the suite runs on whichever engine this checkout has: compiled after the README's `pip install -e`
where a C compiler is present, plain Python in a source checkout or with WATTEN_PURE_ENGINE=1.
"""

from __future__ import annotations

import json
import random
import shutil
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


def _fake_build(tmp_path: Path) -> Path:
    """A copy of the engine's sources with stand-ins for a complete compiled build of them."""
    engine = tmp_path / "watten_net" / "engine"
    shutil.copytree(ENGINE, engine, ignore=shutil.ignore_patterns("*.so", "__pycache__", choice.MANIFEST))
    shutil.copy(ENGINE.parent / "refusal.py", engine.parent / "refusal.py")
    for path in choice.built_files(engine):
        path.write_bytes(b"")
    (engine / choice.MANIFEST).write_text(json.dumps(choice.source_hashes(engine)))
    return engine


def test_a_complete_build_of_these_sources_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(choice.PURE_ENV, raising=False)
    assert choice.compiled_usable(_fake_build(tmp_path)) is True


def test_no_build_at_all_is_a_plain_python_engine(tmp_path: Path) -> None:
    engine = _fake_build(tmp_path)
    for path in choice.built_files(engine):
        path.unlink()
    assert choice.compiled_usable(engine) is None


@pytest.mark.parametrize("change", ["edited engine source", "edited refusal reasons", "module missing", "no manifest",
                                    "turned off"])
def test_a_stale_incomplete_or_refused_build_is_stepped_around(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    monkeypatch.delenv(choice.PURE_ENV, raising=False)
    engine = _fake_build(tmp_path)
    if change == "edited engine source":
        with (engine / "notation.py").open("a") as source:
            source.write("# a mutant\n")
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
