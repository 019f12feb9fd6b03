"""Read a host's refusal back from a failed call: status code, machine reason, and the sentence to show.

The host packs `ErrorDetail{reason, message}` into the `grpc-status-details-bin` trailer (host/errors.py). This
parses the trailer directly instead of using `rpc_status.from_call`, because that raises when the status message and
the call's details differ and comes in separate sync and aio versions; here one function serves both, and a
missing or unreadable detail (an older host, a proxy, a transport failure) falls back to what the status itself says.

The reason and message are the host's words, and a hostile host may put escape sequences in them: they leave here
through `visible`, so whatever shows or logs a refusal shows it harmlessly (a clean host's words are unchanged).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import grpc
import grpc.aio
from google.protobuf.message import DecodeError
from google.rpc import status_pb2  # type: ignore[import-untyped, unused-ignore]

from watten_net.printable import visible
from watten_net.refusal import Reason, known_reason
from watten_net.v1 import watten_pb2

DETAILS_KEY = "grpc-status-details-bin"


class RefusalInfo(NamedTuple):
    """What a failed call means: `code`, `reason` (kebab-case) and `message` (a sentence for the screen)."""

    code: grpc.StatusCode
    reason: str
    message: str
    receipt: Any = None  # a refused game envelope: the host's signed RefusalReceipt (kept in the seat's record)
    envelope_index: int = 0  # a refused SubmitEnvelope of several envelopes: which one (0 = the first)

    @property
    def known_reason(self) -> Reason | None:
        """The reason as a Reason this client knows; None for any other string (a newer or a hostile host's)."""
        return known_reason(self.reason)


def refusal_from_error(error: grpc.aio.AioRpcError | grpc.RpcError) -> RefusalInfo:
    """The host's ErrorDetail from `error`, else the status code's name as reason and the details as message."""
    code = _call_code(error)
    details = _call_details(error)
    detail = _error_detail(error)
    if detail is not None:
        reason, message = detail.reason or _code_reason(code), detail.message or details or code.name
    else:
        reason, message = _code_reason(code), details or code.name
    receipt = detail.receipt if detail is not None and detail.HasField("receipt") else None
    index = int(detail.envelope_index) if detail is not None else 0
    return RefusalInfo(code, visible(reason), visible(message), receipt, index)


def _call_code(error: Any) -> grpc.StatusCode:
    code = getattr(error, "code", None)
    value = code() if callable(code) else None
    return value if isinstance(value, grpc.StatusCode) else grpc.StatusCode.UNKNOWN


def _call_details(error: Any) -> str:
    details = getattr(error, "details", None)
    value = details() if callable(details) else None
    return value if isinstance(value, str) else ""


def _code_reason(code: grpc.StatusCode) -> str:
    """"DEADLINE_EXCEEDED" -> "deadline-exceeded", so every reason has the same kebab-case shape."""
    return str(code.name).lower().replace("_", "-")


def _error_detail(error: Any) -> watten_pb2.ErrorDetail | None:
    trailing = getattr(error, "trailing_metadata", None)
    metadata = trailing() if callable(trailing) else None
    if not metadata:
        return None
    for key, value in metadata:
        if key != DETAILS_KEY or not isinstance(value, bytes):
            continue
        try:
            status = status_pb2.Status.FromString(value)
        except DecodeError:
            return None
        for packed in status.details:
            detail = watten_pb2.ErrorDetail()
            if packed.Is(detail.DESCRIPTOR) and packed.Unpack(detail):
                return detail
    return None
