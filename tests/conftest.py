"""Test set-up shared by every test module (the shared helpers such as netutil and local_table are importable through
`pythonpath` in pyproject.toml)."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from fastloop import MARKERS, in_process_only
from tmuxutil import Tmux

# Property tests judge results, never speed: on a shared 2-core machine one slow example is no failure (the
# benchmarks under bench/ measure time).
settings.register_profile("watten", deadline=None)
settings.load_profile("watten")


def pytest_addoption(parser: pytest.Parser) -> None:
    """`pytest --long`: the full-size versions of the slow hostile-input tests (fuzz: 100,000 requests instead of
    10,000; the host kill runs: more kill points). CI runs the short ones."""
    parser.addoption("--long", action="store_true", default=False,
                     help="run the long versions of the fuzz and kill tests")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    """A test without a marker of `MARKERS` runs in process only (its fixtures included): see fastloop.py."""
    if any(item.get_closest_marker(name) is not None for name in MARKERS):
        return (yield)
    with in_process_only(item.nodeid):
        return (yield)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    """A tmux server of the test's own (its own socket and environment), killed after the test: the terminal
    client's tests drive their screens through it (tests/tmuxutil.py)."""
    t = Tmux.start(tmp_path)
    try:
        yield t
    finally:
        t.kill()
