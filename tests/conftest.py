"""Test set-up: the tests directory is importable (shared helpers such as netutil and local_table)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

# Property tests judge results, never speed: on a shared 2-core machine one slow example is no failure (the
# benchmarks under bench/ measure time).
settings.register_profile("watten", deadline=None)
settings.load_profile("watten")


def pytest_addoption(parser: pytest.Parser) -> None:
    """`pytest --long`: the full-size versions of the slow hostile-input tests (fuzz: 100,000 requests instead of
    10,000; the host kill runs: more kill points). CI runs the short ones."""
    parser.addoption("--long", action="store_true", default=False,
                     help="run the long versions of the fuzz and kill tests")
