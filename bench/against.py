"""Run a benchmark on this tree and on another revision, alternating, so both figures come from one run.

    python bench/against.py REV bench/engine.py [-- ARGS...]      # e.g. REV = 0da2d4b, HEAD~3, main
    python bench/against.py REV bench/latency.py --rounds 3 -- --actions 400

The other revision is checked out once into a temporary directory (`git worktree add --detach`, removed at the
end) and its copy of the benchmark runs there, importing that revision's code; this tree's copy runs here. Rounds
alternate (old, new, old, new, ...) so that whatever else the machine does falls on both alike. Each round prints
the benchmark's own output under a heading; compare the best of each side. Figures only: nothing passes or fails.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(tree: Path, script: str, args: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, str(tree / script), *args], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=3600, check=False)
    return done.stdout + (f"\n(stderr)\n{done.stderr}" if done.returncode else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rev", help="the revision to compare against (anything git rev-parse takes)")
    parser.add_argument("script", help="the benchmark, relative to the repository (e.g. bench/engine.py)")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each side, alternating")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    options = parser.parse_args(argv[:split])  # after "--": the benchmark's own arguments
    bench_args = argv[split + 1:]
    commit = subprocess.run(["git", "rev-parse", "--short", options.rev], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="watten-against-") as scratch:
        old = Path(scratch) / commit
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(old), commit], cwd=ROOT, check=True)
        try:
            if not (old / options.script).exists():
                sys.exit(f"{options.script} does not exist at {commit}")
            for round_ in range(1, options.rounds + 1):
                for label, tree in ((f"{commit} (old)", old), ("this tree (new)", ROOT)):
                    print(f"===== round {round_}: {label} =====", flush=True)
                    print(run(tree, options.script, bench_args), flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
