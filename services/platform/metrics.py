"""Prometheus metrics: one registry per process, served at ``/metrics`` (text format).

Every series carries a ``service`` label (dice, rules-<game>, matchmaking, scoring, tournament,
gateway), so ``neon up`` (every service in one process, one registry, one endpoint) and
``neon serve <service>`` (one process each, one endpoint each) give the same series.

What is measured is what an operator acts on: calls by method and status code, latencies,
open streams, live matches, actions, clock expiries, group-commit batch sizes, the outbox's
lag, the matchmaking queue. Labels are bounded: a method only if the server registered it, a
game from a bounded set (:class:`Bounded`), a code from grpc's StatusCode; never a match id,
a player, a token; values are counts and timings only, never anything a seat may not see.

Gauges that describe state (live matches, outbox lag, tickets waiting) are read when scraped,
on the event loop, by the ``refresh`` callables the services register with :func:`watch`:
the hot paths pay nothing for them; what a refresh reads from a store goes through
:data:`STORE_READS`, one read at a time in a thread.

All of it only where ``/metrics`` is served (``Settings.serves_metrics``): a process without a
metrics port installs no interceptor or middleware, no rules meter, and registers no refresh.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections import Counter as Tally
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import grpc
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    gc_collector,
    platform_collector,
    process_collector,
)
from prometheus_client.exposition import choose_encoder

from services.platform.logs import get_logger
from services.platform.waiting import within

log = get_logger("metrics")

REGISTRY = CollectorRegistry()
"""The process's one registry: every service of the process reports into it."""
process_collector.ProcessCollector(registry=REGISTRY)
platform_collector.PlatformCollector(registry=REGISTRY)
gc_collector.GCCollector(registry=REGISTRY)

OTHER = "other"
"""The label value of everything past a :class:`Bounded` label's limit."""


class Bounded:
    """A label's values, at most ``limit`` distinct ones: later new values read ``other``,
    so no input (a client's game name, a method name) can grow the series without bound."""

    def __init__(self, limit: int, known: Iterable[str] = ()) -> None:
        self.limit = limit
        self._seen: set[str] = set()
        self._lock = threading.Lock()
        for value in known:
            self(value)

    def __call__(self, value: str) -> str:
        if value in self._seen:
            return value
        with self._lock:
            if value in self._seen:
                return value
            if len(self._seen) >= self.limit:
                return OTHER
            self._seen.add(value)
            return value


GAMES = Bounded(64)
"""Game labels: the built-in games and plug-ins, far fewer than 64."""

# -- gRPC ------------------------------------------------------------------------------------

CALL_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                10.0)
GRPC_CALLS = Counter("neon_grpc_calls", "gRPC calls handled, by method and status code "
                     "(streams counted when they end)", ["service", "method", "code"],
                     registry=REGISTRY)
GRPC_SECONDS = Histogram("neon_grpc_call_seconds", "Time to answer a unary gRPC call",
                         ["service", "method"], buckets=CALL_BUCKETS, registry=REGISTRY)
GRPC_OPEN_STREAMS = Gauge("neon_grpc_open_streams", "Streaming gRPC calls open now",
                          ["service", "method"], registry=REGISTRY)

UNKNOWN_METHOD = "unknown"
"""The method label of calls to a method the server does not have (answered UNIMPLEMENTED)."""

# -- rules -----------------------------------------------------------------------------------

LIVE_STATUSES = ("created", "running", "ended", "sealed")
RULES_LIVE = Gauge("neon_rules_live_matches", "Matches held in memory by this rules service, "
                   "by status (created: waiting for seeds)", ["service", "status"],
                   registry=REGISTRY)
RULES_ACTIONS = Counter("neon_rules_actions", "Actions accepted (stored), timeouts' and bots' "
                        "included", ["service", "game"], registry=REGISTRY)
RULES_EXPIRIES = Counter("neon_rules_clock_expiries", "Turn clocks that ran out and had their "
                         "default action applied", ["service"], registry=REGISTRY)
RULES_CREATED = Counter("neon_rules_matches_created", "Matches created", ["service"],
                        registry=REGISTRY)
RULES_ENDED = Counter("neon_rules_matches_ended", "Matches ended with a result", ["service"],
                      registry=REGISTRY)
RULES_ABANDONED = Counter("neon_rules_matches_abandoned", "Matches ended by an abandon",
                          ["service"], registry=REGISTRY)
RULES_BATCH = Histogram("neon_rules_commit_batch_size", "Commits written together in one "
                        "group-commit transaction", ["service"],
                        buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256), registry=REGISTRY)

# -- outbox ----------------------------------------------------------------------------------

OUTBOX_PUBLISHED = Counter("neon_outbox_published", "Stored notifications the outbox relay "
                           "published to JetStream", ["service"], registry=REGISTRY)
OUTBOX_LAG = Gauge("neon_outbox_lag", "Notifications stored but not yet published (reported "
                   "by the relay that leads)", ["service"], registry=REGISTRY)

# -- matchmaking and tournaments -------------------------------------------------------------

MM_WAITING = Gauge("neon_matchmaking_tickets_waiting", "Tickets waiting in the queue",
                   ["service", "game"], registry=REGISTRY)
MM_CYCLE = Histogram("neon_matchmaking_cycle_seconds", "Duration of a matchmaking cycle",
                     ["service"], buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
                                           2.5, 5.0, 10.0, 30.0), registry=REGISTRY)
MM_FORMED = Counter("neon_matchmaking_matches_formed", "Matches the cycles formed (proposed)",
                    ["service", "game"], registry=REGISTRY)
TOURNAMENT_ROUNDS = Gauge("neon_tournament_rounds_driven", "Running tournaments whose current "
                          "round this process drives", ["service"], registry=REGISTRY)
TOURNAMENTS = Gauge("neon_tournaments", "Tournaments in the store, by status (created, "
                    "registration, running, finished, force-ended)", ["service", "status"],
                    registry=REGISTRY)

# -- HTTP (the gateway) ----------------------------------------------------------------------

HTTP_REQUESTS = Counter("neon_http_requests", "HTTP requests answered, by route pattern and "
                        "status", ["service", "route", "status"], registry=REGISTRY)
HTTP_SECONDS = Histogram("neon_http_request_seconds", "Time to answer an HTTP request (not "
                         "streams)", ["service", "route"], buckets=CALL_BUCKETS,
                         registry=REGISTRY)


# == the service label ========================================================================

def service_label(grpc_names: Sequence[str]) -> str:
    """The ``service`` label of a gRPC server from the service names it registers:
    ``neon.dice.v1.DiceService`` -> ``dice``; a rules server also registers
    ``neon.rules.v1.RulesService.<game>`` -> ``rules-<game>``."""
    for name in grpc_names:
        head, _, game = name.partition("RulesService.")
        if game and head.startswith("neon.rules."):
            return f"rules-{game}"
    for name in grpc_names:
        parts = name.split(".")
        if len(parts) > 2 and parts[0] == "neon":
            return parts[1]
    return grpc_names[0] if grpc_names else "unknown"


# == gRPC interceptor =========================================================================

def _code_name(context: Any, default: str) -> str:
    code = context.code()
    if code is None:
        return default
    return code.name if isinstance(code, grpc.StatusCode) else str(code)


class _MethodSeries:
    """The label children of one method, made once (a ``labels()`` lookup per call costs a
    lock and a dict of tuples; these are attribute reads)."""

    __slots__ = ("codes", "open", "seconds", "service", "method")

    def __init__(self, service: str, method: str) -> None:
        self.service, self.method = service, method
        self.seconds = GRPC_SECONDS.labels(service, method)
        self.open = GRPC_OPEN_STREAMS.labels(service, method)
        self.codes: dict[str, Any] = {}

    def count(self, code: str) -> None:
        child = self.codes.get(code)
        if child is None:
            child = self.codes[code] = GRPC_CALLS.labels(self.service, self.method, code)
        child.inc()


class GrpcMetrics(grpc.aio.ServerInterceptor):
    """Counts every call by method and final status code, times unary calls, and gauges open
    streams. Put it first in the server's interceptors (outermost), so that the calls another
    interceptor refuses (a bad token, garbage bytes, a limit) are counted with their code."""

    def __init__(self, grpc_names: Sequence[str], service: str | None = None) -> None:
        self.service = service or service_label(grpc_names)
        self._methods: dict[str, _MethodSeries] = {}
        self._unknown = _MethodSeries(self.service, UNKNOWN_METHOD)

    def _series(self, method: str) -> _MethodSeries:
        series = self._methods.get(method)
        if series is None:  # registered methods only: bounded by the server's own table
            series = self._methods[method] = _MethodSeries(self.service, method.lstrip("/"))
        return series

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None:  # grpc answers UNIMPLEMENTED; the path is the caller's, not a label
            self._unknown.count("UNIMPLEMENTED")
            return handler
        series = self._series(details.method)
        options = {"request_deserializer": handler.request_deserializer,
                   "response_serializer": handler.response_serializer}
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(_timed(handler.unary_unary, series),
                                                       **options)
        if handler.stream_unary:
            return grpc.stream_unary_rpc_method_handler(_timed(handler.stream_unary, series),
                                                        **options)
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(_streamed(handler.unary_stream, series),
                                                        **options)
        if handler.stream_stream:
            return grpc.stream_stream_rpc_method_handler(
                _streamed(handler.stream_stream, series), **options)
        return handler


def _failed(err: BaseException, context: Any) -> str:
    if isinstance(err, asyncio.CancelledError | GeneratorExit):
        return "CANCELLED"  # the caller went away or its deadline passed
    return _code_name(context, "UNKNOWN")  # an abort's code; else grpc answers UNKNOWN


def _timed(inner: Callable[..., Any], series: _MethodSeries) -> Callable[..., Any]:
    async def call(request: Any, context: Any) -> Any:
        start = time.perf_counter()
        try:
            response = await inner(request, context)
        except BaseException as err:
            series.seconds.observe(time.perf_counter() - start)
            series.count(_failed(err, context))
            raise
        series.seconds.observe(time.perf_counter() - start)
        series.count(_code_name(context, "OK"))
        return response

    return call


def _streamed(inner: Callable[..., Any], series: _MethodSeries) -> Callable[..., Any]:
    if not inspect.isasyncgenfunction(inner):  # a handler that writes with context.write()
        async def write(request: Any, context: Any) -> None:
            series.open.inc()
            try:
                await inner(request, context)
            except BaseException as err:
                series.count(_failed(err, context))
                raise
            else:
                series.count(_code_name(context, "OK"))
            finally:
                series.open.dec()

        return write

    async def items(request: Any, context: Any) -> Any:
        series.open.inc()
        code = "OK"
        generator = inner(request, context)
        try:
            async for item in generator:
                yield item
            code = _code_name(context, "OK")
        except BaseException as err:
            code = _failed(err, context)
            raise
        finally:
            series.open.dec()
            series.count(code)
            await generator.aclose()

    return items


# == rules, outbox, matchmaking ===============================================================

class RulesMeter:
    """Counts a rules service's stored records (the host calls :meth:`stored` once per
    commit, with the records it stored) and its group-commit batches."""

    def __init__(self, service: str, game: str) -> None:
        self.actions = RULES_ACTIONS.labels(service, GAMES(game))
        self.expiries = RULES_EXPIRIES.labels(service)
        self.created = RULES_CREATED.labels(service)
        self.ended = RULES_ENDED.labels(service)
        self.abandoned = RULES_ABANDONED.labels(service)
        self.batch = RULES_BATCH.labels(service)

    def stored(self, records: Sequence[Mapping[str, Any]]) -> None:
        for record in records:
            kind = record.get("type")
            if kind == "ActionAccepted":
                self.actions.inc()
                if record.get("timeout") is True:  # a forfeit's resign says "forfeit"
                    self.expiries.inc()
            elif kind == "MatchCreated":
                self.created.inc()
            elif kind == "MatchEnded":
                outcome = record.get("outcome")
                if isinstance(outcome, Mapping) and outcome.get("abandoned") is True:
                    self.abandoned.inc()
                else:
                    self.ended.inc()

    def batch_size(self, size: int) -> None:
        self.batch.observe(size)


def live_matches(service: str, matches: Any) -> Callable[[], None]:
    """A refresh of ``neon_rules_live_matches`` from a :class:`LiveMatches`."""
    children = {status: RULES_LIVE.labels(service, status) for status in LIVE_STATUSES}

    def refresh() -> None:
        counts = Tally(live.status for live in matches.held())
        for status, child in children.items():
            child.set(counts.get(status, 0))

    return refresh


class StoreReads:
    """The store reads that only feed gauges (the outbox's lag, the first count of the
    tournaments), run one at a time in a thread of their own: never on the event loop, never
    more than one connection's worth at once, whatever the number of services and scrapes.

    A read asked again while the same ``key``'s read is still running (a store slower than the
    scrapes) waits for that one instead of queueing another, so a store that hangs holds one
    read per key, not a growing queue."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        """Reentrant: a read done before its callback is added runs the callback (``_done``)
        at once, in the thread that adds it, which holds the lock (a plain Lock deadlocked
        the event loop there)."""
        self._executor: ThreadPoolExecutor | None = None
        self._running: dict[Hashable, Future[Any]] = {}

    async def read(self, key: Hashable, read: Callable[[], Any],
                   timeout: float | None = None) -> Any:
        """``read()``'s answer; TimeoutError after ``timeout`` seconds (the read goes on)."""
        with self._lock:
            running = self._running.get(key)
            if running is None:
                if self._executor is None:
                    self._executor = ThreadPoolExecutor(1, thread_name_prefix="metrics-read")
                running = self._running[key] = self._executor.submit(read)
                running.add_done_callback(lambda done: self._done(key, done))
        # shielded: a caller that times out or is cancelled leaves the read to the others;
        # within, not wait_for: a cancellation that comes with the answer is not dropped
        return await within(asyncio.shield(asyncio.wrap_future(running)), timeout)

    def _done(self, key: Hashable, done: Future[Any]) -> None:
        with self._lock:
            if self._running.get(key) is done:
                del self._running[key]


STORE_READS = StoreReads()
"""The process's one reader of stores for gauges."""


def outbox(relay: Any, timeout: float = 2.0) -> Callable[[], Awaitable[None]]:
    """A refresh of the outbox series from an ``OutboxRelay``: what it has published (its
    ``sent``) and, when it leads, the notifications stored after its position (one
    ``max_notification_id`` query through :data:`STORE_READS`, bounded by ``timeout``)."""
    published = OUTBOX_PUBLISHED.labels(relay.service)
    lag = OUTBOX_LAG.labels(relay.service)
    seen = 0

    async def refresh() -> None:
        nonlocal seen
        sent = relay.sent
        if sent > seen:
            published.inc(sent - seen)
        seen = sent
        if not relay.leading:
            lag.set(0)  # another replica's relay publishes this store
            return
        position = relay.position
        try:
            head = await STORE_READS.read(relay, relay.app.recorder.max_notification_id,
                                          timeout)
        except Exception as err:  # the store does not answer: the last value stands
            log.info("outbox lag not read", service=relay.service, error=repr(err))
            return
        lag.set(max(0, (head or 0) - position))

    return refresh


def matchmaking(service: str, matchmaker: Any) -> Callable[[], None]:
    """A refresh of ``neon_matchmaking_tickets_waiting`` from a Matchmaker's tickets, and the
    hook (``matchmaker.on_cycle``) that observes each cycle."""
    shown: set[str] = set()

    def refresh() -> None:
        counts = Tally(GAMES(t.game) for t in list(matchmaker.tickets.values())
                       if t.status == "waiting")
        for game in shown - set(counts):
            MM_WAITING.labels(service, game).set(0)
        for game, n in counts.items():
            MM_WAITING.labels(service, game).set(n)
        shown.update(counts)

    seconds = MM_CYCLE.labels(service)

    def cycle(stats: Mapping[str, float], formed: Mapping[str, int]) -> None:
        seconds.observe(stats.get("total", 0.0))
        for game, n in formed.items():
            if n:
                MM_FORMED.labels(service, GAMES(game)).inc(n)

    matchmaker.on_cycle = cycle
    return refresh


def tournaments(service: str, director: Any) -> Callable[[], None]:
    """A refresh of ``neon_tournament_rounds_driven`` from a Director, and of
    ``neon_tournaments`` from its ``statuses`` (a tournament ``StatusCounts``) when it has one."""
    gauge = TOURNAMENT_ROUNDS.labels(service)
    statuses = director.statuses
    by_status = ({status: TOURNAMENTS.labels(service, status) for status in statuses.counts}
                 if statuses is not None else {})

    def refresh() -> None:
        gauge.set(sum(1 for task in list(director._drivers.values()) if not task.done()))
        for status, child in by_status.items():
            child.set(statuses.counts[status])

    return refresh


# == scrape-time refreshes ====================================================================

_refreshers: dict[int, Callable[[], Any]] = {}


def watch(refresh: Callable[[], Any], service: str = "", *gauges: Any) -> Callable[[], None]:
    """Run ``refresh`` (plain or async) before each scrape. The callable returned stops that
    and removes ``service``'s series of ``gauges`` (a stopped service's state goes with it;
    counters stay, as counters do): services put it among their closers."""
    key = id(refresh)
    _refreshers[key] = refresh

    def forget() -> None:
        _refreshers.pop(key, None)
        for gauge in gauges:
            forget_service(gauge, service)

    return forget


def forget_service(metric: Any, service: str) -> None:
    """Remove every label set of ``metric`` whose first label (``service``) is ``service``."""
    for labels in list(metric._metrics):  # prometheus_client has no public walk of children
        if labels and labels[0] == service:
            try:
                metric.remove(*labels)
            except KeyError:
                pass


async def refresh_all() -> None:
    for refresh in list(_refreshers.values()):
        try:
            result = refresh()
            if inspect.isawaitable(result):
                await result
        except Exception as err:  # a refresh must never break the scrape
            log.warning("metrics refresh failed", error=repr(err))


async def scrape(accept: str | None = None) -> tuple[bytes, str]:
    """What a scrape gets, and its content type: the gauges refreshed, then every series of
    the registry in the format ``accept`` asks (Prometheus text 0.0.4 by default, or
    OpenMetrics)."""
    await refresh_all()
    encode, content_type = choose_encoder(accept or "")
    return encode(REGISTRY), content_type


# == the HTTP endpoint ========================================================================

class MetricsServer:
    """``GET /metrics`` on its own port, served by aiohttp in the process's event loop (so the
    refreshes read the services' state on the loop that changes it)."""

    def __init__(self, runner: Any, host: str, port: int) -> None:
        self.runner, self.host, self.port = runner, host, port

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/metrics"

    async def stop(self) -> None:
        await self.runner.cleanup()


async def serve(bind_host: str, port: int, shown_host: str | None = None) -> MetricsServer:
    """Serve ``/metrics`` on ``bind_host:port`` (port 0: any free port)."""
    from aiohttp import web

    async def metrics(request: web.Request) -> web.Response:
        body, content_type = await scrape(request.headers.get("Accept"))
        return web.Response(body=body, headers={"Content-Type": content_type})

    app = web.Application()
    app.router.add_get("/metrics", metrics)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, bind_host, port)
    try:
        await site.start()
    except OSError as err:
        await runner.cleanup()
        raise RuntimeError(f"could not serve metrics on {bind_host}:{port}: {err}") from None
    bound = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    shown = shown_host or (bind_host if bind_host not in ("", "0.0.0.0", "::") else "127.0.0.1")
    log.debug("metrics serving", url=f"http://{shown}:{bound}/metrics")
    return MetricsServer(runner, shown, bound)


# == HTTP middleware (the gateway) ============================================================

def http_middleware(service: str) -> Any:
    """An aiohttp middleware counting each request by route pattern (never the path: it holds
    match ids) and status, and timing those that are not streams."""
    from aiohttp import web

    @web.middleware
    async def measure(request: web.Request, handler: Any) -> web.StreamResponse:
        start = time.perf_counter()
        route = _route(request)
        try:
            response = await handler(request)
        except web.HTTPException as err:
            HTTP_REQUESTS.labels(service, route, str(err.status)).inc()
            raise
        except BaseException:
            HTTP_REQUESTS.labels(service, route, "500").inc()
            raise
        HTTP_REQUESTS.labels(service, route, str(response.status)).inc()
        if type(response) is not web.StreamResponse:
            HTTP_SECONDS.labels(service, route).observe(time.perf_counter() - start)
        return response

    return measure


def _route(request: Any) -> str:
    resource = getattr(getattr(request.match_info, "route", None), "resource", None)
    canonical = getattr(resource, "canonical", None)
    return ROUTES(canonical) if canonical else "unmatched"


ROUTES = Bounded(64)
"""Route patterns (``/{service}/{method}``): the app's own table, bounded all the same."""
