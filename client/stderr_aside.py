"""The process's standard error kept off the full-screen table while it runs, and written out once it is closed.

gRPC's C core logs to file descriptor 2 by itself, below Python: "I1202 07:00:08 ... chttp2_transport.cc:1403]
... Got goaway [2] err=UNAVAILABLE" came over the top row of the table (and stayed there: the screen redraws only
what changed) when the host closed an idle connection, 30 s after a match ended; a warning or a --verbose log line
would do the same. While the table is on the screen, descriptor 2 points at a temporary file; when the screen closes
it points back and what the file holds (its last `KEEP` bytes) is written to it, so nothing said is lost.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator

from prompt_toolkit.output import Output

STDERR = 2
KEEP = 64 * 1024  # (what is written back at most: an error's traceback fits, a flood of log lines is cut)


@contextlib.contextmanager
def stderr_aside(screen_fd: int | None) -> Iterator[None]:
    """Descriptor 2 into a temporary file for the `with` block, written back after it. `screen_fd` is the descriptor
    the screen draws on: when it is 2 itself (standard output redirected), or unknown, nothing is moved."""
    if screen_fd is None or screen_fd == STDERR:
        yield
        return
    try:
        saved = os.dup(STDERR)
    except OSError:  # (no standard error at all: nothing can reach the screen that way)
        yield
        return
    with tempfile.TemporaryFile() as aside:
        sys.stderr.flush()
        os.dup2(aside.fileno(), STDERR)
        try:
            yield
        finally:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            os.dup2(saved, STDERR)
            os.close(saved)
            _write_back(aside.fileno())


def _write_back(aside: int) -> None:
    size = os.lseek(aside, 0, os.SEEK_END)
    os.lseek(aside, max(0, size - KEEP), os.SEEK_SET)
    data = os.read(aside, KEEP)
    with contextlib.suppress(OSError):
        while data:
            data = data[os.write(STDERR, data):]


def screen_fd(output: Output) -> int | None:
    """The descriptor a prompt-toolkit output draws on; None for one without (a test's DummyOutput)."""
    try:
        return output.fileno()
    except (NotImplementedError, OSError, ValueError):
        return None
