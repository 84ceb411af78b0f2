"""Test runs' deployment namespaces on a shared NATS and PostgreSQL, and their clean-up.

Each run of the suite (each pytest-xdist worker of it) works in a namespace of its own,
``[<given>-]t<run id>[-gw<n>]`` (README, Isolated deployments: the namespace prefixes the
stream, durables, outbox bucket and PostgreSQL schema). The run id is ``t``, the minute the
run started (5 base-36 digits), 4 random base-36 digits and 3 check digits (a keyed hash of
the rest): two runs at once on one machine (a developer's and CI's, two worktrees) never
share a name, a sweep can tell from the name alone how old a run is, and a deployment's
namespace with a part of the same shape (``throughput``, ``thermodynamic``) is no run's
unless its check digits happen to match (1 in 46656), so a sweep never takes it.

At its end a run deletes what its namespace made (:func:`forget`); at its start it sweeps
what earlier runs that died before their end left (:func:`sweep`): names of the test-run
pattern whose run started, and whose streams last saw a message, more than IDLE ago. The
old per-worker names ``gw0``, ``gw1``... (no run id) go once idle for as long. Nothing else
(``NEON_EVENTS``, a deployment's own names) is ever touched.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import re
import secrets
import time
from collections.abc import Container, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from services.platform.bus import POSITIONS_BUCKET, STREAM
from services.platform.logs import get_logger
from services.platform.settings import NAMESPACE

log = get_logger("tests.namespaces")

IDLE = timedelta(hours=3)
"""A run older than this whose streams saw no message for as long is over (the full suite
takes minutes; the long soak runs publish all the time)."""
MAX_NAMESPACE = 32
"""settings.NAMESPACE's limit (PostgreSQL's 63-byte schema names hold ``neon_`` + 32 + a
per-test suffix of 13)."""
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_MINUTE_DIGITS = 5  # base 36: minutes since 1970 fit until 2085
_RANDOM_DIGITS = 4
_CHECK_DIGITS = 3
RUN_ID = re.compile(rf"(?P<head>t(?P<minute>[0-9a-z]{{{_MINUTE_DIGITS}}})[0-9a-z]{{{_RANDOM_DIGITS}}})"
                    rf"(?P<check>[0-9a-z]{{{_CHECK_DIGITS}}})")
_WORKER = r"gw[0-9]+"
_RUN_NAMESPACE = re.compile(rf"(?:[a-z0-9-]*-)?(?P<run>{RUN_ID.pattern})(?:-{_WORKER})?(?:-[a-z0-9-]+)?")
"""A namespace of a test run: the run id as a whole hyphen-separated part (after any given
namespace), then the worker, then anything a test derived from the run's namespace."""
_LEGACY_NAMESPACE = re.compile(_WORKER)
"""The per-worker namespaces of runs before run ids (``gw0``...): shared by every run."""
_EARLIEST = datetime(2025, 1, 1, tzinfo=UTC)
"""A run id's minute before this is no run id (a namespace that only looks like one)."""


def _base36(n: int, digits: int) -> str:
    out = ""
    for _ in range(digits):
        n, d = divmod(n, 36)
        out = _DIGITS[d] + out
    return out


def _check(head: str) -> str:
    """The check digits of a run id's ``head`` (``t``, minute, random)."""
    digest = hashlib.blake2s(f"neon-arena test run {head}".encode(), digest_size=8).digest()
    return _base36(int.from_bytes(digest, "big"), _CHECK_DIGITS)


def new_run_id(now: float | None = None, random: int | None = None) -> str:
    """``t`` + the minute (5 base-36 digits) + 4 random base-36 digits + 3 check digits,
    e.g. ``thsfk0a9x2q7m``."""
    minute = int((time.time() if now is None else now) // 60)
    if random is None:
        random = secrets.randbelow(36**_RANDOM_DIGITS)
    head = f"t{_base36(minute, _MINUTE_DIGITS)}{_base36(random % 36**_RANDOM_DIGITS, _RANDOM_DIGITS)}"
    return head + _check(head)


def run_started(run_id: str) -> datetime | None:
    """When the run of ``run_id`` started (to the minute), None if it is no run id (its
    check digits do not match: a deployment's name of the same shape)."""
    match = RUN_ID.fullmatch(run_id)
    if not match or match["check"] != _check(match["head"]):
        return None
    started = datetime.fromtimestamp(int(match["minute"], 36) * 60, UTC)
    return started if started >= _EARLIEST else None


def run_namespace(run_id: str, given: str = "", worker: str = "") -> str:
    """``[<given>-]<run id>[-<worker>]``, the given namespace cut so the whole fits in 32."""
    rest = "-".join(n for n in (run_id, worker) if n)
    room = MAX_NAMESPACE - len(rest) - 1
    given = given.strip()[:max(room, 0)].rstrip("-") if room > 0 else ""
    namespace = f"{given}-{rest}" if given else rest
    if not NAMESPACE.match(namespace):
        raise ValueError(f"test namespace {namespace!r} (from NEON_NAMESPACE {given!r}) is not a "
                         "namespace: use lowercase letters, digits and inner hyphens")
    return namespace


def run_of(namespace: str) -> str | None:
    """The run a namespace belongs to: its run id, ``gw<n>`` for an old per-worker one, None
    for a namespace of no test run (never swept)."""
    if _LEGACY_NAMESPACE.fullmatch(namespace):
        return namespace
    if not _RUN_NAMESPACE.fullmatch(namespace):
        return None
    # the first hyphen-separated part that is a run id (check digits and all): not merely
    # the one the pattern settled on, which may be a given name's part of the same shape
    return next((part for part in namespace.split("-") if run_started(part) is not None), None)


def stream_namespace(stream: str) -> str | None:
    """The namespace whose stream (``<ns>_NEON_EVENTS``) or KV bucket's stream
    (``KV_<ns>_neon_outbox_positions``) this is; None for any other stream."""
    if stream.startswith("KV_"):
        ns, sep, rest = stream[3:].partition("_")
        return ns if sep and rest == POSITIONS_BUCKET else None
    ns, sep, rest = stream.partition("_")
    return ns if sep and rest == STREAM else None


def schema_run(schema: str) -> str | None:
    """The run of a namespace's schema (``neon_<ns>``, hyphens as underscores; a per-test
    schema ``neon_<ns>_<12 hex>`` reads as a derived namespace), as :func:`run_of`; None for
    any other schema."""
    if not schema.startswith("neon_"):
        return None
    return run_of(schema[5:].replace("_", "-"))


def schema_of(namespace: str) -> str:
    """The namespace's PostgreSQL schema (Settings.database_schema's rule)."""
    return f"neon_{namespace.replace('-', '_')}"


def in_family(namespace: str, name: str) -> bool:
    """Whether ``name`` (a namespace) is ``namespace`` or one a test derived from it."""
    return name == namespace or name.startswith(namespace + "-")


@dataclasses.dataclass(frozen=True)
class Choice:
    streams: list[str]
    schemas: list[str]

    def __bool__(self) -> bool:
        return bool(self.streams or self.schemas)


def choose(streams: dict[str, datetime], schemas: Iterable[str], now: datetime,
           idle: timedelta = IDLE, young: timedelta | None = None) -> Choice:
    """What a sweep deletes, from every stream's last activity (its last message, or its
    creation when it has none) and every schema: those of the runs that started more than
    ``young`` (default ``idle``) before ``now`` (old ``gw<n>`` ones: any time) and none of
    whose streams saw anything for ``idle``. A schema has no time of its own: its run's
    streams and id speak for it."""
    last: dict[str, datetime] = {}
    for stream, active in streams.items():
        ns = stream_namespace(stream)
        run = run_of(ns) if ns else None
        if run is not None:
            last[run] = max(active, last.get(run, active))
    schemas = list(schemas)
    runs = set(last) | {r for s in schemas if (r := schema_run(s))}

    def over(run: str) -> bool:
        started = run_started(run)
        if started is not None and now - started <= (idle if young is None else young):
            return False
        return run not in last or now - last[run] > idle

    done = {run for run in runs if over(run)}
    return Choice(
        streams=sorted(s for s in streams
                       if (ns := stream_namespace(s)) and run_of(ns) in done),
        schemas=sorted(s for s in schemas if schema_run(s) in done))


def _time(text: str | None) -> datetime | None:
    """JetStream's RFC 3339 time (nanoseconds; year 1 when never)."""
    if not text or text.startswith("0001-"):
        return None
    head, _, frac = text.rstrip("Z").partition(".")
    return datetime.fromisoformat(f"{head}.{(frac + '000000')[:6]}+00:00")


async def stream_activity(nc: Any) -> dict[str, datetime]:
    """Every stream's last message time, or its creation time when it has none (raw
    ``$JS.API.STREAM.LIST``: nats-py's StreamState drops ``last_ts``)."""
    out: dict[str, datetime] = {}
    offset = 0
    while True:
        reply = await nc.request("$JS.API.STREAM.LIST", json.dumps({"offset": offset}).encode(),
                                 timeout=5)
        page = json.loads(reply.data)
        if "error" in page:
            raise RuntimeError(f"JetStream stream list: {page['error']}")
        for info in page.get("streams") or []:
            times = [t for t in (_time(info.get("created")),
                                 _time((info.get("state") or {}).get("last_ts"))) if t]
            out[info["config"]["name"]] = max(times, default=datetime.now(UTC))
        offset += len(page.get("streams") or [])
        if not page.get("streams") or offset >= page.get("total", 0):
            return out


async def _connect(nats_url: str) -> Any:
    import nats

    async def quiet(err: Exception) -> None:  # the caller reports the failure, once
        pass

    return await nats.connect(nats_url, name="tests-cleanup", connect_timeout=3,
                              allow_reconnect=False, max_reconnect_attempts=1,
                              reconnect_time_wait=0.2, error_cb=quiet)


async def _delete_streams(nc: Any, streams: Iterable[str]) -> list[str]:
    from nats.js.errors import NotFoundError

    js = nc.jetstream(timeout=10)
    gone = []
    for stream in streams:
        try:
            await js.delete_stream(stream)  # its consumers go with it
            gone.append(stream)
        except NotFoundError:  # another run's sweep was first
            pass
    return gone


def _schemas(conn: Any) -> list[str]:
    rows = conn.execute(r"SELECT nspname FROM pg_namespace WHERE nspname LIKE 'neon\_%'")
    return [r[0] for r in rows.fetchall()]


def _drop_schemas(conn: Any, schemas: Iterable[str]) -> list[str]:
    """Drop each of ``schemas``; one that cannot go now (a process still holds a lock on it:
    :func:`_pg`'s lock_timeout) is logged and left for a later sweep, and the rest still go."""
    import psycopg
    from psycopg import sql

    dropped = []
    for schema in schemas:
        try:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
        except psycopg.errors.LockNotAvailable as err:
            log.warning("test schema left for a later sweep", schema=schema,
                        error=f"{type(err).__name__}: {err}".strip())
            continue
        dropped.append(schema)
    return dropped


LOCK_TIMEOUT = "10s"
"""How long a DROP SCHEMA waits for a lock some process still holds before that schema is
left for a later sweep."""
PG_TIMEOUT_MS = 30_000
"""How long a clean-up statement may take, or the server go without answering, before the
clean-up gives up (it runs at a session's start and end: it must never hang the suite)."""


def _pg(database_url: str) -> Any:
    import psycopg

    conn = psycopg.connect(database_url, autocommit=True, connect_timeout=3,
                           tcp_user_timeout=PG_TIMEOUT_MS, keepalives=1, keepalives_idle=10,
                           keepalives_interval=5, keepalives_count=3,
                           options=f"-c statement_timeout={PG_TIMEOUT_MS}")
    conn.execute("SELECT set_config('lock_timeout', %s, false)", (LOCK_TIMEOUT,))
    return conn


_LIVE_CLASS = 0x6E656F6E  # "neon": the first key of a run's advisory lock


def _live_key(run: str) -> int:
    """The second key (int4) of ``run``'s advisory lock."""
    return int.from_bytes(hashlib.blake2s(run.encode(), digest_size=4).digest(), "big",
                          signed=True)


@contextlib.contextmanager
def alive(run: str, database_url: str | None) -> Iterator[None]:
    """While in it, ``run`` is going: a session-level advisory lock on the shared PostgreSQL
    says so to every sweep (:func:`sweep` leaves a run whose lock it cannot take, whatever its
    id's age, its streams' idleness or the sweeping machine's clock). Without a database, or
    when it cannot be reached, nothing is held (the sweep's idle rule alone speaks)."""
    conn = None
    if database_url:
        try:
            conn = _pg(database_url)
            conn.execute("SELECT pg_advisory_lock(%s, %s)", (_LIVE_CLASS, _live_key(run)))
        except Exception as err:
            log.warning("test run not marked live", run=run,
                        error=f"{type(err).__name__}: {err}")
            if conn is not None:
                conn.close()
            conn = None
    try:
        yield
    finally:
        if conn is not None:
            conn.close()  # the lock goes with the session


def _live(conn: Any, run: str) -> bool:
    """Whether ``run`` holds its lock (:func:`alive`) now."""
    if run_started(run) is None:  # an old gw<n> run: never marked
        return False
    key = (_LIVE_CLASS, _live_key(run))
    if conn.execute("SELECT pg_try_advisory_lock(%s, %s)", key).fetchone()[0]:
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", key)
        return False
    return True


async def forget(namespace: str, nats_url: str | None, database_url: str | None) -> Choice:
    """Delete what ``namespace`` and the namespaces derived from it made: its stream (with
    its durable consumers), its outbox KV bucket and its PostgreSQL schemas (the
    namespace's, and the per-test ones named after it). Raises on a failure (callers at a
    session's end log it and go on)."""
    streams: list[str] = []
    schemas: list[str] = []
    if nats_url:
        nc = await _connect(nats_url)
        try:
            mine = [s for s in await stream_activity(nc)
                    if (ns := stream_namespace(s)) and in_family(namespace, ns)]
            streams = await _delete_streams(nc, mine)
        finally:
            await nc.close()
    if database_url:
        base = schema_of(namespace)
        with _pg(database_url) as conn:
            schemas = _drop_schemas(conn, [s for s in _schemas(conn)
                                           if s == base or s.startswith(base + "_")])
    return Choice(sorted(streams), sorted(schemas))


async def sweep(nats_url: str | None, database_url: str | None, now: datetime | None = None,
                idle: timedelta = IDLE, young: timedelta | None = None,
                only: Container[str] | None = None) -> Choice:
    """Delete what earlier test runs left and are over with (:func:`choose`), of the runs
    ``only`` (default: every run); returns what went. Raises on a failure (callers log it
    and go on)."""
    now = now or datetime.now(UTC)
    streams: dict[str, datetime] = {}
    nc = await _connect(nats_url) if nats_url else None
    try:
        if nc is not None:
            streams = await stream_activity(nc)
        conn = _pg(database_url) if database_url else None
        try:
            choice = choose(streams, _schemas(conn) if conn else [], now, idle, young)
            if only is not None:
                choice = Choice([s for s in choice.streams if run_of(stream_namespace(s) or "") in only],
                                [s for s in choice.schemas if schema_run(s) in only])
            if conn is not None:  # a run still going keeps everything, however old it looks
                runs = ({run_of(stream_namespace(s) or "") for s in choice.streams}
                        | {schema_run(s) for s in choice.schemas})
                going = {run for run in runs if run and _live(conn, run)}
                choice = Choice([s for s in choice.streams
                                 if run_of(stream_namespace(s) or "") not in going],
                                [s for s in choice.schemas if schema_run(s) not in going])
            gone = await _delete_streams(nc, choice.streams) if nc is not None else []
            dropped = _drop_schemas(conn, choice.schemas) if conn else []
        finally:
            if conn is not None:
                conn.close()
    finally:
        if nc is not None:
            await nc.close()
    return Choice(gone, dropped)


async def drop_outbox_names(js: Any, namespace: str) -> None:
    """Delete the event stream and the outbox positions bucket of ``namespace`` (a test that
    made them on purpose, apart from its run's namespace); either already gone is fine."""
    from services.platform import bus

    for delete, name in ((js.delete_stream, bus.stream_name(namespace)),
                         (js.delete_key_value, bus.positions_bucket(namespace))):
        try:
            await delete(name)
        except Exception:  # noqa: BLE001 - already gone
            pass
