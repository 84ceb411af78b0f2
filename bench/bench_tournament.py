"""A tournament at the size organisers run, over the real services: what each served call
costs as the event's log grows.

Usage: python bench/bench_tournament.py [--players 256] [--rounds 7] [--watchers 0]
       [--format swiss] [--no-export]

Starts a backend in this process (dice, Neon Reign's rules service, the tournament service;
real gRPC sockets, SQLite in a temporary folder, the NATS of NATS_URL or a bundled one),
creates a Swiss of ``--players`` players and plays ``--rounds`` rounds without bots: the
organiser sets every table's result (CorrectResult, which abandons the table's match), so the
figures are the tournament service's own, not the games'. ``--watchers`` WatchTournament
streams follow the event throughout (the organiser's token), as a room of spectators would.

Per round it prints: NextRound's wall time (pairing, and the creation of every table's match
on the rules service), the corrections' wall and CPU time (each a save, an abandon, the
round driver's pass, and every watcher's update), then the median of 5 calls of
GetTournament, GetStandings, GetRound, ListTournaments and MyNextMatch, the updates the
watchers received, and the process's peak RSS. At the end: the bundle's size and its export
(ExportTournamentChunks) and offline verification (``verify_bundle``) times, and the load
average at start and end.

Client and services share the process (and its CPU): the CPU figures include the client's
calls, a small part. ``--profile FILE`` writes cProfile's statistics of the whole run to FILE
(``python -m pstats FILE``), with the service's threads run inline (``asyncio.to_thread``
calls its function on the event loop), so the profile sees the store's work too; the
figures of such a run are the profiler's, not for comparison. To compare with the code of another commit, run this file with that
tree first on PYTHONPATH (``git archive REV services | tar -x -C DIR``).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # after PYTHONPATH: a baseline tree given there wins


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (1 min), {five:.2f} (5 min)"


async def median_ms(n: int, call: Any) -> float:
    took = []
    for _ in range(n):
        t0 = time.perf_counter()
        await call()
        took.append(time.perf_counter() - t0)
    return statistics.median(took) * 1000


async def run(players: int, rounds: int, watchers: int, fmt: str, export: bool) -> int:
    from services.cli.backend import start_backend
    from services.cli.tournament_commands import TournamentClient, fetch_bundle, format_json
    from services.genproto.neon.tournament.v1 import tournament_pb2 as pb
    from services.platform.grpc_kit import call_metadata
    from services.platform.settings import DEFAULT_PORTS, Settings
    from services.tournament.bundle import verify_bundle

    print(f"load average at start: {load()}")
    var = Path(tempfile.mkdtemp(prefix="bench-tournament-"))
    settings = dataclasses.replace(
        Settings(), var_dir=var, persistence="sqlite", ports=dict.fromkeys(DEFAULT_PORTS, 0),
        log_level="warning", nats_url=os.environ.get("NATS_URL", ""),
        namespace=os.environ.get("NEON_NAMESPACE", ""))
    b = await start_backend(settings, games=["neon-reign"], tournament=True)
    c = TournamentClient(b.address("tournament"), timeout=300)
    org = b.issuer.issue("organiser", "*", player="org", ttl=36000)
    names = [f"p{i:03d}" for i in range(players)]
    tokens = {n: b.issuer.issue("player", "*", player=n, ttl=36000) for n in names}
    tid = "bench"
    updates = [0] * watchers
    streams: list[asyncio.Task[None]] = []
    rng = random.Random(1)
    try:
        t0 = time.perf_counter()
        await c.call("CreateTournament", org, tournament_id=tid, game="neon-reign",
                     mode="single", format_json=format_json(fmt, rounds))
        await c.call("OpenRegistration", org, tournament_id=tid)
        for n in names:
            await c.call("Register", tokens[n], tournament_id=tid)
        await c.call("StartTournament", org, tournament_id=tid)
        print(f"{players} players, {fmt}, {rounds} rounds, {watchers} watchers: created, "
              f"registered and started in {time.perf_counter() - t0:.1f} s")

        async def watch(i: int) -> None:
            stream = c.stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tid),
                                            metadata=call_metadata(org))
            async for _ in stream:
                updates[i] += 1

        streams = [asyncio.create_task(watch(i)) for i in range(watchers)]
        for number in range(1, rounds + 1):
            w0 = time.perf_counter()
            paired = await c.call("NextRound", org, tournament_id=tid, round=number)
            pairing = time.perf_counter() - w0
            tables = [t for t in paired.round.tables if not t.bye]
            c1, w1 = time.process_time(), time.perf_counter()
            for t in tables:
                await c.call("CorrectResult", org, tournament_id=tid, round=number,
                             table=t.number, placements=rng.choice([[1, 2], [2, 1], [1, 1]]),
                             reason="bench")
            cpu, wall = time.process_time() - c1, time.perf_counter() - w1
            while not (await c.call("GetRound", tournament_id=tid, round=number)).round.complete:
                await asyncio.sleep(0.1)
            got = {
                "GetTournament": await median_ms(5, lambda: c.call(
                    "GetTournament", tournament_id=tid)),
                "GetStandings": await median_ms(5, lambda: c.call(
                    "GetStandings", tournament_id=tid)),
                "GetRound": await median_ms(5, lambda n=number: c.call(
                    "GetRound", tournament_id=tid, round=n)),
                "ListTournaments": await median_ms(5, lambda: c.call("ListTournaments")),
                "MyNextMatch": await median_ms(5, lambda: c.call(
                    "MyNextMatch", tokens[names[0]], tournament_id=tid)),
            }
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"round {number}: NextRound {pairing * 1000:.0f} ms; {len(tables)} results "
                  f"{wall:.1f} s wall, {cpu:.1f} s CPU ({wall / max(1, len(tables)) * 1000:.0f} "
                  "ms each); " + ", ".join(f"{k} {v:.1f} ms" for k, v in got.items())
                  + f"; watchers' updates {sum(updates)}; peak RSS {rss:.0f} MB", flush=True)
        await c.call("FinishTournament", org, tournament_id=tid)
        if export:
            w0 = time.perf_counter()
            pieces: list[bytes] = []
            matches, checkpoints = await fetch_bundle(c, org, tid, pieces.append)
            bundle = b"".join(pieces)
            exported = time.perf_counter() - w0
            w0 = time.perf_counter()
            report = await asyncio.to_thread(verify_bundle, bundle)
            verified = time.perf_counter() - w0
            print(f"bundle: {len(bundle):,} bytes, {matches} matches, {checkpoints} "
                  f"checkpoints; export {exported:.1f} s, verify {verified:.1f} s "
                  f"({verified / max(1, matches) * 100:.2f} s per 100 matches): "
                  f"{'verified' if report.ok else 'FAILED ' + report.failure}")
            if not report.ok:
                return 1
        print(f"total CPU {time.process_time():.1f} s")
        print(f"load average at end: {load()}")
        return 0
    finally:
        for s in streams:
            s.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
        await c.close()
        await b.stop(1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=256)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--watchers", type=int, default=0)
    ap.add_argument("--format", default="swiss")
    ap.add_argument("--no-export", action="store_true", help="skip the bundle's export and verify")
    ap.add_argument("--profile", metavar="FILE", help="write cProfile's statistics to FILE")
    a = ap.parse_args()
    if not a.profile:
        return asyncio.run(run(a.players, a.rounds, a.watchers, a.format, not a.no_export))
    return profiled(a.profile, run(a.players, a.rounds, a.watchers, a.format, not a.no_export))


def profiled(path: str, main: Any) -> int:
    """Run ``main`` under cProfile, ``asyncio.to_thread`` inline (a thread's work is not
    seen by the profiler of the event loop's thread), and write the statistics to ``path``."""
    import cProfile

    async def inline(func: Any, /, *args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    asyncio.to_thread = inline  # type: ignore[assignment]
    profile = cProfile.Profile()
    try:
        return int(profile.runcall(asyncio.run, main))
    finally:
        profile.dump_stats(path)


if __name__ == "__main__":
    sys.exit(main())
