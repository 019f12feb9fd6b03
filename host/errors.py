"""Refusals as gRPC statuses with rich details, and a guard so nothing a client sends ends as UNKNOWN.

The contract (proto/watten_net/v1/watten.proto, header): every refusal a client can cause carries an
`ErrorDetail{reason, message}` packed into a `google.rpc.Status` in the `grpc-status-details-bin` trailer. The
`reason` is for programs (kebab-case, e.g. `not-your-turn`), the `message` a sentence for the screen. Handlers raise
a `Refusal` (watten_net/refusal.py: the engine's `RuleViolation`, the protocol's `ProtocolError` and the table's
`TableRefusal` are all one) wherever they notice the problem, instead of threading a context around;
`refusals_to_status` (per method) or `RefusalInterceptor` (whole server) turns it into the status.

Why a guard at all: grpc.aio answers an exception escaping a handler with UNKNOWN and the exception's text, which
tells the client nothing it can act on and may leak internals. With the guard a client sees its refusal, and only a
genuine host bug becomes INTERNAL (logged here with its traceback, shown to the client as one sentence).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import types
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn, TypeVar, cast

import grpc
import grpc.aio
from google.protobuf import any_pb2
from google.rpc import status_pb2  # type: ignore[import-untyped, unused-ignore]
from grpc_status import rpc_status  # type: ignore[import-untyped, unused-ignore]

from watten_net.refusal import Code, Reason, Refusal
from watten_net.v1 import watten_pb2

from .refusal import BatchRefusal

log = logging.getLogger(__name__)

_F = TypeVar("_F", bound=Callable[..., Any])


INTERNAL_REASON = Reason.INTERNAL_ERROR
INTERNAL_MESSAGE = (
    "The host ran into an error of its own (a bug in watten-host, not something you did); its log has the details. "
    "Try again; if it keeps happening, the host should restart."
)
UNIMPLEMENTED_REASON = Reason.UNIMPLEMENTED
UNIMPLEMENTED_MESSAGE = "This host does not offer that call; it may be an older version of watten-host."
BAD_REQUEST_REASON = Reason.BAD_REQUEST
BAD_REQUEST_MESSAGE = (
    "The request could not be read as the message this call takes (corrupt bytes, another message type, or text "
    "that is not UTF-8); check that the client speaks watten_net.v1."
)


class _Unreadable:
    """Stands in for a request whose bytes did not deserialise (see `_lenient`)."""

    def __repr__(self) -> str:
        return "<unreadable request>"


UNREADABLE: Any = _Unreadable()
TOO_LARGE: Any = _Unreadable()  # a request over its method's size limit (not parsed)
REQUEST_TOO_LARGE_REASON = Reason.REQUEST_TOO_LARGE


def _lenient(deserializer: Callable[[bytes], Any] | None, limit: int | None = None) -> Callable[[bytes], Any] | None:
    """A request deserialiser that never raises: bytes that do not parse become `UNREADABLE`.

    Why: grpc.aio deserialises the request in its core, before any handler or guard runs, and answers a
    DecodeError (random bytes, another message type, a string field that is not UTF-8) with UNKNOWN and an
    ERROR traceback in the host's log. The guard refuses the marker with INVALID_ARGUMENT `bad-request` instead.
    Bytes over `limit` are not parsed at all (`TOO_LARGE`: RESOURCE_EXHAUSTED `request-too-large`).
    """
    if deserializer is None:
        return None

    def parse(raw: bytes) -> Any:
        if limit is not None and len(raw) > limit:
            return TOO_LARGE
        try:
            return deserializer(raw)
        except Exception:
            return UNREADABLE

    return parse


def _unreadable_refusal(request: Any = None) -> Refusal:
    if request is TOO_LARGE:
        return Refusal(Code.RESOURCE_EXHAUSTED, REQUEST_TOO_LARGE_REASON,
                       "The request is far bigger than any this call takes (a name has at most 32 characters); "
                       "it was not read.")
    return invalid_argument(BAD_REQUEST_REASON, BAD_REQUEST_MESSAGE)


STATUS_OF: dict[Code, grpc.StatusCode] = {
    Code.INVALID: grpc.StatusCode.INVALID_ARGUMENT,
    Code.PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION,
    Code.PERMISSION: grpc.StatusCode.PERMISSION_DENIED,
    Code.UNAUTHENTICATED: grpc.StatusCode.UNAUTHENTICATED,
    Code.ABORTED: grpc.StatusCode.ABORTED,
    Code.RESOURCE_EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    Code.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
}
"""The one table from a refusal's transport-free code to its gRPC status."""


def status_code(refusal: Refusal) -> grpc.StatusCode:
    return STATUS_OF[refusal.code]


def invalid_argument(reason: Reason, message: str) -> Refusal:
    """Malformed whatever the table's state (bad card, bad envelope, bad name)."""
    return Refusal(Code.INVALID, reason, message)


def failed_precondition(reason: Reason, message: str) -> Refusal:
    """Well-formed but against the rules or the table's state; not worth retrying until the state changes."""
    return Refusal(Code.PRECONDITION, reason, message)


def permission_denied(reason: Reason, message: str) -> Refusal:
    """An identified caller who may not do this (wrong seat, spectator)."""
    return Refusal(Code.PERMISSION, reason, message)


def unauthenticated(reason: Reason, message: str) -> Refusal:
    """A caller who could not be identified (no or unknown seat token)."""
    return Refusal(Code.UNAUTHENTICATED, reason, message)


def aborted(reason: Reason, message: str) -> Refusal:
    """A stale sequence: refresh the state, then act again."""
    return Refusal(Code.ABORTED, reason, message)


def rich_status(code: grpc.StatusCode, reason: str, message: str, receipt: Any = None,
                batch: BatchRefusal | None = None) -> grpc.Status:
    """A grpc.Status whose trailer carries `google.rpc.Status{code, message, details=[Any(ErrorDetail)]}`; for a
    refused envelope of several in one call, which one and the answers of those before it."""
    detail = any_pb2.Any()
    error = watten_pb2.ErrorDetail(reason=reason, message=message, receipt=receipt)
    if batch is not None:
        error.envelope_index = batch.index
        error.applied.extend(envelope_answer(*answer) for answer in batch.applied)
    detail.Pack(error)
    return rpc_status.to_status(status_pb2.Status(code=code.value[0], message=message, details=[detail]))


async def abort_with(context: grpc.aio.ServicerContext, refusal: Refusal) -> NoReturn:
    """End the call with `refusal`'s status and details. Never returns (grpc raises AbortError to end the handler).

    The one place a refusal becomes a gRPC status: whatever raised it (the engine, the protocol, the table)."""
    batch = refusal if isinstance(refusal, BatchRefusal) else None
    await _abort(context, rich_status(status_code(refusal), refusal.reason, refusal.message, refusal.receipt, batch))


def envelope_answer(seq: int, chain_seq: int, digest: bytes) -> Any:
    """One envelope's answer as the wire's EnvelopeAnswer."""
    return watten_pb2.EnvelopeAnswer(seq=seq, chain_seq=chain_seq, envelope_hash=digest)


async def _abort(context: grpc.aio.ServicerContext, status: grpc.Status) -> NoReturn:
    # grpc.aio has no abort_with_status that works from coroutines on every version; abort takes the same parts.
    try:
        await context.abort(status.code, status.details, status.trailing_metadata)
    except (grpc.aio.UsageError, grpc.aio.InternalError):
        # UsageError: another task ended this call already (server._Stream._cut), and its status stands. grpc.aio
        # wants the very AbortError that first abort raised, which only that task saw. InternalError (grpc's failed
        # batch): the call is over, its client gone (at a shutdown, its connection): nobody is left to tell. Either
        # way a cancellation ends the handler quietly.
        raise asyncio.CancelledError from None
    raise AssertionError("grpc.aio context.abort returned instead of raising")  # pragma: no cover


async def _refuse(context: grpc.aio.ServicerContext, error: Exception, where: str) -> NoReturn:
    """Turn an exception that escaped a handler into the status the client should see."""
    if isinstance(error, Refusal):
        await abort_with(context, error)
    if isinstance(error, NotImplementedError):
        # The generated servicer base raises this for methods the host has not implemented.
        await _abort(context, rich_status(grpc.StatusCode.UNIMPLEMENTED, UNIMPLEMENTED_REASON, UNIMPLEMENTED_MESSAGE))
    log.error("unexpected error in %s; the client gets INTERNAL", where, exc_info=error)
    await _abort(context, rich_status(grpc.StatusCode.INTERNAL, INTERNAL_REASON, INTERNAL_MESSAGE))


Admit = Callable[[grpc.aio.ServicerContext], Callable[[], None] | None]
"""A check run before every handler (e.g. a rate limit); it raises a Refusal to turn the call away, or returns
nothing or a function to call when the call ends (e.g. to count the calls open on a connection)."""


async def _readable(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """A request stream in which an unreadable message is refused instead of handed to the handler."""
    async for request in requests:
        if request is UNREADABLE or request is TOO_LARGE:
            raise _unreadable_refusal(request)
        yield request


Enter = Callable[[tuple[Any, ...], list[Callable[[], None]]], tuple[Any, ...]]
"""Runs before a handler: admits the call (noting what to do when it ends) and returns the handler's arguments."""


def _guard(method: Callable[..., Any], where: str, streaming: bool, admit: Admit | None = None,
           request_streaming: bool = False) -> Callable[..., Any]:
    """Wrap a handler (context is its last argument) so every exception it raises becomes a proper status.

    Handlers may be coroutines, async generators, or plain functions/generators (the generated servicer base has
    plain ones); the wrapper is a coroutine, or an async generator for streamed responses that are not written
    with `context.write`, so grpc.aio drives it the same way as the original. Before the handler runs, `admit`
    (if any) may refuse the call, and a request that did not deserialise (`UNREADABLE`) is refused as
    INVALID_ARGUMENT `bad-request`.
    """
    enter = _entry(admit, request_streaming)
    if streaming and not inspect.iscoroutinefunction(method):
        return _guarded_stream(method, where, enter)
    return _guarded_call(method, where, enter)


def _entry(admit: Admit | None, request_streaming: bool) -> Enter:
    def enter(args: tuple[Any, ...], ends: list[Callable[[], None]]) -> tuple[Any, ...]:
        context = args[-1]
        if admit is not None and (end := admit(context)) is not None:
            ends.append(end)
        if request_streaming:
            if hasattr(args[-2], "__aiter__"):
                return (*args[:-2], _readable(args[-2]), context)
        elif args[-2] is UNREADABLE or args[-2] is TOO_LARGE:
            raise _unreadable_refusal(args[-2])
        return args

    return enter


def _guarded_stream(method: Callable[..., Any], where: str, enter: Enter) -> Callable[..., Any]:
    @functools.wraps(method)
    async def guarded_stream(*args: Any) -> AsyncIterator[Any]:
        context = args[-1]
        ends: list[Callable[[], None]] = []
        try:
            produced = method(*enter(args, ends))
            if hasattr(produced, "__aiter__"):
                async with contextlib.aclosing(produced) as responses:
                    async for response in responses:
                        yield response
            elif inspect.isawaitable(produced):
                await produced
            elif produced is not None:
                for response in produced:
                    yield response
        except grpc.aio.AbortError:
            raise
        except Exception as error:
            await _refuse(context, error, where)
        finally:
            for end in ends:
                end()

    return guarded_stream


def _guarded_call(method: Callable[..., Any], where: str, enter: Enter) -> Callable[..., Any]:
    @functools.wraps(method)
    async def guarded(*args: Any) -> Any:
        context = args[-1]
        ends: list[Callable[[], None]] = []
        try:
            result = method(*enter(args, ends))
            if inspect.isawaitable(result):
                result = await result
            return result
        except grpc.aio.AbortError:
            raise
        except Exception as error:
            await _refuse(context, error, where)
        finally:
            for end in ends:
                end()

    return guarded


GUARDED = "__watten_unguarded__"  # on a `refusals_to_status` wrapper: the method it guards


def refusals_to_status(method: _F) -> _F:
    """Decorate a servicer method `(self, request, context)`: a Refusal becomes its status, any other
    exception a logged INTERNAL. Works for unary methods and for async-generator (streaming) methods alike."""
    streaming = inspect.isasyncgenfunction(method) or inspect.isgeneratorfunction(method)
    guarded = _guard(method, method.__qualname__, streaming)
    setattr(guarded, GUARDED, method)
    return cast(_F, guarded)


def _one_guard(behaviour: Callable[..., Any]) -> Callable[..., Any]:
    """A servicer's handler that `refusals_to_status` guards already, as the method it guards (bound to the same
    servicer): the interceptor's guard, which does all the decorator's does and admits the call, is then the only
    one. Two guards made every message of a stream pass one async-generator layer more."""
    inner = getattr(getattr(behaviour, "__func__", None), GUARDED, None)
    owner = getattr(behaviour, "__self__", None)
    if inner is None or owner is None:
        return behaviour
    return cast(Callable[..., Any], types.MethodType(inner, owner))


class RefusalInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc, unused-ignore]
    """Apply the same guard to every method of a grpc.aio server, decorated or not.

    Installing it (`grpc.aio.server(interceptors=[RefusalInterceptor()])`) means a method someone forgot to decorate
    still cannot answer UNKNOWN. Decorated methods are unaffected: the inner guard has already aborted. It also
    reads every request leniently (`_lenient`: bytes that do not parse are INVALID_ARGUMENT `bad-request`, not
    UNKNOWN) and runs `admit` (e.g. the host's per-connection rate limit) before every handler.
    """

    def __init__(self, admit: Admit | None = None, small_request: int | None = None,
                 big_request_methods: frozenset[str] = frozenset()) -> None:
        self.admit = admit
        # Requests of every method but `big_request_methods` over `small_request` bytes are refused unread.
        self.small_request = small_request
        self.big_request_methods = big_request_methods
        # Each method's guarded handler, made at its first call: the server's handler of a method is one object,
        # and wrapping it anew for every call cost every call (an action is a call) the same work again.
        self._guarded: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        where = str(handler_call_details.method)
        known = self._guarded.get(where)
        if known is not None and known[0] is handler:
            return known[1]
        guarded = self._guard_handler(handler, where)
        self._guarded[where] = (handler, guarded)
        return guarded

    def _guard_handler(self, handler: grpc.RpcMethodHandler, where: str) -> grpc.RpcMethodHandler:
        limit = None if where in self.big_request_methods else self.small_request
        serializers = {
            "request_deserializer": _lenient(handler.request_deserializer, limit),
            "response_serializer": handler.response_serializer,
        }
        admit = self.admit
        if handler.request_streaming and handler.response_streaming:
            behaviour = _guard(_one_guard(handler.stream_stream), where, True, admit, request_streaming=True)
            return grpc.stream_stream_rpc_method_handler(behaviour, **serializers)
        if handler.request_streaming:
            behaviour = _guard(_one_guard(handler.stream_unary), where, False, admit, request_streaming=True)
            return grpc.stream_unary_rpc_method_handler(behaviour, **serializers)
        if handler.response_streaming:
            behaviour = _guard(_one_guard(handler.unary_stream), where, True, admit)
            return grpc.unary_stream_rpc_method_handler(behaviour, **serializers)
        behaviour = _guard(_one_guard(handler.unary_unary), where, False, admit)
        return grpc.unary_unary_rpc_method_handler(behaviour, **serializers)
