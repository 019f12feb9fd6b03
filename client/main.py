"""`watten-join`: the terminal client. Not built yet: it says so plainly instead of pretending."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print(
        "watten-join is coming: the terminal client follows the network issue.\n"
        "What works today: the rules engine (watten_net.engine) and its tests: see README.md.",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
