"""`watten-verify RECORD`: not built yet (it needs the game record of the network issue)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("watten-verify is coming with the game record (issue: Play over the network).", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
