"""Served play against the machine's limits, measured in one run (issue 9, item 6).

Usage: python bench/bench_served.py [--quick] [--games neon-reign,neon] [--matches 1,8,64]
                                    [--db sqlite,postgres] [--rounds 3]

Prints, in the same run on the same machine:

- bare grpc.aio unary echo to a separate process: one call at a time, 32 in flight, and as
  many in flight as the largest served run has matches (the floor under its p99);
- the pure engine: actions/s of random bots, in this process, no I/O;
- served play: `neon serve dice` and `neon serve rules-<game>` as separate processes (a
  fresh var dir, or a fresh PostgreSQL schema when DATABASE_URL is set), with 1, 8 and 64
  concurrent matches of random bots: actions/s, client calls/s, SubmitAction p50 and p99,
  and each figure as a ratio of echo (32 in flight) and of the pure engine. Client mode
  `answer` acts on SubmitAction's `decisions` and falls back to ListLegalActions when the
  answer has none; mode `legal` calls ListLegalActions before every action; mode `play`
  holds one Play stream per seat and acts on the decisions the service pushes;
- a 2,000-action match (bench/longgame.py): the cost of its last 100 actions against its
  first 100;
- RSS per live match with 10,000 live matches in one rules service (one action each);
- after a SIGKILL and restart of the rules process, the time each of 1,000 live matches
  takes to answer its next action, from its first request.

Echo, engine and served runs are interleaved, in ``--rounds`` rounds; each figure is the
median with the range over the rounds. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from services.cli.client import RulesClient  # noqa: E402
from services.cli.play import decisions_of  # noqa: E402
from services.genproto.neon.rules.v1 import rules_pb2  # noqa: E402
from services.platform.draws import SeededRandomness  # noqa: E402
from services.platform.grpc_kit import call_metadata  # noqa: E402
from services.platform.natsrv import EmbeddedNats, free_port  # noqa: E402
from services.platform.settings import env_key  # noqa: E402
from services.platform.tokens import TokenIssuer  # noqa: E402
from services.rules.bots import make_bot  # noqa: E402
from services.rules.games import load_engine  # noqa: E402
from services.rules.games.contract import MatchConfig  # noqa: E402

SECRET = "bench-token-secret-0123456789abcdef"
SIGNING = "22" * 32
ECHO_METHOD = "/bench.Echo/Echo"
ECHO_PAYLOAD = b"x" * 120
IN_FLIGHT = 32
LONG_GAME = "longgame"
CLIENT_MODES = ("answer", "legal", "play")
TABLE_TITLE = "served play"


@dataclass
class Profile:
    seconds: float
    rounds: int
    matches: list[int]
    games: list[str]
    dbs: list[str]
    long_actions: int
    live: int
    cap: float
    restart: int = 0
    clients: list[str] = field(default_factory=lambda: list(CLIENT_MODES))


# ---------------------------------------------------------------- measurements


@dataclass
class Sample:
    """One timed run: what finished inside its window."""

    actions: int = 0
    calls: int = 0
    elapsed: float = 0.0
    latencies: list[float] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds used during the window, by process ("client", "server", "rules", "dice")."""

    def cpu_ms_per(self, who: str) -> float:
        """CPU milliseconds of one process per call (echo) or per action (served)."""
        count = self.actions or self.calls
        return 1000 * self.cpu.get(who, 0.0) / count if count else float("nan")

    @property
    def rate(self) -> float:
        return self.actions / self.elapsed if self.elapsed else 0.0

    @property
    def call_rate(self) -> float:
        return self.calls / self.elapsed if self.elapsed else 0.0

    def percentile(self, p: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


async def echo_server(port: int) -> None:
    async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return request

    server = grpc.aio.server()
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)})])
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print("echo serving", flush=True)
    await server.wait_for_termination()


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (``/proc/<pid>/stat``). CPU time per
    action is the figure a busy, shared machine disturbs least: other jobs stretch the wall
    clock, not the work each call costs."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


class CpuMeter:
    """CPU used by this process and by some others between ``start`` and ``stop``."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.pids = pids

    def __enter__(self) -> CpuMeter:
        self.client0 = time.process_time()
        self.others0 = {who: cpu_seconds(pid) for who, pid in self.pids.items()}
        return self

    def __exit__(self, *exc: object) -> None:
        self.used = {"client": time.process_time() - self.client0}
        self.used.update({who: cpu_seconds(pid) - self.others0[who] for who, pid in self.pids.items()})


async def measure_echo(address: str, seconds: float, in_flight: int) -> Sample:
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_unary(ECHO_METHOD)
        await call(ECHO_PAYLOAD, timeout=5)
        sample = Sample()
        end = time.perf_counter() + seconds

        async def worker() -> None:
            while time.perf_counter() < end:
                t = time.perf_counter()
                await call(ECHO_PAYLOAD, timeout=5)
                sample.latencies.append(time.perf_counter() - t)
                sample.calls += 1

        start = time.perf_counter()
        with CpuMeter({"server": ECHO_PID[0]} if ECHO_PID else {}) as meter:
            await asyncio.gather(*(worker() for _ in range(in_flight)))
        sample.elapsed = time.perf_counter() - start
        sample.cpu = meter.used
        sample.actions = sample.calls
        return sample


def measure_pure(game: str, seconds: float) -> Sample:
    engine = load_engine(game)
    mode, seats = default_mode(game)
    sample = Sample()
    end = time.perf_counter() + seconds
    start = time.perf_counter()
    m = 0
    while time.perf_counter() < end:
        rng, bot = SeededRandomness(m), make_bot("random", m)
        state = engine.setup(MatchConfig(mode, seats), rng)
        while (pending := engine.pending(state)) and time.perf_counter() < end:
            decision = pending[0]
            state = engine.apply(state, decision.seat, bot.choose(decision), rng).state
            sample.actions += 1
        m += 1
    sample.elapsed = time.perf_counter() - start
    return sample


def default_mode(game: str) -> tuple[str, int]:
    """The first mode that seats two players (or its smallest table)."""
    modes = load_engine(game).modes()
    for name, info in modes.items():
        if info.min_seats <= 2 <= info.max_seats:
            return name, 2
    name, info = next(iter(modes.items()))
    return name, info.min_seats


# ---------------------------------------------------------------- processes


class Stack:
    """NATS, dice and one rules service per game, each its own process, fresh storage."""

    def __init__(self, db: str, games: list[str], workdir: Path) -> None:
        self.db, self.games, self.workdir = db, games, workdir
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.schema = ""
        self.nats = EmbeddedNats(workdir / "nats")
        services = ["dice", *(f"rules-{g}" for g in games)]
        self.ports = {s: free_port() for s in services}
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("NEON_")}
        self.env.update({
            "NEON_VAR_DIR": str(workdir / "var"), "NEON_TOKEN_SECRET": SECRET,
            "NEON_SIGNING_KEY": SIGNING, "NEON_LOG_LEVEL": "warning", "NEON_GRACE_SECONDS": "2",
            "NEON_ENGINES": f"{LONG_GAME}=bench.longgame", "NEON_PERSISTENCE": db,
            "PYTHONPATH": str(ROOT),
            # the service's capacity, not a public deployment's policy of calls per seat
            # (one match at full speed passes 200 a second): bench_call_limits.py measures it
            "NEON_MAX_CALLS_PER_SECOND": os.environ.get("NEON_MAX_CALLS_PER_SECOND", "0"),
            "NEON_MAX_ANONYMOUS_CALLS_PER_SECOND":
                os.environ.get("NEON_MAX_ANONYMOUS_CALLS_PER_SECOND", "0"),
            **{f"NEON_{env_key(s)}_PORT": str(p) for s, p in self.ports.items()},
        })
        self.env["NEON_DICE_ADDR"] = f"127.0.0.1:{self.ports['dice']}"

    def address(self, service: str) -> str:
        return f"127.0.0.1:{self.ports[service]}"

    def start(self) -> Stack:
        self.nats.start()
        self.env["NATS_URL"] = self.nats.url
        if self.db == "postgres":
            import psycopg

            self.schema = f"bench_{uuid.uuid4().hex[:10]}"
            with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
                conn.execute(f'CREATE SCHEMA "{self.schema}"')
            self.env.update(DATABASE_URL=os.environ["DATABASE_URL"], NEON_POSTGRES_SCHEMA=self.schema)
            self.env.setdefault("POSTGRES_PASSWORD", "")
        for service in self.ports:
            self._spawn(service)
        for service in self.ports:
            wait_healthy(self.address(service), self.procs[service], self.workdir / f"{service}.log")
        return self

    def _spawn(self, service: str) -> None:
        log = open(self.workdir / f"{service}.log", "ab")  # noqa: SIM115 - the child keeps it
        self.procs[service] = subprocess.Popen(
            [sys.executable, "-m", "services.cli.main", "serve", service],
            env=self.env, cwd=ROOT, stdout=log, stderr=log,
        )

    def pid(self, service: str) -> int:
        return self.procs[service].pid

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        self.nats.stop()
        if self.schema:
            import psycopg

            with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{self.schema}" CASCADE')


def wait_healthy(address: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    from services.cli.processes import serving

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{log.stem} exited: {log.read_text()[-1500:]}")
        if serving(address):
            return
        time.sleep(0.1)
    raise RuntimeError(f"{log.stem} did not become healthy: {log.read_text()[-1500:]}")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


# ---------------------------------------------------------------- the client


def owed(decisions: list[Any]) -> list[Any]:
    """The decisions a seat owes now, without its standing options (resign and the like, which
    a seat may take at any time: a bot picking them would end most matches after two actions)."""
    return [d for d in decisions if not d.standing]


class Seats:
    """One match played by one client holding every seat's token."""

    def __init__(self, client: RulesClient, match_id: str, tokens: dict[int, str], seed: str,
                 sample: Sample, mode: str) -> None:
        self.client, self.match_id, self.tokens, self.sample, self.mode = client, match_id, tokens, sample, mode
        self.bots = {seat: make_bot("random", f"{seed}:{seat}") for seat in tokens}
        self.known: dict[int, list[Any]] = {}
        self.steps = 0
        self.over = False

    async def _legal(self, seat: int) -> list[Any]:
        answer = await self.client.legal(self.tokens[seat], self.match_id)
        self.sample.calls += 1
        return owed(decisions_of(answer))

    async def _next(self) -> tuple[int, Any] | None:
        """The seat to act and its decision: from the last answer, else ListLegalActions."""
        if self.mode == "answer":
            for seat, decisions in self.known.items():
                if decisions:
                    return seat, decisions[0]
        for seat in sorted(self.tokens):
            decisions = await self._legal(seat)
            if decisions:
                return seat, decisions[0]
        return None

    async def step(self) -> float:
        """Play one action; returns its wall time (including the calls that found it)."""
        t0 = time.perf_counter()
        found = await self._next()
        if found is None:
            self.over = True
            return time.perf_counter() - t0
        seat, decision = found
        t = time.perf_counter()
        answer = await self.client.submit(self.tokens[seat], self.match_id, f"s{self.steps}",
                                          dict(self.bots[seat].choose(decision)))
        self.sample.latencies.append(time.perf_counter() - t)
        self.sample.calls += 1
        self.sample.actions += 1
        self.steps += 1
        self.known = {seat: owed(decisions_of(answer))}
        self.over = bool(answer.outcome_json)
        return time.perf_counter() - t0


async def play_streams(client: RulesClient, match_id: str, tokens: dict[int, str], seed: str,
                       sample: Sample, end: float) -> None:
    """One match played through one Play stream per seat: each seat acts on the decisions
    pushed to it. p50/p99 are from sending an action to its ActionResult; calls/s counts
    the actions sent (a stream's pushes are not calls). The match's streams close together
    when it ends or the window closes."""

    async def seat_loop(seat: int, token: str) -> None:
        bot = make_bot("random", f"{seed}:{seat}")
        call = client.stub.Play(metadata=call_metadata(token))
        await call.write(rules_pb2.PlayRequest(open=rules_pb2.PlayOpen(match_id=match_id)))
        sent: dict[str, float] = {}
        acted_at = -1
        latest: Any = None
        n = 0

        async def act(update: Any) -> None:
            nonlocal acted_at, n
            mine = owed(decisions_of(update))
            if not mine or update.version == acted_at:
                return
            acted_at = update.version
            command = f"p{seat}-{n}"
            n += 1
            sent[command] = time.perf_counter()
            sample.calls += 1
            await call.write(rules_pb2.PlayRequest(action=rules_pb2.PlayAction(
                command_id=command, expected_version=update.version,
                action_json=json.dumps(dict(bot.choose(mine[0]))))))

        try:
            while True:
                response = await call.read()
                if response is grpc.aio.EOF:
                    return
                kind = response.WhichOneof("kind")
                if kind == "result":
                    t = sent.pop(response.result.command_id, None)
                    if response.result.code == "OK":
                        if t is not None:
                            sample.latencies.append(time.perf_counter() - t)
                            sample.actions += 1
                    elif latest is not None:  # refused (a stale version): the next update, or again
                        acted_at = -1
                        await act(latest)
                elif kind == "update":
                    latest = response.update
                    if latest.outcome_json or time.perf_counter() >= end:
                        return
                    await act(latest)
        finally:
            call.cancel()

    tasks = [asyncio.create_task(seat_loop(seat, token)) for seat, token in sorted(tokens.items())]
    try:
        # the first seat to see the end (or the window close) ends the match for all: a seat
        # that owes nothing would wait on its stream forever
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def create(client: RulesClient, organiser: str, game: str, seed: str,
                 options: dict[str, Any] | None = None) -> tuple[str, dict[int, str]]:
    mode, seats = default_mode(game)
    created = await client.create(organiser, mode=mode, seats=seats, options=options or {},
                                  players=[f"bot:random-{seed}-{i}" for i in range(seats)])
    return created.match_id, {t.seat: t.token for t in created.seat_tokens}


async def measure_served(stack: Stack, game: str, matches: int, mode: str, seconds: float) -> Sample:
    client = RulesClient(stack.address(f"rules-{game}"), timeout=30)
    organiser = TokenIssuer(SECRET.encode()).issue("organiser", "*")
    sample = Sample()
    end = time.perf_counter() + seconds

    async def worker(w: int) -> None:
        m = 0
        while time.perf_counter() < end:
            match_id, tokens = await create(client, organiser, game, f"{w}-{m}")
            if mode == "play":
                await play_streams(client, match_id, tokens, f"{w}-{m}", sample, end)
                m += 1
                continue
            seats = Seats(client, match_id, tokens, f"{w}-{m}", sample, mode)
            while not seats.over and time.perf_counter() < end:
                await seats.step()
            m += 1

    start = time.perf_counter()
    with CpuMeter({"rules": stack.pid(f"rules-{game}"), "dice": stack.pid("dice")}) as meter:
        await asyncio.gather(*(worker(w) for w in range(matches)))
    sample.elapsed = time.perf_counter() - start
    sample.cpu = meter.used
    await client.close()
    return sample


async def measure_long_game(stack: Stack, actions: int, cap: float) -> dict[str, Any]:
    """Per-action wall time of the first and last 100 actions of one long match."""
    client = RulesClient(stack.address(f"rules-{LONG_GAME}"), timeout=30)
    organiser = TokenIssuer(SECRET.encode()).issue("organiser", "*")
    match_id, tokens = await create(client, organiser, LONG_GAME, "long", {"actions": actions})
    seats = Seats(client, match_id, tokens, "long", Sample(), "answer")
    times: list[float] = []
    deadline = time.perf_counter() + cap
    while not seats.over and time.perf_counter() < deadline:
        times.append(await seats.step())
    await client.close()
    window = min(100, max(1, len(times) // 4))
    first, last = times[:window], times[-window:]
    return {"played": len(times), "target": actions, "window": window,
            "first_ms": 1000 * statistics.mean(first), "last_ms": 1000 * statistics.mean(last)}


async def measure_live(stack: Stack, game: str, count: int, cap: float) -> dict[str, Any]:
    """RSS of the rules process before and after ``count`` live matches of one action each."""
    pid = stack.pid(f"rules-{game}")
    client = RulesClient(stack.address(f"rules-{game}"), timeout=60)
    organiser = TokenIssuer(SECRET.encode()).issue("organiser", "*")
    before = rss_kib(pid)
    made = 0
    deadline = time.perf_counter() + cap
    start = time.perf_counter()

    async def worker(w: int) -> None:
        nonlocal made
        while made < count and time.perf_counter() < deadline:
            made += 1
            match_id, tokens = await create(client, organiser, game, f"live-{w}-{made}")
            await Seats(client, match_id, tokens, f"live-{made}", Sample(), "answer").step()

    await asyncio.gather(*(worker(w) for w in range(IN_FLIGHT)))
    elapsed = time.perf_counter() - start
    after = rss_kib(pid)
    await client.close()
    return {"game": game, "live": made, "target": count, "before_kib": before, "after_kib": after,
            "per_match_kib": (after - before) / max(made, 1), "seconds": elapsed}


async def measure_restart(stack: Stack, game: str, count: int, cap: float) -> dict[str, Any]:
    """The first answer of each live match after the rules process is killed and started
    again: ``count`` matches are played 1-40 actions each (32 in flight), the process is
    killed (SIGKILL) and restarted, then each match, one at a time in a shuffled order, is
    asked for its next action (SubmitAction on the decisions its last answer carried, after a
    ListLegalActions when that answer owed nothing to the seat that acted). Each figure is
    the wall time from that match's first request to the action's answer: the rebuild from
    the store (snapshot, then the records after it) plus the action."""
    service = f"rules-{game}"
    client = RulesClient(stack.address(service), timeout=60)
    organiser = TokenIssuer(SECRET.encode()).issue("organiser", "*")
    tables: list[Seats] = []
    deadline = time.perf_counter() + cap
    made = 0

    async def worker(w: int) -> None:
        nonlocal made
        while made < count and time.perf_counter() < deadline:
            made += 1
            seed = f"restart-{w}-{made}"
            match_id, tokens = await create(client, organiser, game, seed)
            seats = Seats(client, match_id, tokens, seed, Sample(), "answer")
            for _ in range(1 + uuid.uuid5(uuid.NAMESPACE_URL, seed).int % 40):
                await seats.step()
                if seats.over:
                    break
            if not seats.over:
                tables.append(seats)

    await asyncio.gather(*(worker(w) for w in range(IN_FLIGHT)))
    await client.close()
    proc = stack.procs[service]
    proc.kill()
    proc.wait(10)
    stack._spawn(service)
    wait_healthy(stack.address(service), stack.procs[service], stack.workdir / f"{service}.log")
    client = RulesClient(stack.address(service), timeout=60)
    order = SeededRandomness("restart-order").shuffle(tables)
    firsts: list[float] = []
    for seats in order:
        seats.client = client
        firsts.append(await seats.step())
    await client.close()
    firsts.sort()
    return {"game": game, "matches": len(firsts), "target": count,
            "p50_ms": 1000 * firsts[len(firsts) // 2] if firsts else float("nan"),
            "p99_ms": 1000 * firsts[min(len(firsts) - 1, int(0.99 * len(firsts)))] if firsts else float("nan"),
            "max_ms": 1000 * firsts[-1] if firsts else float("nan"),
            "over_50": sum(1 for f in firsts if f > 0.050)}


# ---------------------------------------------------------------- the run


ECHO_PID: list[int] = []


def start_echo(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    log = open(workdir / "echo.log", "ab")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, __file__, "--echo-server", str(port)],
                            cwd=ROOT, stdout=log, stderr=log)
    address = f"127.0.0.1:{port}"
    ECHO_PID[:] = [proc.pid]

    async def ready() -> None:
        deadline = time.monotonic() + 20
        while True:
            try:
                async with grpc.aio.insecure_channel(address) as channel:
                    await channel.unary_unary(ECHO_METHOD)(b"", timeout=1)
                return
            except grpc.aio.AioRpcError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                await asyncio.sleep(0.1)

    asyncio.run(ready())
    return proc, address


Results = dict[tuple[str, ...], list[Sample]]


def run(profile: Profile) -> None:
    from services.platform import logs

    logs.configure("error")
    print(f"load average at start: {fmt_load()}  ({os.cpu_count()} cpus)", flush=True)
    results: Results = defaultdict(list)
    extras: dict[str, Any] = {}
    workdir = Path(tempfile.mkdtemp(prefix="bench-served-"))
    echo, echo_address = start_echo(workdir)
    try:
        for r in range(profile.rounds):
            print(f"round {r + 1}/{profile.rounds} ...", flush=True)
            for db in profile.dbs:
                one_round(profile, db, echo_address, workdir / f"r{r}-{db}", results, extras,
                          last=r == profile.rounds - 1)
    finally:
        echo.terminate()
        echo.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)
    report(profile, results, extras)
    print(f"load average at end: {fmt_load()}")


def one_round(profile: Profile, db: str, echo_address: str, workdir: Path, results: Results,
              extras: dict[str, Any], last: bool) -> None:
    workdir.mkdir(parents=True)
    results[("echo", "1")].append(asyncio.run(measure_echo(echo_address, profile.seconds, 1)))
    results[("echo", str(IN_FLIGHT))].append(
        asyncio.run(measure_echo(echo_address, profile.seconds, IN_FLIGHT)))
    top = max(profile.matches)
    if top not in (1, IN_FLIGHT):
        results[("echo", str(top))].append(asyncio.run(measure_echo(echo_address, profile.seconds, top)))
    for game in profile.games:
        results[("pure", game)].append(measure_pure(game, profile.seconds))
    stack = Stack(db, [*profile.games, LONG_GAME], workdir).start()
    try:
        for game in profile.games:
            for matches in profile.matches:
                for mode in profile.clients:
                    results[("served", db, game, str(matches), mode)].append(asyncio.run(
                        measure_served(stack, game, matches, mode, profile.seconds)))
                # the other side again, so a slow phase of the machine hits both
                results[("echo", str(IN_FLIGHT))].append(
                    asyncio.run(measure_echo(echo_address, profile.seconds / 2, IN_FLIGHT)))
                results[("pure", game)].append(measure_pure(game, profile.seconds / 2))
        if last:
            extras[f"long {db}"] = asyncio.run(measure_long_game(stack, profile.long_actions, profile.cap))
            extras[f"live {db}"] = asyncio.run(measure_live(stack, profile.games[0], profile.live, profile.cap))
            if profile.restart:
                extras[f"restart {db}"] = asyncio.run(
                    measure_restart(stack, profile.games[0], profile.restart, profile.cap))
    finally:
        stack.stop()


def spread(values: list[float], digits: int = 0) -> str:
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:,.{digits}f}"
    return f"{med:,.{digits}f} ({min(values):,.{digits}f}-{max(values):,.{digits}f})"


def report(profile: Profile, results: Results, extras: dict[str, Any]) -> None:
    echo32 = statistics.median(s.call_rate for s in results[("echo", str(IN_FLIGHT))])
    print()
    print("limits (median (min-max) over rounds)")
    for in_flight in sorted({"1", str(IN_FLIGHT), str(max(profile.matches))}, key=int):
        samples = results.get(("echo", in_flight))
        if not samples:
            continue
        print(f"  grpc.aio echo, {in_flight:>2} in flight: {spread([s.call_rate for s in samples])} calls/s, "
              f"p50 {spread([1000 * s.percentile(0.5) for s in samples], 2)} ms, "
              f"p99 {spread([1000 * s.percentile(0.99) for s in samples], 2)} ms")
    pure = {}
    for game in profile.games:
        samples = results[("pure", game)]
        pure[game] = statistics.median(s.rate for s in samples)
        print(f"  pure engine {game} ({default_mode(game)[0]}, random bots): "
              f"{spread([s.rate for s in samples])} actions/s")
    print()
    print(f"{TABLE_TITLE} (separate processes; ratios against echo {IN_FLIGHT} in flight and the pure engine)")
    header = (f"  {'db':<8} {'game':<11} {'matches':>7} {'client':<6} {'actions/s':>22} {'calls/s':>22} "
              f"{'p50 ms':>18} {'p99 ms':>20} {'calls/echo':>10} {'actions/echo':>12} {'actions/pure':>12}")
    print(header)
    for key, samples in results.items():
        if key[0] != "served":
            continue
        _, db, game, matches, mode = key
        rate = statistics.median(s.rate for s in samples)
        calls = statistics.median(s.call_rate for s in samples)
        print(f"  {db:<8} {game:<11} {matches:>7} {mode:<6} {spread([s.rate for s in samples]):>22} "
              f"{spread([s.call_rate for s in samples]):>22} "
              f"{spread([1000 * s.percentile(0.5) for s in samples], 1):>18} "
              f"{spread([1000 * s.percentile(0.99) for s in samples], 1):>20} "
              f"{calls / echo32:>10.3f} {rate / echo32:>12.3f} {rate / pure[game]:>12.4f}")
    print()
    echo_samples = results[("echo", str(IN_FLIGHT))]
    echo_cpu = {who: statistics.median(s.cpu_ms_per(who) for s in echo_samples) for who in ("client", "server")}
    echo_total = sum(echo_cpu.values())
    print(f"CPU per call or action, ms (median over rounds; PostgreSQL's own processes not counted). "
          f"echo {IN_FLIGHT} in flight: client {echo_cpu['client']:.3f}, server {echo_cpu['server']:.3f}")
    print(f"  {'db':<8} {'game':<11} {'matches':>7} {'client':<6} {'client':>8} {'rules':>8} {'dice':>8} "
          f"{'rules/echo server':>17} {'all/echo all':>12}")
    for key, samples in results.items():
        if key[0] != "served":
            continue
        _, db, game, matches, mode = key
        cpu = {who: statistics.median(s.cpu_ms_per(who) for s in samples) for who in ("client", "rules", "dice")}
        print(f"  {db:<8} {game:<11} {matches:>7} {mode:<6} {cpu['client']:>8.3f} {cpu['rules']:>8.3f} "
              f"{cpu['dice']:>8.3f} {cpu['rules'] / echo_cpu['server']:>17.1f} "
              f"{sum(cpu.values()) / echo_total:>12.1f}")
    print()
    for db in profile.dbs:
        for game in profile.games:
            one = [statistics.median(s.rate for s in results[("served", db, game, "1", "answer")])] \
                if ("served", db, game, "1", "answer") in results else []
            top = str(max(profile.matches))
            many = results.get(("served", db, game, top, "answer"))
            if one and many and one[0]:
                print(f"  scaling {db} {game}: {top} matches / 1 match = "
                      f"{statistics.median(s.rate for s in many) / one[0]:.2f}x")
    print()
    for name, long in sorted((k, v) for k, v in extras.items() if k.startswith("long")):
        stopped = "" if long["played"] >= long["target"] else f" (stopped at the {profile.cap:.0f} s cap)"
        print(f"long match {name.split()[1]}: {long['played']} of {long['target']} actions{stopped}; "
              f"first {long['window']}: {long['first_ms']:.2f} ms/action, last {long['window']}: "
              f"{long['last_ms']:.2f} ms/action, last/first {long['last_ms'] / long['first_ms']:.2f}x")
    for name, live in sorted((k, v) for k, v in extras.items() if k.startswith("live")):
        stopped = "" if live["live"] >= live["target"] else f" (stopped at the {profile.cap:.0f} s cap)"
        print(f"live matches {name.split()[1]} ({live['game']}): {live['live']} of {live['target']}{stopped} "
              f"in {live['seconds']:.0f} s; rules RSS {live['before_kib'] / 1024:.0f} -> "
              f"{live['after_kib'] / 1024:.0f} MiB, {live['per_match_kib']:.1f} KiB per live match "
              f"({live['per_match_kib'] * 10_000 / 1024 / 1024:.2f} GiB at 10,000)")
    for name, after in sorted((k, v) for k, v in extras.items() if k.startswith("restart")):
        print(f"restart {name.split()[1]} ({after['game']}): {after['matches']} live matches (of "
              f"{after['target']} made; the rest ended) after SIGKILL and restart, one at a time: "
              f"first request to the next action's answer p50 {after['p50_ms']:.1f} ms, p99 "
              f"{after['p99_ms']:.1f} ms, max {after['max_ms']:.1f} ms; {after['over_50']} over 50 ms")


def fmt_load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def parse(argv: list[str] | None = None) -> tuple[argparse.Namespace, Profile]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run for CI (seconds)")
    parser.add_argument("--games", default="neon-reign,neon")
    parser.add_argument("--matches", default="", help="concurrent matches, e.g. 1,8,64")
    parser.add_argument("--clients", default=",".join(CLIENT_MODES),
                        help="client modes: answer, legal, play (Play streams)")
    parser.add_argument("--db", default="", help="sqlite,postgres (postgres needs DATABASE_URL)")
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=0, help="length of each timed run")
    parser.add_argument("--long-actions", type=int, default=0)
    parser.add_argument("--live", type=int, default=0, help="live matches for the RSS figure")
    parser.add_argument("--restart", type=int, default=-1,
                        help="live matches asked after a restart of the rules process (0: skip)")
    parser.add_argument("--cap", type=float, default=0, help="seconds cap of the long and live runs")
    parser.add_argument("--echo-server", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    quick = args.quick
    dbs = args.db.split(",") if args.db else ["sqlite", *(["postgres"] if os.environ.get("DATABASE_URL") else [])]
    if "postgres" in dbs and not os.environ.get("DATABASE_URL"):
        parser.error("--db postgres needs DATABASE_URL")
    profile = Profile(
        seconds=args.seconds or (1.0 if quick else 5.0),
        rounds=args.rounds or (1 if quick else 3),
        matches=[int(m) for m in (args.matches or ("1,8" if quick else "1,8,64")).split(",")],
        games=[g for g in args.games.split(",") if g],
        dbs=dbs,
        long_actions=args.long_actions or (120 if quick else 2_000),
        live=args.live or (64 if quick else 10_000),
        cap=args.cap or (20.0 if quick else 300.0),
        clients=[c for c in args.clients.split(",") if c],
        restart=args.restart if args.restart >= 0 else (64 if quick else 1_000),
    )
    unknown = set(profile.clients) - set(CLIENT_MODES)
    if unknown:
        parser.error(f"unknown client modes: {', '.join(sorted(unknown))}")
    return args, profile


def main(argv: list[str] | None = None) -> None:
    args, profile = parse(argv)
    if args.echo_server:
        asyncio.run(echo_server(args.echo_server))
        return
    engines = [e for e in os.environ.get("NEON_ENGINES", "").split(",") if e]
    os.environ["NEON_ENGINES"] = ",".join([*engines, f"{LONG_GAME}=bench.longgame"])
    run(profile)



if __name__ == "__main__":
    main()
