"""Every benchmark under bench/ still runs and prints its figures (tiny sizes: this checks that they work, never
how fast anything is; the benchmarks themselves measure that)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from netutil import ROOT

pytestmark = pytest.mark.slow  # each benchmark runs as a process (latency and load start hosts too)

# (script and tiny arguments, a phrase its report always prints)
RUNS = [
    (["bench/engine.py", "--seconds", "0.05", "--matches", "3"], "whole random 4-player bavarian match"),
    (["bench/bots_quick.py", "--matches", "2"], "matches won by the heuristic side"),
    (["bench/bots.py", "--matches", "2", "--setting", "south-tyrolean", "--level", "easy"], "decisions"),
    (["bench/verify.py", "--runs", "1", "--target", "3"], "per hand on average"),
    (["bench/trustless_match.py", "--target", "3"], "watten-verify of the host record"),
    (["bench/deal.py", "--runs", "1", "--cards", "32"], "CPU of seat 3"),
    (["bench/deal_primitives.py"], "verifications"),
    (["bench/latency.py", "--actions", "40", "--apart", "20"], "[each seat its own process] the checked floor"),
    (["bench/profile_latency.py", "--top", "3"], "function calls per stream event"),
    (["bench/seat_events.py", "--rounds", "1", "--top", "3"], "function calls per event under cProfile"),
    (["bench/newhand.py", "--matches", "1"], "[each seat its own process] the checked floor of it"),
    (["bench/load.py", "--tables", "1", "--seconds", "1", "--warmup", "0.2"], "the checked floor's p99"),
    (["bench/load_floor.py", "--tables", "2", "--seconds", "0.5", "--warmup", "0.2"], "server CPU"),
    (["bench/load_floor.py", "--tables", "2", "--seconds", "0.5", "--warmup", "0.2", "--checks"],
     "floor with the mandated checks"),
    (["bench/against.py", "HEAD", "bench/engine.py", "--rounds", "1", "--", "--seconds", "0.05", "--matches", "3"],
     "round 1: this tree (new)"),
]


@pytest.mark.parametrize(("args", "phrase"), RUNS, ids=[args[0].removeprefix("bench/") for args, _ in RUNS])
def test_the_benchmark_runs_and_prints_its_figures(args: list[str], phrase: str) -> None:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert phrase in done.stdout, done.stdout[-3000:]
