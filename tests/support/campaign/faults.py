"""Fault injection: services as OS processes, killed, frozen or cut off from their store in turn
while matches are played.

Every service of the build runs as its own ``neon serve`` process (tests/e2e/procs.py) on
its own NATS server (a bundled nats-server the campaign starts, kills and freezes) and SQLite
or a PostgreSQL cluster the campaign starts itself (tests/support/pgcluster.py, never the
machine's shared one) and stops for a few seconds mid-run. The faults, in turn:

- ``rules-toy``, ``dice``, ``matchmaking``, ``scoring``, ``nats``: SIGKILL, then start again;
- ``nats-freeze``: SIGSTOP the nats-server for ``freeze`` seconds, then SIGCONT;
- ``postgres``: stop the cluster (``pg_ctl -m immediate``) for ``pg_stop`` seconds, then start it.

Clients play concurrent matches of the toy engine ("Hidden Race") and keep a ledger of every
action the server acknowledged; a client that gets UNAVAILABLE, DEADLINE_EXCEEDED or ABORTED
repeats the same command id (a repeat is answered from the log, never applied twice). Any
other status is "unexpected". At the end, per match: the stored ActionAccepted command ids equal
the acknowledged ones (else "lost" or "doubled"), and the export verifies offline.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from services.cli.client import RulesClient
from services.genproto.neon.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from services.platform.natsrv import EmbeddedNats, free_port, port_open
from services.platform.settings import DEFAULT_PORTS
from services.platform.tokens import TokenIssuer
from services.rules.verify import verify_export
from tests.e2e.procs import Cluster, port_env, service_env, services_in_build
from tests.support import toy
from tests.support.pgcluster import PgCluster, binaries

SECRET = "campaign-token-secret-0123456789abcdef"
SIGNING = "22" * 32
ENGINES = "toy=tests.support.toy"
RETRY = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.ABORTED)
VICTIMS = ("rules-toy", "dice", "matchmaking", "scoring", "nats")  # SIGKILLed
OUTAGES = ("nats-freeze", "postgres")  # frozen, or stopped, then let go again
FAULTS = (*VICTIMS, *OUTAGES)


@dataclass
class FaultReport:
    matches: int = 0
    finished: int = 0
    requests: int = 0
    actions: int = 0
    kills: Counter[str] = field(default_factory=Counter)
    outages: Counter[str] = field(default_factory=Counter)
    outage_seconds: float = 0.0
    retried: Counter[str] = field(default_factory=Counter)
    unexpected: list[str] = field(default_factory=list)
    lost: int = 0
    doubled: int = 0
    unverified: list[str] = field(default_factory=list)
    scored: int = 0
    log: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"matches {self.matches} (finished {self.finished}), requests {self.requests}, "
                f"actions {self.actions}, kills {sum(self.kills.values())} {dict(self.kills)}, "
                f"outages {sum(self.outages.values())} {dict(self.outages)} "
                f"({self.outage_seconds:.0f} s), "
                f"retried {dict(self.retried)}, unexpected {len(self.unexpected)}, lost {self.lost}, "
                f"doubled {self.doubled}, unverified {len(self.unverified)}, scored {self.scored}")


def stopped(pid: int, timeout: float = 2.0) -> bool:
    """Whether process ``pid`` is in the stopped state (T), within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # the state follows the command name, which is in parentheses
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T":
            return True
        time.sleep(0.02)
    return False


class Campaign:
    def __init__(self, folder: Path, persistence: dict[str, str] | None = None,
                 call_timeout: float = 3.0, seed: int = 0, store: str = "sqlite",
                 freeze: tuple[float, float] = (10.0, 20.0),
                 pg_stop: tuple[float, float] = (3.0, 6.0)) -> None:
        """``store`` "postgres" starts a throwaway cluster (needs the PostgreSQL binaries);
        ``freeze`` and ``pg_stop`` are the (min, max) seconds of those outages."""
        self.folder, self.call_timeout = folder, call_timeout
        self.freeze, self.pg_stop = freeze, pg_stop
        self.random = random.Random(seed)  # only picks fault moments: no game randomness here
        self.nats = EmbeddedNats(folder / "nats", port=free_port())
        self.postgres: PgCluster | None = None
        if store == "postgres":
            found = binaries()
            if found is None:
                raise RuntimeError("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
            self.postgres = PgCluster(found)
            persistence = {"NEON_PERSISTENCE": "postgres", "DATABASE_URL": self.postgres.url,
                           **(persistence or {})}
        env = {
            "NATS_URL": self.nats.url, "NEON_VAR_DIR": str(folder / "var"),
            "NEON_TOKEN_SECRET": SECRET, "NEON_SIGNING_KEY": SIGNING, "NEON_ENGINES": ENGINES,
            "NEON_GRACE_SECONDS": "2", "NEON_PERSISTENCE": "sqlite", "NEON_LOG_LEVEL": "info",
            "NEON_CALL_TIMEOUT": str(call_timeout), "NEON_MATCHMAKING_INTERVAL": "0.2",
            **port_env([*DEFAULT_PORTS, "rules-toy"]),
            **(persistence or {}),
        }
        env["NEON_DICE_ADDR"] = f"127.0.0.1:{env['NEON_DICE_PORT']}"
        self.env = service_env(env)
        self.organiser = TokenIssuer(SECRET.encode()).issue("organiser", "*")
        self.report = FaultReport()
        self.acked: dict[str, list[str]] = {}
        self.cluster: Cluster | None = None
        self.tag = uuid.uuid4().hex[:6]

    # -- the services -------------------------------------------------------------------

    def start(self) -> None:
        if self.postgres is not None:
            self.postgres.init().start()
        self.nats.start()
        services = [s for s in services_in_build(ENGINES) if s in ("dice", "rules-toy", "scoring",
                                                                    "matchmaking")]
        self.cluster = Cluster(services, self.env, self.folder).start()

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()
        if self.nats.process is not None and self.nats.process.poll() is None:
            self.nats.process.send_signal(signal.SIGCONT)  # a frozen server cannot exit
        self.nats.stop()
        if self.postgres is not None:
            self.postgres.destroy()

    def inject(self, fault: str) -> None:
        """One fault of FAULTS; one that this campaign cannot inject (no PostgreSQL, a
        service not in the build) is passed over."""
        if fault == "nats-freeze":
            self.freeze_nats(self.random.uniform(*self.freeze))
        elif fault == "postgres":
            if self.postgres is not None:
                self.stop_postgres(self.random.uniform(*self.pg_stop))
        else:
            self.kill(fault)

    def freeze_nats(self, seconds: float) -> None:
        """SIGSTOP the nats-server for ``seconds``, then SIGCONT: a hung, not a dead, server."""
        assert self.nats.process is not None
        self.nats.process.send_signal(signal.SIGSTOP)
        try:
            if not stopped(self.nats.process.pid):
                raise RuntimeError("nats-server did not stop on SIGSTOP")
            time.sleep(seconds)
        finally:
            self.nats.process.send_signal(signal.SIGCONT)
        self.note("nats-freeze", seconds)

    def stop_postgres(self, seconds: float) -> None:
        """Stop the campaign's own PostgreSQL cluster for ``seconds``, then start it again."""
        assert self.postgres is not None
        self.postgres.stop()
        try:
            if port_open("127.0.0.1", self.postgres.port):
                raise RuntimeError("PostgreSQL still accepts connections after pg_ctl stop")
            time.sleep(seconds)
        finally:
            self.postgres.start()
        self.note("postgres", seconds)

    def note(self, outage: str, seconds: float) -> None:
        self.report.outages[outage] += 1
        self.report.outage_seconds += seconds
        self.report.log.append(f"{time.strftime('%H:%M:%S')} {outage} for {seconds:.1f} s")

    def kill(self, victim: str) -> None:
        """SIGKILL one service (or NATS) and start it again."""
        assert self.cluster is not None
        if victim == "nats":
            assert self.nats.process is not None
            self.nats.process.kill()
            self.nats.process.wait(10)
            time.sleep(0.3)
            self.nats.start()
        elif victim in self.cluster.procs:
            self.cluster[victim].kill()
            time.sleep(0.2)
            self.cluster[victim].start()
        else:
            return
        self.report.kills[victim] += 1
        self.report.log.append(f"{time.strftime('%H:%M:%S')} killed {victim}")

    # -- the players --------------------------------------------------------------------

    async def call(self, what: str, make: Any) -> Any:
        """A call repeated while the answer is one a client may retry; None when unexpected."""
        for _ in range(400):
            self.report.requests += 1
            try:
                return await make()
            except grpc.aio.AioRpcError as err:
                if err.code() in RETRY:
                    self.report.retried[err.code().name] += 1
                    await asyncio.sleep(0.1)
                    continue
                self.report.unexpected.append(
                    f"{time.strftime('%H:%M:%S')} {what}: {err.code().name} {err.details()}")
                return None
        self.report.unexpected.append(f"{what}: no answer after 400 tries")
        return None

    async def play(self, client: RulesClient, match_id: str, think: float) -> None:
        self.report.matches += 1
        created = await self.call(f"create {match_id}", lambda: client.create(
            self.organiser, match_id=match_id, mode="race", seats=2))
        if created is None:
            return
        tokens = {t.seat: t.token for t in created.seat_tokens}
        acked = self.acked.setdefault(match_id, [])
        for _ in range(200):
            view = await self.call(f"view {match_id}", lambda: client.view(match_id))
            if view is None:
                return
            if not view.pending:
                self.report.finished += 1
                return
            seat = view.pending[0].seat
            step = len(acked)
            command_id = f"{match_id}-c{step}"
            action = {"type": "pick", "step": 1 + step % 3}
            answer = await self.call(f"submit {command_id}", lambda s=seat, c=command_id, a=action:
                                     client.submit(tokens[s], match_id, c, a))
            if answer is None:
                return
            acked.append(command_id)
            self.report.actions += 1
            await asyncio.sleep(think)

    async def player(self, client: RulesClient, index: int, ids: list[str], done: asyncio.Event,
                     think: float) -> None:
        """Matches one after another until the chaos is over; the last one is played out."""
        round_ = 0
        while not done.is_set():
            match_id = f"fault-{self.tag}-{index}-{round_}"
            ids.append(match_id)
            await self.play(client, match_id, think)
            round_ += 1

    async def chaos(self, done: asyncio.Event, pause: float, cycles: int,
                    faults: tuple[str, ...]) -> None:
        """Every fault in turn, ``cycles`` times, ``pause`` seconds (on average) apart."""
        for turn in range(cycles * len(faults)):
            await asyncio.sleep(pause * (0.5 + self.random.random()))
            await asyncio.to_thread(self.inject, faults[turn % len(faults)])
        await asyncio.sleep(pause)  # some play after the last fault
        done.set()

    async def run(self, players: int = 6, pause: float = 1.0, cycles: int = 1,
                  think: float = 0.2, faults: tuple[str, ...] = VICTIMS) -> FaultReport:
        """Matches played by ``players`` clients while ``faults`` happen, then the checks."""
        assert self.cluster is not None
        address = self.cluster["rules-toy"].address
        client = RulesClient(address, timeout=self.call_timeout)
        ids: list[str] = []
        done = asyncio.Event()
        await asyncio.gather(self.chaos(done, pause, cycles, faults),
                             *(self.player(client, i, ids, done, think) for i in range(players)))
        for match_id in ids:
            await self.check(client, match_id)
        await client.close()
        await self.check_scores(ids)
        return self.report

    async def check(self, client: RulesClient, match_id: str) -> None:
        reply = await self.call(f"export {match_id}", lambda: client.export(self.organiser, match_id))
        if reply is None:
            self.report.unverified.append(f"{match_id}: no export")
            return
        rows = [json.loads(line) for line in reply.export_jsonl.splitlines()]
        stored = [r["command_id"] for r in rows if r.get("type") == "ActionAccepted"]
        acked = self.acked.get(match_id, [])
        self.report.lost += len([c for c in acked if c not in stored])
        self.report.doubled += len(stored) - len(set(stored)) + len(
            [c for c in stored if c not in acked])
        result = verify_export(reply.export_jsonl, engine=toy.ENGINE)
        if not result.ok:
            self.report.unverified.append(f"{match_id}: {result.failure}")

    async def check_scores(self, ids: list[str], timeout: float = 30.0) -> None:
        """Every finished match reaches scoring once (signed results, through the NATS kills)."""
        assert self.cluster is not None
        if "scoring" not in self.cluster.procs:
            return
        from services.platform.grpc_kit import channel

        ch = channel(self.cluster["scoring"].address)
        stub = scoring_pb2_grpc.ScoringServiceStub(ch)
        deadline = time.monotonic() + timeout
        sequences: set[int] = set()
        pending = set(ids)
        while pending and time.monotonic() < deadline:
            for match_id in sorted(pending):
                try:
                    reply = await stub.GetMatchResult(
                        scoring_pb2.GetMatchResultRequest(match_id=match_id, game="toy"), timeout=3)
                except grpc.aio.AioRpcError:
                    continue
                pending.discard(match_id)
                if reply.result.sequence in sequences:
                    self.report.doubled += 1
                sequences.add(reply.result.sequence)
            await asyncio.sleep(0.3)
        self.report.scored = len(ids) - len(pending)
        await ch.close()
