"""Matchmaking cycle: time and rating spread, against first-come-first-served, same run.

Usage: python bench/bench_matchmaking.py [--sizes 10000 100000] [--seed 1] [--repeats 3]
                                         [--stores memory sqlite postgres] [--no-service]

For each queue size and each scenario (Neon Reign 1v1; NEON with parties, seat limits,
several modes and Coalition teams) it builds that many waiting tickets and measures, in
the same run, ``--repeats`` times (median and range):

- rating-aware: one pass of the pure grouping (services/matchmaking/grouping.py), from
  entries to groups with their seats (``form_groups``), and as the service's cycle runs it:
  over the columns the service keeps between cycles, groups as columns (``group_tickets``);
- first-come: a naive first-come-first-served grouping (queue order, parties kept whole,
  no ratings) over the same tickets: the baseline of the spread and the time;
- service cycle: one whole ``Matchmaker.cycle()`` of the matchmaking service over the same
  tickets held as event-sourced Ticket aggregates (expiry, snapshot, grouping, proposals and
  their durable record: one ProposalBatch and the game's Queue version, one transaction)
  on each store: ``memory`` (no durability), ``sqlite`` (a fresh file), ``postgres`` (a
  fresh schema on DATABASE_URL, dropped afterwards; skipped when DATABASE_URL is unset).
  The tickets are saved to the store and held in memory as after their CreateTicket calls;
  the ratings lookup (a network call to scoring) is made before the timed cycle. What the
  service does per ticket as it arrives (its row in the grouping's columns, its ratings) is
  timed apart: "admission", outside the cycle.

Times are wall clock and CPU time of this process ("per core": the work one core does; on
PostgreSQL the server's own CPU is not in it, the wall clock is). The load average is
printed at the start and the end: compare ratios within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.matchmaking.app import MatchmakingApplication  # noqa: E402
from services.matchmaking.catalogue import Catalogue, ModeSpec  # noqa: E402
from services.matchmaking.config import Config  # noqa: E402
from services.matchmaking.domain import Ticket  # noqa: E402
from services.matchmaking.grouping import (  # noqa: E402
    Entry,
    Group,
    Policy,
    Seat,
    Tickets,
    form_groups,
    group_tickets,
)
from services.matchmaking.matchmaker import Matchmaker  # noqa: E402
from services.matchmaking.ratings import StaticRatings  # noqa: E402
from services.matchmaking.rules_port import RulesGateway  # noqa: E402
from services.platform import logs  # noqa: E402
from services.platform.settings import load  # noqa: E402
from services.platform.store import eventsourcing_env, open_application  # noqa: E402
from tests.support.mm_games import GAMES  # noqa: E402

ISSUE_18 = {"neon-reign": "11.9 s rating-aware, 41 s with saves (issue 18, 100k)",
            "neon": "4.6 s rating-aware, 13.5 s with saves (bench/README.md before, 100k)"}


def tickets(scenario: str, n: int, seed: int) -> list[Entry]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        skill = rng.gauss(10.0, 8.0)
        if scenario == "neon-reign":
            size, modes, lo, hi = 1, ("single",), 2, 2
        else:
            size = rng.choices((1, 2, 3), (70, 20, 10))[0]
            modes = rng.choice((("rebirth",), ("battle-royale",), ("rebirth", "coalition"),
                                ("coalition",) if size <= 3 else ("rebirth",)))
            lo, hi = rng.choice(((2, 6), (3, 4), (4, 6), (2, 6)))
            lo = max(lo, size)
        ratings = tuple(skill + rng.uniform(-3, 3) for _ in range(size))
        out.append(Entry(f"t{i}", tuple(f"p{i}-{k}" for k in range(size)), ratings, modes, lo, hi,
                         waited=rng.uniform(0, 60), allow_bots=rng.random() < 0.3))
    return out


def first_come(modes: tuple[ModeSpec, ...], entries: list[Entry]) -> list[Group]:
    """Queue order; each ticket opens a table of its largest seat count or joins the open one."""
    groups: list[Group] = []
    used: set[str] = set()
    for mode in modes:
        open_tables: dict[int, list[Entry]] = {}
        for e in sorted(entries, key=lambda e: -e.waited):
            if mode.name not in e.modes or e.ticket_id in used:
                continue
            counts = [s for s in mode.seat_counts() if e.min_seats <= s <= e.max_seats and e.size <= s]
            if not counts or (mode.teams and e.size > max(t for _, t in mode.team_layouts)):
                continue
            seats = max(counts)
            table = open_tables.setdefault(seats, [])
            if sum(x.size for x in table) + e.size > seats:
                continue
            table.append(e)
            if sum(x.size for x in table) == seats:
                used.update(x.ticket_id for x in table)
                groups.append(Group(mode.name, tuple(Seat(p, x.ticket_id, r) for x in table
                                                     for p, r in zip(x.players, x.ratings)),
                                    tuple(x.ticket_id for x in table)))
                open_tables[seats] = []
    return groups


def spread_stats(groups: list[Group]) -> tuple[float, float, int]:
    spreads = sorted(g.spread for g in groups)
    if not spreads:
        return 0.0, 0.0, 0
    p95 = spreads[min(len(spreads) - 1, int(0.95 * len(spreads)))]
    seated = sum(len(g.seats) - g.bots for g in groups)
    return statistics.fmean(spreads), p95, seated


def old_grouping(ref: str) -> Any:
    """services/matchmaking/grouping.py as it was at git ``ref`` (the path before this work),
    loaded as a module of its own so that both run side by side."""
    import importlib.util
    import subprocess

    root = Path(__file__).resolve().parents[1]
    source = subprocess.run(["git", "-C", str(root), "show", f"{ref}:services/matchmaking/grouping.py"],
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="bench-mm-old-")) / "old_grouping.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_grouping", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["old_grouping"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}  ({os.cpu_count()} cpus)"


def spans(values: list[float], scale: float = 1000.0, fmt: str = ".0f") -> str:
    """Median (min-max) of ``values`` times ``scale``."""
    v = [x * scale for x in values]
    return f"{statistics.median(v):{fmt}} ({min(v):{fmt}}-{max(v):{fmt}})"


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """Result, wall seconds, CPU seconds of this process (every thread)."""
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


class Store:
    """A fresh store of one kind for one measurement: a SQLite file or a PostgreSQL schema."""

    def __init__(self, kind: str, workdir: Path) -> None:
        self.kind, self.schema = kind, ""
        env = {"NEON_PERSISTENCE": kind, "NEON_VAR_DIR": str(workdir / uuid.uuid4().hex[:8])}
        if kind == "postgres":
            import psycopg

            self.schema = f"bench_mm_{uuid.uuid4().hex[:10]}"
            with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
                conn.execute(f'CREATE SCHEMA "{self.schema}"')
            env.update(DATABASE_URL=os.environ["DATABASE_URL"], NEON_POSTGRES_SCHEMA=self.schema,
                       POSTGRES_PASSWORD=os.environ.get("POSTGRES_PASSWORD", ""))
        settings = load(env)
        self.app = open_application(settings, lambda: MatchmakingApplication(
            env={**eventsourcing_env(settings, "matchmaking"), "AGGREGATE_CACHE_MAXSIZE": "5000"}))

    def close(self) -> None:
        self.app.close()
        if self.schema:
            import psycopg

            with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{self.schema}" CASCADE')


async def service_cycle(scenario: str, entries: list[Entry], store: Store
                        ) -> tuple[float, float, float, dict[str, float], list[Group]]:
    """One ``Matchmaker.cycle()`` over ``entries`` queued as Ticket aggregates in ``store``."""
    now = time.time()
    app = store.app
    table: dict[str, float] = {}
    tickets = []
    for e in entries:
        table.update(zip(e.players, e.ratings))
        resolved = {"game": scenario, "modes": list(e.modes), "players": list(e.players),
                    "min_seats": e.min_seats, "max_seats": e.max_seats, "region": e.region,
                    "rating_window": e.rating_window, "allow_bots": e.allow_bots}
        tickets.append(Ticket(e.ticket_id, resolved, resolved, now - e.waited, "bench"))
    rules = RulesGateway(lambda game: None, "", 1.0)
    mm = Matchmaker(app, rules, StaticRatings(table), Config(ticket_ttl=3600),
                    Catalogue({scenario: GAMES[scenario]}))
    await mm.recover()  # an empty store; the tickets are then added as CreateTicket leaves them
    to_stored = app.mapper.to_stored_event
    for start in range(0, len(tickets), 5000):  # set-up: straight to the recorder, in chunks
        app.recorder.insert_events([to_stored(e) for t in tickets[start:start + 5000]
                                    for e in t.collect_events()])
    gc.collect()
    admission = time.process_time()
    for t in tickets:
        mm._remember(t)
    await mm._rate_new_tickets()  # includes the ratings lookup (a network call in the service)
    admission = time.process_time() - admission
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    groups = await mm.cycle()
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    assert len(mm.batches) == 1 and not mm.stale, "the cycle's batch was not saved"
    return wall, cpu, admission, mm.last_cycle, list(groups)


def run(scenario: str, n: int, seed: int, repeats: int, stores: list[str], workdir: Path,
        old: Any = None) -> None:
    modes = GAMES[scenario].modes
    entries = tickets(scenario, n, seed)
    policy = Policy()
    humans = sum(e.size for e in entries)
    print(f"\n{scenario} {n} tickets ({humans} players); before this work: {ISSUE_18[scenario]}")
    aware_w, aware_c, naive_w, naive_c, cols_w, cols_c = [], [], [], [], [], []
    columns, live, waits = Tickets.of(entries), range(len(entries)), [e.waited for e in entries]
    for _ in range(repeats):
        ours, w, c = timed(lambda: form_groups(modes, entries, policy))
        aware_w.append(w)
        aware_c.append(c)
        as_columns, w, c = timed(lambda: group_tickets(modes, columns, live, waits, policy))
        cols_w.append(w)
        cols_c.append(c)
        naive, w, c = timed(lambda: first_come(modes, entries))
        naive_w.append(w)
        naive_c.append(c)
    old_c: list[float] = []
    if old is not None:
        old_entries = [old.Entry(*e) for e in entries]
        old_policy = old.Policy(**policy.__dict__)
        for _ in range(repeats):
            theirs, _, c = timed(lambda: old.form_groups(modes, old_entries, old_policy))
            old_c.append(c)
        same = ([(g.mode, g.ticket_ids) for g in theirs] == [(g.mode, g.ticket_ids) for g in ours]
                == [(g.mode, g.ticket_ids) for g in as_columns])
    mo, po, so = spread_stats(ours)
    mn, pn, sn = spread_stats(naive)
    print(f"  {'':24} {'wall ms':>22} {'CPU ms':>22} {'matches':>8} {'seated':>7} "
          f"{'spread mean':>11} {'p95':>6}")
    print(f"  {'rating-aware grouping':24} {spans(aware_w):>22} {spans(aware_c):>22} "
          f"{len(ours):8} {so:7} {mo:11.2f} {po:6.2f}")
    print(f"  {'  on kept columns':24} {spans(cols_w):>22} {spans(cols_c):>22} {len(as_columns):8}")
    print(f"  {'first-come grouping':24} {spans(naive_w):>22} {spans(naive_c):>22} "
          f"{len(naive):8} {sn:7} {mn:11.2f} {pn:6.2f}")
    if old_c:
        print(f"  {'rating-aware, old code':24} {'':>22} {spans(old_c):>22}   "
              f"new/old CPU x{statistics.median(aware_c) / statistics.median(old_c):.2f}, "
              f"{'the same groups' if same else 'DIFFERENT GROUPS'}")
    print(f"  {'ratio aware/first-come':24} time x{statistics.median(aware_c) / statistics.median(naive_c):.2f} "
          f"(CPU), spread mean 1/{mn / mo if mo else float('inf'):.0f}, "
          f"p95 1/{pn / po if po else float('inf'):.1f}, seated x{so / sn if sn else 0:.2f}")
    for kind in stores:
        walls, cpus, saves, spreads, admissions = [], [], [], [], []
        count = 0
        for _ in range(repeats):
            store = Store(kind, workdir)
            try:
                wall, cpu, admitted, timing, groups = asyncio.run(
                    service_cycle(scenario, entries, store))
            finally:
                store.close()
            walls.append(wall)
            cpus.append(cpu)
            admissions.append(admitted)
            saves.append(timing["propose_and_save"])
            spreads.append(spread_stats(groups)[0])
            count = len(groups)
        label = f"service cycle, {kind}" + (" (no durability)" if kind == "memory" else "")
        print(f"  {label:24} {spans(walls):>22} {spans(cpus):>22} {count:8} {'':7} "
              f"{statistics.median(spreads):11.2f}   propose+save {spans(saves)} ms; "
              f"{n / statistics.median(cpus):,.0f} tickets per CPU-second; "
              f"admission (outside the cycle) {spans(admissions)} ms CPU")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scenarios", nargs="+", default=["neon-reign", "neon"])
    parser.add_argument("--stores", nargs="+", default=["memory", "sqlite", "postgres"],
                        choices=["memory", "sqlite", "postgres"])
    parser.add_argument("--old", default="", metavar="GIT_REF",
                        help="also run the grouping as it was at this git ref (e.g. main before "
                             "this work, af9380f), side by side")
    parser.add_argument("--no-service", action="store_true",
                        help="skip the whole-service cycle (event store included)")
    args = parser.parse_args()
    logs.configure("warning", "console")
    stores = [] if args.no_service else list(args.stores)
    if "postgres" in stores and not os.environ.get("DATABASE_URL"):
        print("postgres: skipped (DATABASE_URL is not set)")
        stores.remove("postgres")
    print(f"load average at start: {load_average()}")
    print("one matchmaking cycle over N waiting tickets (waits uniform 0-60 s, ratings N(10, 8)); "
          f"median (min-max) of {args.repeats}")
    old = old_grouping(args.old) if args.old else None
    with tempfile.TemporaryDirectory(prefix="bench-mm-") as workdir:
        for n in args.sizes:
            for scenario in args.scenarios:
                run(scenario, n, args.seed, args.repeats, stores, Path(workdir), old)
    print(f"\nload average at end: {load_average()}")


if __name__ == "__main__":
    main()
