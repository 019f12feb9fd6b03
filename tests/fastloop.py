"""The fast test loop: the markers that keep slow tests out of it, and the guard that keeps them honest.

`pytest -m "not network and not tmux and not slow"` runs the tests that stay inside the pytest process and are quick:
the engine, the deal protocol, the verifier, the bots, the view model, the doctests. A test that starts a process or a
gRPC server must carry `network`, `tmux` or `slow`; conftest.py runs every other test under `in_process_only`, which
makes such an attempt fail at once with the test's name and the marks to choose from, in the fast loop and in the full
run alike, so a new test cannot slip into the fast loop unmarked.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import grpc
import grpc.aio

# Each marker and what earns it (registered in pyproject.toml; README.md's test section says the same).
MARKERS = {
    "network": "starts host, client or verifier processes, or real gRPC servers",
    "tmux": "drives the terminal client in tmux",
    "slow": "takes more than a few seconds (mutants, benchmarks, fuzzing, the tamper sweep, whole matches)",
}
FAST_SELECTION = "not network and not tmux and not slow"


class UnmarkedTestError(AssertionError):
    """A test without `network`, `tmux` or `slow` tried to start a process or a gRPC server."""


@contextmanager
def in_process_only(test: str) -> Iterator[None]:
    """Within the block, starting a process (`subprocess`, `asyncio`'s subprocesses) or a gRPC server fails."""

    def refuse(what: str) -> NoReturn:
        raise UnmarkedTestError(
            f"{test} {what}: mark it (or its module, `pytestmark = pytest.mark.network`) with one of "
            f"{', '.join(MARKERS)}, so that the fast loop (-m {FAST_SELECTION!r}) leaves it out"
        )

    def no_process(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> NoReturn:
        refuse(f"starts a process ({args!r})")

    def no_server(*args: Any, **kwargs: Any) -> NoReturn:
        refuse("starts a gRPC server")

    saved = (subprocess.Popen._execute_child, grpc.server, grpc.aio.server)  # type: ignore[attr-defined]
    subprocess.Popen._execute_child = no_process  # type: ignore[attr-defined]
    grpc.server = no_server
    grpc.aio.server = no_server
    try:
        yield
    finally:
        subprocess.Popen._execute_child, grpc.server, grpc.aio.server = saved  # type: ignore[attr-defined]
