"""The examples in the docstrings of watten_net, host and client run, and say what the code does.

Every module whose source holds a `>>> ` example is a test of its own; the engine's entry points must keep theirs (a
newcomer starts there).
"""

from __future__ import annotations

import doctest
import importlib
import io
from pathlib import Path

import pytest

from watten_net.engine import Match
from watten_net.engine.core import MatchCore

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("watten_net", "host", "client")


def modules_with_examples() -> list[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT).with_suffix("").parts
                names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = modules_with_examples()


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_a_module_run(name: str) -> None:
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder().find(module)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test, out=out.write)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0, f"{name} has a '>>> ' in its source but no example doctest finds"
    assert result.failed == 0, out.getvalue()


def test_the_engines_entry_points_have_examples() -> None:
    for method in (Match.apply, Match.observe, MatchCore.legal_actions):
        assert ">>> " in (method.__doc__ or ""), f"{method.__qualname__} needs an example in its docstring"
    assert {"watten_net.engine", "watten_net.engine.match", "watten_net.engine.core"} <= set(MODULES)
