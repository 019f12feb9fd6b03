"""The shape of the house, checked: dependencies one way, nothing private reached across modules, short functions.

The import rules are import-linter contracts in pyproject.toml (`lint-imports` prints them); this runs them with the
suite so a change that makes the client import the host, or the trustless maths import the dealing layer, fails here.
The other two checks read the source with `ast`: they keep what issue #11 made true from quietly coming undone.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("watten_net", "host", "client")

FUNCTION_LIMIT = 60
"""Lines in any function or method, decorators and docstring included."""
CLASS_LIMIT = 300
"""Lines in a class of the host or the client (the engine's and the dealing layer's state machines may be larger:
splitting one state machine over several classes would scatter it)."""
LIMITED_CLASSES = ("host", "client")

NAMED_TUPLE_API = {"_make", "_replace", "_asdict", "_fields", "_field_defaults"}
"""Underscored by the standard library to stay out of the way of field names, but public API."""


def sources() -> Iterator[tuple[Path, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if not path.name.startswith("watten_pb2"):
                yield path, ast.parse(path.read_text(), filename=str(path))


@pytest.mark.slow
def test_import_contracts_hold() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "broken" in result.stdout and " 0 broken" in result.stdout


def _private_names_defined(tree: ast.Module) -> set[str]:
    """Underscored names a module defines itself: functions, classes, attributes set on any object, class fields."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {name for name in names if name.startswith("_")}


COPIES_OF_SELF = {"_clone", "_copy"}
"""`m = self._clone()`: the engine's immutable states change a copy of themselves, which is still `self`'s class."""


def _selves(tree: ast.Module) -> set[str]:
    """Names that stand for the object itself: `self`, `cls`, and copies of `self` made by its own methods."""
    names = {"self", "cls"}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in COPIES_OF_SELF:  # the copy it makes and fills in
            names.update(t.id for s in node.body if isinstance(s, ast.Assign) for t in s.targets
                         if isinstance(t, ast.Name))
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Attribute) and func.attr in COPIES_OF_SELF and isinstance(func.value, ast.Name) \
                    and func.value.id == "self":
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def private_reaches(path: Path, tree: ast.Module) -> Iterator[str]:
    """`obj._name` where `obj` is not the object itself and `_name` is defined in another module."""
    own = _private_names_defined(tree)
    selves = _selves(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or name.startswith("__") or name in NAMED_TUPLE_API or name in own:
            continue
        base = node.value
        if isinstance(base, ast.Name) and base.id in selves:
            continue
        yield f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}"


def test_nothing_private_is_reached_across_modules() -> None:
    found = [line for path, tree in sources() for line in private_reaches(path, tree)]
    assert not found, "private members reached from another module:\n" + "\n".join(found)


def _length(node: ast.AST) -> int:
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])  # type: ignore[attr-defined]
    return int(node.end_lineno) - first + 1  # type: ignore[attr-defined]


def test_no_function_is_longer_than_the_limit() -> None:
    long = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {_length(node)} lines"
            for path, tree in sources() for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _length(node) > FUNCTION_LIMIT]
    assert not long, f"functions over {FUNCTION_LIMIT} lines:\n" + "\n".join(long)


def test_no_class_of_the_host_or_client_is_longer_than_the_limit() -> None:
    long = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {_length(node)} lines"
            for path, tree in sources() if path.relative_to(ROOT).parts[0] in LIMITED_CLASSES
            for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and _length(node) > CLASS_LIMIT]
    assert not long, f"classes over {CLASS_LIMIT} lines in host/ or client/:\n" + "\n".join(long)


def test_the_checks_see_what_they_look_for() -> None:
    """Each check, shown a small offender, names it: a scan that reads nothing would find nothing and prove nothing."""
    tree = ast.parse("def f(game):\n    return game._send(1)\n\nclass C:\n    def g(self):\n        return self._x\n")
    assert list(private_reaches(ROOT / "x.py", tree)) == ["x.py:2: game._send"]
    body = "\n".join(f"    x = {i}" for i in range(FUNCTION_LIMIT))
    long = ast.parse(f"def f():\n{body}\n").body[0]
    assert _length(long) == FUNCTION_LIMIT + 1
