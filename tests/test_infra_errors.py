"""Refusals reach the client as the right status code with ErrorDetail{reason, message}; host bugs as INTERNAL.

Real grpc.aio server and client on 127.0.0.1 (plaintext: TLS is covered in test_infra_tls.py and changes nothing
about statuses). The servicer picks what to raise from `GetTableRequest.client`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import grpc
import grpc.aio
import pytest

from client.errors import RefusalInfo, refusal_from_error
from host import errors
from watten_net.engine import RuleViolation
from watten_net.refusal import Reason, Refusal
from watten_net.v1 import watten_pb2, watten_pb2_grpc

DEADLINE = 5.0

REFUSALS: dict[str, tuple[Callable[[Reason, str], Refusal], grpc.StatusCode]] = {
    "invalid-argument": (errors.invalid_argument, grpc.StatusCode.INVALID_ARGUMENT),
    "failed-precondition": (errors.failed_precondition, grpc.StatusCode.FAILED_PRECONDITION),
    "permission-denied": (errors.permission_denied, grpc.StatusCode.PERMISSION_DENIED),
    "unauthenticated": (errors.unauthenticated, grpc.StatusCode.UNAUTHENTICATED),
    "aborted": (errors.aborted, grpc.StatusCode.ABORTED),
}
# A refusal's reason is a Reason: one for each helper, distinct so that a mix-up between them shows.
REASON_OF = {"invalid-argument": Reason.BAD_REQUEST, "failed-precondition": Reason.NOT_NOW,
             "permission-denied": Reason.WRONG_SEAT, "unauthenticated": Reason.BAD_TOKEN,
             "aborted": Reason.STALE_ENVELOPE_SEQ}


def message_for(kind: str) -> str:
    return f"Refused as {kind}: do something else."


def misbehave(kind: str) -> None:
    """Raise whatever `kind` asks for; return for "ok"."""
    if kind in REFUSALS:
        raise REFUSALS[kind][0](REASON_OF[kind], message_for(kind))
    if kind == "rule":
        raise RuleViolation("not-your-turn", "It is not your turn: wait for seat 2 to play.")
    if kind == "bug":
        raise KeyError("secret internal detail")


left = asyncio.Event()


async def end_elsewhere(context: Any) -> None:
    """What the host does to a stream stuck in a write (host/server.py `_Stream._cut`): another task ends the call."""
    with contextlib.suppress(grpc.aio.AbortError):
        await errors.abort_with(context, errors.aborted(Reason.STREAM_REPLACED, "Ended from elsewhere."))


class GuardedTable(watten_pb2_grpc.WattenTableServicer):
    """Methods protected by the decorator."""

    @errors.refusals_to_status
    async def GetTable(self, request: watten_pb2.GetTableRequest, context: Any) -> watten_pb2.TableInfo:
        if request.client == "abort-directly":
            await errors.abort_with(context, errors.permission_denied(Reason.WRONG_SEAT, "Only the host may do that."))
        if request.client == "plain-abort":
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "no details here")
        if request.client == "refused-after-the-client-left":
            try:
                await asyncio.sleep(DEADLINE)
            except asyncio.CancelledError:
                left.set()
                misbehave("aborted")  # (a handler that has something to say still, with nobody left to hear it)
        if request.client == "ended-elsewhere":
            await asyncio.ensure_future(end_elsewhere(context))
            misbehave("aborted")
        await asyncio.sleep(0)
        misbehave(request.client)
        return watten_pb2.TableInfo(host_name="ok")

    @errors.refusals_to_status
    async def Subscribe(self, request: watten_pb2.SubscribeRequest, context: Any) -> AsyncIterator[
        watten_pb2.TableUpdate
    ]:
        yield watten_pb2.TableUpdate(event=watten_pb2.Event(seq=1))
        kind = {1: "aborted", 2: "bug", 3: "rule"}.get(request.from_seq, "ok")
        misbehave(kind)
        yield watten_pb2.TableUpdate(event=watten_pb2.Event(seq=2))


class BareTable(watten_pb2_grpc.WattenTableServicer):
    """No decorators: only the interceptor protects it. Join and the rest stay unimplemented (the generated base)."""

    async def GetTable(self, request: watten_pb2.GetTableRequest, context: Any) -> watten_pb2.TableInfo:
        misbehave(request.client)
        return watten_pb2.TableInfo(host_name="ok")

    def Ready(self, request: watten_pb2.ReadyRequest, context: Any) -> watten_pb2.Ack:
        """A plain (non-async) handler, which grpc.aio also accepts."""
        misbehave(request.token)
        return watten_pb2.Ack(seq=7)

    async def Subscribe(self, request: watten_pb2.SubscribeRequest, context: Any) -> AsyncIterator[
        watten_pb2.TableUpdate
    ]:
        yield watten_pb2.TableUpdate(event=watten_pb2.Event(seq=1))
        misbehave("bug" if request.from_seq == 2 else "ok")


def with_server(
    servicer: Any, scenario: Callable[[watten_pb2_grpc.WattenTableStub, int], Awaitable[None]], *, intercept: bool
) -> None:
    async def run() -> None:
        server = grpc.aio.server(interceptors=[errors.RefusalInterceptor()] if intercept else None)
        watten_pb2_grpc.add_WattenTableServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                await scenario(watten_pb2_grpc.WattenTableStub(channel), port)
        finally:
            await server.stop(None)

    asyncio.run(run())


async def refusal_of(call: Awaitable[Any]) -> RefusalInfo:
    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await call
    return refusal_from_error(failure.value)


async def stream_refusal(stub: watten_pb2_grpc.WattenTableStub, from_seq: int) -> tuple[list[int], RefusalInfo]:
    seen: list[int] = []
    with pytest.raises(grpc.aio.AioRpcError) as failure:
        async for update in stub.Subscribe(watten_pb2.SubscribeRequest(from_seq=from_seq), timeout=DEADLINE):
            seen.append(update.event.seq)
    return seen, refusal_from_error(failure.value)


@pytest.fixture(params=["decorator", "interceptor", "both"])
def setup(request: pytest.FixtureRequest) -> tuple[Any, bool]:
    return {
        "decorator": (GuardedTable(), False),
        "interceptor": (BareTable(), True),
        "both": (GuardedTable(), True),
    }[request.param]


@pytest.mark.network
def test_each_refusal_kind_arrives_with_code_reason_and_message(setup: tuple[Any, bool]) -> None:
    servicer, intercept = setup

    async def scenario(stub: watten_pb2_grpc.WattenTableStub, port: int) -> None:
        for kind, (_, code) in REFUSALS.items():
            got = await refusal_of(stub.GetTable(watten_pb2.GetTableRequest(client=kind), timeout=DEADLINE))
            assert got == RefusalInfo(code, REASON_OF[kind], message_for(kind)), kind
        reply = await stub.GetTable(watten_pb2.GetTableRequest(client="ok"), timeout=DEADLINE)
        assert reply.host_name == "ok"

    with_server(servicer, scenario, intercept=intercept)


@pytest.mark.network
def test_rule_violation_is_failed_precondition_with_the_engine_reason(setup: tuple[Any, bool]) -> None:
    servicer, intercept = setup

    async def scenario(stub: watten_pb2_grpc.WattenTableStub, port: int) -> None:
        got = await refusal_of(stub.GetTable(watten_pb2.GetTableRequest(client="rule"), timeout=DEADLINE))
        assert got == RefusalInfo(
            grpc.StatusCode.FAILED_PRECONDITION, "not-your-turn", "It is not your turn: wait for seat 2 to play."
        )

    with_server(servicer, scenario, intercept=intercept)


@pytest.mark.network
def test_unexpected_exception_is_a_logged_internal_never_unknown(
    setup: tuple[Any, bool], caplog: pytest.LogCaptureFixture
) -> None:
    servicer, intercept = setup

    async def scenario(stub: watten_pb2_grpc.WattenTableStub, port: int) -> None:
        with pytest.raises(grpc.aio.AioRpcError) as failure:
            await stub.GetTable(watten_pb2.GetTableRequest(client="bug"), timeout=DEADLINE)
        got = refusal_from_error(failure.value)
        assert got == RefusalInfo(grpc.StatusCode.INTERNAL, errors.INTERNAL_REASON, errors.INTERNAL_MESSAGE)
        assert "secret internal detail" not in (failure.value.details() or "")

    with caplog.at_level(logging.ERROR, logger="host.errors"):
        with_server(servicer, scenario, intercept=intercept)
    logged = [record for record in caplog.records if record.name == "host.errors"]
    assert logged and logged[0].exc_info is not None
    assert "secret internal detail" in caplog.text and "GetTable" in logged[0].getMessage()
    assert len(logged) == 1  # decorator and interceptor together still log once


@pytest.mark.network
def test_streams_end_with_the_refusal_after_what_they_sent(setup: tuple[Any, bool]) -> None:
    servicer, intercept = setup

    async def scenario(stub: watten_pb2_grpc.WattenTableStub, port: int) -> None:
        seen, got = await stream_refusal(stub, 2)
        assert seen == [1] and got.code == grpc.StatusCode.INTERNAL and got.reason == errors.INTERNAL_REASON
        if isinstance(servicer, GuardedTable):
            seen, got = await stream_refusal(stub, 1)
            aborted = RefusalInfo(grpc.StatusCode.ABORTED, REASON_OF["aborted"], message_for("aborted"))
            assert seen == [1] and got == aborted
            seen, got = await stream_refusal(stub, 3)
            assert seen == [1] and (got.code, got.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "not-your-turn")
        updates = [u.event.seq async for u in stub.Subscribe(watten_pb2.SubscribeRequest(), timeout=DEADLINE)]
        assert updates[0] == 1

    with_server(servicer, scenario, intercept=intercept)


@pytest.mark.network
def test_abort_with_directly_and_plain_aborts_pass_through() -> None:
    async def scenario(stub: watten_pb2_grpc.WattenTableStub, port: int) -> None:
        got = await refusal_of(stub.GetTable(watten_pb2.GetTableRequest(client="abort-directly"), timeout=DEADLINE))
        assert got == RefusalInfo(grpc.StatusCode.PERMISSION_DENIED, "wrong-seat", "Only the host may do that.")
        # An abort without ErrorDetail: the client falls back to the code's name and the details string.
        got = await refusal_of(stub.GetTable(watten_pb2.GetTableRequest(client="plain-abort"), timeout=DEADLINE))
        assert got == RefusalInfo(grpc.StatusCode.FAILED_PRECONDITION, "failed-precondition", "no details here")

    with_server(GuardedTable(), scenario, intercept=True)


@pytest.mark.network
def test_a_refusal_after_the_client_left_is_no_error(caplog: pytest.LogCaptureFixture) -> None:
    """The call is over (the client gave up; at a host's shutdown, its connection went) when the handler refuses:
    there is nobody to send a status to, and that is no error of the host's."""

    async def scenario(stub: watten_pb2_grpc.WattenTableStub, port: int) -> None:
        left.clear()
        with pytest.raises(grpc.aio.AioRpcError) as failure:
            await stub.GetTable(watten_pb2.GetTableRequest(client="refused-after-the-client-left"), timeout=0.3)
        assert failure.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        await asyncio.wait_for(left.wait(), DEADLINE)
        await asyncio.sleep(0.2)  # (the guard's answer to the refusal, if any, is logged by now)
        reply = await stub.GetTable(watten_pb2.GetTableRequest(client="ok"), timeout=DEADLINE)
        assert reply.host_name == "ok"

    with caplog.at_level(logging.ERROR):
        with_server(GuardedTable(), scenario, intercept=True)
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR], caplog.text


@pytest.mark.network
def test_a_call_ended_elsewhere_keeps_its_status_and_a_later_refusal_is_no_error(
    caplog: pytest.LogCaptureFixture
) -> None:
    """A handler whose call another task already ended, and which then raises a refusal itself: the client gets the
    first status, and the guard neither aborts twice (grpc's "Abort already called!") nor logs an error."""

    async def scenario(stub: watten_pb2_grpc.WattenTableStub, port: int) -> None:
        got = await refusal_of(stub.GetTable(watten_pb2.GetTableRequest(client="ended-elsewhere"), timeout=DEADLINE))
        assert got == RefusalInfo(grpc.StatusCode.ABORTED, "stream-replaced", "Ended from elsewhere.")
        reply = await stub.GetTable(watten_pb2.GetTableRequest(client="ok"), timeout=DEADLINE)
        assert reply.host_name == "ok"

    with caplog.at_level(logging.ERROR):
        with_server(GuardedTable(), scenario, intercept=True)
    assert "Abort already called" not in caplog.text
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


@pytest.mark.network
def test_interceptor_covers_plain_handlers_and_unimplemented_methods() -> None:
    async def scenario(stub: watten_pb2_grpc.WattenTableStub, port: int) -> None:
        assert (await stub.Ready(watten_pb2.ReadyRequest(token="ok"), timeout=DEADLINE)).seq == 7
        got = await refusal_of(stub.Ready(watten_pb2.ReadyRequest(token="unauthenticated"), timeout=DEADLINE))
        assert (got.code, got.reason) == (grpc.StatusCode.UNAUTHENTICATED, REASON_OF["unauthenticated"])
        got = await refusal_of(stub.Ready(watten_pb2.ReadyRequest(token="bug"), timeout=DEADLINE))
        assert got.code == grpc.StatusCode.INTERNAL
        got = await refusal_of(stub.Join(watten_pb2.JoinRequest(), timeout=DEADLINE))  # the generated base's stub
        assert (got.code, got.reason) == (grpc.StatusCode.UNIMPLEMENTED, errors.UNIMPLEMENTED_REASON)

    with_server(BareTable(), scenario, intercept=True)


@pytest.mark.network
def test_sync_client_errors_read_the_same() -> None:
    """refusal_from_error also reads grpc.RpcError from a plain (sync) channel."""

    def call(port: int, kind: str) -> RefusalInfo:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            try:
                watten_pb2_grpc.WattenTableStub(channel).GetTable(
                    watten_pb2.GetTableRequest(client=kind), timeout=DEADLINE
                )
            except grpc.RpcError as error:
                return refusal_from_error(error)
        raise AssertionError("the call should have been refused")

    async def scenario(stub: watten_pb2_grpc.WattenTableStub, port: int) -> None:
        assert await asyncio.to_thread(call, port, "rule") == RefusalInfo(
            grpc.StatusCode.FAILED_PRECONDITION, "not-your-turn", "It is not your turn: wait for seat 2 to play."
        )
        got = await asyncio.to_thread(call, port, "permission-denied")
        assert (got.code, got.reason) == (grpc.StatusCode.PERMISSION_DENIED, REASON_OF["permission-denied"])

    with_server(GuardedTable(), scenario, intercept=False)


def test_transport_failures_fall_back_to_the_status() -> None:
    async def scenario() -> None:
        async with grpc.aio.insecure_channel("127.0.0.1:1") as channel:  # nothing listens on port 1
            got = await refusal_of(
                watten_pb2_grpc.WattenTableStub(channel).GetTable(watten_pb2.GetTableRequest(), timeout=DEADLINE)
            )
        assert got.code == grpc.StatusCode.UNAVAILABLE and got.reason == "unavailable" and got.message

    asyncio.run(scenario())


def test_refusal_values() -> None:
    refusal = RuleViolation("must-play-trump", "Play a trump: the Rechte was led.")  # a Refusal as it stands
    assert (errors.status_code(refusal), refusal.reason, refusal.message) == (
        grpc.StatusCode.FAILED_PRECONDITION, "must-play-trump", "Play a trump: the Rechte was led."
    )
    assert str(refusal) == "Play a trump: the Rechte was led."
    # OK is no refusal, and UNKNOWN/INTERNAL mean a host bug: a refusal's transport-free code cannot be one of them
    for code in (grpc.StatusCode.OK, grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL):
        with pytest.raises(ValueError, match="not a valid Code"):
            Refusal(code, Reason.MALFORMED, "y")  # type: ignore[arg-type]
    status = errors.rich_status(grpc.StatusCode.ABORTED, "stale-chain-head", "Refresh and try again.")
    assert status.code == grpc.StatusCode.ABORTED and status.details == "Refresh and try again."
    assert [key for key, _ in status.trailing_metadata] == ["grpc-status-details-bin"]


def test_decorator_keeps_the_method_shape() -> None:
    def plain_generator(self: object, request: object, context: object) -> Iterator[int]:
        yield 1

    assert GuardedTable.GetTable.__name__ == "GetTable"
    assert inspect.iscoroutinefunction(GuardedTable.GetTable)
    assert inspect.isasyncgenfunction(GuardedTable.Subscribe)
    assert inspect.isasyncgenfunction(errors.refusals_to_status(plain_generator))
