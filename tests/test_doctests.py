"""The examples in the docstrings of watten_net, host and client run, and say what the code does.

Every module whose source holds a `>>> ` example is a test of its own; the engine's entry points must keep theirs (a
newcomer starts there).
"""

from __future__ import annotations

import ast
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


def _source_of(name: str) -> Path:
    path = ROOT.joinpath(*name.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _examples_in_source(name: str, module: object) -> list[doctest.DocTest]:
    """The examples of a module compiled by mypyc (watten_net/engine/compiled.py), which keeps no docstrings: read
    from its source and run in its namespace, as doctest would run them from the docstrings."""
    source = _source_of(name)
    parser = doctest.DocTestParser()
    tests = []
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node, clean=False)
            if text and ">>> " in text:
                label = f"{name}.{getattr(node, 'name', '')}".rstrip(".")
                line = getattr(node, "lineno", 0)
                tests.append(parser.get_doctest(text, dict(vars(module)), label, str(source), line))
    return tests


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_a_module_run(name: str) -> None:
    module = importlib.import_module(name)
    compiled = not str(getattr(module, "__file__", "")).endswith(".py")
    tests = _examples_in_source(name, module) if compiled else doctest.DocTestFinder().find(module)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test, out=out.write)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0, f"{name} has a '>>> ' in its source but no example doctest finds"
    assert result.failed == 0, out.getvalue()


def test_the_engines_entry_points_have_examples() -> None:
    # Read from the sources: the compiled engine keeps no docstrings.
    functions = {
        (path.stem, node.name): ast.get_docstring(node) or ""
        for path in (_source_of(Match.__module__), _source_of(MatchCore.__module__))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.FunctionDef)
    }
    for module, method in (("match", "apply"), ("match", "observe"), ("core", "legal_actions")):
        assert ">>> " in functions[module, method], f"{module}.{method} needs an example in its docstring"
    assert {"watten_net.engine", "watten_net.engine.match", "watten_net.engine.core"} <= set(MODULES)
