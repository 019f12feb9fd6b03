"""The one exception a table raises to refuse a request (its own module: every part of the table raises it)."""

from __future__ import annotations

from typing import Any


class TableRefusal(Exception):
    """A request the table refuses; `kind` maps to a gRPC status (see server.py)."""

    def __init__(self, kind: str, reason: str, message: str, receipt: Any = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.reason = reason
        self.message = message
        self.receipt = receipt  # a refused game envelope: the host's signed RefusalReceipt (docs/protocol.md Disputes)
