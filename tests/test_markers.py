"""The fast loop stays fast: the markers are registered and documented, and no test that starts processes or servers
is left without one (tests/fastloop.py says why and how).

Two checks of the last: at run time conftest.py fails an unmarked test at its first process or server; and here,
read from the source, every test whose body, fixtures or module helpers call something that starts one is marked.
"""

from __future__ import annotations

import ast
import asyncio
import subprocess
import sys
import tomllib
from pathlib import Path

import grpc
import grpc.aio
import pytest

from fastloop import FAST_SELECTION, MARKERS, UnmarkedTestError, in_process_only

ROOT = Path(__file__).resolve().parent.parent
# Every test module but this one (whose guard test starts processes on purpose, to see them refused).
TESTS = sorted(path for path in (ROOT / "tests").glob("test_*.py") if path.name != Path(__file__).name)
# What starts a process or a server: netutil's and tmuxutil's starters, the subprocess module, gRPC servers (the
# host's `start_server` included).
STARTERS = {"start", "start_host", "Proxy", "Tmux", "python", "subprocess", "server", "start_server", "Harness"}
STARTER_MODULES = {"netutil", "tmuxutil", "fuzzing", "subprocess", "grpc", "host.server"}


def pytest_config() -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["pytest"]["ini_options"]  # type: ignore[no-any-return]


def test_the_markers_are_registered_strictly_and_as_tests_fastloop_names_them() -> None:
    config = pytest_config()
    registered = dict(line.split(": ", 1) for line in config["markers"])  # type: ignore[attr-defined]
    assert registered == MARKERS
    assert "--strict-markers" in str(config["addopts"])
    assert config["pythonpath"] == ["tests"]


def test_the_readme_gives_the_fast_loop_and_what_each_marker_means() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f'pytest -m "{FAST_SELECTION}"' in readme
    for name in MARKERS:
        assert f"`{name}`" in readme, name


def test_an_unmarked_test_may_not_start_a_process_or_a_grpc_server() -> None:
    before = (subprocess.Popen._execute_child, grpc.server, grpc.aio.server)  # type: ignore[attr-defined]
    with in_process_only("this test"):
        with pytest.raises(UnmarkedTestError, match="this test starts a process"):
            subprocess.run([sys.executable, "-c", "pass"], check=False)
        with pytest.raises(UnmarkedTestError, match="starts a process"):
            asyncio.run(asyncio.create_subprocess_exec(sys.executable, "-c", "pass"))
        with pytest.raises(UnmarkedTestError, match="starts a gRPC server"):
            grpc.aio.server()
        with pytest.raises(UnmarkedTestError, match="starts a gRPC server"):
            grpc.server(None)
    assert (subprocess.Popen._execute_child, grpc.server, grpc.aio.server) == before  # type: ignore[attr-defined]


def _marks(decorators: list[ast.expr]) -> set[str]:
    """The MARKERS among `@pytest.mark.NAME` decorators, or in a module's `pytestmark` value."""
    found = set()
    for node in decorators:
        for part in ast.walk(node):
            if isinstance(part, ast.Attribute) and part.attr in MARKERS and ast.unparse(part.value) == "pytest.mark":
                found.add(part.attr)
    return found


def _starter_names(tree: ast.Module) -> set[str]:
    """The names this module binds to something that starts a process or a server."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module in STARTER_MODULES:
            names |= {alias.asname or alias.name for alias in node.names if alias.name in STARTERS}
        elif isinstance(node, ast.Import):
            names |= {alias.asname or alias.name for alias in node.names if alias.name == "subprocess"}
    return names


def _starts_something(function: ast.AST, starters: set[str], helpers: dict[str, ast.AST], seen: set[str]) -> bool:
    """Whether `function`, or a module-level function or fixture it names (its parameters included), may start a
    process or a server."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in starters:
            return True
        if isinstance(node, ast.Attribute) and ast.unparse(node) in ("grpc.aio.server", "grpc.server"):
            return True
        named = node.id if isinstance(node, ast.Name) else node.arg if isinstance(node, ast.arg) else None
        if named in helpers and named not in seen:
            seen.add(named)
            if _starts_something(helpers[named], starters, helpers, seen):
                return True
    return False


def unmarked_tests(source: str) -> list[str]:
    """The tests of a module's `source` that may start a process or a server and carry none of MARKERS."""
    tree = ast.parse(source)
    module_marks: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", "") == "pytestmark" for target in node.targets):
            module_marks |= _marks([node.value])
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    helpers: dict[str, ast.AST] = {f.name: f for f in functions if not f.name.startswith("test_")}
    starters = _starter_names(tree)
    return [
        f.name for f in functions
        if f.name.startswith("test_") and not (module_marks or _marks(f.decorator_list))
        and _starts_something(f, starters, helpers, set())
    ]


def test_the_source_check_finds_a_host_started_through_a_fixture_or_a_helper() -> None:
    source = """
import pytest
from netutil import start_host

@pytest.fixture
def host(tmp_path):
    return start_host(tmp_path)

def _two_hosts(tmp_path):
    return start_host(tmp_path), start_host(tmp_path)

def test_through_a_fixture(host): ...
def test_through_a_helper(tmp_path): _two_hosts(tmp_path)
@pytest.mark.network
def test_marked(host): ...
def test_in_process(): assert 1 + 1 == 2
"""
    assert unmarked_tests(source) == ["test_through_a_fixture", "test_through_a_helper"]
    assert unmarked_tests("import pytest\npytestmark = pytest.mark.tmux\n" + source) == []


@pytest.mark.parametrize("path", TESTS, ids=[path.name for path in TESTS])
def test_every_test_that_starts_a_process_or_a_server_is_marked(path: Path) -> None:
    unmarked = unmarked_tests(path.read_text(encoding="utf-8"))
    assert not unmarked, f"mark these with one of {', '.join(MARKERS)} (the fast loop would run them): {unmarked}"
