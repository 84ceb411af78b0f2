"""gRPC aio server and client set-up shared by every service.

One interceptor does the cross-cutting work of every call: it binds a request id, the
method and the match id into the structlog context, reads the bearer token into
:data:`current_claims`, and maps :class:`ServiceError` to its status code with the reason
(and an unreachable event store to UNAVAILABLE, see storehealth.py).
Anything else becomes INTERNAL with the request id, logged with its traceback; the
servicer never crashes the server.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import os
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from services.platform.call_limits import MESSAGE_ANSWERS, CallLimiter, Throttled
from services.platform.errors import PermissionDenied, ServiceError, Unauthenticated, Unavailable
from services.platform.logs import bind_contextvars, get_logger
from services.platform.storehealth import StoreGate, is_store_outage
from services.platform.stream_limits import (
    CLIENT_METADATA,
    Caller,
    Refused,
    StreamLimiter,
    StreamLimits,
)
from services.platform.tokens import Claims, TokenIssuer, bearer

current_claims: contextvars.ContextVar[Claims | None] = contextvars.ContextVar(
    "current_claims", default=None
)
current_client: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "current_client", default=None
)
"""The client a trusted gateway named for this call (x-neon-client, stream_limits.py) when the
call (a stream, or any call while call rates are on) is counted against it; None for any other
call. A call passed on to another service may name this client there (never the caller's own,
untrusted x-neon-client)."""

log = get_logger("grpc")

MAX_DETAILS_BYTES = 4000
"""The longest status reason a call is answered (and logged) with, in the bytes it takes in
the status trailer (grpc-message: printable ASCII as it is, any other byte as ``%XX``). A
reason that echoes a client's input (a schema error quoting a 60 KB string) would otherwise
not fit in the trailer: the client got RESOURCE_EXHAUSTED "received metadata size exceeds
hard limit" in place of its INVALID_ARGUMENT, a status clients retry. 4000 stays under the
8 KiB that clients take without question, with room for the other trailers."""
MAX_LOGGED_ID = 128
"""The longest id of a request (its match or tournament id) bound into the call's log lines."""
REQUEST_ID = re.compile(r"^[\x20-\x7e]{1,128}\Z")
"""A client's ``x-request-id`` that is kept (printable ASCII, as the gateway passes on, up to
128 characters); a longer one is replaced by one of ours, as a missing one is: it is bound to
every log line of the call."""


def clip(text: str, limit: int = MAX_DETAILS_BYTES) -> str:
    """``text`` cut to ``limit`` bytes of grpc-message (see MAX_DETAILS_BYTES), saying so and
    how long it was."""
    if len(text) * 9 <= limit:  # even were each character four bytes, each as %XX
        return text
    size, cut = 0, len(text)
    for index, char in enumerate(text):
        size += 1 if " " <= char <= "~" and char != "%" else 3 * len(char.encode("utf-8", "replace"))
        if size > limit:
            cut = index
            break
    if cut == len(text):
        return text
    return f"{text[:cut]}... (cut: {len(text)} characters)"


def _loggable(value: str) -> str:
    """A request's id as its log lines carry it: a client's 1 MB match id is not written
    into every line of its call."""
    return value if len(value) <= MAX_LOGGED_ID else f"{value[:MAX_LOGGED_ID]}... ({len(value)} characters)"


def _metadata_value(metadata: Iterable[tuple[str, Any]] | None, key: str) -> str | None:
    for k, v in metadata or ():
        if k == key:
            return v.decode(errors="replace") if isinstance(v, bytes) else str(v)
    return None


class KernelInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, issuer: TokenIssuer | None, limits: StreamLimits | None = None) -> None:
        self._issuer = issuer
        self.store_gate = StoreGate()
        limits = limits if limits is not None else StreamLimits()
        self.streams = StreamLimiter(limits)
        """Open server-streaming and bidirectional calls, counted and limited per caller and
        in all (stream_limits.py); health and reflection (``/grpc.*``) are not counted."""
        self.calls = CallLimiter(limits.calls_per_second, limits.anonymous_calls_per_second)
        """Calls a second per caller (call_limits.py): each unary call, stream opening and
        message sent on a bidirectional stream; health and reflection are not counted."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None:
            return handler
        method = details.method
        decode = handler.request_deserializer
        # Requests arrive as raw bytes and are decoded here, so that garbage bytes are
        # answered INVALID_ARGUMENT rather than the library's INTERNAL.
        if handler.unary_unary:
            inner = handler.unary_unary

            gated = not method.startswith("/grpc.")

            async def handle(raw: bytes, context: grpc.aio.ServicerContext) -> Any:
                request = await _decode(decode, raw, context)
                async with self._call(method, request, context) as ok:
                    if ok:
                        if not gated or not self.store_gate.armed:
                            return await inner(request, context)
                        return await _unless_store_down(self.store_gate, inner(request, context))
                return None

            async def unary(raw: bytes, context: grpc.aio.ServicerContext) -> Any:
                # The call's context variables (log binding, claims) live in a Context of
                # our own, in a task of our own, never in the Context grpc runs the handler
                # in: they are set once there and never reset (see _CallScope.__aenter__).
                return await asyncio.create_task(handle(raw, context), context=contextvars.Context())

            return grpc.unary_unary_rpc_method_handler(
                unary, response_serializer=handler.response_serializer
            )
        if handler.unary_stream:
            inner_stream = handler.unary_stream
            if not inspect.isasyncgenfunction(inner_stream):
                # A coroutine handler that writes with context.write() (grpc_health's Watch).
                async def write(raw: bytes, context: grpc.aio.ServicerContext) -> None:
                    request = await _decode(decode, raw, context)
                    async with self._call(method, request, context, stream=True) as ok:
                        if ok:
                            await inner_stream(request, context)

                async def writer(raw: bytes, context: grpc.aio.ServicerContext) -> None:
                    await asyncio.create_task(write(raw, context), context=contextvars.Context())

                return grpc.unary_stream_rpc_method_handler(
                    writer, response_serializer=handler.response_serializer
                )

            async def items(raw: bytes, context: grpc.aio.ServicerContext) -> Any:
                request = await _decode(decode, raw, context)
                async with self._call(method, request, context, stream=True) as ok:
                    if ok:
                        async for item in inner_stream(request, context):
                            yield item

            async def stream(raw: bytes, context: grpc.aio.ServicerContext) -> Any:
                async for item in _in_own_context(items(raw, context)):
                    yield item

            return grpc.unary_stream_rpc_method_handler(
                stream, response_serializer=handler.response_serializer
            )
        if handler.stream_stream:
            inner_bidi = handler.stream_stream

            answers = MESSAGE_ANSWERS.get(method)

            async def exchange(raw_requests: AsyncIterator[bytes],
                               context: grpc.aio.ServicerContext) -> Any:
                scope = self._call(method, None, context, stream=True, per_message=True)

                async def requests() -> AsyncIterator[Any]:
                    async for raw in raw_requests:
                        request = await _decode(decode, raw, context)
                        if scope.rated:
                            throttled = scope.take_message()
                            if throttled is not None:
                                await scope.refuse_message(throttled)  # raises: the stream ends
                        yield request

                async with scope as ok:
                    if not ok:
                        return
                    if answers is not None and scope.rated:
                        # a message over the rate is answered in the method's own terms
                        # (Play: an ActionResult) and the stream goes on
                        async for item in _answering(inner_bidi, raw_requests, decode, context,
                                                     scope, answers):
                            yield item
                        return
                    async for item in inner_bidi(requests(), context):
                        yield item

            async def bidi(raw_requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> Any:
                async for item in _in_own_context(exchange(raw_requests, context)):
                    yield item

            return grpc.stream_stream_rpc_method_handler(
                bidi, response_serializer=handler.response_serializer
            )
        return handler

    def _call(self, method: str, request: Any, context: grpc.aio.ServicerContext,
              stream: bool = False, per_message: bool = False) -> Any:
        """The call's scope; ``per_message``: a bidirectional stream, whose messages are
        counted toward the call rate (:meth:`_CallScope.take_message`), not its opening."""
        if method.startswith("/grpc."):
            return _CallScope(self._issuer, method, request, context)
        return _CallScope(self._issuer, method, request, context,
                          self.streams if stream else None, self.calls if self.calls.enabled else None,
                          self.streams, per_message)


async def _answering(inner_bidi: Any, raw_requests: AsyncIterator[bytes], decode: Any,
                     context: grpc.aio.ServicerContext, scope: _CallScope,
                     answers: Any) -> AsyncIterator[Any]:
    """A bidirectional stream whose messages over the caller's rate are answered with
    ``answers.answer`` (the method's own refusal of one message) rather than passed on, the
    stream left open. The handler's items and those answers go out through one queue, in
    order: a refusal waits for the answers (``answers.is_answer``) of the messages passed on
    before it, each message after the first being answered once."""
    out: asyncio.Queue[Any] = asyncio.Queue(maxsize=1)
    done = object()
    passed = answered = 0
    caught_up = asyncio.Condition()

    def in_order() -> bool:  # every message passed on after the first has its answer out
        return answered >= passed - 1

    async def requests() -> AsyncIterator[Any]:
        nonlocal passed
        async for raw in raw_requests:
            request = await _decode(decode, raw, context)
            throttled = scope.take_message()
            if throttled is None:
                passed += 1
                yield request
                continue
            refusal = answers.answer(request, throttled.reason)
            if refusal is None:
                await scope.refuse_message(throttled)  # raises: the stream ends
            scope.log_throttled(throttled)
            async with caught_up:
                await caught_up.wait_for(in_order)
            await out.put(refusal)

    async def pump() -> None:
        nonlocal answered
        try:
            async for item in inner_bidi(requests(), context):
                await out.put(item)
                if answers.is_answer(item):
                    async with caught_up:
                        answered += 1
                        caught_up.notify_all()
            await out.put(done)
        except asyncio.CancelledError:
            raise
        except BaseException as err:  # noqa: BLE001 - raised again by the stream's own task
            await out.put(err)

    pumping = asyncio.create_task(pump())
    try:
        while True:
            item = await out.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        pumping.cancel()
        await asyncio.gather(pumping, return_exceptions=True)


async def _in_own_context(generator: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """Run a streaming handler's generator in a Context of its own (see ``unary`` above):
    each step is a task in that Context, so no context variable is ever set in grpc's."""
    own = contextvars.Context()

    async def step() -> Any:
        return await generator.__anext__()

    try:
        while True:
            try:
                item = await asyncio.create_task(step(), context=own)
            except StopAsyncIteration:
                return
            yield item
    finally:
        await asyncio.create_task(_close(generator), context=own)


async def _close(generator: Any) -> None:
    await generator.aclose()


async def _unless_store_down(gate: StoreGate, call: Any) -> Any:
    """The call's answer, or UNAVAILABLE as soon as the store is (or goes) down.

    The call runs in the caller's own task (no task per call): the store going down
    cancels that task, and the cancellation is answered UNAVAILABLE."""
    if not gate.up:
        call.close()
        raise Unavailable("the event store does not answer; try again shortly")
    task = asyncio.current_task()
    went_down = False

    def down() -> None:
        nonlocal went_down
        went_down = True
        if task is not None:
            task.cancel()

    forget = gate.on_down(down)
    try:
        result = await call
        if went_down and task is not None:
            task.uncancel()  # the call finished all the same: its answer stands
        return result
    except asyncio.CancelledError:
        if not went_down or task is None:
            raise
        task.uncancel()
        raise Unavailable("the event store went down during the call; try again shortly") from None
    finally:
        forget()


async def _decode(decode: Any, raw: bytes, context: grpc.aio.ServicerContext) -> Any:
    if decode is None:
        return raw
    try:
        return decode(raw)
    except (DecodeError, ValueError, TypeError) as err:
        log.info("malformed request", error=str(err))
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"malformed request: {err}")


class _CallScope:
    """Async context manager around one call: context binding, auth, the stream limits (for a
    stream: ``limiter``) and error mapping."""

    def __init__(
        self, issuer: TokenIssuer | None, method: str, request: Any, context: grpc.aio.ServicerContext,
        limiter: StreamLimiter | None = None, calls: CallLimiter | None = None,
        callers: StreamLimiter | None = None, per_message: bool = False,
    ) -> None:
        self.issuer, self.method, self.request, self.context = issuer, method, request, context
        self.limiter = limiter
        self.calls = calls
        """The call rates (None: not counted: health, reflection, or no rate set)."""
        self.callers = callers
        """Who the caller is (:meth:`StreamLimiter.caller`, its trusted gateways)."""
        self.per_message = per_message
        self.slot: tuple[str, ...] | None = None
        self.holding = False
        self.caller: Caller | None = None
        self.rated = False
        """Whether this caller's messages count toward its rate (a bidirectional stream)."""

    async def __aenter__(self) -> bool:
        metadata = self.context.invocation_metadata()
        request_id = _metadata_value(metadata, "x-request-id") or ""
        if not REQUEST_ID.match(request_id):
            request_id = os.urandom(8).hex()
        fields: dict[str, Any] = {"request_id": request_id, "method": self.method}
        match_id = getattr(self.request, "match_id", "")
        if isinstance(match_id, str) and match_id:
            fields["match_id"] = _loggable(match_id)
        tournament_id = getattr(self.request, "tournament_id", "")
        if isinstance(tournament_id, str) and tournament_id:
            fields["tournament_id"] = _loggable(tournament_id)
        # Set once in the call's own Context (KernelInterceptor runs every call in a fresh
        # one) and never reset: the Context goes with the call. Nothing here may set a
        # context variable on the way out. A reset in a finaliser (the generator of
        # structlog's bound_contextvars left open when a refusal aborted the call, closed
        # later by the garbage collector) can run while the collector interrupts another
        # ContextVar.set, which frees the HAMT that set is still walking (CPython
        # gh-148891): the server segfaulted under bad-token traffic.
        bind_contextvars(**fields)
        self.request_id = request_id
        try:
            token = bearer(metadata)
            claims = self.issuer.verify(token) if token and self.issuer else None
        except ServiceError as err:
            await self._abort(err)
            return False
        except Exception:  # a verifier's own failure: the token is not taken, nor echoed
            log.error("token verification failed", exc_info=True)
            await self._abort(Unauthenticated(
                f"the token could not be verified (request id {request_id})"))
            return False
        current_claims.set(claims)
        if self.calls is not None and self.callers is not None:
            caller = self.caller = self._caller(claims, metadata)
            if caller.kind == "client":  # a call passed on names it (replicas.py): counted
                current_client.set(caller.key[-1])  # against that client there too
            if self.calls.limits(caller):
                if self.per_message:
                    self.rated = True
                else:
                    throttled = self.calls.take(caller)
                    if throttled is not None:
                        self.log_throttled(throttled)
                        await self.context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                                 throttled.reason, throttled.trailers)
                        return False
        if self.limiter is not None:
            caller = self.caller or self._caller(claims, metadata)
            if caller.kind == "client":
                current_client.set(caller.key[-1])
            try:
                self.slot = self.limiter.acquire(caller)
            except Refused as refused:
                # the key (a player id, a host) is not logged; the method is bound above
                log.info("stream refused", code="RESOURCE_EXHAUSTED", limit=refused.limit,
                         caller=caller.kind, reason=refused.reason)
                await self.context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, refused.reason)
                return False
            # no await between counting the stream and entering the block: __aexit__, which
            # gives the slot back, runs however the stream ends
            self.holding = True
        return True

    def _caller(self, claims: Claims | None, metadata: Any) -> Caller:
        assert self.callers is not None
        if claims is not None:  # the token says who: no peer to read
            return self.callers.caller(claims, None)
        # a gateway's client (x-neon-client) counts only from a trusted gateway's peer
        return self.callers.caller(None, self.context.peer(),
                                   _metadata_value(metadata, CLIENT_METADATA))

    def take_message(self) -> Throttled | None:
        """Count one message of a bidirectional stream toward its caller's rate."""
        assert self.calls is not None and self.caller is not None
        return self.calls.take(self.caller)

    def log_throttled(self, throttled: Throttled) -> None:
        # the key (a player id, a host) is not logged; the method is bound
        assert self.caller is not None
        log.info("call refused", code="RESOURCE_EXHAUSTED", limit=throttled.limit,
                 caller=self.caller.kind, retry_after_ms=throttled.retry_after_ms)

    async def refuse_message(self, throttled: Throttled) -> None:
        """End the stream for a message over the rate that the method has no answer for."""
        self.log_throttled(throttled)
        await self.context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, throttled.reason,
                                 throttled.trailers)

    def _release(self) -> None:
        if self.holding and self.limiter is not None:
            self.holding = False
            self.limiter.release(self.slot)

    async def _abort(self, err: ServiceError) -> None:
        reason = clip(err.reason)
        log.info("call refused", code=err.code.name, reason=reason)
        await self.context.abort(err.code, reason)

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        self._release()  # first: every way out below may raise (abort does)
        if exc is None or isinstance(exc, (grpc.aio.AbortError, GeneratorExit)):
            return False
        if isinstance(exc, ServiceError):
            await self._abort(exc)
            return True
        if isinstance(exc, asyncio.CancelledError):
            return False
        if isinstance(exc, NotImplementedError):  # a generated servicer's default
            await self.context.abort(grpc.StatusCode.UNIMPLEMENTED, "not implemented here")
            return True
        if is_store_outage(exc):
            log.warning("event store unreachable", error=repr(exc))
            await self.context.abort(
                grpc.StatusCode.UNAVAILABLE, "the event store does not answer; try again"
            )
            return True
        log.error("unexpected error", exc_info=(exc_type, exc, tb))
        await self.context.abort(
            grpc.StatusCode.INTERNAL, f"internal error (request id {self.request_id})"
        )
        return True


def claims() -> Claims | None:
    return current_claims.get()


def require_claims(*roles: str) -> Claims:
    found = current_claims.get()
    if found is None:
        raise Unauthenticated("this call needs a bearer token")
    if found.role not in roles:
        raise PermissionDenied(f"this call needs a {' or '.join(roles)} token, not {found.role}")
    return found


class ServerHandle:
    """A started gRPC server with its health servicer."""

    def __init__(self, server: grpc.aio.Server, health: HealthServicer, port: int, names: list[str]):
        self.server, self.health, self.port, self.names = server, health, port, names
        self.stopping = False
        self.store_gate: StoreGate | None = None
        self.streams: StreamLimiter | None = None
        self.calls: CallLimiter | None = None
        """The kernel's call rates (call_limits.py)."""
        self.metrics: Any = None
        """The server's metrics interceptor (a metrics.GrpcMetrics), or None: none installed."""

    async def set_serving(self, serving: bool) -> None:
        status = (
            health_pb2.HealthCheckResponse.SERVING
            if serving
            else health_pb2.HealthCheckResponse.NOT_SERVING
        )
        for name in ["", *self.names]:
            await self.health.set(name, status)

    async def stop(self, grace: float) -> None:
        self.stopping = True
        await self.set_serving(False)
        await self.server.stop(grace)


async def start_server(
    address: str,
    register: Callable[[grpc.aio.Server], None],
    service_names: list[str],
    issuer: TokenIssuer | None,
    limits: StreamLimits | None = None,
    *,
    metrics: bool,
) -> ServerHandle:
    """Start an aio server on ``address`` with health, reflection and the kernel interceptor
    (``limits``: the open-stream limits; None: the defaults of :class:`StreamLimits`), and the
    metrics interceptor when ``metrics`` (``settings.serves_metrics``: a process that serves no
    ``/metrics`` pays nothing per call for them)."""
    kernel = KernelInterceptor(issuer, limits)
    interceptors: list[grpc.aio.ServerInterceptor] = [kernel]
    meter = None
    if metrics:
        from services.platform.metrics import GrpcMetrics  # here: clients never import prometheus

        meter = GrpcMetrics(service_names)
        interceptors.insert(0, meter)  # outermost: it sees the calls the kernel refuses
    server = grpc.aio.server(
        interceptors=interceptors,
        options=[
            ("grpc.max_receive_message_length", 8 * 1024 * 1024),
            ("grpc.so_reuseport", 0),
        ],
    )
    register(server)
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable_server_reflection(
        [*service_names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
         reflection.SERVICE_NAME],
        server,
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise RuntimeError(f"could not bind gRPC server to {address}")
    await server.start()
    handle = ServerHandle(server, health, port, service_names)
    handle.store_gate = kernel.store_gate
    handle.streams = kernel.streams
    handle.calls = kernel.calls
    handle.metrics = meter
    await handle.set_serving(True)
    return handle


CLIENT_MAX_RECEIVE = 64 * 1024 * 1024
"""The largest message a client channel of this project (:func:`channel`, the replicas'
peer channels) takes; a service answering one message bounds it by this."""


RECONNECT_OPTIONS = (
    # a restarted service is reached again within a second or two, not after gRPC's default
    # reconnect backoff (growing to two minutes), during which every call fails at once
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 1000),
)
CHANNEL_OPTIONS = (("grpc.max_receive_message_length", CLIENT_MAX_RECEIVE), *RECONNECT_OPTIONS)
"""The options of a channel from one service (or the command line) to another."""


def channel(address: str) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)


def call_metadata(token: str | None = None, request_id: str | None = None) -> tuple[tuple[str, str], ...]:
    md: list[tuple[str, str]] = [("x-request-id", request_id or uuid.uuid4().hex[:16])]
    if token:
        md.append(("authorization", f"Bearer {token}"))
    return tuple(md)
