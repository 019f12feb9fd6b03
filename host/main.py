"""`watten-host`: the gRPC host. Not built yet: it says so plainly instead of pretending."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print(
        "watten-host is coming: the networked host is the next issue (Play over the network).\n"
        "What works today: the rules engine (watten_net.engine) and its tests: see README.md.",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
