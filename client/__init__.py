"""The terminal client (`watten-join`, and the host's own person's screen)."""

import os

# gRPC's C core logs informational lines ("Got goaway ...", when the host closes an idle connection after a match)
# to standard error unless told otherwise; it reads this once, when grpc is first imported, and a `watten-join`
# process imports this package first. (The table keeps standard error off the screen anyway: client/stderr_aside.py.)
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
