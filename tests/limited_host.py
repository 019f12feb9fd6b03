"""`watten-host` with a per-connection rate limit a loaded test machine can outrun (`python -m tests.limited_host`).

The host's own limit (200 calls a second, bursts of 400) is met only when the host answers faster than that: on a
busy 2-core CI machine a host process may answer fewer than 200 calls a second, and then no flood, however large,
reaches the limit. At 20 a second (bursts of 40) any host does. The log line about a flooding connection repeats
every LOG_EVERY seconds; here once an hour, so that a flood that lasts long on a slow machine still logs once.
"""

from __future__ import annotations

import time

from host import server
from host.main import main

RATE = 20.0
BURST = 40.0

if __name__ == "__main__":  # (imported by the test for the numbers only)
    server.RateLimiter.__init__.__defaults__ = (RATE, BURST, time.monotonic)
    server.LOG_EVERY = 3600.0
    raise SystemExit(main())
