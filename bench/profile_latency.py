"""Where an action's time goes: bench/latency.py's match under cProfile, in the host process and in the clients' one.

One whole match of bench/latency.py (4 `Connection`s in this process, a real `watten-host` in a subprocess) is
played with cProfile on in both processes: the host runs through this file's `--host` mode, which profiles
`host.main.main()` and writes its statistics when the bench stops it (SIGTERM). Prints the top functions of each
side by their own time and by cumulative time in this tree's code; the raw statistics are kept for `pstats` or
snakeviz. Figures only (cProfile itself roughly doubles the cost of Python code: compare shares, not times).

Run: ``.venv/bin/python bench/profile_latency.py [--out DIR] [--seed 1] [--top 25]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import random
import signal
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent
HOST_STATS = "HOST_PROFILE_OUT"  # environment: where the host mode writes its statistics


def profile_host(argv: list[str]) -> None:
    """The host, profiled until the bench terminates it (the statistics are written from the SIGTERM handler)."""
    import host.main

    profiler = cProfile.Profile()

    def stop(_signum: int, _frame: FrameType | None) -> None:
        profiler.disable()
        profiler.dump_stats(os.environ[HOST_STATS])
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    sys.argv = ["watten-host", *argv]
    profiler.enable()
    try:
        host.main.main()
    finally:
        profiler.disable()
        profiler.dump_stats(os.environ[HOST_STATS])


async def profile_match(out: Path, seed: int) -> tuple[int, float]:
    """One match of bench/latency.py with both sides profiled: (actions measured, p50 all-4-checked in ms)."""
    import bench.latency as latency

    plain = latency.host_command

    def profiled(record_dir: str) -> list[str]:
        return [sys.executable, str(Path(__file__).resolve()), "--host", *plain(record_dir)[1:]]

    latency.host_command = profiled
    os.environ[HOST_STATS] = str(out / "host.prof")
    run = latency.RealRun()
    profiler = cProfile.Profile()
    with tempfile.TemporaryDirectory(prefix="watten-profile-") as tmp:
        profiler.enable()
        await latency.play_match(run, random.Random(seed), Path(tmp))
        profiler.disable()
    profiler.dump_stats(out / "client.prof")
    for problem in run.problems:
        print(f"problem: {problem}")
    checked = run.checked_ms
    return len(checked), latency.percentile(checked, 50) if checked else 0.0


def calls_per_event(stats: pstats.Stats) -> str:
    """Function calls per stream event a seat received (events: calls of bench/latency.py's `_arrived` hook)."""
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    events = sum(v[1] for k, v in table.items() if k[0].endswith("latency.py") and k[2] == "_arrived")
    total = sum(v[1] for v in table.values())
    return f"{total / events:.0f} function calls per stream event ({events} events, all 4 seats)" if events else ""


def report(path: Path, title: str, top: int) -> None:
    print(f"\n===== {title} ({path}) =====")
    stats = pstats.Stats(str(path))
    if per_event := calls_per_event(stats):
        print(per_event)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumtime").print_stats(str(ROOT), top)


def main() -> None:
    if sys.argv[1:2] == ["--host"]:
        profile_host(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=None, help="directory for host.prof and client.prof "
                        "(default: a new temporary directory, kept)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random legal actions (default 1)")
    parser.add_argument("--top", type=int, default=25, help="rows of each table (default 25)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="watten-profile-"))
    out.mkdir(parents=True, exist_ok=True)
    count, p50 = asyncio.run(profile_match(out, args.seed))
    print(f"{count} actions measured under cProfile, all 4 checked p50 {p50:.2f} ms (profiled: not a latency figure)")
    report(out / "host.prof", "host process", args.top)
    report(out / "client.prof", "client process (4 seats, one event loop)", args.top)


if __name__ == "__main__":
    main()
