"""Real processes on 127.0.0.1 for the network tests: a host on a free port, bot clients, deadlines."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def isolated_env(tmp: Path) -> dict[str, str]:
    """Each test gets its own config and data directories (certificates, known hosts, records)."""
    env = dict(os.environ)
    env["WATTEN_CONFIG_DIR"] = str(tmp / "config")
    env["WATTEN_DATA_DIR"] = str(tmp / "data")
    env["PYTHONUNBUFFERED"] = "1"
    return env


@dataclass
class Proc:
    proc: subprocess.Popen[str]
    lines: queue.Queue[str] = field(default_factory=queue.Queue)
    seen: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        def pump() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.put(line.rstrip("\n"))

        threading.Thread(target=pump, daemon=True).start()

    def wait_for_line(self, pattern: str, timeout: float = 20.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        for line in self.seen:
            if (m := regex.search(line)) is not None:
                return m
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(line)
            if (m := regex.search(line)) is not None:
                return m
        raise AssertionError(f"no line matching {pattern!r} within {timeout}s; output so far: {self.seen}")

    def output(self) -> str:
        while True:
            try:
                self.seen.append(self.lines.get_nowait())
            except queue.Empty:
                return "\n".join(self.seen)

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise AssertionError(f"process did not end within {timeout}s; output: {self.output()}") from None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def start(module: str, args: list[str], env: dict[str, str]) -> Proc:
    proc = subprocess.Popen(
        [sys.executable, "-m", module, *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )
    return Proc(proc)


def start_host(tmp: Path, *args: str) -> tuple[Proc, int]:
    host = start("host.main", ["--port", "0", "--bind", "127.0.0.1", *args], isolated_env(tmp))
    port = int(host.wait_for_line(r"on port (\d+)").group(1))
    return host, port
