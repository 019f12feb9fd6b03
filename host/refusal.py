"""The exception a table raises to refuse a request (its own module: every part of the table raises it)."""

from __future__ import annotations

from typing import Any

from watten_net.refusal import Code, Reason, Refusal


class TableRefusal(Refusal):
    """A request the table refuses: the one Refusal (watten_net/refusal.py), `kind` being its code. The receipt of a
    refused game envelope is the host's signed RefusalReceipt (docs/protocol.md Disputes)."""

    def __init__(self, kind: Code | str, reason: Reason | str, message: str, receipt: Any = None) -> None:
        super().__init__(Code(kind), Reason(reason), message, receipt=receipt)


class BatchRefusal(TableRefusal):
    """A SubmitEnvelope of several envelopes whose envelope number `index` (0 = the first) was refused as `refusal`:
    `applied` holds the answers (log seq, chain seq, hash) of the ones before it, which stay applied."""

    def __init__(self, refusal: Refusal, index: int, applied: list[tuple[int, int, bytes]]) -> None:
        super().__init__(refusal.code, refusal.reason, refusal.message, refusal.receipt)
        self.index = index
        self.applied = list(applied)
