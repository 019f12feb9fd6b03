"""A seat's unary calls to the host that need no game state: the table, the lobby, another match; and `Refused`,
what every refused call raises."""

from __future__ import annotations

from typing import Any

import grpc
import grpc.aio

from watten_net.deal.protocol import PROTOCOL_VERSION
from watten_net.refusal import Reason, known_reason
from watten_net.v1 import watten_pb2 as pb

from .errors import refusal_from_error


class Refused(Exception):
    """The host refused a request: `code` (grpc.StatusCode), `reason` (machine-readable), `message` (words).

    `reason` is the host's string as it came (a newer or hostile host may send any); `known_reason` is it as a
    Reason this client knows, or None."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str, receipt: Any = None,
                 envelope_index: int = 0) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.receipt = receipt  # the host's signed RefusalReceipt of a refused game envelope (None otherwise)
        # A SubmitEnvelope of several envelopes: the one refused (0 = the first; the host's word, so a hostile host
        # may name any number: the caller bounds it); those before it were applied.
        self.envelope_index = envelope_index

    @property
    def known_reason(self) -> Reason | None:
        return known_reason(self.reason)


class TableCalls:
    """The calls `Connection` makes with its stub and seat token (set by `Connection`)."""

    stub: Any
    token: str

    async def table(self, table_id: str = "", timeout: float = 5.0) -> Any:
        """GetTable: the named table, or (empty id) the one a Join without an id would probably go to."""
        return await self._call(self.stub.GetTable, pb.GetTableRequest(
            protocol_version=PROTOCOL_VERSION, client="watten-join", table_id=table_id), timeout)

    async def list_tables(self, timeout: float = 5.0) -> list[Any]:
        """Every table the host runs (TableInfo each), in the host's order."""
        response = await self._call(self.stub.ListTables, pb.ListTablesRequest(
            protocol_version=PROTOCOL_VERSION, client="watten-join"), timeout)
        return list(response.tables)

    async def again(self, timeout: float = 5.0) -> None:
        """After a match: ask for another at this table (Ready after the end, docs/protocol.md "Play again"). Then
        follow the table again (`follow()`): the stream stays open until everyone agreed and carries the new match,
        which this connection plays with a new SeatGame and writes to a new record."""
        await self.ready(True, timeout)

    async def ready(self, ready: bool = True, timeout: float = 5.0) -> None:
        await self._call(self.stub.Ready, pb.ReadyRequest(token=self.token, ready=ready), timeout)

    async def set_name(self, name: str, timeout: float = 5.0) -> None:
        """Lobby: the name shown at the table from now on."""
        await self._call(self.stub.SetName, pb.SetNameRequest(token=self.token, name=name), timeout)

    async def say(self, text: str, timeout: float = 5.0) -> None:
        """Table chat: one line to everyone at the table (the host cleans it, and refuses one over 200 characters)."""
        await self._call(self.stub.Say, pb.SayRequest(token=self.token, text=text), timeout)

    async def start(self, timeout: float = 5.0) -> None:
        await self._call(self.stub.Start, pb.StartRequest(token=self.token), timeout)

    async def _call(self, method: Any, request: Any, timeout: float) -> Any:
        try:
            return await method(request, timeout=timeout)
        except grpc.aio.AioRpcError as err:
            info = refusal_from_error(err)
            raise Refused(info.code, info.reason, info.message, info.receipt, info.envelope_index) from None
