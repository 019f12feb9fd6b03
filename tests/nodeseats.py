"""What the tests of the Node.js example seats share (examples/node-seat, Level 1; examples/node-trustless-seat,
Level 2): node itself, each seat's packages (`npm ci` where npm is at hand), and the counters of the seat's last line.

Under CI (.ci/run installs node and runs `npm ci` in both folders) a missing piece fails the test; a developer without
node gets a skip that says what to install."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from netutil import Proc, start_host

# How long `npm ci` may take where a test runs it itself (a cold npm cache on a slow line), so it never hangs a run.
NPM_CI_SECONDS = 300


def missing(what: str) -> None:
    """Under CI a missing piece is a failure, not a silent pass; elsewhere a skip that says what to install."""
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        pytest.fail(f"{what}; under CI that is a broken install, not a reason to skip")
    pytest.skip(what)


def node_with_packages(seat_dir: Path) -> str:
    """The path of node, once `seat_dir`'s packages are installed (installed here if npm is at hand)."""
    node = shutil.which("node")
    if node is None:
        missing("node is not installed (apt-get install nodejs npm; .ci/run installs it)")
    assert node is not None
    if not packages_installed(seat_dir):
        install_packages(seat_dir)
    if not packages_installed(seat_dir):
        missing(f"the Node seat's packages are not installed (run `npm ci` in {seat_dir.name}; .ci/run does)")
    return node


def packages_installed(seat_dir: Path) -> bool:
    """Both seats talk gRPC through @grpc/grpc-js; `npm ci` installs all of a lock file's packages or none."""
    return (seat_dir / "node_modules" / "@grpc" / "grpc-js").is_dir()


def install_packages(seat_dir: Path) -> None:
    """Exactly package-lock.json's versions into `seat_dir`/node_modules (ignored by git), bounded in time."""
    npm = shutil.which("npm")
    if npm is None:
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=seat_dir,
                       timeout=NPM_CI_SECONDS, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def done_counters(output: str) -> list[dict[str, Any]]:
    """The JSON objects of the seat's last line (`done {...} [{...}] record PATH`), in order: the Level 1 seat writes
    one (its checks, actions and refusals), the Level 2 seat two (its own steps, then its checker's proofs)."""
    done = [line for line in output.splitlines() if " done {" in line]
    assert len(done) == 1, output
    line, decoder = done[0], json.JSONDecoder()
    counters: list[dict[str, Any]] = []
    at = line.index("{")
    while at < len(line) and line[at] == "{":
        found, at = decoder.raw_decode(line, at)
        counters.append(dict(found))
        while at < len(line) and line[at] == " ":
            at += 1
    return counters


def seat_plays_match(node: str, seat_dir: Path, script: str, tmp_path: Path, *host_args: str,
                     seconds: float) -> tuple[str, Path]:
    """A real headless watten-host (2 seats, 1 bot, plaintext, loopback) and the Node seat `script` for its whole
    match: the seat must exit 0 within `seconds` (its own clock, SEAT_TIMEOUT, fires first and makes it exit 2), then
    the host, which ends by itself once its match is over. Returns the seat's output and the folder of its record."""
    out = tmp_path / "seat"
    host, port = start_host(tmp_path, "--headless", "--players", "2", "--bots", "1", "--insecure", "--no-announce",
                            *host_args)
    try:
        # The seats' test switches (SEAT_PROBE, SEAT_CHEAT, ...) stay out: the test plays the seat as it is.
        env = {name: value for name, value in os.environ.items() if not name.startswith("SEAT_")}
        env["SEAT_TIMEOUT"] = str(int(seconds))
        seat = Proc(subprocess.Popen([node, str(seat_dir / script), f"127.0.0.1:{port}", str(out)], cwd=seat_dir,
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        assert seat.wait(seconds + 60) == 0, seat.output()
        assert host.wait(60) == 0, host.output()
    finally:
        host.stop()
    return seat.output(), out


def watten_verify(record: Path) -> dict[str, Any]:
    """watten-verify's JSON report on a record it accepts (a failure shows its words)."""
    cli = subprocess.run([sys.executable, "-m", "watten_net.verify", "--json", str(record)], capture_output=True,
                         text=True, timeout=120)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    report: dict[str, Any] = json.loads(cli.stdout)
    return report
